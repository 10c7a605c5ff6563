#include "tremor/model/microstructure.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <unordered_map>

#include "tremor/core/error.hpp"
#include "tremor/core/vec3.hpp"

namespace tremor {

namespace {

constexpr double two_pi = 2.0 * std::numbers::pi;

// Voigt index of the tensor pair (i, j): xx, yy, zz, yz, xz, xy.
constexpr int voigt_index[3][3] = {{0, 5, 4}, {5, 1, 3}, {4, 3, 2}};

// The sequence of a seeded generator, as doubles in [0, 1) of 53 bits: the same numbers on every
// platform and library (std's distributions are not specified bit for bit).
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : state_(seed) {}
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // A standard normal number (Box-Muller).
  double normal() {
    const double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(two_pi * v);
  }

 private:
  // SplitMix64 (Steele, Lea and Flood 2014): a full-period 64-bit generator.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

using vec3::cross;

std::array<double, 3> normalised(std::array<double, 3> a) {
  const double n = vec3::norm(a);
  for (double& v : a) v /= n;
  return a;
}

// A unit vector perpendicular to a (unit).
std::array<double, 3> perpendicular(const std::array<double, 3>& a) {
  const std::array<double, 3> e = std::abs(a[0]) < 0.9 ? std::array<double, 3>{1.0, 0.0, 0.0}
                                                      : std::array<double, 3>{0.0, 1.0, 0.0};
  return normalised(cross(a, e));
}

// The orientation whose crystal z axis is `z` and whose x axis is p turned by omega about z.
Orientation with_axis(const std::array<double, 3>& z, double omega) {
  const std::array<double, 3> p = perpendicular(z), q = cross(z, p);
  std::array<double, 3> x{};
  for (int i = 0; i < 3; ++i) x[static_cast<std::size_t>(i)] = std::cos(omega) * p[static_cast<std::size_t>(i)] +
                                                                 std::sin(omega) * q[static_cast<std::size_t>(i)];
  const std::array<double, 3> y = cross(z, x);
  return {x[0], x[1], x[2], y[0], y[1], y[2], z[0], z[1], z[2]};
}

// Seed k's orientation, drawn after its position.
Orientation draw_orientation(Draws& draws, const Microstructure& micro) {
  if (!micro.fibre_texture) {
    // Uniform over rotations (the Haar measure): phi1, phi2 uniform, cos Phi uniform in [-1, 1].
    const double phi1 = two_pi * draws.uniform(), cos_phi = 2.0 * draws.uniform() - 1.0;
    const double phi2 = two_pi * draws.uniform();
    return bunge_orientation(phi1, std::acos(std::clamp(cos_phi, -1.0, 1.0)), phi2);
  }
  // The fibre tilted by a Gaussian angle towards a random direction perpendicular to it, then a
  // random turn about the tilted axis.
  const double tilt = micro.spread * draws.normal(), towards = two_pi * draws.uniform(), omega = two_pi * draws.uniform();
  const std::array<double, 3> f = micro.fibre, p = perpendicular(f), q = cross(f, p);
  std::array<double, 3> axis{};
  for (std::size_t i = 0; i < 3; ++i)
    axis[i] = std::cos(tilt) * f[i] + std::sin(tilt) * (std::cos(towards) * p[i] + std::sin(towards) * q[i]);
  return with_axis(normalised(axis), omega);
}

}  // namespace

Orientation bunge_orientation(double phi1, double Phi, double phi2) {
  const double c1 = std::cos(phi1), s1 = std::sin(phi1), c2 = std::cos(phi2), s2 = std::sin(phi2);
  const double c = std::cos(Phi), s = std::sin(Phi);
  return {c1 * c2 - s1 * s2 * c, s1 * c2 + c1 * s2 * c, s2 * s,
          -c1 * s2 - s1 * c2 * c, -s1 * s2 + c1 * c2 * c, c2 * s,
          s1 * s, -c1 * s, c};
}

std::array<double, 3> bunge_angles(const Orientation& g) {
  const auto wrap = [](double a) { return a < 0.0 ? a + two_pi : a; };
  const double Phi = std::acos(std::clamp(g[8], -1.0, 1.0));
  if (std::abs(std::sin(Phi)) < 1e-12)  // about z alone: g = R_z(phi1 + phi2) (or with Phi = pi)
    return {wrap(std::atan2(g[1], g[0])), Phi, 0.0};
  return {wrap(std::atan2(g[6], -g[7])), Phi, wrap(std::atan2(g[2], g[5]))};
}

Voigt6 cubic_stiffness(double c11, double c12, double c44) {
  Voigt6 c{};
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) c[6 * i + j] = i == j ? c11 : c12;
  for (std::size_t i = 3; i < 6; ++i) c[7 * i] = c44;
  return c;
}

