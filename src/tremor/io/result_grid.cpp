#include "tremor/io/result_grid.hpp"

#include <algorithm>
#include <limits>
#include <string_view>

#include "tremor/core/error.hpp"
#include "tremor/io/result_hdf5.hpp"

namespace tremor::io {

using h5::Handle;

struct GridReader::Impl {
  std::string path;
  Handle file;
};

namespace {

// `file` opened for reading or writing without HDF5's lock: its caller holds the file.
Handle open_held(const std::string& file, bool writable) {
  h5::silence_errors();
  if (H5Fis_hdf5(file.c_str()) <= 0) {
    h5::error_stack();
    throw Error(str(file, ": not an HDF5 result file"));
  }
  const Handle access = h5::writer_access(file);
  return h5::open_or_fail(H5Fopen(file.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, access.get()), H5Fclose,
                          file, writable ? "cannot open the result file to add to it" : "cannot open the result file");
}

}  // namespace

GridReader::GridReader(const std::filesystem::path& result, bool held) : impl_(std::make_unique<Impl>()) {
  impl_->path = result.string();
  const std::string& file = impl_->path;
  impl_->file = held ? open_held(file, false) : h5::open_result(file);
  {
    Handle metadata = h5::open_group(impl_->file.get(), "metadata", file);
    status_ = h5::read_string_attribute(metadata.get(), "status", file);
  }
  for (const h5::HistoriesGroup& at : h5::histories_groups(impl_->file.get(), file)) {
    Handle histories = h5::open_group(impl_->file.get(), at.path, file);
    for (const std::string& name : h5::group_members(histories.get(), file, "cannot list " + at.path)) {
      Handle group = h5::open_group(histories.get(), name, file);
      if (H5Lexists(group.get(), "grid_count", H5P_DEFAULT) <= 0) continue;
      const std::string where = at.path + "/" + name;
      StoredGrid grid;
      grid.name = name;
      grid.shot = at.shot;
      grid.group = where;
      const auto count = h5::read_int64(group.get(), "grid_count", file, where + "/grid_count");
      const auto lo = h5::read_doubles(group.get(), "grid_min", file, where + "/grid_min");
      const auto hi = h5::read_doubles(group.get(), "grid_max", file, where + "/grid_max");
      if (count.size() != 2 || lo.size() != 2 || hi.size() != 2 || count[0] < 1 || count[1] < 1)
        throw Error(str(file, ": ", where, ": grid_count, grid_min and grid_max are not pairs of a grid"));
      grid.count = {static_cast<Index>(count[0]), static_cast<Index>(count[1])};
      grid.min = {lo[0], lo[1]};
      grid.max = {hi[0], hi[1]};
      grid.surface = h5::read_string_attribute(group.get(), "grid_surface", file);
      grid.quantities = h5::read_strings_attribute(group.get(), "quantities", file);
      grid.dimension = static_cast<int>(h5::read_int_attribute(group.get(), "dimension", file));
      grid.time = h5::read_doubles(group.get(), "time", file, where + "/time");
      Handle values = h5::open_dataset(group.get(), "values", file);
      const auto dims = h5::dataset_dims(values.get(), file, where + "/values");
      if (dims.size() != 4 || dims[0] != grid.time.size() || dims[1] != static_cast<hsize_t>(grid.n_points()) ||
          dims[2] != grid.quantities.size() || dims[3] != static_cast<hsize_t>(grid.dimension))
        throw Error(str(file, ": ", where, ": the shapes of time, values and the grid disagree"));
      if (H5Lexists(group.get(), "footprint", H5P_DEFAULT) > 0) {
        grid.footprint = h5::read_uint8(group.get(), "footprint", file, where + "/footprint");
        grid.depth = h5::read_doubles(group.get(), "depth", file, where + "/depth");
        if (grid.footprint.size() != static_cast<std::size_t>(grid.n_points()) ||
            grid.depth.size() != grid.footprint.size())
          throw Error(str(file, ": ", where, ": footprint and depth are not one value per grid point"));
      }
      grids_.push_back(std::move(grid));
    }
  }
}

GridReader::~GridReader() = default;

std::vector<double> GridReader::traces(const StoredGrid& grid, int quantity, int component, Index first,
                                       Index last) const {
  const std::string& file = impl_->path;
  TREMOR_CHECK(quantity >= 0 && static_cast<std::size_t>(quantity) < grid.quantities.size() && component >= 0 &&
                   component < grid.dimension && first >= 0 && first <= last && last <= grid.n_points(),
               file, ": grid '", grid.label(), "': quantity ", quantity, ", component ", component, ", points ", first,
               "..", last);
  const auto n_samples = static_cast<hsize_t>(grid.time.size());
  std::vector<double> out(static_cast<std::size_t>(n_samples) * static_cast<std::size_t>(last - first));
  if (out.empty()) return out;
  Handle group = h5::open_group(impl_->file.get(), grid.group, file);
  Handle values = h5::open_dataset(group.get(), "values", file);
  Handle file_space = h5::open_or_fail(H5Dget_space(values.get()), H5Sclose, file, "values");
  const hsize_t start[4] = {0, static_cast<hsize_t>(first), static_cast<hsize_t>(quantity), static_cast<hsize_t>(component)};
  const hsize_t count[4] = {n_samples, static_cast<hsize_t>(last - first), 1, 1};
  h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), file,
            "cannot select the grid's traces");
  const std::array<hsize_t, 2> memory_dims{n_samples, static_cast<hsize_t>(last - first)};
  Handle memory_space = h5::simple_space(memory_dims, file);
  h5::check(H5Dread(values.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT, out.data()),
            file, str("cannot read the traces of grid '", grid.label(), "'"));
  return out;
}

