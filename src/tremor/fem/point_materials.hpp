#pragma once
// A material field's properties at the points of GLL elements of order 2 and more: the nodes,
// where such an element's K and lumped mass are integrated (docs/model-file.md, "Material fields":
// where it is sampled). The section table gives each element a row, its centre's sample
// (model/material_field.hpp); these are the values at each node instead, sampled from inside the
// element (model's inward()), in the form the row's law takes them (sections.hpp's RowField: the
// unrelaxed moduli of an attenuating row by its centre's fit, plane stress condensed). Read by the
// sem operator (lambda and mu at each point), the lumped mass (the density at each node) and the
// element survey (each element's bound on its stable step and its slowest wave). Host, in double,
// a block at a time: a model's points are not kept beside the operator's own copy.
#include <span>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor::fem {

// One block's values: per element, its points' lambda, then their mu, then their density (the
// points of element e at values[3 e points + k points + p] for k = 0, 1, 2: each property's points
// together, as the kernels read them). An element whose row samples no field holds its row's
// values at every point (lambda and mu 0 for an anisotropic row, whose kernels read its D). Empty
// where no element of the block takes a field at its points.
struct PointMaterials {
  int points = 0;  // per element
  std::vector<double> values;
  bool empty() const { return values.empty(); }
  const double* of(Index element) const { return values.data() + static_cast<Size>(element) * 3 * points; }
};

// The block's point materials, from the host's coordinates (dim per node) and the block's
// connectivity and rows (per element, into `fields`: SectionTable::fields). Empty where `fields`
// is, or the elements take no field at their points (takes_field_at_points).
PointMaterials point_materials(std::span<const RowField> fields, int dim, std::span<const double> coordinates,
                               ElementType type, int order, std::span<const Index> connectivity,
                               std::span<const int> rows);
// The same for a block of `elements` (its arrays copied to the host where they live on a device).
PointMaterials point_materials(const DeviceElements& elements, const DeviceElementBlock& block);

// Each point's density over its element's row's (the lumped mass's factor at the mass rule's
// points, fem::lumped_mass), points per element of the block; empty where `points` is.
std::vector<double> density_ratios(const PointMaterials& points, std::span<const RowField> fields,
                                   std::span<const int> rows);

// What an element's points do to its survey, against its row's values: `scale` bounds the ratio of
// the element's largest eigenvalue of M^-1 K to the row's (max(1, s) / m for s the largest ratio of
// a point's bulk or shear modulus to the row's, m the smallest of a point's density: K of the
// points' moduli is at most s times the row's, the mass at least m times; 1 where K keeps the
// row's moduli), `slowest` its slowest shear wave over its points, m/s.
struct PointBound {
  double scale = 1.0;
  double slowest = 0.0;
};
// Per element of the block (empty where `points` is).
std::vector<PointBound> point_bounds(const PointMaterials& points, std::span<const RowField> fields,
                                     std::span<const int> rows, int dim);

}  // namespace tremor::fem
