#include "tremor/explicit/receivers.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/faces.hpp"

namespace tremor::explicit_fe {

std::string_view to_string(Quantity quantity) {
  switch (quantity) {
    case Quantity::Displacement: return "displacement";
    case Quantity::Velocity: return "velocity";
    case Quantity::Acceleration: return "acceleration";
    case Quantity::Pressure: return "pressure";
  }
  return "?";
}

namespace {

// Solves J dx = r for dim 2 or 3 (J row-major) by Cramer's rule; false when J is singular.
bool solve_small(int dim, const double* J, const double* r, double* x) {
  if (dim == 2) {
    const double det = J[0] * J[3] - J[1] * J[2];
    if (det == 0.0 || !std::isfinite(det)) return false;
    x[0] = (r[0] * J[3] - J[1] * r[1]) / det;
    x[1] = (J[0] * r[1] - r[0] * J[2]) / det;
    return true;
  }
  const double det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                     J[2] * (J[3] * J[7] - J[4] * J[6]);
  if (det == 0.0 || !std::isfinite(det)) return false;
  for (int k = 0; k < 3; ++k) {
    double M[9];
    std::copy(J, J + 9, M);
    for (int i = 0; i < 3; ++i) M[i * 3 + k] = r[i];
    x[k] = (M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
            M[2] * (M[3] * M[7] - M[4] * M[6])) /
           det;
  }
  return true;
}

// Inverts x(xi) = sum_a N_a(xi) x_a = p for one element of type E (x node-major, dim values per
// node) by Newton's method from the reference centre. True when it converged to a point of the
// reference element (within a relative 1e-9), with N filled.
template <class E>
bool invert(const double* x, const double* p, double size, double* xi, double* N) {
  constexpr int dim = E::dim, n = E::n_nodes;
  for (int j = 0; j < dim; ++j) xi[j] = E::simplex ? 1.0 / (dim + 1) : 0.0;
  double dN[n * dim];
  bool converged = false;
  for (int iteration = 0; iteration < 30; ++iteration) {
    E::shape(xi, N);
    E::gradients(xi, dN);
    double r[3] = {0.0, 0.0, 0.0}, J[9] = {0.0};
    for (int i = 0; i < dim; ++i) r[i] = p[i];
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < dim; ++i) {
        r[i] -= N[a] * x[a * dim + i];
        for (int j = 0; j < dim; ++j) J[i * dim + j] += x[a * dim + i] * dN[a * dim + j];
      }
    double residual = 0.0;
    for (int i = 0; i < dim; ++i) residual = std::max(residual, std::abs(r[i]));
    if (residual <= 1e-12 * size) {
      converged = true;
      break;
    }
    double step[3];
    if (!solve_small(dim, J, r, step)) return false;
    for (int j = 0; j < dim; ++j) {
      xi[j] += step[j];
      if (!std::isfinite(xi[j]) || std::abs(xi[j]) > 10.0) return false;  // far outside: give up
    }
  }
  if (!converged) return false;
  constexpr double tolerance = 1e-9;
  if constexpr (E::simplex) {
    double sum = 0.0;
    for (int j = 0; j < dim; ++j) {
      if (xi[j] < -tolerance) return false;
      sum += xi[j];
    }
    return sum <= 1.0 + tolerance;
  } else {
    for (int j = 0; j < dim; ++j)
      if (std::abs(xi[j]) > 1.0 + tolerance) return false;
    return true;
  }
}

std::string format_position(const std::array<double, 3>& p, int dim) {
  std::string text = "(";
  for (int i = 0; i < dim; ++i) text += str(i ? ", " : "", p[static_cast<std::size_t>(i)]);
  return text + ")";
}

}  // namespace

std::vector<std::optional<Location>> locate_all(const Mesh& mesh, std::span<const std::array<double, 3>> positions,
                                                const std::vector<bool>& among) {
  const int dim = mesh.dim();
  const std::size_t n = positions.size();
  std::vector<std::optional<Location>> out(n);
  if (n == 0) return out;
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  double extent = 0.0;
  for (int i = 0; i < dim; ++i) extent = std::max(extent, upper[i] - lower[i]);
  const double slack = 1e-9 * extent;
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks) {
    if (std::all_of(out.begin(), out.end(), [](const auto& found) { return found.has_value(); })) break;
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      if (E::dim != dim) return;
      // Element e holds position p: its node box (widened by a quarter: curved quadratic edges may
      // bulge past the nodes) holds p and Newton's inversion of its map lands inside it.
      const auto holds = [&](Index e, std::size_t p, double* xi, double* N) {
        const auto nodes = block.nodes(e);
        double x[E::n_nodes * E::dim], lo[3], hi[3];
        for (int i = 0; i < dim; ++i) {
          lo[i] = std::numeric_limits<double>::infinity();
          hi[i] = -lo[i];
        }
        for (int a = 0; a < E::n_nodes; ++a)
          for (int i = 0; i < dim; ++i) {
            const double v = mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(i)];
            x[a * dim + i] = v;
            lo[i] = std::min(lo[i], v);
            hi[i] = std::max(hi[i], v);
          }
        bool inside_box = true;
        double size = 0.0;
        for (int i = 0; i < dim; ++i) {
          const double widen = 0.25 * (hi[i] - lo[i]) + slack;
          inside_box = inside_box && positions[p][static_cast<std::size_t>(i)] >= lo[i] - widen &&
                       positions[p][static_cast<std::size_t>(i)] <= hi[i] + widen;
          size = std::max(size, hi[i] - lo[i]);
        }
        return inside_box && invert<E>(x, positions[p].data(), size, xi, N);
      };
      // One parallel pass over the block for every position still unplaced; each keeps the first
      // element (lowest index) holding it, as a search in element order would.
      std::vector<Index> first(n, std::numeric_limits<Index>::max());
      const Index count = block.n_elements();