Voigt6 rotated_stiffness(const Voigt6& crystal, const Orientation& g) {
  // C_ijkl from the Voigt matrix, then one index at a time: a = sum_m g_mi C_m..., and so on.
  double a[81], b[81];
  const auto at = [](int i, int j, int k, int l) { return ((i * 3 + j) * 3 + k) * 3 + l; };
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l)
          a[at(i, j, k, l)] = crystal[static_cast<std::size_t>(6 * voigt_index[i][j] + voigt_index[k][l])];
  const auto G = [&](int m, int i) { return g[static_cast<std::size_t>(3 * m + i)]; };
  for (int pass = 0; pass < 4; ++pass) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) {
            // Rotate the first index, and cycle the indices: after four passes each is rotated once
            // and they stand in their order again.
            double sum = 0.0;
            for (int m = 0; m < 3; ++m) sum += G(m, i) * a[at(m, j, k, l)];
            b[at(j, k, l, i)] = sum;
          }
    std::copy(b, b + 81, a);
  }
  Voigt6 out{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l)
          out[static_cast<std::size_t>(6 * voigt_index[i][j] + voigt_index[k][l])] = a[at(i, j, k, l)];
  // Symmetric to the last bit, as the material check asks (each entry is written by several index
  // tuples whose sums round alike, but the (I, J) and (J, I) ones from different orders).
  for (std::size_t I = 0; I < 6; ++I)
    for (std::size_t J = I + 1; J < 6; ++J) out[6 * J + I] = out[6 * I + J];
  return out;
}

Grains assign_grains(const Microstructure& micro, const Mesh& mesh, std::span<const Index> elements,
                     const std::string& material) {
  const int dim = mesh.dim();
  Grains out;
  out.grain_of.assign(elements.size(), -1);
  if (elements.empty()) return out;
  // Element centres: the mean of their nodes.
  const auto centre = [&](Index e, double* x) {
    const ElementRef ref = mesh.locate(e);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    const auto nodes = block.nodes(ref.element);
    for (int d = 0; d < 3; ++d) x[d] = 0.0;
    for (const Index n : nodes)
      for (int d = 0; d < dim; ++d) x[d] += mesh.node(n)[static_cast<std::size_t>(d)];
    for (int d = 0; d < dim; ++d) x[d] /= static_cast<double>(nodes.size());
  };
  if (micro.from_file()) {
    std::unordered_map<Label, std::size_t> entry;
    for (std::size_t k = 0; k < micro.labels.size(); ++k) entry.emplace(micro.labels[k], k);
    std::map<Orientation, int> grain;
    for (std::size_t i = 0; i < elements.size(); ++i) {
      const Label label = mesh.element_label(elements[i]);
      const auto it = entry.find(label);
      if (it == entry.end())
        throw Error(str(micro.origin, ": element ", label, " of material '", material, "' has no orientation in ",
                        micro.file, ": every element of a grained material takes one"));
      const Orientation& g = micro.orientations[it->second];
      const auto [found, inserted] = grain.try_emplace(g, static_cast<int>(out.orientations.size()));
      if (inserted) out.orientations.push_back(g);
      out.grain_of[i] = found->second;
    }
    return out;
  }
  // Voronoi: the seeds over the elements' bounding box, in coordinates divided by the elongation.
  double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.0, 0.0, 0.0};
  std::vector<double> centres(elements.size() * 3, 0.0);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    double* x = centres.data() + 3 * i;
    centre(elements[i], x);
    for (int d = 0; d < dim; ++d) {
      x[d] /= micro.elongation[static_cast<std::size_t>(d)];
      lo[d] = i == 0 ? x[d] : std::min(lo[d], x[d]);
      hi[d] = i == 0 ? x[d] : std::max(hi[d], x[d]);
    }
  }
  double volume = 1.0;
  for (int d = 0; d < dim; ++d) volume *= std::max(hi[d] - lo[d], micro.size);
  const double wanted = volume / std::pow(micro.size, dim);
  TREMOR_CHECK(wanted <= 1e8, micro.origin, ": grains of ", micro.size, " m over material '", material, "' make ",
               wanted, " grains; at most 1e8 (a grain needs elements of its own: a coarser size, or a finer mesh)");
  const auto count = static_cast<std::size_t>(std::max(1.0, std::round(wanted)));
  Draws draws(micro.seed);
  std::vector<std::array<double, 3>> seeds(count);
  std::vector<Orientation> orientation(count);
  for (std::size_t k = 0; k < count; ++k) {
    for (int d = 0; d < dim; ++d) {
      const double extent = std::max(hi[d] - lo[d], 0.0);
      seeds[k][static_cast<std::size_t>(d)] = lo[d] + extent * draws.uniform();
    }
    orientation[k] = draw_orientation(draws, micro);
  }
  // Bins of side `size` (a grain's), each listing its seeds; an element's nearest seed is searched
  // ring by ring outward until no closer one can remain.
  const double cell = micro.size;
  std::array<long long, 3> bins{1, 1, 1};
  for (int d = 0; d < dim; ++d)
    bins[static_cast<std::size_t>(d)] = std::max(1LL, static_cast<long long>(std::ceil((hi[d] - lo[d]) / cell)));
  const auto bin_of = [&](const double* x, int d) {
    return std::clamp(static_cast<long long>(std::floor((x[d] - lo[d]) / cell)), 0LL,
                      bins[static_cast<std::size_t>(d)] - 1);
  };
  std::vector<std::vector<std::size_t>> in_bin(static_cast<std::size_t>(bins[0] * bins[1] * bins[2]));
  for (std::size_t k = 0; k < count; ++k) {
    long long b[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) b[d] = bin_of(seeds[k].data(), d);
    in_bin[static_cast<std::size_t>((b[2] * bins[1] + b[1]) * bins[0] + b[0])].push_back(k);
  }
  std::vector<std::size_t> nearest(elements.size());
  const long long widest = std::max({bins[0], bins[1], bins[2]});
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const double* x = centres.data() + 3 * i;
    long long b[3] = {0, 0, 0};
    for (int d = 0; d < dim; ++d) b[d] = bin_of(x, d);
    double best = std::numeric_limits<double>::infinity();
    std::size_t chosen = 0;
    for (long long r = 0; r <= widest; ++r) {
      const long long rz = dim == 3 ? r : 0;
      for (long long k = b[2] - rz; k <= b[2] + rz; ++k)
        for (long long j = b[1] - r; j <= b[1] + r; ++j)
          for (long long c = b[0] - r; c <= b[0] + r; ++c) {
            if (std::max({std::abs(c - b[0]), std::abs(j - b[1]), std::abs(k - b[2])}) != r) continue;  // ring r only
            if (c < 0 || j < 0 || k < 0 || c >= bins[0] || j >= bins[1] || k >= bins[2]) continue;
            for (const std::size_t s : in_bin[static_cast<std::size_t>((k * bins[1] + j) * bins[0] + c)]) {
              double distance = 0.0;
              for (int d = 0; d < dim; ++d) {
                const double dx = x[d] - seeds[s][static_cast<std::size_t>(d)];
                distance += dx * dx;
              }
              if (distance < best || (distance == best && s < chosen)) best = distance, chosen = s;
            }
          }
      // Every seed in ring r + 1 or beyond is at least r bins away.
      if (best <= (static_cast<double>(r) * cell) * (static_cast<double>(r) * cell)) break;
    }
    nearest[i] = chosen;
  }
  std::vector<int> grain(count, -1);
  std::vector<std::size_t> used;
  for (const std::size_t s : nearest)
    if (grain[s] < 0) grain[s] = 0, used.push_back(s);
  std::sort(used.begin(), used.end());  // grains numbered by seed
  for (std::size_t k = 0; k < used.size(); ++k) {
    grain[used[k]] = static_cast<int>(k);
    out.orientations.push_back(orientation[used[k]]);
  }
  for (std::size_t i = 0; i < elements.size(); ++i) out.grain_of[i] = grain[nearest[i]];
  return out;
}

