#include "tremor/operator/split.hpp"

#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor::op {

template <class Real>
RowBlock<Real>::RowBlock(std::unique_ptr<Operator<Real>> rows, Index first_row, Index n_dofs)
    : rows_(std::move(rows)), first_row_(first_row), n_dofs_(n_dofs) {
  TREMOR_CHECK(rows_ && first_row >= 0 && first_row + rows_->n_dofs() <= n_dofs, "rows ", first_row, " to ",
               first_row + (rows_ ? rows_->n_dofs() : 0), " of an operator of ", n_dofs, " DOFs");
}

template <class Real>
SplitOperator<Real>::SplitOperator(std::unique_ptr<Operator<Real>> first, std::unique_ptr<Operator<Real>> second)
    : first_(std::move(first)), second_(std::move(second)) {
  TREMOR_CHECK(first_ && second_ && first_->adds() == second_->adds(),
               "a split operator's parts must both add into y, or both write their own rows");
  TREMOR_CHECK(first_->n_dofs() == second_->n_dofs() && first_->exec().backend() == second_->exec().backend() &&
                   first_->exec().device() == second_->exec().device(),
               "a split operator's parts must have one size and one device");
}

template <class Real>
std::string SplitOperator<Real>::details() const {
  const std::string a = first_->details(), b = second_->details();
  return a.empty() ? b : b.empty() ? a : str(a, "; ", b);
}

template <class Real>
template <class Part>
void SplitOperator<Real>::both(Part part) const {
  // Outside the time loop (set-up, energies): where the first part runs on a stream of its own, it
  // waits for the work queued on the second's, and the second for it.
  const bool apart = first_->exec().stream() != second_->exec().stream();
  if (apart) second_->exec().synchronize();
  part(*first_);
  if (apart) first_->exec().synchronize();
  part(*second_);
}

template <class Real>
void SplitOperator<Real>::apply_unchecked(const Real* x, Real* y) const {
  if (adds()) {
    fill_zero(exec(), y, n_dofs());
    add_unchecked(x, y);
    return;
  }
  both([&](const Operator<Real>& part) { part.apply_unchecked(x, y); });
}

template <class Real>
void SplitOperator<Real>::add_unchecked(const Real* x, Real* y) const {
  TREMOR_CHECK(adds(), name(), " operator: its parts write their rows and cannot add into y");
  both([&](const Operator<Real>& part) { part.add_unchecked(x, y); });
}

template class RowBlock<float>;
template class RowBlock<double>;
template <class Real>
std::vector<Size> SplitOperator<Real>::state_offsets() const {
  std::vector<Size> offsets = first_->state_offsets(), second = second_->state_offsets();
  if (offsets.empty() || second.empty()) return offsets.empty() ? second : offsets;
  for (std::size_t e = 1; e < second.size(); ++e) offsets.push_back(offsets.back() + second[e] - second[e - 1]);
  return offsets;
}

template <class Real>
std::vector<double> SplitOperator<Real>::get_state() const {
  std::vector<double> values = first_->get_state(), second = second_->get_state();
  values.insert(values.end(), second.begin(), second.end());
  return values;
}

template <class Real>
void SplitOperator<Real>::set_state(std::span<const double> values) {
  const auto n_first = static_cast<std::size_t>(first_->state_size());
  TREMOR_CHECK(values.size() == n_first + static_cast<std::size_t>(second_->state_size()), name(),
               " operator: a state of ", values.size(), " values given, it keeps ", state_size());
  first_->set_state(values.first(n_first));
  second_->set_state(values.subspan(n_first));
}

template class SplitOperator<float>;
template class SplitOperator<double>;

}  // namespace tremor::op
