#include "tremor/operator/operator.hpp"

#include <cstdint>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/operator/columns.hpp"

namespace tremor::op {

namespace {

std::string_view space_name(MemorySpace space) { return space == MemorySpace::Device ? "GPU" : "host"; }

}  // namespace

template <class Real>
void gather_column(const Exec& exec, Index n, int columns, int s, const Real* from, Real* to) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { to[i] = from[static_cast<Size>(i) * columns + s]; });
}

template <class Real>
void scatter_column(const Exec& exec, Index n, int columns, int s, const Real* from, Real* to) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) { to[static_cast<Size>(i) * columns + s] = from[i]; });
}

template void gather_column<float>(const Exec&, Index, int, int, const float*, float*);
template void gather_column<double>(const Exec&, Index, int, int, const double*, double*);
template void scatter_column<float>(const Exec&, Index, int, int, const float*, float*);
template void scatter_column<double>(const Exec&, Index, int, int, const double*, double*);

template <class Real>
Operator<Real>::~Operator() = default;

template <class Real>
void Operator<Real>::check(View<const Real> x, View<Real> y, int columns) const {
  const MemorySpace space = exec().space();
  TREMOR_CHECK(columns >= 1, name(), " operator: ", columns, " vectors at once");
  TREMOR_CHECK(columns == 1 || state_size() == 0 || state_columns() == columns, name(), " operator: it keeps state (",
               state_size(), " values, advanced once per apply) for ", state_columns(), " vector(s), not ", columns);
  const Size n = static_cast<Size>(n_dofs()) * columns;
  TREMOR_CHECK(x.size == n && y.size == n, name(), " operator: x has ", x.size, " entries and y ", y.size,
               "; the operator has ", n_dofs(), " DOFs", columns > 1 ? str(" (x ", columns, " vectors)") : "");
  TREMOR_CHECK(x.space == space && y.space == space, name(), " operator: x is in ", space_name(x.space),
               " memory and y in ", space_name(y.space), " memory; the operator runs on ", exec().describe());
  const auto x_begin = reinterpret_cast<std::uintptr_t>(x.data), y_begin = reinterpret_cast<std::uintptr_t>(y.data);
  const std::uintptr_t bytes = static_cast<std::uintptr_t>(n) * sizeof(Real);
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
void Operator<Real>::apply_batch(View<const Real> x, View<Real> y, int columns) const {
  check(x, y, columns);
  if (columns == 1)
    apply_unchecked(x.data, y.data);
  else
    apply_batch_unchecked(x.data, y.data, columns);
}

template <class Real>
void Operator<Real>::add_batch(View<const Real> x, View<Real> y, int columns) const {
  check(x, y, columns);
  TREMOR_CHECK(adds(), name(), " operator: it overwrites y and cannot add into it");
  if (columns == 1)
    add_unchecked(x.data, y.data);
  else
    add_batch_unchecked(x.data, y.data, columns);
}

template <class Real>
void Operator<Real>::apply_batch_unchecked(const Real* x, Real* y, int columns) const {
  batch_one_by_one(x, y, columns, false);
}

template <class Real>
void Operator<Real>::add_batch_unchecked(const Real* x, Real* y, int columns) const {
  batch_one_by_one(x, y, columns, true);
}

template <class Real>
void Operator<Real>::batch_one_by_one(const Real* x, Real* y, int columns, bool add) const {
  const Exec& on = exec();
  const Index n = n_dofs();
  if (column_x_.size() != n) {
    column_x_ = DeviceArray<Real>(on, n);
    column_y_ = DeviceArray<Real>(on, n);
  }
  Real* xs = column_x_.data();
  Real* ys = column_y_.data();
  const bool states = state_size() > 0;
  for (int s = 0; s < columns; ++s) {
    if (states) select_state(s);  // (keep_states: each vector's own)
    gather_column(on, n, columns, s, x, xs);
    // y's column too, so that rows an operator leaves alone (a RowBlock's others) go back as they were.
    gather_column(on, n, columns, s, static_cast<const Real*>(y), ys);
    if (add)
      add_unchecked(xs, ys);
    else
      apply_unchecked(xs, ys);
    scatter_column(on, n, columns, s, static_cast<const Real*>(ys), y);
  }
  if (states) select_state(0);  // (the first's live between batches: a checkpoint's, reset_state's)
}

template <class Real>
void Operator<Real>::keep_states(int columns) {
  TREMOR_CHECK(columns >= 1, name(), " operator: a state for ", columns, " vectors");
  TREMOR_CHECK(columns == 1 || state_size() == 0, name(), " operator: it keeps state and cannot keep one for each of ",
               columns, " vectors");
}

template <class Real>
void Operator<Real>::set_state(std::span<const double> values) {
  TREMOR_CHECK(values.size() == static_cast<std::size_t>(state_size()), name(), " operator: a state of ",
               values.size(), " values given, it keeps ", state_size());
}

template class Operator<float>;
template class Operator<double>;

}  // namespace tremor::op
