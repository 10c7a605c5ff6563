#pragma once
// A run's set-up and its shot loop (solver.cpp's run_explicit calls it once the pre-flight is
// done): its subdomains over processes, one domain, or several in this process, then the shots
// every run shares (shots.hpp).
#include <string>

#include "tremor/core/clock.hpp"
#include "tremor/explicit/solver.hpp"

namespace tremor::explicit_fe {

// The run of `model` (the solid of a model with fluids) on `exec` after `preflight`; the name of
// each set-up phase as it completes goes to `last_phase` (SetupClock), for a failure's message.
template <class Real>
ExplicitRun run_typed(const Exec& exec, const Model& model, const Preflight& preflight, const RunOptions& options,
                      Observer* observer, Clock::time_point called, std::string& last_phase);

extern template ExplicitRun run_typed<float>(const Exec&, const Model&, const Preflight&, const RunOptions&, Observer*,
                                             Clock::time_point, std::string&);
extern template ExplicitRun run_typed<double>(const Exec&, const Model&, const Preflight&, const RunOptions&,
                                              Observer*, Clock::time_point, std::string&);

}  // namespace tremor::explicit_fe
