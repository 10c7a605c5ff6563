#include "tremor/explicit/pml.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/parts.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/pml_law.hpp"
#include "tremor/fem/viscoelastic.hpp"
#include "tremor/operator/columns.hpp"
#include "tremor/operator/element_state.hpp"
#include "tremor/sem/operator.hpp"

namespace tremor::explicit_fe {

namespace {

// d and alpha at a point xi of an element of type E with node coordinates x (the profile at its
// position), and the point's stretched axes (bit k where d_k is not 0: the others' filters pass all).
template <class E>
TREMOR_HOST_DEVICE int profile_at(const PmlProfile& profile, const double* x, const double* xi, double* d,
                                  double* alpha) {
  double N[E::n_nodes], at[3] = {0.0, 0.0, 0.0};
  E::shape(xi, N);
  for (int a = 0; a < E::n_nodes; ++a)
    for (int c = 0; c < E::dim; ++c) at[c] += N[a] * x[a * E::dim + c];
  profile.at(at, d, alpha);
  int axes = 0;
  for (int k = 0; k < E::dim; ++k) axes |= d[k] != 0.0 ? 1 << k : 0;
  return axes;
}

// f += the flux of the `n` elements listed (one colour's: they share no node) of one block of
// type E, at every point of its stiffness rule; the points' memory variables at `state`
// (fem::pml_point_values per point, element by element), and where Viscous the section's
// viscoelastic law's (`solid_values` per point) with the sections' records. `atomic`: added by
// atomics (a run that adds so on a GPU, where a decomposed run's first part of the stiffness adds
// into f from the exchange's stream meanwhile).
// With `previous` (the displacement a step back) and the profile's grid damping, the flux of u +
// (beta_e / dt) (u - previous), beta_e the element's (model/pml.hpp).
template <class E, class Real, bool Viscous>
void add_elements(const Exec& exec, Index n, const Index* list, const fem::ElementArrays in, const PmlProfile profile,
                  double dt, Real* state, const double* records, double* solid_state, int solid_values, const Real* u,
                  const Real* previous, Real* f, bool atomic) {
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    constexpr int dim = E::dim, nn = E::n_nodes, n_dof = nn * dim, values = fem::pml_point_values<dim>;
    (void)records, (void)solid_state, (void)solid_values, (void)dt, (void)state;  // (captured outside if constexpr)
    const Index e = list[i];
    const Index* nodes = in.connectivity + static_cast<Size>(e) * nn;
    double x[n_dof], ue[n_dof], fe[n_dof];
    fem::gather_coordinates<E>(in.coordinates, nodes, x);
    fem::gather_values<E>(u, nodes, ue);
    if (previous) {
      double before[n_dof];
      fem::gather_values<E>(previous, nodes, before);
      const double rate = profile.element_beta(in.coordinates, nodes, nn) / dt;
      for (int k = 0; k < n_dof; ++k) ue[k] += rate * (ue[k] - before[k]);
    }
    for (int k = 0; k < n_dof; ++k) fe[k] = 0.0;
    const int s = in.section[e];
    const fem::SectionLaw<dim, double> elastic(in.material, s);
    fem::PointEvaluation<E> point;
    for (int q = 0; q < rule.n_points; ++q) {
      const double det = point.reinit(x, rule.point(q));
      double d[3], alpha[3];
      const int axes = profile_at<E>(profile, x, rule.point(q), d, alpha);
      double grad[dim][dim];
      for (int k = 0; k < dim; ++k)
        for (int l = 0; l < dim; ++l) {
          double sum = 0.0;
          for (int a = 0; a < nn; ++a) sum += ue[a * dim + k] * point.dNdx[a * dim + l];
          grad[k][l] = sum;
        }
      const Size p = static_cast<Size>(e) * rule.n_points + q;
      double flux[dim][dim];
      if constexpr (Viscous) {
        const fem::ViscoelasticPoint<dim, double, fem::SectionLaw<dim, double>> law{
            elastic, records + static_cast<Size>(s) * fem::solids_stride, solid_state + p * solid_values, 1};
        fem::pml_flux<dim>(grad, d, alpha, dt, law, state + p * values, flux, axes);
      } else {
        fem::pml_flux<dim>(grad, d, alpha, dt, elastic, state + p * values, flux, axes);
      }
      const double scale = rule.weights[q] * det * in.thickness[s];
      for (int a = 0; a < nn; ++a)
        for (int r = 0; r < dim; ++r) {
          double sum = 0.0;
          for (int j = 0; j < dim; ++j) sum += flux[r][j] * point.dNdx[a * dim + j];
          fe[a * dim + r] += scale * sum;
        }
    }
    if (!atomic) {
      fem::scatter_add<E>(f, nodes, 1.0, fe);
      return;
    }
    for (int a = 0; a < nn; ++a)
      for (int c = 0; c < dim; ++c)
        atomic_add(f + static_cast<Size>(nodes[a]) * dim + c, static_cast<Real>(fe[a * dim + c]));
  });
}

