#include "tremor/static/loads.hpp"

#include <map>
#include <set>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/fem/loads.hpp"
#include "tremor/fem/point_sources.hpp"

namespace tremor::static_fe {

namespace {

std::string where(const std::string& origin) { return origin.empty() ? std::string() : origin + ": "; }

}  // namespace

StaticLoads static_loads(const Model& model) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  StaticLoads out;
  out.n_dofs = mesh.n_nodes() * dim;
  out.applied.assign(static_cast<std::size_t>(out.n_dofs), 0.0);
  const auto warn = [&](std::string message) {
    log::warn(message);
    out.warnings.push_back(std::move(message));
  };
  TREMOR_CHECK(model.absorbing.empty(), where(model.absorbing.front().origin),
               "absorbing layers belong to explicit runs; a static model cannot have them");
  const auto dof = [&](Index node, int component, const std::string& origin) {
    TREMOR_CHECK(component >= 0 && component < dim, where(origin), "component ", component + 1,
                 " is beyond the model's dimension ", dim);
    return node * dim + component;
  };
  std::set<std::string> amplitude_warned;
  const auto ignore_amplitude = [&](const std::string& amplitude, const std::string& origin) {
    if (!amplitude.empty() && amplitude_warned.insert(amplitude).second)
      warn(str(where(origin), "amplitude ", amplitude,
               " is not used by a static solve: the full magnitude applies"));
  };

  // Constraints, in model order: the later prescription of a DOF wins.
  std::map<Index, std::pair<double, std::string>> fixed;  // dof -> (value, origin)
  std::set<std::pair<std::string, std::string>> conflict_warned;
  const auto prescribe = [&](Index d, double value, const std::string& origin) {
    const auto found = fixed.find(d);
    if (found != fixed.end() && found->second.first != value &&
        conflict_warned.insert({found->second.second, origin}).second)
      warn(str(where(origin), "prescribes degrees of freedom that ", found->second.second,
               " prescribed with other values; the later prescription applies"));
    fixed[d] = {value, origin};
  };
  for (const FixedDof& f : model.fixed) {
    ignore_amplitude(f.amplitude, f.origin);
    for (Index node : f.nodes) prescribe(dof(node, f.component, f.origin), f.value, f.origin);
  }
  for (const PrescribedDisplacement& p : model.prescribed)
    for (Index node : p.nodes)
      for (int c : p.components) {
        const Index d = dof(node, c, p.origin);  // checks c before factor[c] is read
        prescribe(d, p.amplitude * p.factor[static_cast<std::size_t>(c)], p.origin);
      }
  for (const auto& [d, entry] : fixed) {
    out.fixed_dofs.push_back(d);
    out.fixed_values.push_back(entry.first);
  }

  // Loads.
  const auto add = [&](Index d, double value) { out.applied[static_cast<std::size_t>(d)] += value; };
  std::set<Index> concentrated;  // DOFs a point force acts on
  for (const NodalLoad& load : model.loads) {
    ignore_amplitude(load.amplitude, load.origin);
    for (Index node : load.nodes) {
      add(dof(node, load.component, load.origin), load.magnitude);
      if (load.magnitude != 0.0) concentrated.insert(dof(node, load.component, load.origin));
    }
  }
  for (const PointSource& source : fem::placed_sources(model))
    for (std::size_t i = 0; i < source.nodes.size(); ++i) {
      const Index node = source.nodes[i];
      const double weight = source.weights.empty() ? 1.0 : source.weights[i];
      for (int c = 0; c < dim; ++c)
        if (source.direction[static_cast<std::size_t>(c)] != 0.0) {
          add(node * dim + c, source.amplitude * source.direction[static_cast<std::size_t>(c)] * weight);
          concentrated.insert(node * dim + c);
        }
    }
  for (const SurfaceLoad& load : model.surface_loads) {
    ignore_amplitude(load.amplitude, load.origin);
    for (const auto& [d, value] : fem::surface_forces(model, load)) add(d, value);
  }
  for (const BodyForce& body : model.body_forces) {
    ignore_amplitude(body.amplitude, body.origin);
    for (const auto& [d, value] : fem::body_forces(model, body)) add(d, value);
  }

  out.force = out.applied;
  // Distributed loads reach the supports' nodes as a matter of course; a point force on a held
  // DOF is more likely a mistake, so those are counted in a warning.
  std::size_t dropped = 0;
  for (Index d : out.fixed_dofs) {
    out.force[static_cast<std::size_t>(d)] = 0.0;
    if (concentrated.count(d)) ++dropped;
  }
  if (dropped > 0)
    warn(str(dropped, " point force", dropped == 1 ? " acts on a degree" : "s act on degrees",
             " of freedom that are also constrained: they go into the reactions and do not move the model"));
  return out;
}

}  // namespace tremor::static_fe
