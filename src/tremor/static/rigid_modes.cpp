#include "tremor/static/rigid_modes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>

#include "tremor/core/error.hpp"

namespace tremor::static_fe {

namespace {

constexpr int max_modes = 6;
using Gram = std::array<std::array<double, max_modes>, max_modes>;

// Union-find over nodes, with path halving; the root of a set is its lowest node.
Index find_root(std::vector<Index>& parent, Index node) {
  while (parent[static_cast<std::size_t>(node)] != node) {
    auto& p = parent[static_cast<std::size_t>(node)];
    p = parent[static_cast<std::size_t>(p)];
    node = p;
  }
  return node;
}

void unite(std::vector<Index>& parent, Index a, Index b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a == b) return;
  if (a < b)
    parent[static_cast<std::size_t>(b)] = a;
  else
    parent[static_cast<std::size_t>(a)] = b;
}

// Eigenvalues and orthonormal eigenvectors (columns of `vectors`) of the symmetric m x m matrix a
// by cyclic Jacobi rotations: exact to rounding for these small matrices.
void symmetric_eigen(Gram a, int m, std::array<double, max_modes>& values, Gram& vectors) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) vectors[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = i == j ? 1.0 : 0.0;
  auto at = [&](Gram& g, int i, int j) -> double& {
    return g[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0, total = 0.0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) {
        total += at(a, i, j) * at(a, i, j);
        if (i != j) off += at(a, i, j) * at(a, i, j);
      }
    if (off <= 1e-32 * total || off == 0.0) break;
    for (int p = 0; p < m; ++p)
      for (int q = p + 1; q < m; ++q) {
        if (at(a, p, q) == 0.0) continue;
        const double theta = (at(a, q, q) - at(a, p, p)) / (2.0 * at(a, p, q));
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < m; ++k) {  // a = a J
          const double akp = at(a, k, p), akq = at(a, k, q);
          at(a, k, p) = c * akp - s * akq;
          at(a, k, q) = s * akp + c * akq;
        }
        for (int k = 0; k < m; ++k) {  // a = J^T a
          const double apk = at(a, p, k), aqk = at(a, q, k);
          at(a, p, k) = c * apk - s * aqk;
          at(a, q, k) = s * apk + c * aqk;
        }
        for (int k = 0; k < m; ++k) {
          const double vkp = at(vectors, k, p), vkq = at(vectors, k, q);
          at(vectors, k, p) = c * vkp - s * vkq;
          at(vectors, k, q) = s * vkp + c * vkq;
        }
      }
  }
  for (int i = 0; i < m; ++i) values[static_cast<std::size_t>(i)] = at(a, i, i);
}

// Mode values of one DOF (component `component` of a node at offset y = x - P, divided by the
// radius L): translations first (m_t = dim of them), then rotations (3 in 3D, 1 in 2D).
// Rotation about axis a: u = e_a x y / L.
void mode_row(int dim, int component, const double y[3], double radius, double row[max_modes]) {
  const int n_translations = dim;
  for (int t = 0; t < n_translations; ++t) row[t] = t == component ? 1.0 : 0.0;
  if (dim == 2) {
    row[2] = (component == 0 ? -y[1] : y[0]) / radius;  // e_z x (y0, y1) = (-y1, y0)
    return;
  }
  // e_x x y = (0, -y2, y1); e_y x y = (y2, 0, -y0); e_z x y = (-y1, y0, 0).
  const double rotations[3][3] = {{0.0, -y[2], y[1]}, {y[2], 0.0, -y[0]}, {-y[1], y[0], 0.0}};
  for (int a = 0; a < 3; ++a) row[3 + a] = rotations[a][component] / radius;
}

struct Body {
  Index first_node = 0;
  Index n_nodes = 0;
  Index n_constrained_dofs = 0;
  Index n_constrained_nodes = 0;
  double node_sum[3] = {0.0, 0.0, 0.0};         // for the centroid
  double constrained_sum[3] = {0.0, 0.0, 0.0};  // of the constrained nodes
  double reference[3] = {0.0, 0.0, 0.0};        // P
  double radius = 0.0;                          // L: the largest distance of a node from P
  Gram gram{};
};

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v == 0.0 ? 0.0 : v);  // no "-0"
  return buffer;
}