#pragma omp parallel for schedule(static)
      for (Index e = 0; e < count; ++e) {
        double xi[3] = {0.0, 0.0, 0.0}, N[E::n_nodes];
        if (!among.empty() && !among[static_cast<std::size_t>(global + e)]) continue;
        for (std::size_t p = 0; p < n; ++p) {
          if (out[p] || !holds(e, p, xi, N)) continue;
#pragma omp critical(tremor_locate)
          first[p] = std::min(first[p], e);
        }
      }
      for (std::size_t p = 0; p < n; ++p) {
        if (out[p] || first[p] == std::numeric_limits<Index>::max()) continue;
        double xi[3] = {0.0, 0.0, 0.0}, N[E::n_nodes];
        (void)holds(first[p], p, xi, N);
        Location location;
        location.element = global + first[p];
        for (int j = 0; j < dim; ++j) location.xi[static_cast<std::size_t>(j)] = xi[j];
        const auto nodes = block.nodes(first[p]);
        location.nodes.assign(nodes.begin(), nodes.end());
        location.weights.assign(N, N + E::n_nodes);
        out[p] = std::move(location);
      }
    });
    global += block.n_elements();
  }
  return out;
}

namespace {

// Reference coordinates of hexahedron face f (faces.hpp): the fixed coordinate and its value,
// and the two free ones.
struct HexFace {
  int fixed;
  double at;
  int free[2];
};
HexFace hex_face(int face) {
  switch (face) {
    case 0: return {2, -1.0, {0, 1}};
    case 1: return {2, 1.0, {0, 1}};
    case 2: return {1, -1.0, {0, 2}};
    case 3: return {0, 1.0, {1, 2}};
    case 4: return {1, 1.0, {0, 2}};
    default: return {0, -1.0, {1, 2}};
  }
}

// Finds the reference point of face `f` of element E (x node-major) over (px, py) by Newton's
// method on its x and y; true when it lies on the face (within a relative 1e-9), with N filled.
template <class E>
bool invert_on_face(const double* x, const HexFace& f, double px, double py, double size, double* xi, double* N) {
  constexpr int n = E::n_nodes;
  xi[0] = xi[1] = xi[2] = 0.0;
  xi[f.fixed] = f.at;
  double dN[n * 3];
  for (int iteration = 0; iteration < 30; ++iteration) {
    E::shape(xi, N);
    E::gradients(xi, dN);
    double r[2] = {px, py}, J[4] = {0.0, 0.0, 0.0, 0.0};
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < 2; ++i) {
        r[i] -= N[a] * x[a * 3 + i];
        for (int j = 0; j < 2; ++j) J[i * 2 + j] += x[a * 3 + i] * dN[a * 3 + f.free[j]];
      }
    if (std::max(std::abs(r[0]), std::abs(r[1])) <= 1e-12 * size)
      return std::abs(xi[f.free[0]]) <= 1.0 + 1e-9 && std::abs(xi[f.free[1]]) <= 1.0 + 1e-9;
    double step[2];
    if (!solve_small(2, J, r, step)) return false;  // a face seen edge-on from above
    for (int j = 0; j < 2; ++j) {
      xi[f.free[j]] += step[j];
      if (!std::isfinite(xi[f.free[j]]) || std::abs(xi[f.free[j]]) > 10.0) return false;
    }
  }
  return false;
}

}  // namespace

