// The sem operator's state (operator.hpp): the memory variables of attenuating sections and a
// PML's variables, made for a time step, set to rest, and read and written element by element for
// checkpoints (operator/element_state.hpp), whatever their arrangement on the device (the memory
// variables' PointState, point_state.hpp).
#include <algorithm>
#include <bit>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/fem/pml_law.hpp"
#include "tremor/fem/viscoelastic.hpp"
#include "tremor/operator/element_state.hpp"
#include "tremor/sem/operator.hpp"
#include "tremor/sem/point_state.hpp"

namespace tremor::sem {

template <class Real>
void SemOperator<Real>::keep_memory_variables(double dt) {
  const fem::DeviceElements& els = *elements_;
  int most = 0;
  records_ = DeviceArray<Real>(exec_, std::span<const Real>(rounded<Real>(fem::solids_records(els.solids, dt, most))));
  int coarse_most = 0;  // the most solids of a coarse-grained section
  coarse_only_ = true;
  for (const fem::SectionSolids& solids : els.solids) {
    if (solids.coarse) coarse_most = std::max(coarse_most, solids.n);
    if (solids.n > 0 && !solids.coarse) coarse_only_ = false;
  }
  for (std::size_t b = 0; b < els.blocks.size(); ++b) {
    const fem::DeviceElementBlock& block = els.blocks[b];
    const int nv = block.type == ElementType::QuadGLL ? 3 : 6;
    const Size values = memory_layout(b).size(block.n_elements, most * nv);  // (rows padded)
    memory_.emplace_back(exec_, static_cast<Index>(values));
    if (coarse_most == 0 || basis_[b].size() == 0) {  // (no basis: an empty block of another type)
      coarse_.emplace_back();
      continue;
    }
    const int n1 = block.order + 1, dim = block.type == ElementType::QuadGLL ? 2 : 3;
    TREMOR_CHECK(fem::coarse_solids_fit(coarse_most, n1, dim), "coarse-grained memory variables (q_coarse_grained) ",
                 "spread ", coarse_most, " solids over an element's points: ", element_name(block.type, block.order),
                 " elements hold ", fem::coarse_solids_most(n1, dim), " of them at most; take fewer solids (q_solids) ",
                 "or a higher order");
    // The block's points' weights: its 1D rule's (Basis1d: GLL where collocated, order 2 and more;
    // Gauss at order 1). Orders up to 8: at most 9 points a direction.
    double points[9], w[9];
    if (block.order >= 2)
      gauss_lobatto(n1, points, w);
    else
      gauss_legendre(n1, points, w);
    coarse_.emplace_back(exec_, std::span<const Real>(rounded<Real>(fem::coarse_weights(w, n1, dim))));
  }
  reset_state();
}

template <class Real>
Size SemOperator<Real>::state_size() const {
  Size total = 0;
  for (std::size_t b = 0; b < memory_.size(); ++b) total += memory_values(b);
  for (const DeviceArray<Real>& values : pml_) total += values.size();
  return total;
}

// Block b's memory variables, those of its elements' points (memory_'s rows are padded).
template <class Real>
Size SemOperator<Real>::memory_values(std::size_t b) const {
  const fem::DeviceElementBlock& block = elements_->blocks[b];
  return static_cast<Size>(memory_layout(b).values(block.n_elements, memory_[b].size())) *
         static_cast<Size>(block.connectivity.size());
}

// In rows where the column kernel applies the block: hexahedra of GLL order 2 and more scattered
// by atomics, in an operator without a PML (whose elements take the point kernel; keep_pml comes
// before the memory variables, operator_setup.cpp).
template <class Real>
PointState SemOperator<Real>::memory_layout(std::size_t b) const {
  return point_state(elements_->dim, elements_->blocks[b].order, columns_[b] != 0 && pml_.empty());
}

// Block b's memory variables element by element (value k of point p of element e at e values
// points + k points + p) from memory_'s arrangement, or back (`to_device`).
template <class Real>
void SemOperator<Real>::memory_by_element(std::size_t b, std::vector<Real>& by_element, bool to_device) const {
  const fem::DeviceElementBlock& block = elements_->blocks[b];
  const PointState s = memory_layout(b);
  if (!s.grouped) {  // (element by element already: the array as it is)
    if (to_device)
      memory_[b].copy_from_host(by_element);
    else
      by_element = memory_[b].to_host();
    return;
  }
  const Index n = block.n_elements;
  const int values = s.values(n, memory_[b].size()), points = s.points;
  const Size per_group = s.per_group(values);
  std::vector<Real> device = to_device ? std::vector<Real>(static_cast<std::size_t>(memory_[b].size()), Real(0))
                                       : memory_[b].to_host();
  if (!to_device) by_element.assign(static_cast<std::size_t>(memory_values(b)), Real(0));
  for (Index e = 0; e < n; ++e)
    for (int k = 0; k < values; ++k)
      for (int p = 0; p < points; ++p) {
        const auto at = static_cast<std::size_t>(s.element(e, per_group) + k * s.stride() + s.point(p));
        const auto own = (static_cast<std::size_t>(e) * values + k) * points + p;
        if (to_device)
          device[at] = by_element[own];
        else
          by_element[own] = device[at];
      }
  if (to_device) memory_[b].copy_from_host(device);
}

template <class Real>
void SemOperator<Real>::reset_state() {
  for (DeviceArray<Real>& values : memory_) fill_zero(exec_, values.data(), values.size());
  for (DeviceArray<Real>& values : pml_) fill_zero(exec_, values.data(), values.size());
  memory_columns_.reset(exec_);
  pml_columns_.reset(exec_);
}

template <class Real>
void SemOperator<Real>::keep_states(int columns) {
  select_state(0);
  memory_columns_.keep(exec_, memory_, columns);
  pml_columns_.keep(exec_, pml_, columns);
}

template <class Real>
void SemOperator<Real>::select_state(int column) const {
  memory_columns_.select(memory_, column);
  pml_columns_.select(pml_, column);
}

template <class Real>
void SemOperator<Real>::keep_pml(const PmlProfile& profile, double dt) {
  const fem::DeviceElements& els = *elements_;
  TREMOR_CHECK(dt > 0.0, "sem operator: a PML needs the time step");
  const std::vector<double> coordinates = els.coordinates.to_host();
  const int dim = els.dim;
  for (const fem::DeviceElementBlock& block : els.blocks) {
    TREMOR_CHECK((block.type == ElementType::HexGLL || block.type == ElementType::QuadGLL) && block.order >= 2,
                 "sem operator: a PML's elements must be GLL of order 2 or more (their points are their nodes)");
    const int np = block.n_element_nodes;
    const std::vector<Index> connectivity = block.connectivity.to_host();
    std::vector<double> stretch(static_cast<std::size_t>(block.n_elements) * 2 * dim * np);
    std::vector<int> axes(static_cast<std::size_t>(block.n_elements), 0);
    for (Index e = 0; e < block.n_elements; ++e)
      for (int p = 0; p < np; ++p) {
        const auto node = static_cast<std::size_t>(connectivity[static_cast<std::size_t>(e) * np + p]);
        double x[3] = {0.0, 0.0, 0.0}, d[3], alpha[3];
        for (int c = 0; c < dim; ++c) x[c] = coordinates[node * dim + c];
        profile.at(x, d, alpha);
        double* out = stretch.data() + static_cast<std::size_t>(e) * 2 * dim * np + p;
        for (int k = 0; k < dim; ++k) {
          out[k * np] = d[k];
          out[(dim + k) * np] = alpha[k];
          // (in Real: a d too small for Real is 0 there, and the axis passes all)
          if (static_cast<Real>(d[k]) != Real(0)) axes[static_cast<std::size_t>(e)] |= 1 << k;
        }
      }
    stretch_.emplace_back(exec_, std::span<const Real>(rounded<Real>(stretch)));
    pml_axes_.emplace_back(exec_, std::span<const int>(axes));
    for (const int a : axes)
      pml_touched_ += static_cast<Size>(np) * (2 * (dim == 3 ? fem::pml_values_used<3>(a) : fem::pml_values_used<2>(a)) +
                                               2 * std::popcount(static_cast<unsigned>(a)));
    if (profile.grid_damped()) {  // each element's beta / dt; the gather reads the last step's u too
      std::vector<double> rate(static_cast<std::size_t>(block.n_elements));
      for (Index e = 0; e < block.n_elements; ++e)
        rate[static_cast<std::size_t>(e)] =
            profile.element_beta(coordinates.data(), connectivity.data() + static_cast<std::size_t>(e) * np, np) / dt;
      grid_rate_.emplace_back(exec_, std::span<const Real>(rounded<Real>(rate)));
      pml_touched_ += static_cast<Size>(block.n_elements) * (1 + static_cast<Size>(np) * dim);
    }
    pml_.emplace_back(exec_, static_cast<Index>(static_cast<Size>(block.n_elements) * np * dim * dim * dim));
  }
  time_step_ = dt;
  reset_state();
}

// An element's state: its memory variables (memory_), then its PML's (pml_), each block's arrays
// element by element.
template <class Real>
std::vector<Size> SemOperator<Real>::state_offsets() const {
  if (memory_.empty() && pml_.empty()) return {};
  std::vector<Size> offsets{0};
  for (std::size_t b = 0; b < elements_->blocks.size(); ++b) {
    const Index n = elements_->blocks[b].n_elements;
    const Size own = (memory_.empty() ? 0 : memory_values(b)) + (pml_.empty() ? 0 : pml_[b].size());
    const Size per_element = n > 0 ? own / n : 0;
    for (Index e = 0; e < n; ++e) offsets.push_back(offsets.back() + per_element);
  }
  return offsets;
}

template <class Real>
std::vector<double> SemOperator<Real>::get_state() const {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(state_size()));
  for (std::size_t b = 0; b < elements_->blocks.size(); ++b) {
    std::vector<Real> memory;
    if (!memory_.empty()) memory_by_element(b, memory, false);
    op::append_by_element(static_cast<std::size_t>(elements_->blocks[b].n_elements), memory,
                          pml_.empty() ? std::vector<Real>() : pml_[b].to_host(), values);
  }
  return values;
}

