#pragma once
// The time-dependent right-hand side of the explicit scheme (pogo paper section 2.1: F in Eq. 4,
// and the constrained DOFs), from a Model:
//
//   point sources       F[dof] += amplitude * direction[c] * signal(t - delay) at each node (times
//                                 its weight; the signal's integral where it says so)
//   Abaqus *CLOAD       F[dof] += magnitude * amplitude(t), constant without an *AMPLITUDE
//   surface loads       F[dof] += f[dof] * signal(t - delay), or * amplitude(t) (Abaqus *DSLOAD,
//                                 *DLOAD), f the consistent nodal forces of fem::surface_forces()
//   body forces         F[dof] += f[dof] * amplitude(t), constant without an *AMPLITUDE (gravity:
//                                 Abaqus *DLOAD GRAV, BX, BY, BZ; [[body_force]]), f the
//                                 consistent nodal forces of fem::body_forces()
//   prescribed          u[dof]  = amplitude * factor[c] * signal(t - delay)    (model file)
//                       u[dof]  = value * amplitude(t), or value without one   (Abaqus *BOUNDARY
//                                 with a non-zero value or an amplitude)
//   held                u[dof]  = 0                        (Abaqus *BOUNDARY, zero, no amplitude)
//
// Precedence, DOF by DOF: a constraint wins over a load (a force on a held or prescribed DOF is
// dropped: the integrator ignores forces there); a prescribed displacement wins over a zero
// hold; of two prescriptions of one DOF the later in the model wins, with a warning.
//
// Per step the work is proportional to the loaded DOFs, not the model: the (slot, weight, time
// function) terms are precomputed, each time function is evaluated once per call, and the force
// vector is written only at the loaded DOFs. DeviceLoading does the same in the solver's memory
// with one host-to-device copy per chunk of steps rather than per step.
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/model/model.hpp"

namespace tremor::explicit_fe {

// One term of a loaded or prescribed DOF's value: weight * function(t).
struct LoadTerm {
  Index slot = 0;  // index into loaded_dofs() or prescribed_dofs()
  int function = 0;
  double weight = 0.0;
};

class Loading {
 public:
  // Resolves amplitudes by name; throws tremor::Error naming the load (its origin) when an
  // amplitude is missing or a component exceeds the mesh dimension. With `shot`, the loads of
  // transducers it does not fire are left out (model/transducer.hpp).
  explicit Loading(const Model& model, const Shot* shot = nullptr);

  // The loading of a subdomain that holds some of the model's nodes: local node i is model node
  // local_to_global[i]. Every DOF of those nodes keeps all its terms (a load on a node several
  // subdomains hold acts in full in each: the subdomains sum only their internal forces); DOFs of
  // other nodes are dropped. The sums per DOF are the model's, term for term.
  Loading restricted(std::span<const Index> local_to_global) const;

  // The loadings of shots stepped together (CentralDifference's columns): DOF i of shots[s] becomes
  // field entry i * shots.size() + s, with its terms in their order (each entry's sum the shot's,
  // term for term). The shots hold the same DOFs (one model's).
  static Loading stacked(std::span<const Loading* const> shots);

  Index n_dofs() const { return n_dofs_; }
  // Sorted, unique DOF lists (node * dim + component); the three are disjoint.
  const std::vector<Index>& held_dofs() const { return held_; }
  const std::vector<Index>& prescribed_dofs() const { return prescribed_; }
  const std::vector<Index>& loaded_dofs() const { return loaded_; }
  // held_dofs() and prescribed_dofs() together, sorted: what the integrator must not move.
  std::vector<Index> constrained_dofs() const;

  // Force at time t on each loaded DOF: out[k] belongs to loaded_dofs()[k].
  void forces(double t, std::span<double> out) const;
  // Prescribed displacement at time t: out[k] belongs to prescribed_dofs()[k].
  void prescribed(double t, std::span<double> out) const;

