#pragma once
// K in two parts, so that a decomposed run can finish the forces of its shared nodes first, start
// their exchange, and compute the rest while it runs (the overlap of the multi-GPU spectral-element
// paper, section 3). Two kinds of part:
//   - operators on disjoint sets of elements that add into y (op::Operator::adds(): the
//     element-by-element kinds), the elements touching a shared node first;
//   - RowBlocks, each writing a range of y's rows only (the assembled kinds' rows of the shared
//     nodes, then the rest).
// The first part may run on a stream of its own (the exchange's), beside the second, where that
// is safe: parts adding by atomics, or RowBlocks. As one operator, a SplitOperator applies both
// parts, one after the other.
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "tremor/operator/operator.hpp"

namespace tremor::op {

// The rows [first_row, first_row + rows.n_dofs()) of an operator of n_dofs DOFs: `rows` is a
// rectangular operator (its n_dofs() its rows) whose columns are all n_dofs. Applied, it writes
// those rows of y only.
template <class Real>
class RowBlock final : public Operator<Real> {
 public:
  RowBlock(std::unique_ptr<Operator<Real>> rows, Index first_row, Index n_dofs);
  const Exec& exec() const override { return rows_->exec(); }
  Index n_dofs() const override { return n_dofs_; }
  std::string_view name() const override { return rows_->name(); }
  std::size_t bytes() const override { return rows_->bytes(); }
  std::string details() const override { return rows_->details(); }
  double flops() const override { return rows_->flops(); }
  void apply_unchecked(const Real* x, Real* y) const override { rows_->apply_unchecked(x, y + first_row_); }
  // Several vectors interleaved: its rows of each at once where its rows' operator fuses them (row
  // first_row_ of vector s at first_row_ * columns + s); else vector by vector, its rows alone.
  void apply_batch_unchecked(const Real* x, Real* y, int columns) const override {
    if (!rows_->fuses_batch()) return op::Operator<Real>::apply_batch_unchecked(x, y, columns);
    rows_->apply_batch_unchecked(x, y + static_cast<Size>(first_row_) * columns, columns);
  }
  bool fuses_batch() const override { return rows_->fuses_batch(); }

 private:
  std::unique_ptr<Operator<Real>> rows_;
  Index first_row_ = 0, n_dofs_ = 0;
};

template <class Real>
class SplitOperator final : public Operator<Real> {
 public:
  // Both parts add into y (disjoint elements) or neither does (RowBlocks of disjoint rows covering
  // every row); one size, one backend and device (the first may be on another stream: the
  // operator's Exec is the second's). Throws tremor::Error otherwise.
  SplitOperator(std::unique_ptr<Operator<Real>> first, std::unique_ptr<Operator<Real>> second);
  const Operator<Real>& first() const { return *first_; }
  const Operator<Real>& second() const { return *second_; }

  const Exec& exec() const override { return second_->exec(); }
  Index n_dofs() const override { return first_->n_dofs(); }
  std::string_view name() const override { return first_->name(); }
  std::size_t bytes() const override { return first_->bytes() + second_->bytes(); }
  std::string details() const override;
  double flops() const override { return first_->flops() + second_->flops(); }
  void apply_unchecked(const Real* x, Real* y) const override;
  bool adds() const override { return first_->adds(); }
  void add_unchecked(const Real* x, Real* y) const override;
  Size state_size() const override { return first_->state_size() + second_->state_size(); }
  void reset_state() override {
    first_->reset_state();
    second_->reset_state();
  }
  void keep_states(int columns) override {
    first_->keep_states(columns);
    second_->keep_states(columns);
  }
  int state_columns() const override { return std::max(first_->state_columns(), second_->state_columns()); }
  void select_state(int column) const override {
    first_->select_state(column);
    second_->select_state(column);
  }
  std::vector<Size> state_offsets() const override;
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> values) override;

 private:
  // Both parts, each by `part` (apply or add); the first waited for where on another stream.
  template <class Part>
  void both(Part part) const;
  std::unique_ptr<Operator<Real>> first_, second_;
};

extern template class RowBlock<float>;
extern template class RowBlock<double>;
extern template class SplitOperator<float>;
extern template class SplitOperator<double>;

}  // namespace tremor::op
