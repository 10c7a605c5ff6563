#include "tremor/model/material_field.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "tremor/core/error.hpp"
#include "tremor/model/microstructure.hpp"
#include "tremor/model/model.hpp"

namespace tremor {

namespace {

// Coordinates within this fraction of the grid's extent outside it are on it (a mesh's boundary
// nodes and a grid's last line often differ by rounding).
constexpr double outside_tolerance = 1e-9;

// The cell [axis[i], axis[i + 1]] holding x (clamped to the end cells) and x's fraction across it.
struct Cell {
  Size i;
  double w;
};

Cell cell_of(const std::vector<double>& axis, double x) {
  const auto upper = std::upper_bound(axis.begin(), axis.end(), x);
  Size i = upper == axis.begin() ? 0 : static_cast<Size>(upper - axis.begin()) - 1;
  i = std::min(i, static_cast<Size>(axis.size()) - 2);
  const double w = (x - axis[i]) / (axis[i + 1] - axis[i]);
  return {i, std::clamp(w, 0.0, 1.0)};
}

// a + w (b - a): exactly a where b equals a, so a uniform region samples its values exactly.
double lerp(double a, double b, double w) { return a + w * (b - a); }

std::string position(const double* x, int dim) {
  std::string out = "(";
  for (int k = 0; k < dim; ++k) out += str(k ? ", " : "", x[k]);
  return out + ")";
}

}  // namespace

Size MaterialField::n_points() const {
  if (by_element()) return static_cast<Size>(elements.size());
  Size n = 1;
  for (int k = 0; k < dim; ++k) n *= static_cast<Size>(axes[static_cast<std::size_t>(k)].size());
  return n;
}

Size MaterialField::index(Size i, Size j, Size l) const {
  const auto nx = static_cast<Size>(axes[0].size());
  const auto ny = static_cast<Size>(axes[1].size());
  return i + nx * (j + ny * l);
}

bool MaterialField::covers(const double* x) const {
  for (int k = 0; k < dim; ++k) {
    const std::vector<double>& axis = axes[static_cast<std::size_t>(k)];
    const double slack = outside_tolerance * (axis.back() - axis.front());
    if (!(x[k] >= axis.front() - slack && x[k] <= axis.back() + slack)) return false;
  }
  return true;
}

std::optional<FieldSample> MaterialField::sample(const double* x) const {
  if (!covers(x)) return std::nullopt;
  Cell cells[3]{{0, 0.0}, {0, 0.0}, {0, 0.0}};
  for (int k = 0; k < dim; ++k) cells[k] = cell_of(axes[static_cast<std::size_t>(k)], x[k]);
  FieldSample out{0.0, 0.0, 0.0, INFINITY, INFINITY};
  const std::size_t given = has_quality() ? 5 : 3;
  if (interpolation == FieldInterpolation::Nearest) {
    Size at[3] = {0, 0, 0};
    for (int k = 0; k < dim; ++k) at[k] = cells[k].i + (cells[k].w > 0.5 ? 1 : 0);
    const Size p = index(at[0], at[1], at[2]);
    for (std::size_t m = 0; m < given; ++m) out[m] = values[m][static_cast<std::size_t>(p)];
    return out;
  }
  // Along x, then y, then z: each lerp exact where its two ends agree.
  const Size i = cells[0].i, j = cells[1].i, l = cells[2].i;
  for (std::size_t m = 0; m < given; ++m) {
    const std::vector<double>& v = values[m];
    const auto at = [&](Size di, Size dj, Size dl) { return v[static_cast<std::size_t>(index(i + di, j + dj, l + dl))]; };
    const auto plane = [&](Size dl) {
      const double low = lerp(at(0, 0, dl), at(1, 0, dl), cells[0].w);
      const double high = lerp(at(0, 1, dl), at(1, 1, dl), cells[0].w);
      return lerp(low, high, cells[1].w);
    };
    out[m] = dim == 3 ? lerp(plane(0), plane(1), cells[2].w) : plane(0);
  }
  return out;
}

Material MaterialField::material(const std::string& name, const FieldSample& at,
                                 const std::optional<Attenuation>& losses) const {
  Material out = properties == FieldProperties::Speeds ? Material::from_speeds(name, at[0], at[1], at[2])
                                                       : Material::from_lame(name, at[0], at[1], at[2]);
  out.attenuation = losses;
  if (out.attenuation && has_quality()) {
    out.attenuation->by_waves = true;
    out.attenuation->q_p = at[3];
    out.attenuation->q_s = at[4];
  }
  return out;
}

double MaterialField::min_wave_speed() const {
  double slowest = INFINITY;
  for (std::size_t p = 0; p < values[0].size(); ++p)
    slowest = std::min(slowest, properties == FieldProperties::Speeds ? values[1][p] : std::sqrt(values[1][p] / values[2][p]));
  return slowest;
}

double MaterialField::max_wave_speed() const {
  double fastest = 0.0;
  for (std::size_t p = 0; p < values[0].size(); ++p)
    fastest = std::max(fastest, properties == FieldProperties::Speeds
                                    ? values[0][p]
                                    : std::sqrt((values[0][p] + 2.0 * values[1][p]) / values[2][p]));
  return fastest;
}

double MaterialField::max_poisson_ratio() const {
  double largest = -1.0;
  for (std::size_t p = 0; p < values[0].size(); ++p) {
    // nu = lambda / (2 (lambda + mu)), with lambda = rho (c_p^2 - 2 c_s^2) and mu = rho c_s^2 for speeds.
    const double lambda = properties == FieldProperties::Speeds
                              ? values[0][p] * values[0][p] - 2.0 * values[1][p] * values[1][p]
                              : values[0][p];
    const double mu = properties == FieldProperties::Speeds ? values[1][p] * values[1][p] : values[1][p];
    largest = std::max(largest, lambda / (2.0 * (lambda + mu)));
  }
  return largest;
}

std::string MaterialField::extent() const {
  if (by_element()) return str("values for ", elements.size(), " elements");
  std::string out;
  for (int k = 0; k < dim; ++k) {
    const std::vector<double>& axis = axes[static_cast<std::size_t>(k)];
    out += str(k ? ", " : "", "xyz"[k], " ", axis.front(), " .. ", axis.back(), " m (", axis.size(), " points)");
  }
  return out;
}

std::string MaterialField::describe() const {
  std::string out = str("field ", file, ": ", extent());
  const char* units[2][5] = {{"m/s", "m/s", "kg/m^3", "", ""}, {"Pa", "Pa", "kg/m^3", "", ""}};
  for (std::size_t m = 0; m < (has_quality() ? 5u : 3u); ++m) {
    const auto [low, high] = std::minmax_element(values[m].begin(), values[m].end());
    out += str("; ", names[m], " ", low == values[m].end() ? 0.0 : *low, " .. ", high == values[m].end() ? 0.0 : *high,
               m < 3 ? " " : "", units[properties == FieldProperties::Speeds ? 0 : 1][m]);
  }
  if (by_element()) return out + "; each element its own";
  return out + (interpolation == FieldInterpolation::Linear ? "; linear between grid points"
                                                            : "; the nearest grid point's");
}

void MaterialField::validate() const {
  TREMOR_CHECK(dim == 2 || dim == 3, file, ": a material field is a 2D or 3D grid, not ", dim, "D");
  for (int k = 0; k < (by_element() ? 0 : dim); ++k) {
    const std::vector<double>& axis = axes[static_cast<std::size_t>(k)];
    const char name = "xyz"[k];
    TREMOR_CHECK(axis.size() >= 2, file, ": the grid's ", name, " axis has ", axis.size(),
                 " coordinate(s); a grid needs at least 2 along each axis");
    for (std::size_t i = 0; i < axis.size(); ++i) {
      TREMOR_CHECK(std::isfinite(axis[i]), file, ": the grid's ", name, "[", i, "] is ", axis[i]);
      TREMOR_CHECK(i == 0 || axis[i] > axis[i - 1], file, ": the grid's ", name, " coordinates must increase: ", name,
                   "[", i, "] = ", axis[i], " follows ", name, "[", i - 1, "] = ", axis[i - 1]);
    }
  }
  if (by_element()) {
    std::vector<Label> sorted = elements;
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    TREMOR_CHECK(twice == sorted.end(), file, ": element ", twice == sorted.end() ? 0 : *twice,
                 " is given values twice");
  }
  const Size n = n_points();
  const std::size_t given = has_quality() ? 5 : 3;
  for (std::size_t m = 0; m < given; ++m)
    TREMOR_CHECK(static_cast<Size>(values[m].size()) == n, file, ": '", names[m], "' holds ", values[m].size(),
                 by_element() ? " values for " : " values for a grid of ", n, by_element() ? " elements" : " points");
  const auto nx = static_cast<Size>(std::max<std::size_t>(axes[0].size(), 1));
  const auto ny = static_cast<Size>(std::max<std::size_t>(axes[1].size(), 1));
  const auto where = [&](Size p) {
    if (by_element()) return str("element ", elements[static_cast<std::size_t>(p)]);
    const Size i = p % nx, j = p / nx % ny, l = p / (nx * ny);
    const double x[3] = {axes[0][static_cast<std::size_t>(i)], axes[1][static_cast<std::size_t>(j)],
                         dim == 3 ? axes[2][static_cast<std::size_t>(l)] : 0.0};
    return dim == 3 ? str("grid point (i, j, k) = (", i, ", ", j, ", ", l, ") at ", position(x, 3))
                    : str("grid point (i, j) = (", i, ", ", j, ") at ", position(x, 2));
  };
  for (Size p = 0; p < n; ++p) {
    const auto q = static_cast<std::size_t>(p);
    for (std::size_t m = 0; m < given; ++m)
      TREMOR_CHECK(std::isfinite(values[m][q]), file, ": '", names[m], "' is ", values[m][q], " at ", where(p));
    for (std::size_t m = 3; m < given; ++m)
      TREMOR_CHECK(values[m][q] > smallest_quality && values[m][q] < largest_quality, file, ": '", names[m], "' is ",
                   values[m][q], " at ", where(p), "; expected a quality factor within (", smallest_quality, ", ",
                   largest_quality, ")");
    TREMOR_CHECK(values[2][q] > 0.0, file, ": '", names[2], "' is ", values[2][q], " at ", where(p),
                 "; a density must be positive");
    TREMOR_CHECK(values[1][q] > 0.0, file, ": '", names[1], "' is ", values[1][q], " at ", where(p),
                 properties == FieldProperties::Speeds ? "; a solid's shear wave speed must be positive (a fluid is a "
                                                         "section of its own)"
                                                       : "; a solid's shear modulus must be positive");
    if (properties == FieldProperties::Speeds)
      TREMOR_CHECK(3.0 * values[0][q] * values[0][q] > 4.0 * values[1][q] * values[1][q], file, ": '", names[0], "' ",
                   values[0][q], " at ", where(p), " must exceed 2/sqrt(3) times '", names[1], "' ", values[1][q],
                   " (a positive bulk modulus)");
    else
      TREMOR_CHECK(3.0 * values[0][q] + 2.0 * values[1][q] > 0.0, file, ": '", names[0], "' ", values[0][q], " and '",
                   names[1], "' ", values[1][q], " at ", where(p), " give a bulk modulus lambda + 2 mu / 3 <= 0");
    // The magnitudes Material::validate asks of a material (checked here in a few flops a point,
    // not by building one: a grid has 10^8 points): the density, and the largest stiffness entry,
    // lambda + 2 mu = rho c_p^2.
    const double largest = properties == FieldProperties::Speeds ? values[2][q] * values[0][q] * values[0][q]
                                                                 : values[0][q] + 2.0 * values[1][q];
    TREMOR_CHECK(values[2][q] >= smallest_material_constant && values[2][q] <= largest_material_constant &&
                     largest >= smallest_material_constant && largest <= largest_material_constant,
                 file, ": at ", where(p), ": the density ", values[2][q], " kg/m^3 or the P-wave modulus ", largest,
                 " Pa is outside [", smallest_material_constant, ", ", largest_material_constant,
                 "], the magnitudes of a material (docs/model-file.md)");
  }
}

namespace {

struct SampleHash {
  std::size_t operator()(const FieldSample& v) const {
    std::size_t h = 0;
    for (const double x : v) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &x, sizeof bits);
      h ^= std::hash<std::uint64_t>{}(bits) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return h;
  }
};

// The centre of `block`'s element `e`: the mean of its nodes (as [[mesh.element_set]] boxes take it).
}  // namespace