  // Highest significant frequency over the signals of sources, surface loads and prescribed
  // displacements and the *AMPLITUDE tables used (Signal::highest_frequency); 0 when nothing varies in time.
  double highest_frequency() const;
  // s: the time after which no load changes (a signal past its support, delays counted; a table
  // ending non-zero holds its last value, an integrated signal its integral's: constant or linear);
  // 0 when nothing varies in time.
  double last_change() const;
  // Number of distinct time functions evaluated per step (for tests and the pre-flight).
  std::size_t n_functions() const { return functions_.size(); }
  // Every time function at time t: out[f] for f < n_functions() (0 for one no term uses).
  void function_values(double t, std::span<double> out) const;
  // The terms, sorted by slot (within a slot in model order): forces() at t gives slot s the sum
  // over its terms of weight * function_values(t)[function], added in this order from 0.
  const std::vector<LoadTerm>& force_terms() const { return force_terms_; }
  const std::vector<LoadTerm>& prescribed_terms() const { return prescribed_terms_; }

 private:
  struct Function {
    Signal signal;
    double delay = 0.0;
    bool constant = false;  // 1 at all times
    int integrated = 0;     // the signal's time integral of this order (PointSource::integrated)
    double value(double t) const {
      return constant ? 1.0 : integrated ? signal.integral(t - delay, integrated) : signal.value(t - delay);
    }
  };
  using Term = LoadTerm;
  // The functions some force or prescribed term uses.
  std::set<int> used_functions() const;
  // Evaluates the functions used by `terms` once each at t, then sums the terms into out.
  void evaluate(const std::vector<Term>& terms, const std::vector<int>& used, double t, std::span<double> out) const;

  Loading() = default;
  int dim_ = 3;
  Index n_dofs_ = 0;
  std::vector<Function> functions_;
  std::vector<Index> held_, prescribed_, loaded_;
  std::vector<Term> force_terms_, prescribed_terms_;  // sorted by slot
  std::vector<int> force_functions_, prescribed_functions_;  // functions each list uses
  mutable std::vector<double> scratch_;  // one value per function
};

// The loads of Eq. 4 in the Exec's memory: the forces at the loaded DOFs (a list: no vector of
// n_dofs values) and the prescribed displacements. The host evaluates the time functions for a
// chunk of steps at once and copies that table (chunk + 1 rows of n_functions() doubles) to the
// Exec in one transfer; each step a kernel sums every loaded or prescribed DOF's terms in double,
// in the order Loading does, and rounds to Real (host backends: the same bits as Loading). Per
// step O(loaded + prescribed DOFs) work and no host transfer; one copy every `chunk` steps.
template <class Real>
class DeviceLoading {
 public:
  DeviceLoading(const Exec& exec, const Loading& loading, double dt, int chunk = 256);
  // F at t = step dt (loads(), at loaded_dofs()) and the prescribed displacements at (step + 1) dt
  // (prescribed_values()): what step `step` of the central-difference scheme needs.
  void update(long long step);
  View<const Index> loaded_dofs() const { return force_terms_.dofs.view(); }
  View<const Real> loads() const { return loads_.view(); }
  View<const Index> prescribed_dofs() const { return prescribed_dofs_.view(); }
  View<const Real> prescribed_values() const { return prescribed_values_.view(); }

 private:
  struct Terms {  // one slot's terms: [offsets[s], offsets[s + 1]) of function/weight
    DeviceArray<Index> dofs;
    DeviceArray<Index> offsets;
    DeviceArray<int> function;
    DeviceArray<double> weight;
  };
  static Terms make_terms(const Exec& exec, const std::vector<Index>& dofs, const std::vector<LoadTerm>& terms);
  void fill_table(long long first);

  Exec exec_;
  const Loading& loading_;
  double dt_ = 0.0;
  int chunk_ = 256;
  Index n_functions_ = 0;
  long long table_first_ = -1;  // step of the table's row 0; -1: none yet
  std::vector<double> host_table_;
  DeviceArray<double> table_;  // [row][function], row r at time (table_first_ + r) dt
  Terms force_terms_, prescribed_terms_;
  DeviceArray<Real> loads_;  // per loaded DOF (Loading::loaded_dofs())
  DeviceArray<Index> prescribed_dofs_;
  DeviceArray<Real> prescribed_values_;
};

extern template class DeviceLoading<float>;
extern template class DeviceLoading<double>;

}  // namespace tremor::explicit_fe
