#include "tremor/explicit/fluid.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <utility>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/element_survey.hpp"
#include "tremor/fem/loads.hpp"
#include "tremor/fem/point_sources.hpp"
#include "tremor/model/absorbing.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor::explicit_fe {

FluidMesh fluid_mesh(const Model& model) {
  const Mesh& mesh = model.mesh;
  const std::vector<bool> fluid = fem::fluid_elements(model);
  FluidMesh out;
  out.model.source = model.source;
  out.model.mesh_file = model.mesh_file;
  out.model.materials = model.materials;
  out.model.sections = model.sections;
  out.n_model_elements = mesh.n_elements();
  // The fluid nodes, in the model's order, and each model node's fluid number (-1: none).
  std::vector<Index> number(static_cast<std::size_t>(mesh.n_nodes()), -1);
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global)
      if (fluid[static_cast<std::size_t>(global)])
        for (const Index node : block.nodes(e)) number[static_cast<std::size_t>(node)] = 0;
  for (Index node = 0; node < mesh.n_nodes(); ++node)
    if (number[static_cast<std::size_t>(node)] == 0) {
      number[static_cast<std::size_t>(node)] = static_cast<Index>(out.nodes.size());
      out.nodes.push_back(node);
    }
  Mesh& into = out.model.mesh;
  into = Mesh(mesh.dim());
  for (const Index node : out.nodes) into.add_node(mesh.node_labels[static_cast<std::size_t>(node)], mesh.node(node));
  // Each fluid element's block in the fluid mesh, then its global number: the fluid mesh's order.
  std::vector<std::pair<std::size_t, Index>> order;
  global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      if (!fluid[static_cast<std::size_t>(global)]) continue;
      ElementBlock& to = into.block_for(block.type, block.order);
      for (const Index node : block.nodes(e)) to.connectivity.push_back(number[static_cast<std::size_t>(node)]);
      to.labels.push_back(block.labels[static_cast<std::size_t>(e)]);
      order.emplace_back(static_cast<std::size_t>(&to - into.blocks.data()), global);
    }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Index> place(static_cast<std::size_t>(mesh.n_elements()), -1);  // fluid element of each
  for (const auto& [block, e] : order) {
    place[static_cast<std::size_t>(e)] = static_cast<Index>(out.elements.size());
    out.elements.push_back(e);
  }
  for (const auto& [name, members] : mesh.element_sets) {
    std::vector<Index> kept;
    for (const Index e : members)
      if (place[static_cast<std::size_t>(e)] >= 0) kept.push_back(place[static_cast<std::size_t>(e)]);
    std::sort(kept.begin(), kept.end());
    into.element_sets[name] = std::move(kept);
  }
  // The table: D[0] = 1 / rho, the mass's coefficient 1 / kappa in `density`.
  fem::SectionTable& table = out.table;
  table.dim = mesh.dim();
  table.n_voigt = table.dim == 2 ? 3 : 6;
  for (const Section& section : model.sections) {
    const Material& material = model.material(section.material);
    std::array<double, fem::material_stride> D{};
    D[0] = material.fluid ? 1.0 / material.density : 0.0;
    table.D.push_back(D);
    table.thickness.push_back(table.dim == 2 ? section.thickness : 1.0);
    table.density.push_back(material.fluid ? 1.0 / material.bulk_modulus : 0.0);
    table.damping_alpha.push_back(0.0);
    table.damping_beta.push_back(0.0);
  }
  table.element_section = out.model.element_sections();
  // The absorbing layers over the fluid's elements (alid, srm; model/absorbing.hpp): the model's
  // profile at them, mass-proportional damping alpha M_f and the stiffness K_f scaled, as a solid's
  // elements take them, so that a wave entering a layer through the fluid dies out in it too. (A
  // pml's elements are 0 and 1 in the profile: the FluidTerm's PML takes them.)
  if (!model.absorbing.empty()) {
    const AbsorbingProfile profile = absorbing_profile(model);
    for (const Index e : out.elements) {
      table.element_alpha.push_back(profile.alpha[static_cast<std::size_t>(e)]);
      table.element_stiffness_factor.push_back(profile.stiffness_factor[static_cast<std::size_t>(e)]);
    }
  }
  return out;
}

