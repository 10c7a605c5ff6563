#pragma once
// Reads a material field (model/material_field.hpp) from a gridded file (docs/model-file.md,
// "Material fields"):
//   - HDF5 (.h5, .hdf5) or NetCDF-4 (.nc, an HDF5 file): 1D coordinate datasets x, y (and z) in
//     metres, strictly increasing; three property datasets of shape (ny, nx) in 2D or
//     (nz, ny, nx) in 3D (x varying fastest, NetCDF's (z, y, x) order), float or double:
//     p_wave_speed (or vp), s_wave_speed (or vs) and density (or rho), in m/s and kg/m^3; or
//     lame_lambda (or lambda), shear_modulus (or mu) and density, in Pa and kg/m^3; and, for an
//     attenuating material, q_p and q_s (both, or neither) of the same shape.
//   - CSV (.csv), for small grids (core/text_rows.hpp: commas, semicolons or blanks between
//     values): a header naming the columns x, y (and z) and the properties as above, in any
//     order, then a row per grid point in any order; every point of the grid the coordinates
//     span exactly once. Lines starting with '#' are comments.
//   - Element data instead of a grid: an HDF5 dataset or CSV column `element` (the elements'
//     labels) beside the properties, one value each; or a Gmsh file's $ElementData views (ASCII
//     MSH 2.2 or 4.1) named as the properties, a value per element tag.
// Every error names the file, and the line (CSV, Gmsh), dataset or grid point (i, j, k).
#include <memory>
#include <string>

#include "tremor/model/material_field.hpp"

namespace tremor::io {

// `dim` is the mesh's: the grid must have as many axes. The field is validated
// (MaterialField::validate) and linear between grid points (the caller sets the interpolation).
std::shared_ptr<MaterialField> read_material_field(const std::string& path, int dim);

// The largest CSV field read (a CSV grid is for small models; HDF5 for large ones).
inline constexpr std::uintmax_t largest_csv_field = 512u << 20;

}  // namespace tremor::io