bool takes_field_at_points(ElementType type, int order) {
  return (type == ElementType::HexGLL || type == ElementType::QuadGLL) && order >= 2;
}

void inward(const double* x, const double* centre, int dim, double* out) {
  for (int k = 0; k < dim; ++k) out[k] = x[k] + field_inward * (centre[k] - x[k]);
}

namespace {

void centre_of(const Mesh& mesh, const ElementBlock& block, Index e, double (&centre)[3]) {
  centre[0] = centre[1] = centre[2] = 0.0;
  const int nodes = block.n_element_nodes();
  for (const Index node : block.nodes(e))
    for (int k = 0; k < mesh.dim(); ++k) centre[k] += mesh.node(node)[static_cast<std::size_t>(k)] / nodes;
}

}  // namespace

namespace {

// The grains of each grained section's material (model/microstructure.hpp): a row per grain, the
// crystal's stiffness rotated into the model's axes, and each of the section's elements its grain's.
void add_grains(const Model& model, ElementMaterials& out) {
  for (std::size_t s = 0; s < model.sections.size(); ++s) {
    if (!out.rows[s].grains) continue;
    const Material nominal = out.rows[s];  // a copy: the rows grow below
    std::vector<Index> elements;
    for (std::size_t e = 0; e < out.element_row.size(); ++e)
      if (out.element_row[e] == static_cast<int>(s)) elements.push_back(static_cast<Index>(e));
    const Grains grains = assign_grains(*nominal.grains, model.mesh, elements, nominal.name);
    const int first = static_cast<int>(out.rows.size());
    Material plain = nominal;
    plain.grains.reset();
    out.rows.resize(out.rows.size() + grains.orientations.size(), plain);
    out.row_section.resize(out.rows.size(), static_cast<int>(s));
    // The crystal turned into each grain's axes (a thousand flops a grain; a grain per element of a
    // large polycrystal makes millions).
    const auto n_grains = static_cast<std::ptrdiff_t>(grains.orientations.size());
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t k = 0; k < n_grains; ++k)
      out.rows[static_cast<std::size_t>(first + k)].stiffness =
          rotated_stiffness(nominal.stiffness, grains.orientations[static_cast<std::size_t>(k)]);
    for (std::size_t i = 0; i < elements.size(); ++i)
      out.element_row[static_cast<std::size_t>(elements[i])] = first + grains.grain_of[i];
  }
}

}  // namespace

