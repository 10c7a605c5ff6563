#include "tremor/fem/locate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/faces.hpp"

namespace tremor::fem {

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

}  // namespace

std::string format_position(const std::array<double, 3>& p, int dim) {
  std::string text = "(";
  for (int i = 0; i < dim; ++i) text += str(i ? ", " : "", p[static_cast<std::size_t>(i)]);
  return text + ")";
}


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

std::vector<double> shape_gradients(const Mesh& mesh, const Location& location) {
  const ElementRef ref = mesh.locate(location.element);
  const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
  std::vector<double> out;
  with_element(block.type, block.order, [&](auto element) {
    using E = decltype(element);
    constexpr int dim = E::dim, n = E::n_nodes;
    double x[n * dim], dN[n * dim], Jt[9] = {0.0};
    mesh.element_coordinates(block, ref.element, x);
    E::gradients(location.xi.data(), dN);
    for (int a = 0; a < n; ++a)
      for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j) Jt[j * dim + i] += x[a * dim + i] * dN[a * dim + j];
    out.assign(static_cast<std::size_t>(n * dim), 0.0);
    for (int a = 0; a < n; ++a)
      TREMOR_CHECK(solve_small(dim, Jt, dN + a * dim, out.data() + a * dim), "element ",
                   mesh.element_label(location.element), " has a singular Jacobian at reference point ",
                   format_position(location.xi, mesh.dim()));
  });
  return out;
}

}  // namespace tremor::fem
