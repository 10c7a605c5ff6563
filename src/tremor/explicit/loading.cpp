#include "tremor/explicit/loading.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/fem/loads.hpp"
#include "tremor/fem/point_sources.hpp"
#include "tremor/model/pml.hpp"

namespace tremor::explicit_fe {

namespace {

struct Entry {
  Index dof = 0;
  int function = 0;
  double weight = 0.0;
};

const Amplitude& find_amplitude(const Model& model, const std::string& name, const std::string& origin) {
  for (const Amplitude& amplitude : model.amplitudes)
    if (amplitude.name == name) return amplitude;
  throw Error(str(origin.empty() ? model.source : origin, ": amplitude '", name, "' is not defined"));
}

std::vector<int> functions_of(const std::vector<Entry>& entries) {
  std::set<int> used;
  for (const Entry& entry : entries) used.insert(entry.function);
  return {used.begin(), used.end()};
}

}  // namespace

Loading::Loading(const Model& model, const Shot* shot) {
  const int dim = model.mesh.dim();
  const Index n_nodes = model.mesh.n_nodes();
  dim_ = dim;
  n_dofs_ = n_nodes * dim;
  const auto dof_of = [&](Index node, int component, const std::string& origin) {
    TREMOR_CHECK(node >= 0 && node < n_nodes, origin, ": node index ", node, " out of range");
    TREMOR_CHECK(component >= 0 && component < dim, origin, ": component ", component + 1, " in a ", dim,
                 "D model");
    return node * dim + component;
  };
  // Time functions: one constant, then one per amplitude name, then one per source.
  functions_.push_back({Signal{}, 0.0, true});
  std::map<std::string, int> by_amplitude;
  const auto amplitude_function = [&](const std::string& name, const std::string& origin) {
    if (name.empty()) return 0;
    const auto found = by_amplitude.find(name);
    if (found != by_amplitude.end()) return found->second;
    functions_.push_back({Signal::from_amplitude(find_amplitude(model, name, origin)), 0.0, false});
    const int index = static_cast<int>(functions_.size()) - 1;
    by_amplitude.emplace(name, index);
    return index;
  };

  // Constraints: zero holds, then prescriptions (which override holds and earlier prescriptions).
  std::set<Index> held;
  std::map<Index, std::pair<Entry, std::string>> prescribed;  // dof -> (entry, origin)
  std::set<std::pair<std::string, std::string>> warned;
  const auto prescribe = [&](Index dof, int function, double weight, const std::string& origin) {
    const auto found = prescribed.find(dof);
    if (found != prescribed.end() && warned.insert({found->second.second, origin}).second)
      log::warn(str(origin, ": prescribes degrees of freedom that ", found->second.second,
                    " prescribed already; the later prescription applies"));
    prescribed[dof] = {Entry{dof, function, weight}, origin};
  };
  for (const FixedDof& fixed : model.fixed) {
    if (fixed.component == FixedDof::pressure) continue;  // a fluid's (fluid_loading)
    const bool zero = fixed.value == 0.0 && fixed.amplitude.empty();
    const int function = zero ? 0 : amplitude_function(fixed.amplitude, fixed.origin);
    for (Index node : fixed.nodes) {
      const Index dof = dof_of(node, fixed.component, fixed.origin);
      if (zero)
        held.insert(dof);
      else
        prescribe(dof, function, fixed.value, fixed.origin);
    }
  }
  // A PML's outer faces are held (model/pml.hpp).
  for (const Index node : pml_outer_nodes(model))
    for (int c = 0; c < dim; ++c) held.insert(dof_of(node, c, "PML outer face"));
  for (const PrescribedDisplacement& motion : model.prescribed) {
    if (!fires(shot, motion.transducer)) continue;
    functions_.push_back({motion.signal, motion.delay, false, motion.integrated});
    const int function = static_cast<int>(functions_.size()) - 1;
    for (Index node : motion.nodes)
      for (int component : motion.components)
        prescribe(dof_of(node, component, motion.origin), function,
                  motion.amplitude * motion.factor[static_cast<std::size_t>(component)], motion.origin);
  }
  for (const auto& [dof, entry] : prescribed) held.erase(dof);  // a prescription wins over a hold
  held_.assign(held.begin(), held.end());
  std::vector<Entry> prescribed_entries;
  for (const auto& [dof, entry] : prescribed) {
    prescribed_.push_back(dof);
    prescribed_entries.push_back(entry.first);
  }

  // Loads; a load on a constrained DOF is dropped (the constraint wins).
  std::vector<Entry> loads;
  const auto constrained = [&](Index dof) { return held.count(dof) || prescribed.count(dof); };
  for (const PointSource& source : fem::placed_sources(model)) {  // (a fluid's volume: fluid_loading)
    if (!fires(shot, source.transducer)) continue;
    functions_.push_back({source.signal, source.delay, false, source.integrated});
    const int function = static_cast<int>(functions_.size()) - 1;
    TREMOR_CHECK(source.weights.empty() || source.weights.size() == source.nodes.size(), source.origin, ": ",
                 source.weights.size(), " weights for ", source.nodes.size(), " nodes");
    for (std::size_t i = 0; i < source.nodes.size(); ++i)
      for (int c = 0; c < dim; ++c) {
        const Index node = source.nodes[i];
        const double weight = source.amplitude * source.direction[static_cast<std::size_t>(c)] *
                              (source.weights.empty() ? 1.0 : source.weights[i]);
        const Index dof = dof_of(node, c, source.origin);
        if (weight != 0.0 && !constrained(dof)) loads.push_back({dof, function, weight});
      }
  }
  for (const SurfaceLoad& load : model.surface_loads) {
    if (!fires(shot, load.transducer)) continue;
    int function = 0;
    if (load.signal) {
      functions_.push_back({*load.signal, load.delay, false});
      function = static_cast<int>(functions_.size()) - 1;
    } else {
      function = amplitude_function(load.amplitude, load.origin);
    }
    for (const auto& [dof, force] : fem::surface_forces(model, load))
      if (!constrained(dof)) loads.push_back({dof, function, force});
  }
  for (const BodyForce& body : model.body_forces) {
    const int function = amplitude_function(body.amplitude, body.origin);
    for (const auto& [dof, force] : fem::body_forces(model, body))
      if (!constrained(dof)) loads.push_back({dof, function, force});
  }
  for (const NodalLoad& load : model.loads) {
    const int function = amplitude_function(load.amplitude, load.origin);
    for (Index node : load.nodes) {
      const Index dof = dof_of(node, load.component, load.origin);
      if (load.magnitude != 0.0 && !constrained(dof)) loads.push_back({dof, function, load.magnitude});
    }
  }
  std::stable_sort(loads.begin(), loads.end(), [](const Entry& a, const Entry& b) { return a.dof < b.dof; });
  for (const Entry& entry : loads) {
    if (loaded_.empty() || loaded_.back() != entry.dof) loaded_.push_back(entry.dof);
    force_terms_.push_back({static_cast<Index>(loaded_.size()) - 1, entry.function, entry.weight});
  }
  for (std::size_t k = 0; k < prescribed_entries.size(); ++k)
    prescribed_terms_.push_back({static_cast<Index>(k), prescribed_entries[k].function, prescribed_entries[k].weight});
  force_functions_ = functions_of(loads);
  prescribed_functions_ = functions_of(prescribed_entries);
  scratch_.assign(functions_.size(), 0.0);
}

std::vector<Index> Loading::constrained_dofs() const {
  std::vector<Index> all(held_);
  all.insert(all.end(), prescribed_.begin(), prescribed_.end());
  std::sort(all.begin(), all.end());
  return all;
}

Loading Loading::restricted(std::span<const Index> local_to_global) const {
  const Index d = dim_, n_model_nodes = n_dofs_ / dim_;
  std::vector<Index> to_local(static_cast<std::size_t>(n_model_nodes), -1);
  for (std::size_t i = 0; i < local_to_global.size(); ++i) {
    const Index node = local_to_global[i];
    TREMOR_CHECK(node >= 0 && node < n_model_nodes, "subdomain node ", i, " is model node ", node, ", outside 0..",
                 n_model_nodes - 1);
    to_local[static_cast<std::size_t>(node)] = static_cast<Index>(i);
  }
  const auto local_dof = [&](Index dof) {
    const Index node = to_local[static_cast<std::size_t>(dof / d)];
    return node < 0 ? Index(-1) : node * d + dof % d;
  };
  Loading out;
  out.dim_ = dim_;
  out.n_dofs_ = static_cast<Index>(local_to_global.size()) * d;
  out.functions_ = functions_;
  out.scratch_.assign(functions_.size(), 0.0);
  for (const Index dof : held_)
    if (const Index local = local_dof(dof); local >= 0) out.held_.push_back(local);
  std::sort(out.held_.begin(), out.held_.end());
  // A DOF list and its terms: the kept DOFs sorted in local numbers, each slot's terms in their order.
  const auto restrict_list = [&](const std::vector<Index>& dofs, const std::vector<Term>& terms,
                                 std::vector<Index>& out_dofs, std::vector<Term>& out_terms, std::vector<int>& used) {
    std::vector<std::pair<Index, Index>> kept;  // (local DOF, slot)
    for (std::size_t slot = 0; slot < dofs.size(); ++slot)
      if (const Index local = local_dof(dofs[slot]); local >= 0) kept.push_back({local, static_cast<Index>(slot)});
    std::sort(kept.begin(), kept.end());
    std::vector<Index> new_slot(dofs.size(), -1);
    for (std::size_t k = 0; k < kept.size(); ++k) {
      out_dofs.push_back(kept[k].first);
      new_slot[static_cast<std::size_t>(kept[k].second)] = static_cast<Index>(k);
    }
    std::set<int> functions;
    for (const Term& term : terms)
      if (const Index slot = new_slot[static_cast<std::size_t>(term.slot)]; slot >= 0) {
        out_terms.push_back({slot, term.function, term.weight});
        functions.insert(term.function);
      }
    std::stable_sort(out_terms.begin(), out_terms.end(), [](const Term& a, const Term& b) { return a.slot < b.slot; });
    used.assign(functions.begin(), functions.end());
  };
  restrict_list(prescribed_, prescribed_terms_, out.prescribed_, out.prescribed_terms_, out.prescribed_functions_);
  restrict_list(loaded_, force_terms_, out.loaded_, out.force_terms_, out.force_functions_);
  return out;
}

Loading Loading::stacked(std::span<const Loading* const> shots) {
  TREMOR_CHECK(!shots.empty(), "no shots to step together");
  const auto k = static_cast<Index>(shots.size());
  Loading out;
  out.dim_ = shots.front()->dim_;
  out.n_dofs_ = static_cast<Index>(static_cast<Size>(shots.front()->n_dofs_) * k);
  // Each shot's functions after the ones before it; a list's entries (field entry, shot, slot)
  // sorted by entry, each slot's terms in their order.
  std::vector<int> first_function;
  for (const Loading* shot : shots) {
    TREMOR_CHECK(shot->n_dofs_ == shots.front()->n_dofs_ && shot->dim_ == out.dim_,
                 "shots stepped together load models of different sizes");
    first_function.push_back(static_cast<int>(out.functions_.size()));
    out.functions_.insert(out.functions_.end(), shot->functions_.begin(), shot->functions_.end());
  }
  out.scratch_.assign(out.functions_.size(), 0.0);
  for (Index s = 0; s < k; ++s)
    for (const Index dof : shots[static_cast<std::size_t>(s)]->held_) out.held_.push_back(dof * k + s);
  std::sort(out.held_.begin(), out.held_.end());
  const auto stack = [&](std::vector<Index> Loading::*dofs, std::vector<Term> Loading::*terms, std::vector<int> Loading::*used) {
    std::vector<std::array<Index, 3>> entries;  // (field entry, shot, slot)
    for (Index s = 0; s < k; ++s) {
      const std::vector<Index>& list = shots[static_cast<std::size_t>(s)]->*dofs;
      for (std::size_t slot = 0; slot < list.size(); ++slot)
        entries.push_back({list[slot] * k + s, s, static_cast<Index>(slot)});
    }
    std::sort(entries.begin(), entries.end());
    std::vector<std::vector<Index>> new_slot(static_cast<std::size_t>(k));
    for (Index s = 0; s < k; ++s)
      new_slot[static_cast<std::size_t>(s)].assign((shots[static_cast<std::size_t>(s)]->*dofs).size(), -1);
    for (std::size_t e = 0; e < entries.size(); ++e) {
      (out.*dofs).push_back(entries[e][0]);
      new_slot[static_cast<std::size_t>(entries[e][1])][static_cast<std::size_t>(entries[e][2])] = static_cast<Index>(e);
    }
    std::set<int> functions;
    for (Index s = 0; s < k; ++s)
      for (const Term& term : shots[static_cast<std::size_t>(s)]->*terms) {
        const int function = first_function[static_cast<std::size_t>(s)] + term.function;
        (out.*terms).push_back({new_slot[static_cast<std::size_t>(s)][static_cast<std::size_t>(term.slot)], function,
                                term.weight});
        functions.insert(function);
      }
    std::stable_sort((out.*terms).begin(), (out.*terms).end(),
                     [](const Term& a, const Term& b) { return a.slot < b.slot; });
    (out.*used).assign(functions.begin(), functions.end());
  };
  stack(&Loading::prescribed_, &Loading::prescribed_terms_, &Loading::prescribed_functions_);
  stack(&Loading::loaded_, &Loading::force_terms_, &Loading::force_functions_);
  return out;
}

void Loading::evaluate(const std::vector<Term>& terms, const std::vector<int>& used, double t,
                       std::span<double> out) const {
  for (int f : used) scratch_[static_cast<std::size_t>(f)] = functions_[static_cast<std::size_t>(f)].value(t);
  std::fill(out.begin(), out.end(), 0.0);
  for (const Term& term : terms)
    out[static_cast<std::size_t>(term.slot)] += term.weight * scratch_[static_cast<std::size_t>(term.function)];
}

void Loading::function_values(double t, std::span<double> out) const {
  TREMOR_CHECK(out.size() == functions_.size(), "function_values: ", out.size(), " values for ", functions_.size(),
               " functions");
  std::fill(out.begin(), out.end(), 0.0);
  for (const std::vector<int>* used : {&force_functions_, &prescribed_functions_})
    for (int f : *used) out[static_cast<std::size_t>(f)] = functions_[static_cast<std::size_t>(f)].value(t);
}

void Loading::forces(double t, std::span<double> out) const {
  TREMOR_CHECK(out.size() == loaded_.size(), "forces: ", out.size(), " values for ", loaded_.size(), " loaded DOFs");
  evaluate(force_terms_, force_functions_, t, out);
}

void Loading::prescribed(double t, std::span<double> out) const {
  TREMOR_CHECK(out.size() == prescribed_.size(), "prescribed: ", out.size(), " values for ", prescribed_.size(),
               " prescribed DOFs");
  evaluate(prescribed_terms_, prescribed_functions_, t, out);
}

std::set<int> Loading::used_functions() const {
  std::set<int> used(force_functions_.begin(), force_functions_.end());
  used.insert(prescribed_functions_.begin(), prescribed_functions_.end());
  return used;
}

double Loading::highest_frequency() const {
  double highest = 0.0;
  for (int f : used_functions()) {
    const Function& function = functions_[static_cast<std::size_t>(f)];
    if (!function.constant) highest = std::max(highest, function.signal.highest_frequency());
  }
  return highest;
}

double Loading::last_change() const {
  double last = 0.0;
  for (int f : used_functions()) {
    const Function& function = functions_[static_cast<std::size_t>(f)];
    if (function.constant) continue;
    const Signal& signal = function.signal;
    double end = signal.duration();
    if (!std::isfinite(end) && signal.kind == SignalKind::Tabulated) end = signal.table.back().first;
    last = std::max(last, function.delay + end);
  }
  return last;
}

// --------------------------------------------------------------------------------- DeviceLoading

namespace {

// out[s] = Real(sum of weight * table[row][function] over slot s's terms), for every slot.
// A free function: nvcc allows no device lambda in a private member function.
template <class Real>
void sum_terms(const Exec& exec, View<const Index> offsets, View<const int> function, View<const double> weight,
               const double* row, View<Real> out) {
  forall(exec, out.size, [=] TREMOR_LAMBDA(Index s) {
    double value = 0.0;
    for (Index k = offsets[s]; k < offsets[s + 1]; ++k) value += weight[k] * row[function[k]];
    out[s] = static_cast<Real>(value);
  });
}

}  // namespace

template <class Real>
typename DeviceLoading<Real>::Terms DeviceLoading<Real>::make_terms(const Exec& exec, const std::vector<Index>& dofs,
                                                                    const std::vector<LoadTerm>& terms) {
  std::vector<Index> offsets(dofs.size() + 1, 0);
  std::vector<int> function;
  std::vector<double> weight;
  for (const LoadTerm& term : terms) {  // sorted by slot
    ++offsets[static_cast<std::size_t>(term.slot) + 1];
    function.push_back(term.function);
    weight.push_back(term.weight);
  }
  for (std::size_t s = 0; s < dofs.size(); ++s) offsets[s + 1] += offsets[s];
  Terms out;
  out.dofs = DeviceArray<Index>(exec, std::span<const Index>(dofs));
  out.offsets = DeviceArray<Index>(exec, std::span<const Index>(offsets));
  out.function = DeviceArray<int>(exec, std::span<const int>(function));
  out.weight = DeviceArray<double>(exec, std::span<const double>(weight));
  return out;
}

template <class Real>
DeviceLoading<Real>::DeviceLoading(const Exec& exec, const Loading& loading, double dt, int chunk)
    : exec_(exec),
      loading_(loading),
      dt_(dt),
      chunk_(chunk),
      n_functions_(static_cast<Index>(loading.n_functions())),
      force_terms_(make_terms(exec, loading.loaded_dofs(), loading.force_terms())),
      prescribed_terms_(make_terms(exec, loading.prescribed_dofs(), loading.prescribed_terms())),
      loads_(exec, std::span<const Real>(std::vector<Real>(loading.loaded_dofs().size(), Real(0)))),
      prescribed_dofs_(exec, std::span<const Index>(loading.prescribed_dofs())),
      prescribed_values_(exec, static_cast<Index>(loading.prescribed_dofs().size())) {
  TREMOR_CHECK(chunk >= 1, "loading chunk of ", chunk, " steps");
  host_table_.resize(static_cast<std::size_t>(chunk + 1) * static_cast<std::size_t>(n_functions_));
  table_ = DeviceArray<double>(exec, static_cast<Index>(host_table_.size()));
}

template <class Real>
void DeviceLoading<Real>::fill_table(long long first) {
  const auto n = static_cast<std::size_t>(n_functions_);
  for (int r = 0; r <= chunk_; ++r)
    loading_.function_values(static_cast<double>(first + r) * dt_,
                             std::span<double>(host_table_.data() + static_cast<std::size_t>(r) * n, n));
  table_.copy_from_host(host_table_);  // ordered after the steps still reading the old table
  table_first_ = first;
}

template <class Real>
void DeviceLoading<Real>::update(long long step) {
  if (n_functions_ == 0) return;
  // Rows step and step + 1 must both be in the table.
  if (table_first_ < 0 || step < table_first_ || step + 1 > table_first_ + chunk_) fill_table(step);
  const double* row = table_.data() + static_cast<std::size_t>(step - table_first_) * static_cast<std::size_t>(n_functions_);
  const Terms& f = force_terms_;
  sum_terms<Real>(exec_, f.offsets.view(), f.function.view(), f.weight.view(), row, loads_.view());
  const Terms& p = prescribed_terms_;
  sum_terms<Real>(exec_, p.offsets.view(), p.function.view(), p.weight.view(), row + n_functions_,
                  prescribed_values_.view());
}

template class DeviceLoading<float>;
template class DeviceLoading<double>;

}  // namespace tremor::explicit_fe