PolycrystalModuli polycrystal_moduli(const Voigt6& c) {
  const auto C = [&](int i, int j) { return c[static_cast<std::size_t>(6 * i + j)]; };
  PolycrystalModuli m{};
  const double a = C(0, 0) + C(1, 1) + C(2, 2), b = C(0, 1) + C(1, 2) + C(0, 2), d = C(3, 3) + C(4, 4) + C(5, 5);
  m.bulk_voigt = (a + 2.0 * b) / 9.0;
  m.shear_voigt = (a - b + 3.0 * d) / 15.0;
  // The compliance S = C^-1 by Gauss-Jordan elimination with partial pivoting (6 x 6).
  double s[6][12];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 12; ++j) s[i][j] = j < 6 ? C(i, j) : (j - 6 == i ? 1.0 : 0.0);
  for (int col = 0; col < 6; ++col) {
    int pivot = col;
    for (int r = col + 1; r < 6; ++r)
      if (std::abs(s[r][col]) > std::abs(s[pivot][col])) pivot = r;
    TREMOR_CHECK(s[pivot][col] != 0.0, "polycrystal_moduli: a singular stiffness");
    for (int j = 0; j < 12; ++j) std::swap(s[col][j], s[pivot][j]);
    const double p = s[col][col];
    for (int j = 0; j < 12; ++j) s[col][j] /= p;
    for (int r = 0; r < 6; ++r)
      if (r != col) {
        const double f = s[r][col];
        for (int j = 0; j < 12; ++j) s[r][j] -= f * s[col][j];
      }
  }
  const auto S = [&](int i, int j) { return s[i][j + 6]; };
  const double sa = S(0, 0) + S(1, 1) + S(2, 2), sb = S(0, 1) + S(1, 2) + S(0, 2), sd = S(3, 3) + S(4, 4) + S(5, 5);
  m.bulk_reuss = 1.0 / (sa + 2.0 * sb);
  m.shear_reuss = 15.0 / (4.0 * sa - 4.0 * sb + 3.0 * sd);
  return m;
}

}  // namespace tremor