namespace {

// A lumped diagonal of the fluid (sparse::assemble_lumped_mass or _damping, `assemble`, on the
// host), assembled as a field of the mesh's dimension: its first component per node.
template <class Assemble>
std::vector<double> per_fluid_node(const FluidMesh& fluid, const Exec& exec, const fem::ElementColouring* colouring,
                                   Assemble assemble) {
  const Exec host = exec.space() == MemorySpace::Host ? exec : exec.host();
  const fem::ElementColouring own = colouring ? fem::ElementColouring{} : fem::colour_elements(fluid.model.mesh);
  const std::vector<double> per_dof = assemble(fluid.model, fluid.table, colouring ? *colouring : own, host);
  const auto dim = static_cast<std::size_t>(fluid.table.dim);
  std::vector<double> out(fluid.nodes.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = per_dof[i * dim];
  return out;
}

}  // namespace

std::vector<double> fluid_lumped_damping(const FluidMesh& fluid, const Exec& exec) {
  if (std::all_of(fluid.table.element_alpha.begin(), fluid.table.element_alpha.end(),
                  [](double alpha) { return alpha == 0.0; }))
    return {};
  return per_fluid_node(fluid, exec, nullptr,
                        [](const auto&... args) { return sparse::assemble_lumped_damping(args...); });
}

std::vector<double> fluid_lumped_mass(const FluidMesh& fluid, const Exec& exec,
                                      const fem::ElementColouring* colouring) {
  return per_fluid_node(fluid, exec, colouring,
                        [](const auto&... args) { return sparse::assemble_lumped_mass(args...); });
}

namespace {

// f += K_f chi over the `n` elements listed of one block of type E (one colour's where `atomic` is
// false: they share no node), for each of `shots` interleaved (node i of shot s at i shots + s): a
// thread per element and shot, each shot's the arithmetic of one alone.
template <class E, class Real>
void add_fluid_elements(const Exec& exec, Index n, const Index* list, const fem::ElementArrays in, bool atomic,
                        const Real* chi, Real* f, int shots) {
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  forall(exec, static_cast<Index>(static_cast<Size>(n) * shots), [=] TREMOR_LAMBDA(Index pair) {
    constexpr int nn = E::n_nodes;
    const Index i = pair / shots, shot = pair % shots;
    const Index e = list ? list[i] : i;
    const Index* nodes = in.connectivity + static_cast<Size>(e) * nn;
    double x[nn * E::dim], value[nn], fe[nn];
    fem::gather_coordinates<E>(in.coordinates, nodes, x);
    for (int a = 0; a < nn; ++a) value[a] = static_cast<double>(chi[static_cast<Size>(nodes[a]) * shots + shot]);
    const int s = in.section[e];
    // 1 / rho, scaled in an srm layer (SectionTable::stiffness_factor).
    const fem::FluidLaw<E::dim, double> law{in.material.voigt(s)[0] * in.factor[e]};
    fem::apply_fluid_stiffness<E>(x, law, in.thickness[s], rule, value, fe);
    for (int a = 0; a < nn; ++a) {
      Real* out = f + static_cast<Size>(nodes[a]) * shots + shot;
      if (atomic)
        atomic_add(out, static_cast<Real>(fe[a]));
      else
        *out += static_cast<Real>(fe[a]);
    }
  });
}

}  // namespace

template <class Real>
FluidOperator<Real>::FluidOperator(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements, bool atomic,
                                   sem::Geometry geometry)
    : exec_(exec), elements_(std::move(elements)), atomic_(atomic && exec.space() == MemorySpace::Device) {
  TREMOR_CHECK(elements_, "the fluid operator needs its elements");
  fem::check_space(exec_, *elements_, "the fluid operator");
  TREMOR_CHECK(atomic_ || elements_->n_colours > 0 || elements_->n_elements() == 0,
               "the fluid operator adds colour by colour: its elements need a colouring");
  sum_factorised_ = std::make_unique<const sem::FluidKernels<Real>>(*elements_, geometry);
}

template <class Real>
std::size_t FluidOperator<Real>::bytes() const {
  return elements_->bytes() + sum_factorised_->bytes();
}

template <class Real>
void FluidOperator<Real>::apply_unchecked(const Real* chi, Real* f) const {
  fill_zero(exec_, f, n_dofs());
  add_unchecked(chi, f);
}

template <class Real>
void FluidOperator<Real>::add_unchecked(const Real* chi, Real* f) const {
  add_shots(chi, f, 1);
}

template <class Real>
void FluidOperator<Real>::apply_batch_unchecked(const Real* chi, Real* f, int columns) const {
  fill_zero(exec_, f, static_cast<Index>(static_cast<Size>(n_dofs()) * columns));
  add_shots(chi, f, columns);
}

template <class Real>
void FluidOperator<Real>::add_batch_unchecked(const Real* chi, Real* f, int columns) const {
  add_shots(chi, f, columns);
}

template <class Real>
void FluidOperator<Real>::add_shots(const Real* chi, Real* f, int shots) const {
  add_stepping(chi, f, shots, {}, {});
}

template <class Real>
void FluidOperator<Real>::add_stepping(const Real* chi, Real* f, int shots, const op::InnerStep<Real>& inner,
                                       std::span<const unsigned char* const> stepped) const {
  const fem::DeviceElements& els = *elements_;
  // (a thread, or a group, per element and shot: the pairs counted by an Index; the pre-flight
  // keeps a batch within it)
  TREMOR_CHECK(static_cast<Size>(els.n_elements()) * shots <= std::numeric_limits<Index>::max(), shots,
               " shots of a fluid of ", els.n_elements(), " elements applied at once: more pairs than an index counts");
  const int passes = atomic_ ? 1 : els.n_colours;
  for (int c = 0; c < passes; ++c)
    for (std::size_t b = 0; b < els.blocks.size(); ++b) {
      const fem::DeviceElementBlock& block = els.blocks[b];
      const Index n = atomic_ ? block.n_elements : block.n_in(c);
      if (n == 0) continue;
      const Index* list = atomic_ ? nullptr : block.in(c);
      const unsigned char* steps = b < stepped.size() ? stepped[b] : nullptr;
      if (sum_factorised_->takes(b)) {
        sum_factorised_->add(exec_, b, n, list, atomic_, chi, f, shots, inner, steps);
        continue;
      }
      TREMOR_CHECK(!steps, "the fluid's elements of block ", b, " take no inner node's step");
      fem::with_element(block.type, block.order, [&](auto element) {
        add_fluid_elements<decltype(element), Real>(exec_, n, list, fem::arrays_of(els, block), atomic_, chi, f,
                                                    shots);
      });
    }
}

namespace {

// The largest eigenvalue of M_f^-1 K_f on exec, with the lumped mass into `mass`.
op::Spectrum spectrum_and_mass(const FluidMesh& fluid, const Exec& exec, std::vector<double>& mass) {
  TREMOR_CHECK(!fluid.elements.empty(), "the stable step of a fluid: the model has no fluid element");
  const fem::ElementColouring colouring = fem::colour_elements(fluid.model.mesh);
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, fluid.model.mesh, fluid.table, colouring);
  const FluidOperator<double> K(exec, elements, exec.space() == MemorySpace::Device);
  mass = fluid_lumped_mass(fluid, exec, &colouring);
  const DeviceArray<double> on_exec(exec, std::span<const double>(mass));
  return op::largest_eigenvalue(K, on_exec.data());
}

}  // namespace