std::vector<std::string> GridReader::fmc_names() const {
  const std::string& file = impl_->path;
  if (H5Lexists(impl_->file.get(), "fmc", H5P_DEFAULT) <= 0) return {};
  Handle group = h5::open_group(impl_->file.get(), "fmc", file);
  return h5::group_members(group.get(), file, "cannot list /fmc");
}

StoredFmc GridReader::fmc(const std::string& name) const {
  const std::string& file = impl_->path;
  const std::string where = "/fmc/" + name;
  Handle group = h5::open_group(impl_->file.get(), where, file);
  const hid_t g = group.get();
  StoredFmc out;
  out.name = name;
  out.dimension = static_cast<int>(h5::read_int_attribute(g, "dimension", file));
  for (const auto& [key, value] :
       {std::pair{"pitch", &out.pitch}, {"width", &out.width}, {"length", &out.length}, {"depth", &out.depth},
        {"dt", &out.dt}, {"t0", &out.t0}, {"signal_peak", &out.signal_peak},
        {"longitudinal_speed", &out.longitudinal_speed}, {"shear_speed", &out.shear_speed}})
    *value = h5::read_double_attribute(g, key, file);
  // Written since matrix and immersed arrays: a file without them holds a linear contact array's.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.sound_speed = h5::has_attribute(g, "sound_speed") ? h5::read_double_attribute(g, "sound_speed", file) : nan;
  out.interface_depth =
      h5::has_attribute(g, "interface_depth") ? h5::read_double_attribute(g, "interface_depth", file) : nan;
  if (h5::has_attribute(g, "quantity")) out.quantity = h5::read_string_attribute(g, "quantity", file);
  TREMOR_CHECK(out.quantity == "displacement" || out.quantity == "pressure", file, ": ", where, " holds '",
               out.quantity, "'; expected displacement or pressure");
  if (h5::has_attribute(g, "rows")) out.rows = h5::read_int_attribute(g, "rows", file);
  if (h5::has_attribute(g, "row_pitch")) out.row_pitch = h5::read_double_attribute(g, "row_pitch", file);
  const std::vector<double> centres = h5::read_doubles(g, "elements", file, where + "/elements");
  TREMOR_CHECK(!centres.empty() && centres.size() % 3 == 0, file, ": ", where, "/elements is not 3 values an element");
  for (std::size_t k = 0; k < centres.size(); k += 3) out.elements.push_back({centres[k], centres[k + 1], centres[k + 2]});
  for (const auto& [key, value] : {std::pair{"centre", &out.centre}, {"direction", &out.direction},
                                   {"normal", &out.normal}, {"elevation", &out.elevation}}) {
    if (std::string_view(key) == "elevation" && H5Lexists(g, key, H5P_DEFAULT) <= 0) continue;  // (as above)
    const std::vector<double> v = h5::read_doubles(g, key, file, str(where, "/", key));
    TREMOR_CHECK(v.size() == 3, file, ": ", where, "/", key, " is not 3 values");
    std::copy(v.begin(), v.end(), value->begin());
  }
  Handle data = h5::open_dataset(g, "data", file);
  const auto dims = h5::dataset_dims(data.get(), file, where + "/data");
  TREMOR_CHECK(dims.size() == 3 && dims[1] == out.elements.size() && dims[0] <= dims[1], file, ": ", where,
               "/data is not [transmitter][receiver][sample] of its ", out.elements.size(), " elements");
  out.n_rows = static_cast<std::size_t>(dims[0]);
  out.n_samples = static_cast<std::size_t>(dims[2]);
  out.data = h5::read_doubles(g, "data", file, where + "/data");
  Handle mesh = h5::open_group(impl_->file.get(), "mesh", file);
  out.part_min.fill(nan);
  out.part_max.fill(nan);
  if (H5Lexists(mesh.get(), "coordinates", H5P_DEFAULT) > 0) {
    const std::vector<double> xyz = h5::read_doubles(mesh.get(), "coordinates", file, "/mesh/coordinates");
    const auto dim = static_cast<std::size_t>(std::clamp(out.dimension, 1, 3));
    if (!xyz.empty() && xyz.size() % dim == 0) {
      out.part_min.fill(0.0);
      out.part_max.fill(0.0);
      for (std::size_t d = 0; d < dim; ++d) {
        out.part_min[d] = out.part_max[d] = xyz[d];
        for (std::size_t k = d; k < xyz.size(); k += dim) {
          out.part_min[d] = std::min(out.part_min[d], xyz[k]);
          out.part_max[d] = std::max(out.part_max[d], xyz[k]);
        }
      }
    }
  }
  // The defects cut from the mesh, for outlines (ResultFile's write_defects).
  const auto rows = [&](const char* dataset, std::size_t width, Hole::Kind kind, auto&& read) {
    if (H5Lexists(mesh.get(), dataset, H5P_DEFAULT) <= 0) return;
    const std::vector<double> v = h5::read_doubles(mesh.get(), dataset, file, str("/mesh/", dataset));
    TREMOR_CHECK(v.size() % width == 0, file, ": /mesh/", dataset, " is not ", width, " values a row");
    for (std::size_t k = 0; k < v.size(); k += width) {
      Hole hole;
      hole.kind = kind;
      hole.centre = {v[k], v[k + 1], v[k + 2]};
      hole.axis = {v[k + 3], v[k + 4], v[k + 5]};
      read(hole, &v[k + 6]);
      out.holes.push_back(hole);
    }
  };
  const auto radius = [](Hole& hole, const double* rest) { hole.radius = rest[0]; };
  rows("holes", 7, Hole::Kind::side_drilled, radius);
  rows("flat_bottom_holes", 7, Hole::Kind::flat_bottom, radius);
  rows("notches", 11, Hole::Kind::notch, [](Hole& hole, const double* rest) {
    hole.along = {rest[0], rest[1], rest[2]};
    hole.width = rest[3];
    hole.length = rest[4];
  });
  if (H5Lexists(mesh.get(), "cracks", H5P_DEFAULT) > 0) {
    Handle cracks = h5::open_group(mesh.get(), "cracks", file);
    for (const std::string& member : h5::group_members(cracks.get(), file, "/mesh/cracks")) {
      const std::string at = "/mesh/cracks/" + member;
      Handle one = h5::open_group(cracks.get(), member, file);
      const std::vector<double> v = h5::read_doubles(one.get(), "points", file, at + "/points");
      const std::vector<std::int64_t> counts = h5::read_int64(one.get(), "pieces", file, at + "/pieces");
      std::int64_t total = 0;
      for (const std::int64_t n : counts) {
        TREMOR_CHECK(n >= 2, file, ": ", at, "/pieces holds a piece of ", n, " points; at least 2");
        total += n;
      }
      TREMOR_CHECK(!counts.empty() && v.size() == 3 * static_cast<std::size_t>(total), file, ": ", at,
                   "/points is not 3 values for each point of its pieces");
      Crack crack;
      crack.name = member;
      std::size_t k = 0;
      for (const std::int64_t n : counts) {
        std::vector<std::array<double, 3>>& piece = crack.pieces.emplace_back();
        for (std::int64_t i = 0; i < n; ++i, k += 3) piece.push_back({v[k], v[k + 1], v[k + 2]});
      }
      crack.points = crack.pieces.front();
      out.cracks.push_back(std::move(crack));
    }
  }
  return out;
}