// "x", "y", "z" for an axis direction, else "(0.7071, 0.7071, 0)".
std::string direction_name(const std::array<double, 3>& d, int dim) {
  for (int a = 0; a < 3; ++a)
    if (std::abs(d[static_cast<std::size_t>(a)]) > 1.0 - 1e-9) return std::string(1, static_cast<char>('x' + a));
  std::string out = "(";
  for (int a = 0; a < dim; ++a) out += (a ? ", " : "") + number(d[static_cast<std::size_t>(a)]);
  return out + ")";
}

std::string point_name(const std::array<double, 3>& p, int dim) {
  std::string out = "(";
  for (int a = 0; a < dim; ++a) out += (a ? ", " : "") + number(p[static_cast<std::size_t>(a)]);
  return out + ")";
}

// "x", "x and y", "x, y and z".
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

// The free motions from an orthonormal basis of the null space (columns of `null`, k of them):
// the reduced row echelon form of null^T over the columns ordered rotations first, so each
// rotation carries only translations along constrained directions (fixing its axis point), and
// translations are pure.
std::vector<FreeMotion> motions_from_null_space(const std::vector<std::array<double, max_modes>>& null, int dim,
                                                const Body& body) {
  const int n_translations = dim;
  const int n_rotations = dim == 3 ? 3 : 1;
  const int m = n_translations + n_rotations;
  std::vector<int> order;
  for (int r = 0; r < n_rotations; ++r) order.push_back(n_translations + r);
  for (int t = 0; t < n_translations; ++t) order.push_back(t);
  std::vector<std::array<double, max_modes>> rows = null;
  const auto k = rows.size();
  std::size_t pivot_row = 0;
  std::vector<int> pivot_column;
  for (const int column : order) {
    if (pivot_row == k) break;
    std::size_t best = pivot_row;
    for (std::size_t i = pivot_row; i < k; ++i)
      if (std::abs(rows[i][static_cast<std::size_t>(column)]) > std::abs(rows[best][static_cast<std::size_t>(column)]))
        best = i;
    // The basis is orthonormal, so a column that holds a pivot has an entry of order 1.
    if (std::abs(rows[best][static_cast<std::size_t>(column)]) < 1e-8) continue;
    std::swap(rows[best], rows[pivot_row]);
    const double scale = rows[pivot_row][static_cast<std::size_t>(column)];
    for (int j = 0; j < m; ++j) rows[pivot_row][static_cast<std::size_t>(j)] /= scale;
    for (std::size_t i = 0; i < k; ++i) {
      if (i == pivot_row) continue;
      const double factor = rows[i][static_cast<std::size_t>(column)];
      for (int j = 0; j < m; ++j)
        rows[i][static_cast<std::size_t>(j)] -= factor * rows[pivot_row][static_cast<std::size_t>(j)];
    }
    pivot_column.push_back(column);
    ++pivot_row;
  }
  std::vector<FreeMotion> out;
  for (std::size_t i = 0; i < pivot_row; ++i) {
    const auto& row = rows[i];
    FreeMotion motion;
    double v[3] = {0.0, 0.0, 0.0};  // translation part, m per unit of mode
    for (int t = 0; t < n_translations; ++t)
      v[t] = std::abs(row[static_cast<std::size_t>(t)]) < 1e-12 ? 0.0 : row[static_cast<std::size_t>(t)];
    if (pivot_column[i] < n_translations) {
      const double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      for (int a = 0; a < 3; ++a) motion.direction[static_cast<std::size_t>(a)] = v[a] / length;
      out.push_back(motion);
      continue;
    }
    // Rotation: u(x) = v + w x (x - P), w = rotation entries / L (rad per unit of mode).
    motion.kind = FreeMotion::Kind::Rotation;
    double w[3] = {0.0, 0.0, 0.0};
    if (dim == 2) {
      w[2] = row[2] / body.radius;
    } else {
      for (int a = 0; a < 3; ++a) {
        const double e = row[static_cast<std::size_t>(3 + a)];
        w[a] = (std::abs(e) < 1e-12 ? 0.0 : e) / body.radius;
      }
    }
    const double w2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    const double w_length = std::sqrt(w2);
    for (int a = 0; a < 3; ++a) motion.direction[static_cast<std::size_t>(a)] = w[a] / w_length;
    // u(Q) = 0 up to the part of v along w: Q = P + (w x v) / |w|^2.
    const double wxv[3] = {w[1] * v[2] - w[2] * v[1], w[2] * v[0] - w[0] * v[2], w[0] * v[1] - w[1] * v[0]};
    for (int a = 0; a < 3; ++a) {
      double q = body.reference[a] + wxv[a] / w2;
      if (std::abs(q) < 1e-9 * body.radius) q = 0.0;  // rounding around an axis through 0
      motion.point[static_cast<std::size_t>(a)] = a < dim ? q : 0.0;
    }
    const double along = (v[0] * w[0] + v[1] * w[1] + v[2] * w[2]) / w_length;
    motion.pitch = std::abs(along) < 1e-9 * body.radius * w_length ? 0.0 : along / w_length;
    out.push_back(motion);
  }
  return out;
}

}  // namespace