op::Spectrum fluid_spectrum(const FluidMesh& fluid, const Exec& exec) {
  std::vector<double> mass;
  return spectrum_and_mass(fluid, exec, mass);
}

FluidSetup fluid_setup(const Model& model, const Exec& exec) {
  FluidSetup out;
  out.mesh = fluid_mesh(model);
  out.interface = fem::fluid_solid_interface(model);
  out.spectrum = spectrum_and_mass(out.mesh, exec, out.mass);
  out.damping = fluid_lumped_damping(out.mesh, exec);
  out.stable_dt = 2.0 / std::sqrt(out.spectrum.largest);
  const Mesh& mesh = out.mesh.model.mesh;
  for (const ElementBlock& block : mesh.blocks)
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      double x[E::n_nodes * E::dim];
      for (Index e = 0; e < block.n_elements(); ++e) {
        mesh.element_coordinates(block, e, x);
        out.largest_element = std::max(out.largest_element, fem::vertex_distances<E>(x).max_length);
      }
    });
  out.slowest = std::numeric_limits<double>::infinity();
  double fastest = 0.0;
  for (const Section& section : model.sections)
    if (const Material& material = model.material(section.material); material.fluid) {
      out.slowest = std::min(out.slowest, material.sound_speed());
      fastest = std::max(fastest, material.sound_speed());
    }
  // A PML's d0 from the fluid's own speed: the reflection it is designed for is the fluid's
  // (a solid's faster waves would make d0 several times larger than needed, and d0 dt with it).
  out.pml = pml_profile(model, fastest);
  out.pml_nodes = pml_node_profile(out.mesh.model.mesh, out.pml);
  return out;
}