ElementMaterials element_materials(const Model& model) {
  ElementMaterials out;
  for (std::size_t s = 0; s < model.sections.size(); ++s) {
    const Material& material = model.material(model.sections[s].material);
    out.rows.push_back(material);
    out.row_section.push_back(static_cast<int>(s));
    out.any_field = out.any_field || material.field != nullptr;
  }
  out.element_row = model.element_sections();
  add_grains(model, out);
  if (!out.any_field) return out;
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  // Each element of a field's section: its centre's sample (in parallel), then the distinct
  // samples in element order as rows.
  std::vector<FieldSample> samples(out.element_row.size());
  std::vector<char> outside(out.element_row.size(), 0);
  // Each element-data field's label -> value index.
  std::unordered_map<const MaterialField*, std::unordered_map<Label, std::size_t>> labelled;
  for (const Material& row : out.rows)
    if (row.field && row.field->by_element() && !labelled.count(row.field.get())) {
      auto& index = labelled[row.field.get()];
      for (std::size_t i = 0; i < row.field->elements.size(); ++i) index.emplace(row.field->elements[i], i);
    }
  Index first = 0;
  for (const ElementBlock& block : mesh.blocks) {
    const Index n = block.n_elements();
    const bool at_points = takes_field_at_points(block.type, block.order);
#pragma omp parallel for schedule(static)
    for (Index e = 0; e < n; ++e) {
      const auto g = static_cast<std::size_t>(first + e);
      const int s = out.element_row[g];
      if (s < 0) continue;
      const MaterialField* field = out.rows[static_cast<std::size_t>(s)].field.get();
      if (!field) continue;
      if (field->by_element()) {  // the element's own values
        const auto at = labelled.find(field);
        const auto row = at->second.find(block.labels[static_cast<std::size_t>(e)]);
        if (row == at->second.end()) {
          outside[g] = 1;
        } else {
          for (std::size_t m = 0; m < 5; ++m)
            samples[g][m] = m < 3 || field->has_quality() ? field->values[m][row->second] : INFINITY;
        }
        continue;
      }
      double centre[3];
      centre_of(mesh, block, e, centre);
      const auto value = field->sample(centre);
      if (value)
        samples[g] = *value;
      else
        outside[g] = 1;
      if (value && at_points)  // each node, from inside the element, where it takes the field there
        for (const Index node : block.nodes(e)) {
          double x[3];
          inward(mesh.node(node).data(), centre, dim, x);
          if (!field->covers(x)) {
            outside[g] = 2;
            break;
          }
        }
    }
    first += n;
  }
  std::vector<std::unordered_map<FieldSample, int, SampleHash>> seen(model.sections.size());
  out.row_sample.assign(out.rows.size(), FieldSample{NAN, NAN, NAN, NAN, NAN});
  for (std::size_t g = 0; g < out.element_row.size(); ++g) {
    const int s = out.element_row[g];
    if (s < 0) continue;
    const Material& nominal = out.rows[static_cast<std::size_t>(s)];
    if (!nominal.field) continue;
    const MaterialField& field = *nominal.field;
    if (outside[g] && field.by_element())
      throw Error(str(model.source.empty() ? std::string() : str(model.source, ": "), "element ",
                      mesh.element_label(static_cast<Index>(g)), " of the section on '",
                      model.sections[static_cast<std::size_t>(s)].element_set, "' has no values in material '",
                      nominal.name, "''s element data ", field.file, ": every element of its sections needs a row"));
    if (outside[g]) {
      const ElementRef ref = mesh.locate(static_cast<Index>(g));
      const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
      double centre[3], x[3];
      centre_of(mesh, block, ref.element, centre);
      std::string where = str("has its centre ", position(centre, dim));
      if (outside[g] == 2)  // a node, where the element takes the field at its nodes
        for (const Index node : block.nodes(ref.element)) {
          inward(mesh.node(node).data(), centre, dim, x);
          if (!field.covers(x)) {
            where = str("has its node ", mesh.node_labels[static_cast<std::size_t>(node)], " at ", position(mesh.node(node).data(), dim),
                        " (", element_name(block.type, block.order), " elements take the field at their nodes)");
            break;
          }
        }
      throw Error(str(model.source.empty() ? std::string() : str(model.source, ": "), "element ",
                      mesh.element_label(static_cast<Index>(g)), " of the section on '",
                      model.sections[static_cast<std::size_t>(s)].element_set, "' ", where,
                      " outside material '", nominal.name, "''s field ", field.file, " (", field.extent(),
                      "): the grid must cover the mesh"));
    }
    auto [it, inserted] = seen[static_cast<std::size_t>(s)].try_emplace(samples[g], static_cast<int>(out.rows.size()));
    if (inserted) {
      Material row = field.material(nominal.name, samples[g], nominal.attenuation);
      row.damping_alpha = nominal.damping_alpha;
      row.damping_beta = nominal.damping_beta;
      out.rows.push_back(std::move(row));
      out.row_section.push_back(s);
      out.row_sample.push_back(samples[g]);
    }
    out.element_row[g] = it->second;
  }
  return out;
}

}  // namespace tremor