// f += the acoustic flux of a fluid's `n` elements listed (one colour's) of one block of type E
// (fem::pml_fluid_flux: the section's D[0] is 1 / rho), at every point of its stiffness rule, from
// the potential chi; the points' memory variables at `state` (fem::pml_fluid_point_values per point).
template <class E, class Real>
void add_fluid_elements(const Exec& exec, Index n, const Index* list, const fem::ElementArrays in,
                        const PmlProfile profile, double dt, Real* state, const Real* chi, Real* f) {
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    constexpr int dim = E::dim, nn = E::n_nodes, values = fem::pml_fluid_point_values<dim>;
    const Index e = list[i];
    const Index* nodes = in.connectivity + static_cast<Size>(e) * nn;
    double x[nn * dim], value[nn], fe[nn];
    fem::gather_coordinates<E>(in.coordinates, nodes, x);
    for (int a = 0; a < nn; ++a) {
      value[a] = static_cast<double>(chi[nodes[a]]);
      fe[a] = 0.0;
    }
    const int s = in.section[e];
    const double inverse_density = in.material.voigt(s)[0];
    fem::PointEvaluation<E> point;
    for (int q = 0; q < rule.n_points; ++q) {
      const double det = point.reinit(x, rule.point(q));
      double d[3], alpha[3], grad[dim], flux[dim];
      const int axes = profile_at<E>(profile, x, rule.point(q), d, alpha);
      for (int k = 0; k < dim; ++k) {
        double sum = 0.0;
        for (int a = 0; a < nn; ++a) sum += value[a] * point.dNdx[a * dim + k];
        grad[k] = sum;
      }
      fem::pml_fluid_flux<dim>(grad, d, alpha, dt, inverse_density,
                               state + (static_cast<Size>(e) * rule.n_points + q) * values, flux, axes);
      const double scale = rule.weights[q] * det * in.thickness[s];
      for (int a = 0; a < nn; ++a) {
        double sum = 0.0;
        for (int j = 0; j < dim; ++j) sum += flux[j] * point.dNdx[a * dim + j];
        fe[a] += scale * sum;
      }
    }
    for (int a = 0; a < nn; ++a) f[nodes[a]] += static_cast<Real>(fe[a]);
  });
}

// f += m R at the layer's nodes (fem::pml_node_force), its part m cross u by the average
// acceleration: m cross (u_n + u_n-1) / 2 here, with m cross dt / 2 in the damping
// (add_pml_damping; with the integrator's C it gives cross (u_n+1 + 2 u_n + u_n-1) / 4). A thread
// per component of each node (`Components`: dim, or a fluid's 1; a thread per node held 88
// registers: a quarter of an H200's threads resident, its memory's latency unhidden). The nodes
// come in groups by their stretched axes (NodeGroups): a thread knows its node's axes from its
// index, so that its variables, d and alpha are read at once with the node's number, and only
// those of its axes; the nodes stretched in none (the layer's inner edge, d = 0) add nothing. d,
// alpha and the mass in Real, each value's nodes in a row (d_k of node i at d[k n + i]). Nodes
// numbered in that order (one domain's numbering: explicit/subdomain.hpp) are first + i, their
// fields read without the list (first -1 otherwise).
template <int Dim, int Components, class Real>
void add_nodes(const Exec& exec, Index n, NodeGroups groups, const Index* nodes, Index first, const Real* d,
               const Real* alpha, const Real* mass, double dt, Real* state, const Real* u, const Real* previous,
               Real* f) {
  forall(exec, n * Components, [=] TREMOR_LAMBDA(Index t) {
    const Index i = t / Components;
    const int c = static_cast<int>(t % Components);
    int axes = 0;
    for (int m = 1; m < (1 << Dim); ++m) axes = i >= groups.first[m] ? m : axes;
    if (axes == 0) return;
    // (everything read before the variables are written: on a GPU the reads go out together)
    double di[Dim], ai[Dim];
    for (int k = 0; k < Dim; ++k) {
      const bool stretched = axes >> k & 1;
      di[k] = stretched ? static_cast<double>(d[static_cast<Size>(k) * n + i]) : 0.0;
      ai[k] = stretched ? static_cast<double>(alpha[static_cast<Size>(k) * n + i]) : 0.0;
    }
    const Size dof = static_cast<Size>(first >= 0 ? first + i : nodes[i]) * Components + c;
    const double ui = static_cast<double>(u[dof]), average = 0.5 * (ui + static_cast<double>(previous[dof]));
    const double m = static_cast<double>(mass[i]);
    const double R = fem::pml_node_force<Dim>(
        ui, di, ai, dt, fem::Strided<Real>{state + static_cast<Size>(c) * n + i, static_cast<int>(Components * n)},
        axes);
    // (by an atomic: the stiffness's kernels may add to the node at the same time, start_forces;
    // the only add in this launch, the same bits as a plain one)
    atomic_add(f + dof, static_cast<Real>(m * (R + fem::pml_cross(Dim, di) * average)));
  });
}

}  // namespace