RigidModeReport find_free_rigid_motions(const Mesh& mesh, std::span<const Index> constrained_dofs) {
  const int dim = mesh.dim();
  TREMOR_CHECK(dim == 2 || dim == 3, "rigid-body check: a ", dim, "D mesh");
  const Index n_nodes = mesh.n_nodes();
  const auto d = static_cast<std::size_t>(dim);
  std::vector<Index> parent(static_cast<std::size_t>(n_nodes));
  std::iota(parent.begin(), parent.end(), Index(0));
  std::vector<std::uint8_t> used(static_cast<std::size_t>(n_nodes), 0);
  for (const auto& block : mesh.blocks) {
    const Index per = block.n_element_nodes();
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto nodes = block.nodes(e);
      for (Index k = 0; k < per; ++k) {
        used[static_cast<std::size_t>(nodes[static_cast<std::size_t>(k)])] = 1;
        if (k > 0) unite(parent, nodes[0], nodes[static_cast<std::size_t>(k)]);
      }
    }
  }
  // Bodies numbered by their lowest node (the root).
  std::vector<int> body_of(static_cast<std::size_t>(n_nodes), -1);
  std::vector<Body> bodies;
  for (Index node = 0; node < n_nodes; ++node) {
    if (!used[static_cast<std::size_t>(node)]) continue;
    const Index root = find_root(parent, node);
    if (root == node) {
      body_of[static_cast<std::size_t>(node)] = static_cast<int>(bodies.size());
      bodies.emplace_back();
      bodies.back().first_node = node;
    } else {
      body_of[static_cast<std::size_t>(node)] = body_of[static_cast<std::size_t>(root)];
    }
    Body& body = bodies[static_cast<std::size_t>(body_of[static_cast<std::size_t>(node)])];
    ++body.n_nodes;
    for (std::size_t a = 0; a < d; ++a) body.node_sum[a] += mesh.coordinates[static_cast<std::size_t>(node) * d + a];
  }

  std::vector<Index> dofs(constrained_dofs.begin(), constrained_dofs.end());
  std::sort(dofs.begin(), dofs.end());
  dofs.erase(std::unique(dofs.begin(), dofs.end()), dofs.end());
  for (const Index dof : dofs)
    TREMOR_CHECK(dof >= 0 && dof < n_nodes * dim, "rigid-body check: DOF ", dof, " is outside the mesh's ",
                 n_nodes * dim, " DOFs");
  // P per body: the centroid of its constrained nodes (each counted once), else of all its nodes.
  Index last_node = -1;
  for (const Index dof : dofs) {
    const Index node = dof / dim;
    const int b = body_of[static_cast<std::size_t>(node)];
    if (b < 0) continue;
    Body& body = bodies[static_cast<std::size_t>(b)];
    ++body.n_constrained_dofs;
    if (node == last_node) continue;
    last_node = node;
    ++body.n_constrained_nodes;
    for (std::size_t a = 0; a < d; ++a)
      body.constrained_sum[a] += mesh.coordinates[static_cast<std::size_t>(node) * d + a];
  }
  for (Body& body : bodies)
    for (std::size_t a = 0; a < d; ++a)
      body.reference[a] = body.n_constrained_nodes > 0 ? body.constrained_sum[a] / body.n_constrained_nodes
                                                       : body.node_sum[a] / body.n_nodes;
  for (Index node = 0; node < n_nodes; ++node) {
    const int b = body_of[static_cast<std::size_t>(node)];
    if (b < 0) continue;
    Body& body = bodies[static_cast<std::size_t>(b)];
    double r2 = 0.0;
    for (std::size_t a = 0; a < d; ++a) {
      const double y = mesh.coordinates[static_cast<std::size_t>(node) * d + a] - body.reference[a];
      r2 += y * y;
    }
    body.radius = std::max(body.radius, std::sqrt(r2));
  }
  const int m = dim == 3 ? 6 : 3;
  for (Body& body : bodies)
    if (!(body.radius > 0.0)) body.radius = 1.0;  // all nodes at P: only a degenerate mesh

  // G = sum over constrained DOFs of row row^T.
  for (const Index dof : dofs) {
    const Index node = dof / dim;
    const int b = body_of[static_cast<std::size_t>(node)];
    if (b < 0) continue;
    Body& body = bodies[static_cast<std::size_t>(b)];
    double y[3] = {0.0, 0.0, 0.0};
    for (std::size_t a = 0; a < d; ++a)
      y[a] = mesh.coordinates[static_cast<std::size_t>(node) * d + a] - body.reference[a];
    double row[max_modes];
    mode_row(dim, dof % dim, y, body.radius, row);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j)
        body.gram[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] += row[i] * row[j];
  }

  RigidModeReport report;
  report.n_bodies = static_cast<int>(bodies.size());
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    const Body& body = bodies[b];
    std::array<double, max_modes> values{};
    Gram vectors{};
    symmetric_eigen(body.gram, m, values, vectors);
    double largest = 0.0;
    for (int i = 0; i < m; ++i) largest = std::max(largest, values[static_cast<std::size_t>(i)]);
    std::vector<std::array<double, max_modes>> null;
    for (int i = 0; i < m; ++i)
      if (values[static_cast<std::size_t>(i)] <= rigid_mode_tolerance * largest) {
        std::array<double, max_modes> v{};
        for (int j = 0; j < m; ++j)
          v[static_cast<std::size_t>(j)] = vectors[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)];
        null.push_back(v);
      }
    if (null.empty()) continue;
    MobileBody mobile;
    mobile.body = static_cast<int>(b);
    mobile.first_node = body.first_node;
    mobile.n_nodes = body.n_nodes;
    mobile.n_constrained_dofs = body.n_constrained_dofs;
    mobile.motions = motions_from_null_space(null, dim, body);
    report.mobile.push_back(std::move(mobile));
  }
  return report;
}

