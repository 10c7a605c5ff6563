#pragma once
// Receiver grids read back from a result file (docs/output-format.md, /histories/<name> with
// grid_count), one quantity's component at a time for a range of points, and maps written into
// the file as /images/<name> (tremor image).
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/cracks.hpp"
#include "tremor/mesh/holes.hpp"

namespace tremor::io {

struct StoredGrid {
  std::string name;
  std::string shot;   // the shot whose grid it is (/shots/<shot>/histories/<name>); empty: /histories/<name>
  std::string group;  // its group in the file
  // "<shot>.<name>", or the name: what maps and images are called.
  std::string label() const { return shot.empty() ? name : shot + "." + name; }
  std::array<Index, 2> count{0, 0};
  std::array<double, 2> min{0.0, 0.0}, max{0.0, 0.0};
  std::string surface;
  std::vector<std::string> quantities;  // "displacement", "velocity", "acceleration"
  int dimension = 3;
  std::vector<double> time;  // s, per sample
  // The model's thickness-loss defects at the grid's points (empty without defects): inside a
  // defect's footprint (1) or not, and the loss of thickness there, m.
  std::vector<unsigned char> footprint;
  std::vector<double> depth;
  Index n_points() const { return count[0] * count[1]; }
};

// A full-matrix capture read back (/fmc/<array>, docs/output-format.md).
struct StoredFmc {
  std::string name;
  int dimension = 3;
  std::vector<std::array<double, 3>> elements;  // m: the elements' centres
  std::array<double, 3> centre{0.0, 0.0, 0.0}, direction{0.0, 0.0, 0.0}, normal{0.0, 0.0, 0.0};
  std::array<double, 3> elevation{0.0, 0.0, 0.0};              // across the array (3D)
  double pitch = 0.0, width = 0.0, length = 0.0, depth = 0.0;  // m
  std::int64_t rows = 1;                                       // a matrix array's rows
  double row_pitch = 0.0;                                      // m
  double dt = 0.0, t0 = 0.0, signal_peak = 0.0;                // s
  double longitudinal_speed = 0.0, shear_speed = 0.0;          // m/s; NaN: not isotropic
  // "displacement" (m) or, an immersed array's, "pressure" (Pa); immersed, the fluid's sound speed
  // (m/s) and the distance to the nearest solid (m), NaN in contact.
  std::string quantity = "displacement";
  double sound_speed = 0.0, interface_depth = 0.0;
  std::size_t n_samples = 0;
  std::size_t n_rows = 0;    // transmitters written, of elements.size()
  std::vector<double> data;  // [n_rows][elements][n_samples], m or Pa
  // m: the mesh's bounding box (/mesh/coordinates; z 0 in 2D), where an image can show the part;
  // NaN where the file has no mesh.
  std::array<double, 3> part_min{}, part_max{};
  // The defects cut from the model's mesh, for outlines: its holes and notches (/mesh/holes,
  // /mesh/flat_bottom_holes, /mesh/notches: their shapes, without names or counts) and its cracks
  // (/mesh/cracks: names and points).
  std::vector<Hole> holes;
  std::vector<Crack> cracks;
};

class GridReader {
 public:
  // Opens `result` for reading; refused by name as the other readers of results are. HDF5 locks
  // the file while it is open (shared: other readers may, a writer may not), unless `held`: the
  // caller holds it (io::FileUpdate), and a lock of HDF5's would conflict with the caller's.
  explicit GridReader(const std::filesystem::path& result, bool held = false);
  ~GridReader();
  GridReader(const GridReader&) = delete;
  GridReader& operator=(const GridReader&) = delete;

  // Every grid history of the file: /histories' by name, then each shot's (in the file's order).
  const std::vector<StoredGrid>& grids() const { return grids_; }
  // The file's /metadata status ("complete", "incomplete", "failed: ...").
  const std::string& status() const { return status_; }
  // values[s][p - first] of quantity `quantity` (an index into grid.quantities), component
  // `component`, for points [first, last).
  std::vector<double> traces(const StoredGrid& grid, int quantity, int component, Index first, Index last) const;
  // The arrays whose full-matrix captures the file holds (/fmc), and one of them whole.
  std::vector<std::string> fmc_names() const;
  StoredFmc fmc(const std::string& name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<StoredGrid> grids_;
  std::string status_;
};

// A map written as /images/<name>: float64 [ny][nx] values (x fastest), with numeric and text
// attributes.
struct StoredImage {
  std::string name;
  Index nx = 0, ny = 0;
  std::vector<double> values;
  std::vector<std::pair<std::string, double>> numbers;
  std::vector<std::pair<std::string, std::string>> texts;
};

// Adds (replaces) the images in `result`, then flushes and closes it, every step checked. A failed
// write can leave the file unreadable, so `result` is the copy of a result file that an
// io::FileUpdate holds (tremor image: docs/imaging.md), which alone replaces the file once this
// succeeded; HDF5 takes no lock of its own on it (that would conflict with the update's claim).
void write_images(const std::filesystem::path& result, const std::vector<StoredImage>& images);

}  // namespace tremor::io