template <class Real>
PmlTerm<Real>::PmlTerm(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements,
                       const PmlProfile& profile, const PmlNodeProfile& nodes, std::span<const double> mass, double dt,
                       bool deterministic, PmlField field)
    : exec_(exec),
      elements_(std::move(elements)),
      profile_(profile),
      dt_(dt),
      dim_(profile.dim),
      field_(field),
      components_(field == PmlField::Fluid ? 1 : profile.dim) {
  TREMOR_CHECK(!elements_ || elements_->n_colours > 0, "the PML's elements need a colouring");
  TREMOR_CHECK(mass.size() == nodes.nodes.size() && nodes.dim == dim_, "the PML's nodes: ", nodes.nodes.size(),
               " nodes in ", nodes.dim, "D, ", mass.size(), " masses");
  const std::size_t n = nodes.nodes.size(), dim = static_cast<std::size_t>(dim_);
  // The nodes grouped by their stretched axes (bit k where d_k is not 0), in order within a group.
  const std::vector<double>& node_d = nodes.d;
  const std::vector<double>& node_alpha = nodes.alpha;
  std::vector<int> node_axes(n, 0);
  for (std::size_t i = 0; i < n; ++i) node_axes[i] = nodes.axes(i);
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return node_axes[a] < node_axes[b]; });
  std::vector<Real> d(n * dim), alpha(n * dim), masses(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = order[k];
    node_list_.push_back(nodes.nodes[i]);
    masses[k] = static_cast<Real>(mass[i]);
    for (std::size_t c = 0; c < dim; ++c) {
      d[c * n + k] = static_cast<Real>(node_d[i * dim + c]);
      alpha[c * n + k] = static_cast<Real>(node_alpha[i * dim + c]);
    }
  }
  for (int m = 0; m <= 8; ++m)
    groups_.first[m] = static_cast<Index>(
        std::count_if(node_axes.begin(), node_axes.end(), [&](int axes) { return axes < m; }));
  nodes_ = DeviceArray<Index>(exec_, std::span<const Index>(node_list_));
  if (!node_list_.empty() && node_list_.back() - node_list_.front() + 1 == static_cast<Index>(n) &&
      std::is_sorted(node_list_.begin(), node_list_.end()))
    first_node_ = node_list_.front();
  node_d_ = DeviceArray<Real>(exec_, std::span<const Real>(d));
  node_alpha_ = DeviceArray<Real>(exec_, std::span<const Real>(alpha));
  node_mass_ = DeviceArray<Real>(exec_, std::span<const Real>(masses));
  node_state_.emplace_back(exec_, static_cast<Index>(n * dim * static_cast<std::size_t>(components_)));
  if (!elements_) {  // a part holding some of the layer's nodes and none of its elements
    start_from_rest();
    return;
  }
  const fem::DeviceElements& els = *elements_;
  if (field_ == PmlField::Fluid) {  // the generic kernel (the layer is thin), a fluid's values per point
    for (const fem::DeviceElementBlock& block : els.blocks)
      point_state_.emplace_back(exec_, static_cast<Index>(static_cast<Size>(block.n_elements) *
                                                          fem::stiffness_rule_points(block.type, block.order) *
                                                          (dim_ == 3 ? fem::pml_fluid_point_values<3>
                                                                     : fem::pml_fluid_point_values<2>)));
    start_from_rest();
    return;
  }
  const bool gll = std::all_of(els.blocks.begin(), els.blocks.end(), [](const fem::DeviceElementBlock& block) {
    return (block.type == ElementType::HexGLL || block.type == ElementType::QuadGLL) && block.order >= 2;
  });
  if (gll) {  // the sem operator's kernel
    // The point kernel: a thread per point, each with a few trips to memory for its variables,
    // measured a little faster than the column kernel's thread per column of points (H200, gll4
    // plate, docs/benchmarks.md "PML").
    sem_ = std::make_unique<sem::SemOperator<Real>>(elements_, deterministic, sem::Geometry::Auto,
                                                    sem::Kernel::Points, dt, &profile_);
    // Beside the stiffness's apply (start_forces) where the run adds by atomics: the stiffness's
    // operators that add into K u (sem, matrix_free) do so then too.
    if (!deterministic && exec_.backend() == Backend::Cuda) beside_ = std::make_unique<SideStream>(exec_);
    start_from_rest();
    return;
  }
  atomic_ = !deterministic && exec_.space() == MemorySpace::Device;
  TREMOR_CHECK(!fem::any_coarse(els.solids), "a PML on elements other than GLL of order 2 or more keeps every ",
               "solid's memory variables at each point, not coarse-grained ones (q_coarse_grained)");
  if (els.attenuates())
    records_ = DeviceArray<double>(exec_, std::span<const double>(fem::solids_records(els.solids, dt, solids_)));
  for (const fem::DeviceElementBlock& block : els.blocks) {
    const Size points = static_cast<Size>(block.n_elements) * fem::stiffness_rule_points(block.type, block.order);
    point_state_.emplace_back(exec_, static_cast<Index>(points * (dim_ == 3 ? fem::pml_point_values<3>
                                                                           : fem::pml_point_values<2>)));
    if (solids_ > 0) solid_state_.emplace_back(exec_, static_cast<Index>(points * solids_ * els.n_voigt));
  }
  start_from_rest();
}