std::vector<std::optional<SurfacePoint>> locate_on_surface(const Mesh& mesh, std::span<const Face> faces,
                                                           std::span<const std::array<double, 2>> points) {
  std::vector<std::optional<SurfacePoint>> out(points.size());
  if (points.empty() || faces.empty()) return out;
  TREMOR_CHECK(mesh.dim() == 3, "points on a surface: the mesh is 2D");
  // Each face's x-y box (widened by a quarter, as curved faces may bulge past their nodes) into
  // the cells of a grid of about one face per cell.
  std::vector<std::array<double, 4>> boxes(faces.size());
  double lo[2] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  double hi[2] = {-lo[0], -lo[1]};
  for (std::size_t k = 0; k < faces.size(); ++k) {
    const ElementRef ref = mesh.locate(faces[k].element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    const bool hexahedron = block.type == ElementType::Hex8 || block.type == ElementType::Hex20 ||
                            block.type == ElementType::HexGLL;
    TREMOR_CHECK(hexahedron, "points on a surface take faces of hexahedra; "
                 "element ", mesh.element_label(faces[k].element), " is ", element_name(block.type, block.order));
    int local[max_face_nodes];
    const int count = face_nodes(block.type, block.order, faces[k].face, local);
    std::array<double, 4> box{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    for (int a = 0; a < count; ++a) {
      const auto x = mesh.node(block.nodes(ref.element)[static_cast<std::size_t>(local[a])]);
      for (int i = 0; i < 2; ++i) {
        box[static_cast<std::size_t>(i)] = std::min(box[static_cast<std::size_t>(i)], x[static_cast<std::size_t>(i)]);
        box[static_cast<std::size_t>(i + 2)] = std::max(box[static_cast<std::size_t>(i + 2)], x[static_cast<std::size_t>(i)]);
      }
    }
    for (int i = 0; i < 2; ++i) {
      const double widen = 0.25 * (box[static_cast<std::size_t>(i + 2)] - box[static_cast<std::size_t>(i)]);
      box[static_cast<std::size_t>(i)] -= widen;
      box[static_cast<std::size_t>(i + 2)] += widen;
      lo[i] = std::min(lo[i], box[static_cast<std::size_t>(i)]);
      hi[i] = std::max(hi[i], box[static_cast<std::size_t>(i + 2)]);
    }
    boxes[k] = box;
  }
  const double extent = std::max(hi[0] - lo[0], hi[1] - lo[1]);
  const auto cells = static_cast<Index>(std::max(1.0, std::ceil(std::sqrt(static_cast<double>(faces.size())))));
  const double width[2] = {std::max(hi[0] - lo[0], 1e-300) / cells, std::max(hi[1] - lo[1], 1e-300) / cells};
  const auto cell_of = [&](int axis, double v) {
    return std::clamp<Index>(static_cast<Index>(std::floor((v - lo[axis]) / width[axis])), 0, cells - 1);
  };
  std::vector<std::vector<std::size_t>> binned(static_cast<std::size_t>(cells * cells));
  for (std::size_t k = 0; k < faces.size(); ++k)
    for (Index j = cell_of(1, boxes[k][1]); j <= cell_of(1, boxes[k][3]); ++j)
      for (Index i = cell_of(0, boxes[k][0]); i <= cell_of(0, boxes[k][2]); ++i)
        binned[static_cast<std::size_t>(j * cells + i)].push_back(k);
  const double slack = 1e-9 * extent;
  const auto count = static_cast<std::int64_t>(points.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t q = 0; q < count; ++q) {
    const auto& p = points[static_cast<std::size_t>(q)];
    if (p[0] < lo[0] - slack || p[0] > hi[0] + slack || p[1] < lo[1] - slack || p[1] > hi[1] + slack) continue;
    for (const std::size_t k : binned[static_cast<std::size_t>(cell_of(1, p[1]) * cells + cell_of(0, p[0]))]) {
      const auto& box = boxes[k];
      if (p[0] < box[0] - slack || p[0] > box[2] + slack || p[1] < box[1] - slack || p[1] > box[3] + slack) continue;
      const ElementRef ref = mesh.locate(faces[k].element);
      const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
      bool found = false;
      fem::with_element(block.type, block.order, [&](auto element) {
        using E = decltype(element);
        if constexpr (E::dim == 3 && !E::simplex) {
          const auto nodes = block.nodes(ref.element);
          double x[E::n_nodes * 3], xi[3], N[E::n_nodes];
          double size = 0.0;
          for (int a = 0; a < E::n_nodes; ++a)
            for (int i = 0; i < 3; ++i) x[a * 3 + i] = mesh.node(nodes[static_cast<std::size_t>(a)])[static_cast<std::size_t>(i)];
          for (int i = 0; i < 2; ++i) size = std::max(size, box[static_cast<std::size_t>(i + 2)] - box[static_cast<std::size_t>(i)]);
          if (!invert_on_face<E>(x, hex_face(faces[k].face), p[0], p[1], size, xi, N)) return;
          SurfacePoint at;
          at.location.element = faces[k].element;
          at.position = {p[0], p[1], 0.0};
          for (int j = 0; j < 3; ++j) at.location.xi[static_cast<std::size_t>(j)] = xi[j];
          for (int a = 0; a < E::n_nodes; ++a) {
            at.position[2] += N[a] * x[a * 3 + 2];
            if (N[a] == 0.0) continue;  // off the face (Lagrange shape functions vanish there)
            at.location.nodes.push_back(nodes[static_cast<std::size_t>(a)]);
            at.location.weights.push_back(N[a]);
          }
          out[static_cast<std::size_t>(q)] = std::move(at);
          found = true;
        }
      });
      if (found) break;
    }
  }
  return out;
}

std::optional<Location> locate(const Mesh& mesh, std::span<const double> position) {
  TREMOR_CHECK(static_cast<int>(position.size()) >= mesh.dim(), "locate: ", position.size(), " coordinates in ",
               mesh.dim(), "D");
  std::array<double, 3> point{0.0, 0.0, 0.0};
  std::copy(position.begin(), position.begin() + mesh.dim(), point.begin());
  return locate_all(mesh, std::span<const std::array<double, 3>>(&point, 1)).front();
}

bool History::records(Quantity quantity) const {
  return std::find(quantities.begin(), quantities.end(), quantity) != quantities.end();
}

double History::value(std::size_t sample, Index point, Quantity quantity, int component) const {
  const auto q = std::find(quantities.begin(), quantities.end(), quantity);
  TREMOR_CHECK(q != quantities.end(), "history '", name, "' does not record ", to_string(quantity));
  TREMOR_CHECK(sample < n_samples() && point >= 0 && point < n_points() && component >= 0 && component < components(),
               "history '", name, "': sample ", sample, ", point ", point, ", component ", component, " out of range");
  const auto nq = quantities.size();
  return values[((sample * static_cast<std::size_t>(n_points()) + static_cast<std::size_t>(point)) * nq +
                 static_cast<std::size_t>(q - quantities.begin())) *
                    static_cast<std::size_t>(components()) +
                static_cast<std::size_t>(component)];
}

Index buffered_recording_steps(std::size_t row_pair_bytes) {
  return static_cast<Index>(
      std::clamp<std::size_t>((std::size_t(64) << 20) / std::max<std::size_t>(row_pair_bytes, 1), 1, 256));
}

namespace {

// Which side of a model with fluids holds each element and node (fem::fluid_elements): a receiver
// of pressure lies in the fluid, one of motion on either side. Empty without fluids.
struct Sides {
  std::vector<bool> fluid_element, solid_element;
  std::vector<bool> fluid_node, solid_node;

  explicit Sides(const Model& model) {
    if (!model.has_fluids()) return;
    fluid_element = fem::fluid_elements(model);
    solid_element.resize(fluid_element.size());
    fluid_node.assign(static_cast<std::size_t>(model.mesh.n_nodes()), false);
    solid_node = fluid_node;
    Index global = 0;
    for (const ElementBlock& block : model.mesh.blocks)
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        const bool fluid = fluid_element[static_cast<std::size_t>(global)];
        solid_element[static_cast<std::size_t>(global)] = !fluid;
        std::vector<bool>& held = fluid ? fluid_node : solid_node;
        for (const Index node : block.nodes(e)) held[static_cast<std::size_t>(node)] = true;
      }
  }
  bool any() const { return !fluid_element.empty(); }
  const std::vector<bool>& elements(bool fluid) const { return fluid ? fluid_element : solid_element; }
};

// Why a receiver of pressure's point is refused: it lies in the solid.
constexpr const char* in_the_solid = "in the solid: pressure is recorded in a fluid";

// location.gradients: (d N_a / d x_c)(xi) / rho in its element (a fluid's): J^T g_a = d N_a / d xi.
void fill_gradients(const Model& model, const std::vector<int>& sections, Location& location) {
  const Mesh& mesh = model.mesh;
  const ElementRef ref = mesh.locate(location.element);
  const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
  const int section = sections[static_cast<std::size_t>(location.element)];
  const double rho = model.material(model.sections[static_cast<std::size_t>(section)].material).density;
  fem::with_element(block.type, block.order, [&](auto element) {
    using E = decltype(element);
    constexpr int dim = E::dim, n = E::n_nodes;
    double x[n * dim], dN[n * dim], Jt[9] = {0.0};
    mesh.element_coordinates(block, ref.element, x);
    E::gradients(location.xi.data(), dN);
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) Jt[j * dim + i] += x[a * dim + i] * dN[a * dim + j];
    location.gradients.assign(static_cast<std::size_t>(n * dim), 0.0);
    for (int a = 0; a < n; ++a) {
      double g[3];
      TREMOR_CHECK(solve_small(dim, Jt, dN + a * dim, g), "element ", mesh.element_label(location.element),
                   " has a singular Jacobian at a receiver's point");
      for (int c = 0; c < dim; ++c) location.gradients[static_cast<std::size_t>(a * dim + c)] = g[c] / rho;
    }
  });
}

}  // namespace

