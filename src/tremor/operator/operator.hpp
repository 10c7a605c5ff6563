#pragma once
// Operator<Real>: y = A x for a square operator on DOF vectors (node-major) in the memory of one
// Exec: the explicit scheme's K u (pogo paper section 2.1, Eq. 1-4), the static solver's CG
// matrix. Every kind (registry.hpp) implements it; the time loop and CG hold it by this interface.
// Virtual at host level only: one call per step or iteration, the loops inside are kernels on
// the operator's Exec, and apply() only queues work on a Cuda Exec's stream.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/backend/view.hpp"
#include "tremor/core/config.hpp"

namespace tremor::op {

template <class Real>
class Operator {
 public:
  virtual ~Operator();
  // The Exec whose memory holds the operator and the vectors it applies to.
  virtual const Exec& exec() const = 0;
  virtual Index n_dofs() const = 0;
  // Its name in the registry (registry.hpp).
  virtual std::string_view name() const = 0;
  // Memory the operator reads per apply besides x and y (its own arrays), in bytes.
  virtual std::size_t bytes() const = 0;
  // A line about its storage for reports (padding of the padded formats); empty by default.
  virtual std::string details() const { return {}; }
  // Floating-point operations per apply, counted from the kernel's arithmetic (a multiply-add is
  // 2, a division 1), for the benchmark's roofline; 0 where not counted.
  virtual double flops() const { return 0.0; }

  // y = A x. Throws tremor::Error, naming the operator, unless both views hold n_dofs() entries in
  // the memory of exec() and do not overlap (y is overwritten).
  void apply(View<const Real> x, View<Real> y) const;
  // The same on pointers the caller has checked once: what a kind implements. (Public, as nvcc
  // does not allow kernels' lambdas in a protected member.)
  virtual void apply_unchecked(const Real* x, Real* y) const = 0;

  // Whether the operator can add into y (y += A x): those that scatter element by element, whose
  // apply() is a pass zeroing y and then this. A caller that keeps y at zero between applies (the
  // explicit scheme zeroes K u as its update reads it) saves that pass, a write of every DOF.
  virtual bool adds() const { return false; }

  // An operator built for a time step whose laws keep state at their points (the memory variables
  // of attenuating sections, fem/viscoelastic.hpp) advances it by one step in every apply() or
  // add(): such an operator is applied once per step, by the time loop. state_size() counts the
  // values (0: stateless); reset_state() puts them at rest (zero), as a shot starts.
  virtual Size state_size() const { return 0; }
  virtual void reset_state() {}
  // Shots stepped together by an operator that keeps state: keep_states(k) keeps k states, each
  // at rest, and apply_batch / add_batch then apply vector s with state s, one vector at a time
  // (state_size() stays one state's; reset_state() puts all k at rest; the element-by-element
  // state of checkpoints is the first's). Throws tremor::Error, naming the operator, for k < 1.
  // By default (no state) nothing is kept: state_columns() is 1.
  virtual void keep_states(int columns);
  virtual int state_columns() const { return 1; }
  // Makes vector `column`'s state the one the applies advance (after keep_states).
  virtual void select_state(int column) const { (void)column; }
  // The state element by element, as a checkpoint holds it: element e of the elements the
  // operator was built on (in their order; a split operator's first part's, then its second's)
  // has values [offsets[e], offsets[e + 1]) of get_state(), in Real widened to double (exact, and
  // exact back). Empty offsets: stateless. set_state() takes values of that layout back; throws
  // tremor::Error, naming the operator, for another count.
  virtual std::vector<Size> state_offsets() const { return {}; }
  virtual std::vector<double> get_state() const { return {}; }
  virtual void set_state(std::span<const double> values);
  // y += A x, with apply()'s checks. Throws tremor::Error where !adds().
  void add(View<const Real> x, View<Real> y) const;
  virtual void add_unchecked(const Real* x, Real* y) const;

  // Several vectors at once, the shots a run steps together: `columns` vectors interleaved, entry
  // i of vector s at i * columns + s (x and y hold n_dofs() * columns entries). y = A x for each,
  // with the bits apply() gives that vector alone. Throws tremor::Error, naming the operator, for
  // views of another size or memory, for columns < 1, and for an operator that keeps state
  // (state_size() > 0: one state, advanced once per apply) unless it keeps one for each vector
  // (keep_states).
  void apply_batch(View<const Real> x, View<Real> y, int columns) const;
  // y += A x for each vector, with add()'s checks as well.
  void add_batch(View<const Real> x, View<Real> y, int columns) const;
  // What a kind implements. By default each vector is gathered into a scratch vector, applied and
  // scattered back (two scratch vectors kept by the operator): the bits of apply(), none of its
  // reads shared. A kind that reads its matrix or element data once for all the vectors overrides
  // both and says so in fuses_batch(), which a run's choice of how many shots to step together
  // reads (explicit/solver.hpp, RunOptions::shots_together).
  virtual void apply_batch_unchecked(const Real* x, Real* y, int columns) const;
  virtual void add_batch_unchecked(const Real* x, Real* y, int columns) const;
  virtual bool fuses_batch() const { return false; }

 private:
  void check(View<const Real> x, View<Real> y, int columns = 1) const;
  // The default apply_batch_unchecked / add_batch_unchecked: vector by vector through scratch.
  void batch_one_by_one(const Real* x, Real* y, int columns, bool add) const;
  mutable DeviceArray<Real> column_x_, column_y_;
};

extern template class Operator<float>;
extern template class Operator<double>;

}  // namespace tremor::op