FluidSetup fluid_part(const FluidSetup& fluid, const partition::Subdomain& domain) {
  TREMOR_CHECK(fluid.whole_nodes.empty(), "a part of a fluid's part");
  FluidSetup part;
  const FluidMesh& whole = fluid.mesh;
  FluidMesh& mesh = part.mesh;
  mesh.model.source = whole.model.source;
  mesh.model.mesh_file = whole.model.mesh_file;
  mesh.model.materials = whole.model.materials;
  mesh.model.sections = whole.model.sections;
  mesh.n_model_elements = whole.n_model_elements;
  std::vector<Index> elements;  // the whole fluid's element of each of its own
  mesh.model.mesh = partition::subdomain_mesh(whole.model.mesh, domain, elements);
  mesh.table = table_rows(whole.table, elements);
  for (const Index e : elements) mesh.elements.push_back(whole.elements[static_cast<std::size_t>(e)]);
  // Its elements' sets, which give each its section (what a receiver's gradient reads).
  std::vector<Index> local(static_cast<std::size_t>(whole.model.mesh.n_elements()), -1);
  for (std::size_t e = 0; e < elements.size(); ++e) local[static_cast<std::size_t>(elements[e])] = static_cast<Index>(e);
  for (const auto& [name, members] : whole.model.mesh.element_sets) {
    std::vector<Index> kept;
    for (const Index e : members)
      if (local[static_cast<std::size_t>(e)] >= 0) kept.push_back(local[static_cast<std::size_t>(e)]);
    std::sort(kept.begin(), kept.end());
    mesh.model.mesh.element_sets[name] = std::move(kept);
  }
  for (const Index node : domain.nodes) {
    const auto n = static_cast<std::size_t>(node);
    mesh.nodes.push_back(whole.nodes[n]);
    part.mass.push_back(fluid.mass[n]);
    if (!fluid.damping.empty()) part.damping.push_back(fluid.damping[n]);
  }
  // Its elements' faces on the solid (each face is one fluid element's: one part's).
  std::vector<Index> sorted = mesh.elements;
  std::sort(sorted.begin(), sorted.end());
  for (const fem::CouplingFace& face : fluid.interface.faces)
    if (std::binary_search(sorted.begin(), sorted.end(), face.fluid.element)) part.interface.faces.push_back(face);
  part.spectrum = fluid.spectrum;
  part.stable_dt = fluid.stable_dt;
  part.largest_element = fluid.largest_element;
  part.slowest = fluid.slowest;
  part.pml = fluid.pml;
  part.pml_nodes = fluid.pml_nodes.in_numbering(domain.nodes);
  part.whole_nodes = domain.nodes;
  part.n_whole_nodes = whole.n_nodes();
  return part;
}