template <class Real>
void PmlTerm<Real>::start_from_rest() {
  if (sem_) sem_->reset_state();
  fill_zero(exec_, node_state_[0].data(), node_state_[0].size());
  node_columns_.reset(exec_);
  point_columns_.reset(exec_);
  solid_columns_.reset(exec_);
  for (DeviceArray<Real>& state : point_state_) fill_zero(exec_, state.data(), state.size());
  for (DeviceArray<double>& state : solid_state_) fill_zero(exec_, state.data(), state.size());
}

template <class Real>
bool PmlTerm<Real>::start_forces(const CentralDifference<Real>& scheme, View<Real> forces) {
  if (!beside_ || columns() > 1) return false;
  beside_->fork();
  queue_forces(beside_->side(), scheme, forces);
  started_ = true;
  return true;
}

template <class Real>
void PmlTerm<Real>::add_forces(const CentralDifference<Real>& scheme, View<Real> forces) {
  if (started_) {
    beside_->join();
    started_ = false;
    return;
  }
  queue_forces(exec_, scheme, forces);
}

// The nodes' and the elements' forces, queued on `exec` (this term's Exec, or the stream beside it).
template <class Real>
void PmlTerm<Real>::queue_forces(const Exec& exec, const CentralDifference<Real>& scheme, View<Real> forces) {
  TREMOR_CHECK(scheme.columns() == columns(), "a PML set up for ", columns(), " shot(s), stepped with ",
               scheme.columns());
  for_each_shot(exec, scheme.displacement().data, scheme.previous_displacement().data, forces.data,
                [&](const Real* u, const Real* previous, Real* f) {
                  add_node_forces_of_one(exec, u, previous, f);
                  add_element_forces_of_one(exec, u, profile_.grid_damped() ? previous : nullptr, f);
                });
}

template <class Real>
void PmlTerm<Real>::keep_columns(int columns, Index field_dofs) {
  TREMOR_CHECK(columns >= 1 && field_dofs >= 0, "a PML for ", columns, " shots of ", field_dofs, " values");
  select(0);
  node_columns_.keep(exec_, node_state_, columns);
  point_columns_.keep(exec_, point_state_, columns);
  solid_columns_.keep(exec_, solid_state_, columns);
  if (sem_) sem_->keep_states(columns);
  const Index n = columns > 1 ? field_dofs : 0;
  column_u_ = DeviceArray<Real>(exec_, n);
  column_previous_ = DeviceArray<Real>(exec_, n);
  column_f_ = DeviceArray<Real>(exec_, n);
  exec_.synchronize();
}

template <class Real>
void PmlTerm<Real>::select(int column) {
  node_columns_.select(node_state_, column);
  point_columns_.select(point_state_, column);
  solid_columns_.select(solid_state_, column);
  if (sem_ && sem_->state_columns() > 1) sem_->select_state(column);
}

template <class Real>
template <class Each>
void PmlTerm<Real>::for_each_shot(const Exec& exec, const Real* u, const Real* previous, Real* f, const Each& each) {
  const int columns = this->columns();
  if (columns == 1) {
    each(u, previous, f);
    return;
  }
  const Index n = column_u_.size();
  for (int s = 0; s < columns; ++s) {
    select(s);
    op::gather_column(exec, n, columns, s, u, column_u_.data());
    if (previous) op::gather_column(exec, n, columns, s, previous, column_previous_.data());
    op::gather_column(exec, n, columns, s, static_cast<const Real*>(f), column_f_.data());
    each(std::as_const(column_u_).data(), previous ? std::as_const(column_previous_).data() : nullptr,
         column_f_.data());
    op::scatter_column(exec, n, columns, s, std::as_const(column_f_).data(), f);
  }
  select(0);
}

template <class Real>
void PmlTerm<Real>::add_node_forces(const Exec& exec, const Real* u, const Real* previous, Real* f) {
  for_each_shot(exec, u, previous, f, [&](const Real* one_u, const Real* one_previous, Real* one_f) {
    add_node_forces_of_one(exec, one_u, one_previous, one_f);
  });
}