std::vector<Location> fluid_node_locations(const Model& model, std::span<const Index> nodes,
                                           const std::vector<bool>& among, std::span<const Index> rank) {
  const Mesh& mesh = model.mesh;
  TREMOR_CHECK(rank.empty() || rank.size() == static_cast<std::size_t>(mesh.n_elements()), rank.size(),
               " element ranks for ", mesh.n_elements(), " elements");
  // The first element holding each node asked for (its rank), and the node's place in it.
  std::vector<Index> first(static_cast<std::size_t>(mesh.n_nodes()), -1), first_rank(first);
  std::vector<int> local(first.size(), -1);
  std::vector<bool> wanted(first.size(), false);
  for (const Index node : nodes) {
    TREMOR_CHECK(node >= 0 && node < mesh.n_nodes(), "node index ", node, " out of range");
    wanted[static_cast<std::size_t>(node)] = true;
  }
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      if (!among.empty() && !among[static_cast<std::size_t>(global)]) continue;
      const Index order = rank.empty() ? global : rank[static_cast<std::size_t>(global)];
      const auto element_nodes = block.nodes(e);
      for (std::size_t a = 0; a < element_nodes.size(); ++a) {
        const auto n = static_cast<std::size_t>(element_nodes[a]);
        if (wanted[n] && (first[n] < 0 || order < first_rank[n])) {
          first[n] = global;
          first_rank[n] = order;
          local[n] = static_cast<int>(a);
        }
      }
    }
  const std::vector<int> sections = model.element_sections();
  std::vector<Location> locations;
  locations.reserve(nodes.size());
  for (const Index node : nodes) {
    const auto n = static_cast<std::size_t>(node);
    TREMOR_CHECK(first[n] >= 0, "node ", mesh.node_labels[n], " lies in no fluid element");
    Location location;
    location.element = first[n];
    const ElementRef ref = mesh.locate(location.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    const auto element_nodes = block.nodes(ref.element);
    location.nodes.assign(element_nodes.begin(), element_nodes.end());
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      double N[E::n_nodes];
      E::node(local[n], location.xi.data());
      E::shape(location.xi.data(), N);
      location.weights.assign(N, N + E::n_nodes);
    });
    fill_gradients(model, sections, location);
    locations.push_back(std::move(location));
  }
  return locations;
}