void write_images(const std::filesystem::path& result, const std::vector<StoredImage>& images) {
  const std::string file = result.string();
  Handle handle = open_held(file, true);
  {
    Handle group = H5Lexists(handle.get(), "images", H5P_DEFAULT) > 0 ? h5::open_group(handle.get(), "images", file)
                                                                       : h5::create_group(handle.get(), "images", file);
    for (const StoredImage& named : images) {
      TREMOR_CHECK(named.values.size() == static_cast<std::size_t>(named.nx * named.ny), file, ": image '",
                   named.name, "' of ", named.values.size(), " values on ", named.nx, " x ", named.ny, " points");
      // A name with '/' lies in groups under /images (tfm/<array>/<mode>): made as needed.
      Handle parent = h5::open_group(group.get(), ".", file);
      std::string leaf = named.name;
      for (std::size_t slash = leaf.find('/'); slash != std::string::npos; slash = leaf.find('/')) {
        const std::string folder = leaf.substr(0, slash);
        parent = H5Lexists(parent.get(), folder.c_str(), H5P_DEFAULT) > 0 ? h5::open_group(parent.get(), folder, file)
                                                                          : h5::create_group(parent.get(), folder, file);
        leaf.erase(0, slash + 1);
      }
      const hid_t at = parent.get();
      const std::string partial = leaf + ".partial";
      if (H5Lexists(at, partial.c_str(), H5P_DEFAULT) > 0)
        h5::check(H5Ldelete(at, partial.c_str(), H5P_DEFAULT), file, "cannot remove " + partial);
      const std::array<hsize_t, 2> dims{static_cast<hsize_t>(named.ny), static_cast<hsize_t>(named.nx)};
      h5::write_doubles(at, partial, named.values, dims, file);
      {
        Handle dataset = h5::open_dataset(at, partial, file);
        for (const auto& [key, value] : named.numbers) h5::set_attribute(dataset.get(), key.c_str(), value, file);
        for (const auto& [key, value] : named.texts) h5::set_attribute(dataset.get(), key.c_str(), value, file);
      }
      if (H5Lexists(at, leaf.c_str(), H5P_DEFAULT) > 0)
        h5::check(H5Ldelete(at, leaf.c_str(), H5P_DEFAULT), file, "cannot replace image " + named.name);
      h5::check(H5Lmove(at, partial.c_str(), at, leaf.c_str(), H5P_DEFAULT, H5P_DEFAULT), file,
                "cannot name image " + named.name);
    }
  }
  h5::check(H5Fflush(handle.get(), H5F_SCOPE_GLOBAL), file, "cannot flush the images");
  // The close writes what the flush left (the superblock's end of file): a failure there counts too.
  h5::check(handle.reset(), file, "cannot close the file after adding the images");
}

}  // namespace tremor::io