template <class Real>
void PmlTerm<Real>::add_element_forces(const Exec& exec, const Real* u, Real* f) {
  for_each_shot(exec, u, nullptr, f, [&](const Real* one_u, const Real*, Real* one_f) {
    add_element_forces_of_one(exec, one_u, nullptr, one_f);
  });
}

template <class Real>
void PmlTerm<Real>::add_node_forces_of_one(const Exec& exec, const Real* u, const Real* previous, Real* f) {
  const auto launch = [&](auto dim, auto components) {
    add_nodes<decltype(dim)::value, decltype(components)::value>(exec, n_nodes(), groups_, nodes_.data(),
                                                                 first_node_, node_d_.data(), node_alpha_.data(),
                                                                 node_mass_.data(), dt_, node_state_[0].data(), u,
                                                                 previous, f);
  };
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  using Three = std::integral_constant<int, 3>;
  if (field_ == PmlField::Fluid)
    dim_ == 3 ? launch(Three{}, One{}) : launch(Two{}, One{});
  else
    dim_ == 3 ? launch(Three{}, Three{}) : launch(Two{}, Two{});
}

template <class Real>
void PmlTerm<Real>::add_element_forces_of_one(const Exec& exec, const Real* u, const Real* previous, Real* f) {
  if (sem_) {
    sem_->add_on(exec, u, f, previous);
    return;
  }
  if (!elements_) return;
  const fem::DeviceElements& els = *elements_;
  for (int c = 0; c < els.n_colours; ++c)
    for (std::size_t b = 0; b < els.blocks.size(); ++b) {
      const fem::DeviceElementBlock& block = els.blocks[b];
      const Index n = block.n_in(c);
      if (n == 0) continue;
      const fem::ElementArrays in = fem::arrays_of(els, block);
      double* solids = solids_ > 0 ? solid_state_[b].data() : nullptr;
      const int solid_values = solids_ * els.n_voigt;
      fem::with_element(block.type, block.order, [&](auto element) {
        using E = decltype(element);
        if (field_ == PmlField::Fluid)
          add_fluid_elements<E, Real>(exec, n, block.in(c), in, profile_, dt_, point_state_[b].data(), u, f);
        else if (solids_ > 0)
          add_elements<E, Real, true>(exec, n, block.in(c), in, profile_, dt_, point_state_[b].data(),
                                      records_.data(), solids, solid_values, u, previous, f, atomic_);
        else
          add_elements<E, Real, false>(exec, n, block.in(c), in, profile_, dt_, point_state_[b].data(), nullptr,
                                       nullptr, 0, u, previous, f, atomic_);
      });
    }
}

// The generic kernel's state per element: its points' variables (Real), then its points' solids
// (double), each element's together in both arrays.
template <class Real>
std::vector<Size> PmlTerm<Real>::state_offsets() const {
  if (sem_) return sem_->state_offsets();
  std::vector<Size> offsets{0};
  for (std::size_t b = 0; elements_ && b < elements_->blocks.size(); ++b) {
    const Index n = elements_->blocks[b].n_elements;
    const Size per = n > 0 ? (point_state_[b].size() + (solids_ > 0 ? solid_state_[b].size() : 0)) / n : 0;
    for (Index e = 0; e < n; ++e) offsets.push_back(offsets.back() + per);
  }
  return offsets;
}

template <class Real>
std::vector<double> PmlTerm<Real>::get_state() const {
  if (sem_) return sem_->get_state();
  std::vector<double> values;
  for (std::size_t b = 0; elements_ && b < elements_->blocks.size(); ++b)
    op::append_by_element(static_cast<std::size_t>(elements_->blocks[b].n_elements), point_state_[b].to_host(),
                          solids_ > 0 ? solid_state_[b].to_host() : std::vector<double>(), values);
  return values;
}

template <class Real>
void PmlTerm<Real>::set_state(std::span<const double> values) {
  const std::vector<Size> offsets = state_offsets();
  TREMOR_CHECK(values.size() == static_cast<std::size_t>(offsets.back()), "PML: a state of ", values.size(),
               " values given, it keeps ", offsets.back());
  if (sem_) {
    sem_->set_state(values);
    return;
  }
  for (std::size_t b = 0; elements_ && b < elements_->blocks.size(); ++b) {
    const auto n = static_cast<std::size_t>(elements_->blocks[b].n_elements);
    std::vector<Real> points(static_cast<std::size_t>(point_state_[b].size()));
    std::vector<double> solids(solids_ > 0 ? static_cast<std::size_t>(solid_state_[b].size()) : 0);
    values = op::take_by_element(n, values, points, solids);
    point_state_[b].copy_from_host(points);
    if (solids_ > 0) solid_state_[b].copy_from_host(solids);
  }
}