template <class Real>
void SemOperator<Real>::set_state(std::span<const double> values) {
  op::Operator<Real>::set_state(values);  // the count
  for (std::size_t b = 0; b < elements_->blocks.size(); ++b) {
    const auto n = static_cast<std::size_t>(elements_->blocks[b].n_elements);
    std::vector<Real> memory(memory_.empty() ? 0 : static_cast<std::size_t>(memory_values(b)));
    std::vector<Real> pml(pml_.empty() ? 0 : static_cast<std::size_t>(pml_[b].size()));
    values = op::take_by_element(n, values, memory, pml);
    if (!memory_.empty()) memory_by_element(b, memory, true);
    if (!pml_.empty()) pml_[b].copy_from_host(pml);
  }
}

#define TREMOR_SEM_STATE(Real)                                                        \
  template void SemOperator<Real>::keep_memory_variables(double);                     \
  template Size SemOperator<Real>::state_size() const;                                \
  template void SemOperator<Real>::reset_state();                                     \
  template void SemOperator<Real>::keep_states(int);                                  \
  template void SemOperator<Real>::select_state(int) const;                           \
  template void SemOperator<Real>::keep_pml(const PmlProfile&, double);               \
  template std::vector<Size> SemOperator<Real>::state_offsets() const;                \
  template std::vector<double> SemOperator<Real>::get_state() const;                  \
  template void SemOperator<Real>::set_state(std::span<const double>);              \
  template Size SemOperator<Real>::memory_values(std::size_t) const;                  \
  template PointState SemOperator<Real>::memory_layout(std::size_t) const;            \
  template void SemOperator<Real>::memory_by_element(std::size_t, std::vector<Real>&, bool) const;
TREMOR_SEM_STATE(float)
TREMOR_SEM_STATE(double)
#undef TREMOR_SEM_STATE

}  // namespace tremor::sem