namespace {

// The mean over `faces` (flat ones) as a Location: each face node a weighted by int N_a dA / A,
// the row sums of a uniform pressure's consistent forces over the normal (fem/faces.hpp), so that
// the mean reads what a unit pressure there loads. Its element is the first face's.
Location footprint_location(const Mesh& mesh, std::span<const Face> faces) {
  const int dim = mesh.dim();
  std::map<Index, double> weights;
  std::vector<double> coordinates, shares;
  double area = 0.0;
  for (const Face& face : faces) {
    const ElementRef ref = mesh.locate(face.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    int local[max_face_nodes];
    const int n = face_nodes(block.type, block.order, face.face, local);
    const auto nodes = block.nodes(ref.element);
    coordinates.clear();
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < dim; ++d) coordinates.push_back(mesh.node(nodes[static_cast<std::size_t>(local[a])])[d]);
    fem::face_weights(face_type(block.type), block.order, dim, coordinates, shares);  // int N_a dA
    for (int a = 0; a < n; ++a) {
      weights[nodes[static_cast<std::size_t>(local[a])]] += shares[static_cast<std::size_t>(a)];
      area += shares[static_cast<std::size_t>(a)];
    }
  }
  Location location;
  location.element = faces.front().element;
  for (const auto& [node, w] : weights) {
    location.nodes.push_back(node);
    location.weights.push_back(w / area);
  }
  return location;
}

}  // namespace