// Node by node (add_nodes keeps them value by value).
template <class Real>
std::vector<double> PmlTerm<Real>::get_node_state() const {
  const std::vector<Real> held = node_state_[0].to_host();
  const std::size_t n = node_list_.size(), per = n > 0 ? held.size() / n : 0;
  std::vector<double> values(held.size());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < per; ++k) values[i * per + k] = static_cast<double>(held[k * n + i]);
  return values;
}

template <class Real>
void PmlTerm<Real>::set_node_state(std::span<const double> values) {
  TREMOR_CHECK(values.size() == static_cast<std::size_t>(node_state_[0].size()), "PML: ", values.size(),
               " node values given, it keeps ", node_state_[0].size());
  const std::size_t n = node_list_.size(), per = n > 0 ? values.size() / n : 0;
  std::vector<Real> held(values.size());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < per; ++k) held[k * n + i] = static_cast<Real>(values[i * per + k]);
  node_state_[0].copy_from_host(held);
}

void add_pml_damping(const PmlNodeProfile& nodes, double dt, std::span<const double> mass,
                     std::span<double> damping) {
  const auto dim = static_cast<std::size_t>(nodes.dim);
  const std::size_t components = nodes.components(mass.size());
  TREMOR_CHECK(damping.size() == mass.size(), "the PML's damping: ", mass.size(), " masses and ", damping.size(),
               " dampings");
  for (std::size_t i = 0; i < nodes.nodes.size(); ++i) {
    const double* d = nodes.d.data() + i * dim;
    double sum = 0.5 * dt * fem::pml_cross(nodes.dim, d);
    for (std::size_t c = 0; c < dim; ++c) sum += d[c];
    const auto first = static_cast<std::size_t>(nodes.nodes[i]) * components;
    for (std::size_t k = first; k < first + components; ++k) damping[k] += mass[k] * sum;
  }
}

std::vector<double> pml_node_mass(const PmlNodeProfile& nodes, std::span<const double> mass) {
  const std::size_t components = nodes.components(mass.size());
  std::vector<double> out;
  out.reserve(nodes.nodes.size());
  for (const Index n : nodes.nodes) out.push_back(mass[static_cast<std::size_t>(n) * components]);
  return out;
}

std::size_t PmlNodeProfile::components(std::size_t n_values) const {
  const auto nodes_ = static_cast<std::size_t>(n_mesh_nodes);
  TREMOR_CHECK(nodes_ > 0 ? n_values % nodes_ == 0 && (n_values / nodes_ == 1 || n_values / nodes_ ==
                                                       static_cast<std::size_t>(dim))
                          : n_values == 0,
               "the PML's nodes: ", n_values, " values on ", n_mesh_nodes, " nodes in ", dim, "D");
  return nodes_ > 0 ? n_values / nodes_ : 1;
}

PmlNodeProfile PmlNodeProfile::in_numbering(std::span<const Index> local_to_whole) const {
  if (local_to_whole.empty()) return *this;
  PmlNodeProfile out;
  out.dim = dim;
  out.n_mesh_nodes = static_cast<Index>(local_to_whole.size());
  const auto k = static_cast<std::size_t>(dim);
  for (std::size_t i = 0; i < local_to_whole.size(); ++i) {
    const auto found = std::lower_bound(nodes.begin(), nodes.end(), local_to_whole[i]);
    if (found == nodes.end() || *found != local_to_whole[i]) continue;
    const auto at = static_cast<std::size_t>(found - nodes.begin());
    out.nodes.push_back(static_cast<Index>(i));
    out.d.insert(out.d.end(), d.begin() + static_cast<std::ptrdiff_t>(at * k),
                 d.begin() + static_cast<std::ptrdiff_t>((at + 1) * k));
    out.alpha.insert(out.alpha.end(), alpha.begin() + static_cast<std::ptrdiff_t>(at * k),
                     alpha.begin() + static_cast<std::ptrdiff_t>((at + 1) * k));
  }
  return out;
}

