#include "tremor/operator/operator.hpp"

#include <cstdint>

#include "tremor/core/error.hpp"

namespace tremor::op {

namespace {

std::string_view space_name(MemorySpace space) { return space == MemorySpace::Device ? "GPU" : "host"; }

}  // namespace

template <class Real>
Operator<Real>::~Operator() = default;

template <class Real>
void Operator<Real>::check(View<const Real> x, View<Real> y) const {
  const MemorySpace space = exec().space();
  TREMOR_CHECK(x.size == n_dofs() && y.size == n_dofs(), name(), " operator: x has ", x.size, " entries and y ",
               y.size, "; the operator has ", n_dofs(), " DOFs");
  TREMOR_CHECK(x.space == space && y.space == space, name(), " operator: x is in ", space_name(x.space),
               " memory and y in ", space_name(y.space), " memory; the operator runs on ", exec().describe());
  const auto x_begin = reinterpret_cast<std::uintptr_t>(x.data), y_begin = reinterpret_cast<std::uintptr_t>(y.data);
  const std::uintptr_t bytes = static_cast<std::uintptr_t>(n_dofs()) * sizeof(Real);
  TREMOR_CHECK(y_begin + bytes <= x_begin || x_begin + bytes <= y_begin || bytes == 0, name(),
               " operator: x and y overlap");
}

template <class Real>
void Operator<Real>::apply(View<const Real> x, View<Real> y) const {
  check(x, y);
  apply_unchecked(x.data, y.data);
}

template <class Real>
void Operator<Real>::add(View<const Real> x, View<Real> y) const {
  check(x, y);
  add_unchecked(x.data, y.data);
}

template <class Real>
void Operator<Real>::add_unchecked(const Real*, Real*) const {
  TREMOR_CHECK(false, name(), " operator: it overwrites y and cannot add into it");
}

template <class Real>
void Operator<Real>::set_state(std::span<const double> values) {
  TREMOR_CHECK(values.size() == static_cast<std::size_t>(state_size()), name(), " operator: a state of ",
               values.size(), " values given, it keeps ", state_size());
}

template class Operator<float>;
template class Operator<double>;

}  // namespace tremor::op
