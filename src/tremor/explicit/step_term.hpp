#pragma once
// A per-step term: a force the time loop adds to a subdomain's internal forces at every step,
// beside the stiffness's K u (docs/architecture.md, "Per-step terms"): a damping force (beta K v,
// C v), a memory-variable update and the stress it adds, a coupling force on interface faces.
// Each term is one object on the subdomain (Subdomain::terms) that owns its data on the
// subdomain's Exec; the time loop calls every term after the operator's apply and before the
// exchange, so a term's force on the nodes subdomains share is summed like K u (and may start it
// beside the apply: start_forces).
#include <string_view>

#include "tremor/backend/view.hpp"
#include "tremor/explicit/central_difference.hpp"

namespace tremor::explicit_fe {

template <class Real>
class StepTerm {
 public:
  virtual ~StepTerm() = default;
  // What the term is, for messages ("stiffness-proportional damping").
  virtual std::string_view name() const = 0;
  // forces += the term's internal force at time scheme.time(), from the scheme's state
  // (displacement(), previous_displacement()), on the subdomain's Exec and in its numbering. Like
  // K u, it is the part from the subdomain's own elements: the exchange sums the parts on shared
  // nodes. Only queues work on a Cuda Exec.
  virtual void add_forces(const CentralDifference<Real>& scheme, View<Real> forces) = 0;
  // Called before the stiffness's apply where the stiffness adds into K u (`forces`, zeroed by the
  // last update), then add_forces after it as always: a term whose forces do not need K u may
  // queue them here on a stream of its own (backend/side_stream.hpp), to run beside the apply's
  // kernels, adding them by atomics, and return true; its add_forces, called before the other
  // terms', then makes the Exec's later work wait for them. By default false: add_forces queues
  // the term's work after the apply's.
  virtual bool start_forces(const CentralDifference<Real>& scheme, View<Real> forces) {
    (void)scheme, (void)forces;
    return false;
  }
  // A shot starts from rest: the term's own state, if any, goes back to its initial value.
  virtual void start_from_rest() {}
};

}  // namespace tremor::explicit_fe