PmlNodeProfile pml_node_profile(const Mesh& mesh, const PmlProfile& profile) {
  PmlNodeProfile out;
  const int dim = mesh.dim();
  out.dim = dim;
  out.n_mesh_nodes = mesh.n_nodes();
  if (!profile.any()) return out;
  const auto n_nodes = static_cast<std::size_t>(mesh.n_nodes()), k = static_cast<std::size_t>(dim);
  // Per node: sum_e int N_a, and per axis sum_e int d N_a and sum_e int d alpha N_a (as the lumped
  // mass weighs them, fem::lumped_mass's factor). First the layer's elements (a point with d > 0),
  // whose nodes are the layer's; then every element holding one of them adds to its volume. The
  // elements' sums are made apart (a block's shape functions tabled once at the rule's points; a
  // 20M-DOF plate of order 4 took 17 s a call evaluating them at each point of each element) and
  // added in element order: the same sums on any number of threads.
  std::vector<double> volume(n_nodes, 0.0), d(n_nodes * k, 0.0), d_alpha(n_nodes * k, 0.0);
  std::vector<char> layer(n_nodes, 0);
  for (int pass = 0; pass < 2; ++pass)
    for (const ElementBlock& block : mesh.blocks)
      fem::with_element(block.type, block.order, [&](auto element) {
        using E = decltype(element);
        const auto rule = fem::lumping_rule<E>();
        constexpr int n = E::n_nodes, values = 1 + 2 * E::dim;  // the volume's, then d's and d alpha's
        const int points = rule.n_points;
        std::vector<double> shapes(static_cast<std::size_t>(points * n)),
            gradients(static_cast<std::size_t>(points * n * E::dim));
        for (int q = 0; q < points; ++q) {
          E::shape(rule.point(q), shapes.data() + static_cast<std::ptrdiff_t>(q * n));
          E::gradients(rule.point(q), gradients.data() + static_cast<std::ptrdiff_t>(q * n * E::dim));
        }
        // The elements this pass sums: the layer's (pass 0, with their stretched axes), or those
        // holding a node of the layer's (pass 1).
        const Index n_elements = block.n_elements();
        std::vector<Index> listed;
        std::vector<int> axes_of;
        if (pass == 0) {
          std::vector<int> axes(static_cast<std::size_t>(n_elements), 0);
#pragma omp parallel for schedule(static)
          for (Index e = 0; e < n_elements; ++e) {
            double x[n * E::dim], at_d[3], at_alpha[3];
            mesh.element_coordinates(block, e, x);
            int bits = 0;
            for (int q = 0; q < points; ++q) {
              const double* N = shapes.data() + static_cast<std::ptrdiff_t>(q * n);
              double at[3] = {0.0, 0.0, 0.0};
              for (int a = 0; a < n; ++a)
                for (int c = 0; c < E::dim; ++c) at[c] += N[a] * x[a * E::dim + c];
              profile.at(at, at_d, at_alpha);
              for (int c = 0; c < E::dim; ++c) bits |= at_d[c] != 0.0 ? 1 << c : 0;
            }
            axes[static_cast<std::size_t>(e)] = bits;
          }
          for (Index e = 0; e < n_elements; ++e)
            if (axes[static_cast<std::size_t>(e)] != 0) {
              listed.push_back(e);
              axes_of.push_back(axes[static_cast<std::size_t>(e)]);
            }
        } else {
          for (Index e = 0; e < n_elements; ++e) {
            const auto nodes = block.nodes(e);
            const auto in_layer = [&](Index a) { return layer[static_cast<std::size_t>(a)] != 0; };
            if (std::any_of(nodes.begin(), nodes.end(), in_layer))
              listed.push_back(e);
          }
        }
        // Each listed element's lumpings: pass 0 d and d alpha per axis, pass 1 the volume.
        const int count = pass == 0 ? values : 1;
        std::vector<double> sums(listed.size() * static_cast<std::size_t>(count * n));
        const auto n_listed = static_cast<std::ptrdiff_t>(listed.size());
#pragma omp parallel
        {
          std::vector<double> factors(static_cast<std::size_t>(values * points), 1.0);  // [value][point], a thread's
#pragma omp for schedule(static)
          for (std::ptrdiff_t i = 0; i < n_listed; ++i) {
            const Index e = listed[static_cast<std::size_t>(i)];
            double x[n * E::dim];
            mesh.element_coordinates(block, e, x);
            double* m = sums.data() + i * count * n;
            if (pass == 1) {
              fem::lumped_masses<E>(x, 1.0, rule, 1, nullptr, m, shapes.data(), gradients.data());
              continue;
            }
            for (int q = 0; q < points; ++q) {
              const double* N = shapes.data() + static_cast<std::ptrdiff_t>(q * n);
              double at[3] = {0.0, 0.0, 0.0}, at_d[3], at_alpha[3];
              for (int a = 0; a < n; ++a)
                for (int c = 0; c < E::dim; ++c) at[c] += N[a] * x[a * E::dim + c];
              profile.at(at, at_d, at_alpha);
              for (int c = 0; c < E::dim; ++c) {
                factors[static_cast<std::size_t>((1 + c) * points + q)] = at_d[c];
                factors[static_cast<std::size_t>((1 + E::dim + c) * points + q)] = at_d[c] * at_alpha[c];
              }
            }
            fem::lumped_masses<E>(x, 1.0, rule, values, factors.data(), m, shapes.data(), gradients.data());
          }
        }
        for (std::size_t i = 0; i < listed.size(); ++i) {
          const auto nodes = block.nodes(listed[i]);
          const double* m = sums.data() + i * static_cast<std::size_t>(count * n);
          if (pass == 1) {
            for (int a = 0; a < n; ++a) volume[static_cast<std::size_t>(nodes[a])] += m[a];
            continue;
          }
          for (int c = 0; c < E::dim; ++c) {
            if (!(axes_of[i] >> c & 1)) continue;
            for (int a = 0; a < n; ++a) {
              d[static_cast<std::size_t>(nodes[a]) * k + static_cast<std::size_t>(c)] += m[(1 + c) * n + a];
              d_alpha[static_cast<std::size_t>(nodes[a]) * k + static_cast<std::size_t>(c)] +=
                  m[(1 + E::dim + c) * n + a];
            }
          }
          for (const Index a : nodes) layer[static_cast<std::size_t>(a)] = 1;
        }
      });
  for (std::size_t a = 0; a < n_nodes; ++a) {
    if (!layer[a]) continue;
    double at_d[3] = {0.0, 0.0, 0.0}, at_alpha[3];
    bool any = false;
    for (std::size_t c = 0; c < k; ++c) {
      at_d[c] = d[a * k + c] / volume[a];
      // (alpha where d is 0 is never read: the node's filters on that axis pass all)
      at_alpha[c] = d[a * k + c] > 0.0 ? d_alpha[a * k + c] / d[a * k + c] : profile.alpha_rest;
      any = any || at_d[c] > 0.0;
    }
    if (!any) continue;
    out.nodes.push_back(static_cast<Index>(a));
    out.d.insert(out.d.end(), at_d, at_d + k);
    out.alpha.insert(out.alpha.end(), at_alpha, at_alpha + k);
  }
  return out;
}