std::vector<History> make_histories(const Model& model, double dt) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const Sides sides(model);
  const std::vector<int> sections = sides.any() ? model.element_sections() : std::vector<int>{};
  std::vector<History> histories;
  const auto labels_of = [&](const std::vector<Index>& nodes) {
    std::vector<Label> labels;
    for (Index node : nodes) {
      TREMOR_CHECK(node >= 0 && node < mesh.n_nodes(), "node index ", node, " out of range");
      labels.push_back(mesh.node_labels[static_cast<std::size_t>(node)]);
    }
    return labels;
  };
  for (const Receiver& receiver : model.receivers) {
    const std::string at = str(receiver.origin.empty() ? model.source : receiver.origin, ": receiver '",
                               receiver.name, "'");
    History history;
    history.name = receiver.name;
    history.origin = receiver.origin;
    history.dim = dim;
    history.every_n_steps = std::max(1, receiver.every_n_steps);
    if (receiver.displacement) history.quantities.push_back(Quantity::Displacement);
    if (receiver.velocity) history.quantities.push_back(Quantity::Velocity);
    if (receiver.acceleration) history.quantities.push_back(Quantity::Acceleration);
    if (receiver.pressure) history.quantities.push_back(Quantity::Pressure);
    // With fluids, each point's side: pressure in the fluid; motion in the solid where a solid
    // element holds the point, else the fluid's (from its potential). One history, one side.
    int first_fluid = -1, first_solid = -1;  // the first point on each side
    const auto side = [&](std::size_t k, bool fluid) {
      int& first = fluid ? first_fluid : first_solid;
      if (first < 0) first = static_cast<int>(k);
    };
    const auto point_name = [&](int k) {
      const auto i = static_cast<std::size_t>(k);
      if (!receiver.nodes.empty()) return str("node ", mesh.node_labels[static_cast<std::size_t>(receiver.nodes[i])]);
      return receiver.grid ? str("grid point ", k) : str("position ", format_position(receiver.positions[i], dim));
    };
    if (!receiver.nodes.empty()) {
      history.nodes = receiver.nodes;
      history.node_labels = labels_of(receiver.nodes);
      if (sides.any())
        for (std::size_t k = 0; k < receiver.nodes.size(); ++k) {
          const auto node = static_cast<std::size_t>(receiver.nodes[k]);
          if (receiver.pressure && !sides.fluid_node[node])
            throw Error(str(at, " records node ", history.node_labels[k], ", which only solid elements hold: it lies ",
                            in_the_solid));
          side(k, receiver.pressure || !sides.solid_node[node]);
        }
    } else if (!receiver.footprints.empty()) {
      // An array's elements: in a model with fluids, on the solid.
      history.surface_means = true;
      for (std::size_t k = 0; k < receiver.footprints.size(); ++k) {
        history.positions.push_back(receiver.positions[k]);
        history.locations.push_back(footprint_location(mesh, receiver.footprints[k]));
        if (sides.any()) side(k, sides.fluid_element[static_cast<std::size_t>(history.locations.back().element)]);
      }
    } else if (receiver.grid) {
      const ReceiverGrid& grid = *receiver.grid;
      std::vector<std::array<double, 2>> points(static_cast<std::size_t>(grid.n_points()));
      for (Index p = 0; p < grid.n_points(); ++p) points[static_cast<std::size_t>(p)] = grid.point(p);
      std::vector<std::optional<SurfacePoint>> located = locate_on_surface(mesh, grid.faces, points);
      for (std::size_t k = 0; k < points.size(); ++k) {
        if (!located[k])
          throw Error(str(at, ": grid point ", k, " at (", points[k][0], ", ", points[k][1], ") is not over surface '",
                          grid.surface, "'"));
        if (sides.any()) {
          const bool fluid = sides.fluid_element[static_cast<std::size_t>(located[k]->location.element)];
          if (receiver.pressure && !fluid)
            throw Error(str(at, ": grid point ", k, " at (", points[k][0], ", ", points[k][1], ") lies ", in_the_solid));
          side(k, fluid);
        }
        history.positions.push_back(located[k]->position);
        history.locations.push_back(std::move(located[k]->location));
      }
      history.grid = grid;
      history.grid->faces.clear();
    } else {
      // Pressure among the fluid's elements; motion among the solid's, then the fluid's.
      std::vector<std::optional<Location>> located = locate_all(
          mesh, receiver.positions, sides.any() ? sides.elements(receiver.pressure) : std::vector<bool>{});
      for (std::size_t k = 0; k < receiver.positions.size(); ++k) {
        const auto& position = receiver.positions[k];
        bool fluid = receiver.pressure;
        if (!located[k] && sides.any()) {
          located[k] = locate_all(mesh, std::span(&position, 1), sides.elements(!receiver.pressure)).front();
          if (located[k] && receiver.pressure)
            throw Error(str(at, ": position ", format_position(position, dim), " lies ", in_the_solid));
          fluid = true;
        }
        if (!located[k])
          throw Error(str(at, ": position ", format_position(position, dim), " lies outside the mesh"));
        if (sides.any()) side(k, fluid);
        history.positions.push_back(position);
        history.locations.push_back(std::move(*located[k]));
      }
    }
    if (first_fluid >= 0 && first_solid >= 0)
      throw Error(str(at, " records ", point_name(first_solid), " in the solid and ", point_name(first_fluid),
                      " in the fluid: a history's points lie on one side; give each side its own receiver"));
    history.potential = first_fluid >= 0 && !receiver.pressure;
    if (history.potential) {
      if (!history.nodes.empty())  // each node in the first fluid element holding it
        history.locations = fluid_node_locations(model, history.nodes, sides.fluid_element);
      else
        for (Location& location : history.locations) fill_gradients(model, sections, location);
    }
    histories.push_back(std::move(history));
  }
  for (const HistoryOutput& output : model.histories) {
    History history;
    history.name = output.name;
    history.origin = model.source;
    history.dim = dim;
    const auto wants = [&](const char* variable) {
      return std::find(output.variables.begin(), output.variables.end(), variable) != output.variables.end();
    };
    if (wants("U")) history.quantities.push_back(Quantity::Displacement);
    if (wants("V")) history.quantities.push_back(Quantity::Velocity);
    if (wants("A")) history.quantities.push_back(Quantity::Acceleration);
    if (history.quantities.empty()) continue;  // variables tremor does not record (stresses...)
    history.every_n_steps =
        // Clamped before the conversion: an interval longer than any run is one sample, at t = 0.
        output.every_time > 0.0 ? static_cast<int>(std::clamp(std::round(output.every_time / dt), 1.0, 2147483647.0))
                                : std::max(1, output.every_n_steps);
    history.nodes = output.nodes;
    history.node_labels = labels_of(output.nodes);
    histories.push_back(std::move(history));
  }
  return histories;
}

// -------------------------------------------------------------------------------------- Recorder