std::string describe_motions(const std::vector<FreeMotion>& motions, int dim) {
  std::vector<std::string> translations;
  std::vector<std::string> parts;
  for (const FreeMotion& motion : motions)
    if (motion.kind == FreeMotion::Kind::Translation) translations.push_back(direction_name(motion.direction, dim));
  if (!translations.empty()) parts.push_back("translation along " + join(translations));
  // Plain rotations through one point are grouped: "rotation about x, y and z through (1, 2, 3)".
  std::vector<bool> done(motions.size(), false);
  for (std::size_t i = 0; i < motions.size(); ++i) {
    if (motions[i].kind != FreeMotion::Kind::Rotation || done[i]) continue;
    done[i] = true;
    const std::string point = point_name(motions[i].point, dim);
    if (dim == 2) {
      parts.push_back("rotation in the plane about " + point);
      continue;
    }
    if (motions[i].pitch != 0.0) {
      parts.push_back("rotation about " + direction_name(motions[i].direction, dim) + " through " + point +
                      " with a translation of " + number(motions[i].pitch) + " m per radian along it");
      continue;
    }
    std::vector<std::string> axes{direction_name(motions[i].direction, dim)};
    for (std::size_t j = i + 1; j < motions.size(); ++j)
      if (motions[j].kind == FreeMotion::Kind::Rotation && !done[j] && motions[j].pitch == 0.0 &&
          point_name(motions[j].point, dim) == point) {
        done[j] = true;
        axes.push_back(direction_name(motions[j].direction, dim));
      }
    parts.push_back("rotation about " + join(axes) + " through " + point);
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

void check_rigid_modes(const Mesh& mesh, std::span<const Index> constrained_dofs) {
  const RigidModeReport report = find_free_rigid_motions(mesh, constrained_dofs);
  if (report.mobile.empty()) return;
  std::string message;
  for (const MobileBody& body : report.mobile) {
    const std::string which =
        report.n_bodies == 1 ? std::string("the only body") : str(body.body + 1, " of ", report.n_bodies, " bodies");
    message += str(message.empty() ? "" : "; ", "the body holding node ",
                   mesh.node_labels[static_cast<std::size_t>(body.first_node)], " (", which, ", ", body.n_nodes,
                   " nodes", body.n_constrained_dofs == 0 ? ", no displacement fixed" : "",
                   ") can still move: ", describe_motions(body.motions, mesh.dim()));
  }
  throw Error(str("the static system is singular: ", message,
                  " — fix more displacements (*BOUNDARY / [[prescribed_displacement]])"));
}

}  // namespace tremor::static_fe
