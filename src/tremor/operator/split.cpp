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
template class SplitOperator<float>;
template class SplitOperator<double>;

}  // namespace tremor::op