void without_pml(fem::SectionTable& table, std::span<const Index> elements) {
  if (elements.empty()) return;
  if (table.element_stiffness_factor.empty()) table.element_stiffness_factor.assign(table.element_section.size(), 1.0);
  for (const Index e : elements) table.element_stiffness_factor[static_cast<std::size_t>(e)] = 0.0;
}

std::shared_ptr<const fem::DeviceElements> pml_layer_elements(const Exec& exec, const Mesh& mesh,
                                                              const fem::SectionTable& table,
                                                              std::vector<Index> elements, std::vector<Index>& order) {
  const Mesh layer = on_all_nodes(mesh, std::move(elements), order);
  fem::SectionTable rows = table_rows(table, order);
  rows.element_stiffness_factor.clear();  // 1: the PML takes the element whole
  rows.element_alpha.clear();
  return std::make_shared<const fem::DeviceElements>(exec, layer, rows, fem::colour_elements(layer));
}

PmlBytes pml_term_bytes(const Model& model, const PmlProfile& profile, std::size_t real_size,
                        std::size_t solid_values, PmlField field) {
  PmlBytes bytes;
  if (!profile.any()) return bytes;
  const Mesh& mesh = model.mesh;
  const auto dim = static_cast<std::size_t>(mesh.dim());
  const bool fluid = field == PmlField::Fluid;
  const std::size_t components = fluid ? 1 : dim;
  const std::vector<Index> elements = pml_elements(model, profile);
  // A solid's GLL elements of order 2 and more go through the sem operator: its points' variables,
  // the viscoelastic law's and d and alpha in Real, and about 25 geometric values per element (the
  // trilinear map's; 10 for parallelepipeds); the others keep the viscoelastic law's in double. A
  // fluid's keep dim^2 values a point, by the generic kernel.
  const bool sem = !fluid && std::all_of(mesh.blocks.begin(), mesh.blocks.end(), [](const ElementBlock& block) {
    return (block.type == ElementType::HexGLL || block.type == ElementType::QuadGLL) && block.order >= 2;
  });
  const std::size_t point_bytes = dim * dim * components * real_size +
                                  (sem ? (solid_values + 2 * dim) * real_size : solid_values * sizeof(double));
  // Per element: its nodes, section, factor, alpha and colour-list place; its points' variables.
  bytes.elements = mesh.coordinates.size() * sizeof(double);
  std::vector<char> touched(static_cast<std::size_t>(mesh.n_nodes()), 0);
  std::size_t k = 0;
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks) {
    const auto points = static_cast<std::size_t>(fem::stiffness_rule_points(block.type, block.order));
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      if (k >= elements.size() || elements[k] != global) continue;
      ++k;
      const auto nodes = block.nodes(e);
      bytes.elements += nodes.size() * sizeof(Index) + 2 * sizeof(int) + 2 * sizeof(double);
      // (and in sem the grid damping's beta / dt)
      bytes.state += points * point_bytes + (sem ? (25 + (profile.grid_damped() ? 1 : 0)) * real_size : 0);
      for (const Index n : nodes) touched[static_cast<std::size_t>(n)] = 1;
    }
  }
  // Per node of the layer's elements (PmlNodeProfile): its number; d, alpha, mass, variables in Real.
  const auto inside = static_cast<std::size_t>(std::count(touched.begin(), touched.end(), 1));
  bytes.state += inside * (sizeof(Index) + (2 * dim + 1 + dim * components) * real_size);
  return bytes;
}

template class PmlTerm<float>;
template class PmlTerm<double>;

}  // namespace tremor::explicit_fe