template <class Real>
Recorder<Real>::Recorder(const Exec& exec, std::vector<History> histories, double dt, Index n_dofs,
                         int field_components, int columns)
    : exec_(exec), histories_(std::move(histories)), dt_(dt) {
  TREMOR_CHECK(std::isfinite(dt) && dt > 0.0, "recorder: time step ", dt);
  TREMOR_CHECK(columns >= 1 && histories_.size() % static_cast<std::size_t>(columns) == 0, "recorder: ",
               histories_.size(), " histories for ", columns, " shots");
  const std::size_t per_shot = histories_.size() / static_cast<std::size_t>(columns);
  Index shot = 0;  // of the history being laid out
  dim_ = histories_.empty() ? 1 : histories_.front().components();
  const int field = field_components > 0 ? field_components : dim_;
  std::vector<Index> offsets{0}, dofs;
  std::vector<double> weights;
  // Row entry: weight x the field's component c (its only one for a scalar field) at `node`.
  const auto term = [&](Index node, int c, double weight) {
    TREMOR_CHECK(node >= 0 && static_cast<Size>(node) * field < n_dofs, "receiver node ", node, " out of range");
    dofs.push_back((node * field + (field == 1 ? 0 : c)) * columns + shot);
    weights.push_back(weight);
  };
  for (const History& history : histories_) {
    shot = static_cast<Index>(static_cast<std::size_t>(&history - histories_.data()) / std::max<std::size_t>(per_shot, 1));
    TREMOR_CHECK(history.components() == dim_, "histories of different numbers of components");
    TREMOR_CHECK(history.potential == (field == 1 && dim_ > 1), "history '", history.name, "' records ",
                 history.potential ? "a fluid's motion" : "its field", ", which a field of ", field,
                 " value(s) per node does not hold");
    row_begin_.push_back(static_cast<Index>(offsets.size() - 1));
    for (Index p = 0; p < history.n_points(); ++p)
      for (int c = 0; c < dim_; ++c) {
        if (history.potential) {  // u_c = sum_a (d N_a / d x_c) / rho chi_a
          const Location& location = history.locations[static_cast<std::size_t>(p)];
          for (std::size_t a = 0; a < location.nodes.size(); ++a)
            if (const double g = location.gradients[a * static_cast<std::size_t>(dim_) + static_cast<std::size_t>(c)];
                g != 0.0)
              term(location.nodes[a], c, g);
        } else if (!history.nodes.empty()) {
          term(history.nodes[static_cast<std::size_t>(p)], c, 1.0);
        } else {
          const Location& location = history.locations[static_cast<std::size_t>(p)];
          for (std::size_t a = 0; a < location.nodes.size(); ++a)
            if (location.weights[a] != 0.0) term(location.nodes[a], c, location.weights[a]);
        }
        offsets.push_back(static_cast<Index>(dofs.size()));
      }
  }
  n_rows_ = static_cast<Index>(offsets.size() - 1);
  offsets_ = DeviceArray<Index>(exec_, std::span<const Index>(offsets));
  dofs_ = DeviceArray<Index>(exec_, std::span<const Index>(dofs));
  weights_ = DeviceArray<double>(exec_, std::span<const double>(weights));
  capacity_ = buffered_recording_steps(2 * static_cast<std::size_t>(n_rows_) * sizeof(Real));
  buffer_ = DeviceArray<Real>(exec_, 2 * n_rows_ * capacity_);
  pending_.resize(histories_.size());
}

// A free function, since nvcc allows no device lambda in a private member function.
template <class Real>
void gather_entries(const Exec& exec, View<const Real> field, View<const Index> dofs, View<Real> gathered) {
  forall(exec, dofs.size, [=] TREMOR_LAMBDA(Index k) { gathered[k] = field[dofs[k]]; });
}
template void gather_entries<float>(const Exec&, View<const float>, View<const Index>, View<float>);
template void gather_entries<double>(const Exec&, View<const double>, View<const Index>, View<double>);

namespace {

// out[r] = row r of previous and out[n + r] = row r of current, n rows (Recorder's rows): both time
// levels of one recording step in one launch.
template <class Real>
void record_levels(const Exec& exec, View<const Real> previous, View<const Real> current, Index n,
                   const Index* offsets, const Index* dofs, const double* weights, Real* out) {
  forall(exec, 2 * n, [=] TREMOR_LAMBDA(Index k) {
    const Real* u = k < n ? previous.data : current.data;
    const Index r = k < n ? k : k - n;
    double sum = 0.0;
    for (Index t = offsets[r]; t < offsets[r + 1]; ++t) sum += weights[t] * static_cast<double>(u[dofs[t]]);
    out[k] = static_cast<Real>(sum);
  });
}

}  // namespace

template <class Real>
void Recorder<Real>::values_of(std::size_t h, const std::vector<double>& level, std::vector<double>& out) const {
  const auto begin = level.begin() + row_begin_[h];
  out.assign(begin, begin + histories_[h].n_points() * dim_);
}