namespace {

// The fluid's number of the model's node `node`, or -1 where no fluid element holds it.
Index fluid_number(const FluidMesh& fluid, Index node) {
  const auto found = std::lower_bound(fluid.nodes.begin(), fluid.nodes.end(), node);
  return found != fluid.nodes.end() && *found == node ? static_cast<Index>(found - fluid.nodes.begin()) : -1;
}

}  // namespace

double coupling_bound(const FluidSetup& fluid, std::span<const double> solid_mass) {
  const int dim = fluid.mesh.model.mesh.dim();
  const auto d = static_cast<std::size_t>(dim);
  // C summed over the faces by (solid node, fluid node) pair, both model nodes.
  std::map<std::pair<Index, Index>, std::array<double, 3>> pairs;
  for (const fem::CouplingFace& face : fluid.interface.faces) {
    const std::size_t n = face.nodes.size();
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) {
        std::array<double, 3>& sum = pairs[{face.nodes[a], face.nodes[b]}];
        for (std::size_t c = 0; c < d; ++c) sum[c] += face.C[(a * n + b) * d + c];
      }
  }
  // By fluid node b: its pairs (a, C_ab), and s_b = sum over them of |C_ab| (1-norm) / sqrt(M_s,a).
  std::map<Index, std::vector<std::pair<Index, std::array<double, 3>>>> by_fluid;
  for (const auto& [key, c] : pairs) by_fluid[key.second].emplace_back(key.first, c);
  const auto solid_of = [&](Index node) { return solid_mass[static_cast<std::size_t>(node) * d]; };
  std::map<std::pair<Index, int>, double> rows;  // Gershgorin's row sums of M_s^-1/2 B M_s^-1/2
  for (const auto& [b, list] : by_fluid) {
    const Index number = fluid_number(fluid.mesh, b);
    const double m_f = number >= 0 ? fluid.mass[static_cast<std::size_t>(number)] : 0.0;
    if (!(m_f > 0.0)) continue;
    double spread = 0.0;
    for (const auto& [a, c] : list) {
      if (!(solid_of(a) > 0.0)) continue;
      for (std::size_t k = 0; k < d; ++k) spread += std::abs(c[k]) / std::sqrt(solid_of(a));
    }
    for (const auto& [a, c] : list) {
      if (!(solid_of(a) > 0.0)) continue;
      for (int k = 0; k < dim; ++k)
        rows[{a, k}] += std::abs(c[static_cast<std::size_t>(k)]) / (m_f * std::sqrt(solid_of(a))) * spread;
    }
  }
  double mu = 0.0;
  for (const auto& [row, sum] : rows) mu = std::max(mu, sum);
  return mu;
}

std::size_t fluid_run_bytes(const FluidSetup& fluid, std::size_t real_size) {
  const Mesh& mesh = fluid.mesh.model.mesh;
  const auto nodes = static_cast<std::size_t>(mesh.n_nodes()), elements = static_cast<std::size_t>(mesh.n_elements());
  std::size_t connectivity = 0;
  for (const ElementBlock& block : mesh.blocks) connectivity += block.connectivity.size();
  const std::size_t factors = sem::fluid_factors_at_most(mesh);
  std::size_t pairs = 0;
  for (const fem::CouplingFace& face : fluid.interface.faces) pairs += face.nodes.size() * face.nodes.size();
  const auto dim = static_cast<std::size_t>(mesh.dim());
  // Coordinates, connectivity, section and colour list per element; chi twice, K_f chi, the
  // pressure and the update's coefficient in Real (in absorbing layers, C' in Real besides); the GLL
  // blocks' factors in Real, at most; per node pair an index and dim coefficients, per interface
  // node three indices.
  const bool damped = !fluid.mesh.table.element_alpha.empty() || fluid.pml.any();
  // A PML's (its elements' copy and their points' and nodes' values).
  const PmlBytes layer = pml_term_bytes(fluid.mesh.model, fluid.pml, real_size, 0, PmlField::Fluid);
  const std::size_t pml = layer.elements + layer.state;
  return pml + nodes * (dim * sizeof(double) + 4 * real_size + (damped ? real_size : 0)) +
         factors * real_size +
         connectivity * sizeof(Index) +
         elements * 2 * sizeof(Index) + pairs * (sizeof(Index) + dim * sizeof(double)) +
         fluid.interface.nodes().size() * 3 * sizeof(Index);
}

Loading fluid_loading(const Model& model, const FluidMesh& fluid, const Shot* shot) {
  // The fluid as a field of one value per node: a mesh of dimension 1 on the fluid nodes, whose
  // "x" component is the potential.
  Model scalar;
  scalar.source = model.source;
  scalar.mesh = Mesh(1);
  const double origin = 0.0;
  for (const Index node : fluid.nodes)
    scalar.mesh.add_node(model.mesh.node_labels[static_cast<std::size_t>(node)], std::span<const double>(&origin, 1));
  scalar.amplitudes = model.amplitudes;
  // The model's nodes `nodes` in the fluid's numbering; `what` (at `from`) acts in fluids only: `why`.
  const auto to_fluid = [&](std::vector<Index>& nodes, const std::string& from, const char* what, const char* why) {
    for (Index& node : nodes) {
      const Index number = fluid_number(fluid, node);
      TREMOR_CHECK(number >= 0, from, ": ", what, " at node ", model.mesh.node_labels[static_cast<std::size_t>(node)],
                   ", which no fluid element holds: ", why);
      node = number;
    }
  };
  for (const PointSource& source : fem::placed_sources(model, true)) {
    PointSource load = source;
    load.volume = false;
    load.direction = {1.0, 0.0, 0.0};
    load.amplitude = -source.amplitude;
    to_fluid(load.nodes, source.origin, "a volume source", "volume sources act in fluids");
    scalar.point_sources.push_back(std::move(load));
  }
  // Pressure-release boundaries: chi held at 0 from rest, so p = -chi_tt = 0 there.
  std::vector<const FixedDof*> released(fluid.nodes.size(), nullptr);  // by fluid node: the boundary holding it
  for (const FixedDof& fixed : model.fixed) {
    if (fixed.component != FixedDof::pressure) continue;
    FixedDof held = fixed;
    held.component = 0;
    to_fluid(held.nodes, fixed.origin, "a pressure-release boundary", "it holds a fluid's pressure at 0");
    for (const Index node : held.nodes) released[static_cast<std::size_t>(node)] = &fixed;
    scalar.fixed.push_back(std::move(held));
  }
  // Pistons: a velocity drive v(t) = amplitude signal(t - delay) moves the faces in by
  // xi = int v dt, the volume A_a xi at each node (A_a its share of the piston's area,
  // fem::piston_areas); a pressure drive holds chi = -amplitude int int signal at the nodes within
  // the radius, so that p = -chi_tt follows the signal there.
  std::vector<const Transducer*> pressure_held(fluid.nodes.size(), nullptr);  // by fluid node: the piston holding it
  for (const Transducer& t : model.transducers) {
    if (t.mode != Transducer::Mode::Piston) continue;
    const std::string at = t.origin.empty() ? model.source : t.origin;
    // Its faces on the fluid's own elements (the model's may be a solid part, fem::solid_part, whose
    // elements are numbered without the fluid's), so its shares come by fluid node.
    Transducer on_fluid = t;
    for (Face& face : on_fluid.piston_faces) {
      const auto found = std::lower_bound(fluid.elements.begin(), fluid.elements.end(), face.element);
      TREMOR_CHECK(found != fluid.elements.end() && *found == face.element, at, ": piston '", t.name, "' on surface '",
                   t.surface, "': element ", model.mesh.element_label(face.element),
                   " is no fluid's: a piston stands on a fluid's surface");
      face.element = static_cast<Index>(found - fluid.elements.begin());
    }
    const auto areas = fem::piston_areas(fluid.model, on_fluid);
    double area = 0.0;
    for (const auto& [node, share] : areas) area += share;
    TREMOR_CHECK(area > 0.0, at, ": piston '", t.name, "': no part of surface '", t.surface, "' lies within ", t.radius,
                 " m of its centre");
    // -amplitude times the signal integrated `times` over time, the piston's.
    const auto driven = [&](auto& load, int times) {
      load.amplitude = -t.amplitude;
      load.integrated = times;
      load.signal = t.signal;
      load.delay = t.delay;
      load.origin = at;
      load.transducer = t.name;
    };
    if (t.drive == Transducer::Drive::Velocity) {
      // (A piston in a soft baffle may share its rim with the boundary; one wholly on it moves nothing.)
      const auto free = [&](const std::pair<Index, double>& entry) {
        return released[static_cast<std::size_t>(entry.first)] == nullptr;
      };
      if (std::none_of(areas.begin(), areas.end(), free))
        throw Error(str(at, ": piston '", t.name, "' on surface '", t.surface, "': every node it drives is held at ",
                        "p = 0 by the pressure-release boundary of ",
                        released[static_cast<std::size_t>(areas.front().first)]->origin, ", where it would radiate ",
                        "nothing; put the pressure release elsewhere, or the piston on another surface"));
      PointSource load;
      for (const auto& [node, share] : areas) {
        load.nodes.push_back(node);
        load.weights.push_back(share);
      }
      load.direction = {1.0, 0.0, 0.0};
      driven(load, 1);
      scalar.point_sources.push_back(std::move(load));
      continue;
    }
    PrescribedDisplacement held;
    const int dim = model.mesh.dim();
    for (const auto& [node, share] : areas) {
      double distance = 0.0;
      for (int d = 0; d < dim; ++d) {
        const double delta = fluid.model.mesh.node(node)[d] - t.position[static_cast<std::size_t>(d)];
        distance += delta * delta;
      }
      if (std::sqrt(distance) <= t.radius) held.nodes.push_back(node);
    }
    TREMOR_CHECK(!held.nodes.empty(), at, ": piston '", t.name, "': no node of surface '", t.surface, "' lies within ",
                 t.radius, " m of its centre, where a pressure drive holds the pressure; widen it or refine the mesh");
    // Two holds of one node's pressure cannot both act: refused, naming both, as for a velocity drive.
    for (const Index node : held.nodes) {
      const std::string label = str(scalar.mesh.node_labels[static_cast<std::size_t>(node)]);
      if (const FixedDof* release = released[static_cast<std::size_t>(node)])
        throw Error(str(at, ": piston '", t.name, "' driven by pressure holds node ", label, ", which the "
                        "pressure-release boundary of ", release->origin, " holds at p = 0; put the pressure release "
                        "elsewhere, or the piston on another surface"));
      if (const Transducer* other = pressure_held[static_cast<std::size_t>(node)])
        throw Error(str(at, ": piston '", t.name, "' driven by pressure holds node ", label, ", which piston '",
                        other->name, "' (", other->origin.empty() ? model.source : other->origin,
                        ") holds too: pistons driven by pressure may not overlap"));
      pressure_held[static_cast<std::size_t>(node)] = &t;
    }
    held.components = {0};
    held.factor = {1.0, 0.0, 0.0};
    driven(held, 2);
    scalar.prescribed.push_back(std::move(held));
  }
  // A volume source every node of which a pressure release or a piston holds injects nothing.
  for (const PointSource& load : scalar.point_sources) {
    if (!load.transducer.empty()) continue;
    const auto held = [&](Index node) {
      return released[static_cast<std::size_t>(node)] || pressure_held[static_cast<std::size_t>(node)];
    };
    if (!load.nodes.empty() && std::all_of(load.nodes.begin(), load.nodes.end(), held))
      throw Error(str(load.origin.empty() ? model.source : load.origin, ": the volume source at node ",
                      scalar.mesh.node_labels[static_cast<std::size_t>(load.nodes[0])], " would inject nothing: ",
                      load.nodes.size() == 1 ? "its node is" : "every node it loads is",
                      " held (a pressure release's p = 0, or a piston driven by pressure); move it into the fluid"));
  }
  return Loading(scalar, shot);
}

template class FluidOperator<float>;
template class FluidOperator<double>;

}  // namespace tremor::explicit_fe