template <class Real>
void Recorder<Real>::record(long long step, View<const Real> previous, View<const Real> current) {
  if (histories_.empty()) return;
  // Which histories act this step: a displacement-only one samples at multiples of n; a
  // velocity/acceleration one stores u_k-1, u_k at multiples of n and completes the next step.
  bool need = false;
  for (std::size_t h = 0; h < histories_.size(); ++h) {
    const auto n = static_cast<long long>(histories_[h].every_n_steps);
    const bool kinematic = histories_[h].records(Quantity::Velocity) || histories_[h].records(Quantity::Acceleration);
    need = need || step % n == 0 || (kinematic && step % n == 1 % n);
  }
  if (!need) return;
  if (static_cast<Index>(buffered_.size()) == capacity_) flush();
  const auto width = static_cast<std::size_t>(n_rows_);
  record_levels<Real>(exec_, previous, current, n_rows_, offsets_.data(), dofs_.data(), weights_.data(),
                      buffer_.data() + 2 * width * buffered_.size());
  buffered_.push_back(step);
}

template <class Real>
void Recorder<Real>::flush() {
  if (buffered_.empty()) return;
  const auto width = static_cast<std::size_t>(n_rows_);
  std::vector<Real> host(2 * width * buffered_.size());
  memory::copy(exec_, host.data(), MemorySpace::Host, buffer_.data(), exec_.space(), sizeof(Real) * host.size());
  for (std::size_t r = 0; r < buffered_.size(); ++r) {
    const Real* row = host.data() + 2 * width * r;
    previous_.assign(row, row + width);
    current_.assign(row + width, row + 2 * width);
    complete(buffered_[r]);
  }
  buffered_.clear();
}

template <class Real>
void Recorder<Real>::complete(long long step) {
  std::vector<double> u_prev, u_curr;
  for (std::size_t h = 0; h < histories_.size(); ++h) {
    History& history = histories_[h];
    Pending& pending = pending_[h];
    const auto n = static_cast<long long>(history.every_n_steps);
    const bool kinematic = history.records(Quantity::Velocity) || history.records(Quantity::Acceleration);
    const bool due = step % n == 0;
    if (!kinematic && !due) continue;
    if (kinematic && !due && !pending.active) continue;
    values_of(h, current_, u_curr);
    const std::size_t n_values = u_curr.size();
    if (!kinematic) {
      history.times.push_back(static_cast<double>(step) * dt_);
      for (std::size_t p = 0; p < n_values; p += static_cast<std::size_t>(dim_))
        history.values.insert(history.values.end(), u_curr.begin() + static_cast<std::ptrdiff_t>(p),
                              u_curr.begin() + static_cast<std::ptrdiff_t>(p + static_cast<std::size_t>(dim_)));
      if (on_sample_) on_sample_(history, history.n_samples() - 1);
      continue;
    }
    if (pending.active && pending.step + 1 == step) {
      // Complete the sample of step k = step - 1 with u_k+1 = current.
      const double inv_2dt = 0.5 / dt_, inv_dt2 = 1.0 / (dt_ * dt_);
      history.times.push_back(static_cast<double>(pending.step) * dt_);
      for (std::size_t p = 0; p < n_values; p += static_cast<std::size_t>(dim_))
        for (Quantity quantity : history.quantities)
          for (int c = 0; c < dim_; ++c) {
            const std::size_t i = p + static_cast<std::size_t>(c);
            const double before = pending.before[i], at = pending.at[i], after = u_curr[i];
            double value = at;
            if (quantity == Quantity::Velocity) value = (after - before) * inv_2dt;
            if (quantity == Quantity::Acceleration) value = (after - 2.0 * at + before) * inv_dt2;
            history.values.push_back(value);
          }
      pending.active = false;
      if (on_sample_) on_sample_(history, history.n_samples() - 1);
    }
    if (due) {
      values_of(h, previous_, u_prev);
      pending.active = true;
      pending.step = step;
      pending.before = u_prev;
      pending.at = u_curr;
    }
  }
}

template <class Real>
void Recorder<Real>::restore_pending(std::vector<PendingSample> pending) {
  TREMOR_CHECK(buffered_.empty(), "restore_pending: samples are still buffered");
  TREMOR_CHECK(pending.size() == histories_.size(), "checkpoint holds ", pending.size(),
               " pending receiver samples; the model has ", histories_.size(), " histories");
  for (std::size_t h = 0; h < pending.size(); ++h) {
    const std::size_t size = static_cast<std::size_t>(histories_[h].n_points()) * static_cast<std::size_t>(dim_);
    TREMOR_CHECK(!pending[h].active || (pending[h].before.size() == size && pending[h].at.size() == size),
                 "checkpoint: pending sample of history '", histories_[h].name, "' has ", pending[h].at.size(),
                 " values; expected ", size);
  }
  pending_ = std::move(pending);
}

template <class Real>
void Recorder<Real>::restart() {
  flush();
  for (History& history : histories_) history.clear_samples();
  pending_.assign(histories_.size(), Pending{});
}

template class Recorder<float>;
template class Recorder<double>;

}  // namespace tremor::explicit_fe
