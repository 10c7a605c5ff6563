// `tremor image RESULT`: the total-displacement maps of a result file's receiver grids (the
// maximum of each point's Hilbert envelope), as PNG images and as /images/<grid> in the file; a
// footprint reconstructed by a threshold, and its overlap with the true one where the model had
// defects (docs/imaging.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/options.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/imaging/maps.hpp"
#include "tremor/imaging/tfm.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/png.hpp"
#include "tremor/io/result_grid.hpp"
#include "tremor/record/explicit_run.hpp"

namespace tremor::cli {

namespace {

namespace fs = std::filesystem;

struct ImageArgs {
  std::string result, grid, quantity = "displacement", component = "z", baseline, output_dir, combine;
  std::vector<std::string> shots;  // empty: every shot
  double from = 0.0, to = std::numeric_limits<double>::infinity();
  double threshold_db = -6.0;
  double smooth = 0.0;  // m, the Gaussian's standard deviation; 0: none
  int scale = 0;  // pixels per grid point; 0: enough for 400 pixels across
  // --tfm: the total focusing method on the file's full-matrix captures.
  bool tfm = false;
  std::string array;                       // empty: every array
  std::vector<std::string> modes{"L-L"};   // views: out-back, each L, T or a half-skip LL, LT, TL, TT
  std::vector<double> speeds;              // m/s: L and T, overriding the file's
  double back_wall = 0.0;                  // m under the array; 0: the part's depth there
  std::vector<double> interface;           // m under the array, and m/s above it; empty: none
  std::string plane = "along";             // 3D: the image's vertical plane, along or across the array
  double at = 0.0;                         // m: the plane's offset from the array's centre
  std::string backend = "auto";            // where the delays and the sum run
  std::vector<double> extent;              // m: x from, x to (along the array), depth from, depth to
  double pixel = 0.0;                      // m; 0: the longer side in 256
  double db = 40.0;                        // the PNG's dynamic range
};

// The envelope peaks of `grid` (minus the same traces of `baseline`) over [first, last) samples.
imaging::GridMap total_map(const io::GridReader& reader, const io::StoredGrid& grid, const io::GridReader* baseline,
                           const io::StoredGrid* base, int quantity, int component, std::size_t first,
                           std::size_t last) {
  imaging::GridMap map =
      imaging::peak_map(grid.count[0], grid.count[1], grid.time.size(), first, last,
                        [&](Index begin, Index end, std::vector<double>& traces) {
                          traces = reader.traces(grid, quantity, component, begin, end);
                          if (!baseline) return;
                          const std::vector<double> other = baseline->traces(*base, quantity, component, begin, end);
                          for (std::size_t k = 0; k < traces.size(); ++k) traces[k] -= other[k];
                        });
  map.min = grid.min;
  map.max = grid.max;
  return map;
}

// A length for the printout: rounding's residue of a sum of lengths (below a picometre) shown as 0.
std::string metres(double x) { return si(std::abs(x) < 1e-12 ? 0.0 : x) + "m"; }

// A map to report: one grid's, or the sum of one grid's maps over several shots (--combine).
struct Mapped {
  std::string label;
  const io::StoredGrid* grid = nullptr;  // the first of them: points, times, footprint
  std::vector<std::string> shots;        // those added (--combine)
  imaging::GridMap map;
  std::size_t first = 0, last = 0;       // the window's samples
};

// The grids of `reader` that `args` selects (--grid, --shot), refused naming what it has when none
// is, or a shot asked for is not in the file.
std::vector<const io::StoredGrid*> selected_grids(const ImageArgs& args, const io::GridReader& reader) {
  std::vector<std::string> labels, shots;
  for (const io::StoredGrid& g : reader.grids()) {
    labels.push_back(g.label());
    if (!g.shot.empty() && std::find(shots.begin(), shots.end(), g.shot) == shots.end()) shots.push_back(g.shot);
  }
  const std::vector<std::string_view> shot_names(shots.begin(), shots.end());
  for (const std::string& shot : args.shots)
    if (std::find(shots.begin(), shots.end(), shot) == shots.end())
      throw Error(str(args.result, ": no shot named '", shot, "'", suggestion(shot, shot_names),
                      shots.empty() ? std::string("; the run had no shots") : "; it has " + listed(shots)));
  std::vector<const io::StoredGrid*> grids;
  for (const io::StoredGrid& g : reader.grids())
    if ((args.grid.empty() || g.name == args.grid) &&
        (args.shots.empty() || std::find(args.shots.begin(), args.shots.end(), g.shot) != args.shots.end()))
      grids.push_back(&g);
  if (grids.empty()) {
    const std::string names = listed(labels);
    const std::string asked = str(args.grid.empty() ? "" : str(" named '", args.grid, "'"),
                                  args.shots.empty() ? "" : str(" in shot ", listed(args.shots)));
    // (A file of full-matrix captures is imaged by --tfm: said where it holds one.)
    const std::vector<std::string> captures = reader.fmc_names();
    const bool one = captures.size() == 1;
    const std::string tfm = captures.empty() ? std::string()
                                             : str("; it holds the full-matrix capture", one ? "" : "s", " of ",
                                                   listed(captures), ": image ", one ? "it" : "them", " with --tfm");
    throw Error(asked.empty() && names.empty()
                    ? str(args.result, ": no receiver grid in this result file (a [[receiver]] with grid = { ... })",
                          tfm)
                    : str(args.result, ": no receiver grid", asked,
                          names.empty() ? std::string("; it has none") : "; it has " + names, tfm));
  }
  if (!args.combine.empty())
    for (const io::StoredGrid* g : grids)
      if (g->shot.empty())
        throw Error(str(args.result, ": --combine adds the maps of several shots, and grid '", g->label(),
                        "' belongs to none (the model has no [[shot]])"));
  return grids;
}

// The map of `grid` over the window, checked against the baseline's grid of the same name and shot.
Mapped map_grid(const ImageArgs& args, const io::GridReader& reader, const io::GridReader* baseline,
                const io::StoredGrid& grid) {
  const auto q = std::find(grid.quantities.begin(), grid.quantities.end(), args.quantity);
  if (q == grid.quantities.end())
    throw Error(str(args.result, ": grid '", grid.label(), "' does not record ", args.quantity,
                    " (it records ", grid.quantities.front(), grid.quantities.size() > 1 ? ", ..." : "", ")"));
  const int component = args.component == "x" ? 0 : args.component == "y" ? 1 : 2;
  if (component >= grid.dimension)
    throw Error(str(args.result, ": grid '", grid.label(), "' has ", grid.dimension, " components; no ", args.component));
  const io::StoredGrid* base = nullptr;
  if (baseline) {
    for (const io::StoredGrid& g : baseline->grids())
      if (g.name == grid.name && g.shot == grid.shot) base = &g;
    if (!base)
      throw Error(str(args.baseline, ": the baseline has no receiver grid named '", grid.label(), "'"));
    if (base->count != grid.count || base->min != grid.min || base->max != grid.max)
      throw Error(str(args.baseline, ": grid '", grid.label(), "' has other points than in ", args.result,
                      ": a baseline is the same model without the defect, with the same grid"));
    if (std::find(base->quantities.begin(), base->quantities.end(), args.quantity) == base->quantities.end())
      throw Error(str(args.baseline, ": grid '", grid.label(), "' does not record ", args.quantity));
    if (base->time != grid.time)
      throw Error(str(args.baseline, ": grid '", grid.label(), "' is sampled at other times than in ", args.result,
                      base->time.size() > 1 && grid.time.size() > 1
                          ? str(" (every ", si(base->time[1] - base->time[0]), "s, against every ",
                                si(grid.time[1] - grid.time[0]), "s there)")
                          : std::string(),
                      ": a defect changes the automatic time step, so run both with the same [explicit] time_step "
                      "(or --dt) and duration"));
  }
  Mapped out;
  out.label = grid.label();
  out.grid = &grid;
  out.shots = {grid.shot};
  std::tie(out.first, out.last) = imaging::window(grid.time, args.from, args.to);
  if (out.first >= out.last)
    throw Error(str(args.result, ": grid '", grid.label(), "' has no sample between ", args.from, " s and ", args.to,
                    " s (its samples run from ", grid.time.empty() ? 0.0 : grid.time.front(), " s to ",
                    grid.time.empty() ? 0.0 : grid.time.back(), " s)"));
  out.map = total_map(reader, grid, baseline, base, static_cast<int>(q - grid.quantities.begin()), component,
                      out.first, out.last);
  return out;
}

// The maps to report: each selected grid's; with --combine, per grid name the sum of its shots'
// maps, labelled COMBINE.<grid>.
std::vector<Mapped> maps_of(const ImageArgs& args, const io::GridReader& reader, const io::GridReader* baseline,
                            const std::vector<const io::StoredGrid*>& grids) {
  std::vector<Mapped> out;
  for (const io::StoredGrid* grid : grids) {
    Mapped one = map_grid(args, reader, baseline, *grid);
    if (args.combine.empty()) {
      out.push_back(std::move(one));
      continue;
    }
    const auto same = std::find_if(out.begin(), out.end(), [&](const Mapped& m) { return m.grid->name == grid->name; });
    if (same == out.end()) {
      one.label = str(args.combine, ".", grid->name);
      out.push_back(std::move(one));
      continue;
    }
    if (grid->time != same->grid->time)
      throw Error(str(args.result, ": --combine: grid '", grid->label(), "' is sampled at other times than '",
                      same->grid->label(), "'"));
    imaging::add(same->map, one.map);
    same->shots.push_back(grid->shot);
  }
  return out;
}

// A PNG image to write once every map is made.
struct Picture {
  fs::path path;
  std::vector<unsigned char> pixels;
  std::size_t width = 0, height = 0;
};

// The result file's images, then the PNG images, then the update committed: a failure anywhere
// leaves the result file as it was (and no PNG image when the file's write failed).
void store(io::FileUpdate& update, const std::string& result, const std::vector<io::StoredImage>& images,
           const std::vector<Picture>& pictures, const std::vector<std::string>& lines) {
  update.prepare([&](const fs::path& copy) { io::write_images(copy, images); });
  try {
    for (const Picture& picture : pictures) io::write_png(picture.path, picture.pixels, picture.width, picture.height);
  } catch (const Error& e) {
    throw Error(str(e.what(), "; ", result, " is unchanged"));  // the update's copy goes with it
  }
  update.commit();
  for (const std::string& line : lines) std::printf("%s\n", line.c_str());
  std::printf("wrote /images/ in %s\n", result.c_str());
}

// The baseline result file (--baseline) opened into `baseline`, refused where it is the result file
// itself (every trace less itself is zero) or another process is writing it.
void open_baseline(const ImageArgs& args, const io::FileUpdate& update, std::optional<io::GridReader>& baseline) {
  if (args.baseline.empty()) return;
  std::error_code error;
  if (fs::equivalent(args.baseline, update.file(), error))
    throw Error(str(args.baseline, ": the baseline is the result file itself, so every trace less its baseline's ",
                    "is zero; give the result file of the same model without the defects, run the same way"));
  if (io::locked_by_a_writer(args.baseline))  // HDF5 would say only "Resource temporarily unavailable"
    throw Error(str(args.baseline, ": another process is writing this baseline result file (a run, or tremor "
                                   "image adding its maps); try again once it has ended"));
  baseline.emplace(args.baseline);
}

// The folder PNG images go to: -o, else the result file's.
fs::path picture_folder(const ImageArgs& args) {
  if (args.output_dir.empty()) return fs::path(args.result).parent_path();
  std::error_code error;
  fs::create_directories(args.output_dir, error);
  if (error || !fs::is_directory(args.output_dir))
    throw Error(str(args.output_dir, ": cannot create the output folder (", error.message(), ")"));
  return args.output_dir;
}

// The true defects, outlined in a TFM image's PNG: the pixels of an nx x nz grid from `min` to `max`
// whose point of the part (the array's centre, x along it, z along the inward normal) lies in a
// hole or notch (at a pixel's centre or halfway to a neighbour's: a notch narrower than a pixel is
// seen), or within half a pixel of a crack; rows from the shallowest down; empty without defects.
std::vector<unsigned char> defect_outline(const io::StoredFmc& stored, const std::array<double, 3>& axis,
                                          const std::array<double, 3>& off, Index nx, Index nz,
                                          const std::array<double, 2>& min, const std::array<double, 2>& max) {
  std::vector<unsigned char> mask;
  if (stored.holes.empty() && stored.cracks.empty()) return mask;
  mask.assign(static_cast<std::size_t>(nx * nz), 0);
  const double hx = (max[0] - min[0]) / static_cast<double>(std::max<Index>(nx - 1, 1));
  const double hz = (max[1] - min[1]) / static_cast<double>(std::max<Index>(nz - 1, 1));
  const auto part = [&](double x, double z) {
    std::array<double, 3> p{};
    for (std::size_t d = 0; d < 3; ++d) p[d] = stored.centre[d] + x * axis[d] + off[d] + z * stored.normal[d];
    return p;
  };
  for (Index j = 0; j < nz; ++j)
    for (Index i = 0; i < nx; ++i) {
      const double x = min[0] + hx * static_cast<double>(i), z = min[1] + hz * static_cast<double>(j);
      bool in = false;
      for (const Hole& hole : stored.holes)
        for (int a = -1; a <= 1 && !in; ++a)
          for (int b = -1; b <= 1 && !in; ++b)
            in = hole.contains(part(x + 0.5 * a * hx, z + 0.5 * b * hz), stored.dimension);
      for (const Crack& crack : stored.cracks)
        in = in || crack.near(part(x, z), stored.dimension, 0.5 * std::max(hx, hz));
      if (in) mask[static_cast<std::size_t>((nz - 1 - j) * nx + i)] = 1;
    }
  return mask;
}

// A TFM view, named as arim names it, the wave's legs in the order it runs them: OUT-BACK, the way
// out from the transmitter to the pixel and the way back from the pixel to the receiver, each "L"
// or "T" straight, or a half-skip "LL", "LT", "TL", "TT" (down to the back wall as the first, up as
// the second: LT-TL is L down and T up to the pixel, T down and L up to the receiver); through a
// planar interface where one is given (its depth and the speed above it, the leg at the array).
struct View {
  imaging::Path transmit, receive;  // each from the element to the pixel
  bool skips = false;               // a way turns at the back wall
  std::string legs;                 // said in the summary line
};

View view_of(const std::string& mode, double speed_l, double speed_t, double back_wall,
             const std::vector<double>& interface) {
  const std::size_t dash = mode.find('-');
  View view;
  const auto speed = [&](char letter) { return letter == 'L' ? speed_l : speed_t; };
  // The path from the element for a way whose legs, in the wave's order, are `letters`; the way
  // back runs from the pixel, so its path from the receiver takes them the other way round.
  const auto path = [&](const std::string& letters, bool back) {
    imaging::Path p;
    if (!interface.empty()) {
      p.speeds.push_back(interface[1]);
      p.planes.push_back(interface[0]);
    }
    const std::string from_element = back ? std::string(letters.rbegin(), letters.rend()) : letters;
    for (std::size_t k = 0; k < from_element.size(); ++k) {
      if (k > 0) p.planes.push_back(back_wall);
      p.speeds.push_back(speed(from_element[k]));
    }
    std::string said;
    if (letters.size() == 1) {
      said = str(letters[0], " at ", si(speed(letters[0])), "m/s");
    } else {
      view.skips = true;
      said = str(letters[0], " down, ", letters[1], " up off the back wall at ", metres(back_wall), " (",
                 si(speed(letters[0])), "m/s, ", si(speed(letters[1])), "m/s)");
    }
    return std::pair{p, said};
  };
  const auto [out, out_said] = path(mode.substr(0, dash), false);
  const auto [back, back_said] = path(mode.substr(dash + 1), true);
  view.transmit = out;
  view.receive = back;
  view.legs = str(interface.empty() ? "" : str("through the interface at ", metres(interface[0]), " from ",
                                               si(interface[1]), "m/s above it; "),
                  out_said, ", ", back_said);
  return view;
}

// What to do about a capture that is not whole in `result`, whose run ended with `status`: resume
// it where it left a checkpoint, else run it again.
std::string capture_advice(const std::string& result, const std::string& status) {
  std::string output = result;
  if (output.size() > 8 && output.ends_with(".partial")) output.resize(output.size() - 8);
  std::error_code error;
  if (status.rfind("failed", 0) == 0)
    return str("; its run failed (", status, "): run it again once that is mended");
  if (status == "complete")
    return "; its run completed, so the file has been damaged since: run it again";
  if (fs::exists(record::checkpoint_path(output), error))
    return "; resume its run (tremor run --resume) to complete it";
  return str("; its run was stopped (status '", status, "') without a checkpoint to resume from: run it again ",
             "(--checkpoint-every N lets a stopped run be resumed)");
}

// The rows of `stored` written whole, every value a number.
std::size_t whole_rows(const io::StoredFmc& stored) {
  const std::size_t n = stored.elements.size(), row = n * stored.n_samples;
  std::size_t whole = 0;
  for (std::size_t r = 0; r < std::min(n, stored.n_rows); ++r) {
    const auto first = stored.data.begin() + static_cast<std::ptrdiff_t>(r * row);
    whole += std::none_of(first, first + static_cast<std::ptrdiff_t>(row), [](double v) { return std::isnan(v); });
  }
  return whole;
}

// Subtracts the baseline's capture of array `name` (the same model without the defects) from
// `stored`, A-scan by A-scan; refused where it is missing, incomplete or sampled otherwise.
void subtract_baseline(const ImageArgs& args, const io::GridReader& baseline, const std::string& name,
                       io::StoredFmc& stored) {
  const std::vector<std::string> theirs = baseline.fmc_names();
  if (std::find(theirs.begin(), theirs.end(), name) == theirs.end())
    throw Error(str(args.baseline, ": the baseline has no full-matrix capture of array '", name, "'"));
  const io::StoredFmc base = baseline.fmc(name);
  if (base.elements != stored.elements || base.n_samples != stored.n_samples || base.dt != stored.dt)
    throw Error(str(args.baseline, ": array '", name, "' has other elements, samples or time step than in ",
                    args.result, ": a baseline is the same model without the defects, run with the same "
                    "[explicit] time_step and duration"));
  const std::size_t n = base.elements.size(), whole = whole_rows(base);
  if (whole < n)
    throw Error(str(args.baseline, ": array '", name, "': the baseline's capture is incomplete (", n - whole,
                    " of its ", n, " rows missing or not numbers)", capture_advice(args.baseline, baseline.status())));
  for (std::size_t k = 0; k < stored.data.size(); ++k) stored.data[k] -= base.data[k];
}

// A TFM image's grid: its extent (m: x along the array, the depth), its pixel's size and the back
// wall's depth, from the options or the capture; refused where a view cannot reach it.
struct ImageExtent {
  std::array<double, 2> min{}, max{};
  double pixel = 0.0, back_wall = 0.0;
};

ImageExtent image_extent(const ImageArgs& args, const io::StoredFmc& stored, const std::vector<double>& interface,
                         const std::string& what, double lo, double hi, double margin) {
  // The back wall, parallel to the array: half-skip views turn there.
  const double back_wall = args.back_wall > 0.0 ? args.back_wall : stored.depth;
  const double top = interface.empty() ? 0.0 : interface[0];
  if (!(back_wall > top))
    throw Error(str(what, ": the back wall at ", metres(back_wall), " lies above the interface at ", metres(top)));
  std::array<double, 2> min{args.extent.empty() ? lo - margin : args.extent[0],
                            args.extent.empty() ? top : args.extent[2]};
  std::array<double, 2> max{args.extent.empty() ? hi + margin : args.extent[1],
                            args.extent.empty() ? back_wall : args.extent[3]};
  if (!(max[0] > min[0] && max[1] > min[1]))
    throw Error(str(what, ": the image's extent is empty (x ", min[0], " to ", max[0], " m, depth ", min[1], " to ",
                    max[1], " m)"));
  // A way that turns at a plane reaches only the pixels on its side of it.
  const bool skipping = std::any_of(args.modes.begin(), args.modes.end(),
                                    [](const std::string& m) { return m.size() > 3; });
  if (skipping && max[1] > back_wall)
    throw Error(str(what, ": the image reaches ", metres(max[1]), " deep, below the back wall at ", metres(back_wall),
                    ", where no half-skip view reaches; give an --extent above it"));
  if (!interface.empty() && min[1] < top)
    throw Error(str(what, ": the image starts ", metres(min[1]), " deep, above the interface at ", metres(top),
                    "; the views image the part below it"));
  const double pixel = args.pixel > 0.0 ? args.pixel : std::max(max[0] - min[0], max[1] - min[1]) / 256.0;
  // By default the rows stop half a pixel short of a plane a way turns at: a pixel on it is no
  // way's (the leg to it would run along the plane).
  if (args.extent.empty()) {
    if (!interface.empty()) min[1] += 0.5 * pixel;
    if (skipping) max[1] -= 0.5 * pixel;
  }
  return {min, max, pixel, back_wall};
}

// A TFM image's vertical plane (3D): through the array's line, x along it, or across it, x along
// the elevation; --at from the array's centre.
struct Plane {
  bool across = false;
  std::array<double, 3> axis{}, off{};  // x's direction, and the plane's offset from the array's centre
  double lo = 0.0, hi = 0.0;            // m: the elements' extent along x
  double margin = 0.0;                  // m: the default extent's either side, a pitch in the plane (or an element)
};

// The plane `args` asks for, refused where `stored` has none such, and the elements in it:
// fmc.elements their x (depth 0), fmc.across their distances off it (empty where all lie in it).
Plane image_plane(const ImageArgs& args, const io::StoredFmc& stored, const std::string& what, imaging::Fmc& fmc) {
  Plane plane;
  plane.across = args.plane == "across";
  if (stored.dimension == 2 && (plane.across || args.at != 0.0))
    throw Error(str(what, ": --plane across and --at are a 3D model's; a 2D model's image is its plane"));
  if (plane.across && stored.rows < 2)
    throw Error(str(what, ": a linear array has no aperture across it; --plane across images a matrix array's "
                          "capture (elements = [along, across])"));
  plane.axis = plane.across ? stored.elevation : stored.direction;
  const std::array<double, 3>& other = plane.across ? stored.direction : stored.elevation;
  for (std::size_t d = 0; d < 3; ++d) plane.off[d] = args.at * other[d];
  plane.lo = std::numeric_limits<double>::infinity();
  plane.hi = -plane.lo;
  bool beside = false;  // an element off the plane
  for (const auto& e : stored.elements) {
    double in = 0.0, away = 0.0;
    for (std::size_t d = 0; d < 3; ++d) {
      in += (e[d] - stored.centre[d]) * plane.axis[d];
      away += (e[d] - stored.centre[d]) * other[d];
    }
    fmc.elements.push_back({in, 0.0});
    fmc.across.push_back(away - args.at);
    beside = beside || fmc.across.back() != 0.0;
    plane.lo = std::min(plane.lo, in);
    plane.hi = std::max(plane.hi, in);
  }
  if (!beside) fmc.across.clear();
  const bool several = plane.across ? stored.rows > 1 : stored.elements.size() > static_cast<std::size_t>(stored.rows);
  plane.margin = several ? (plane.across ? stored.row_pitch : stored.pitch) : (plane.across ? stored.length : stored.width);
  return plane;
}

// The part's extent in the image's coordinates (imaging::PartExtent): the corners of the mesh's
// bounding box, x along the plane's axis and the depth along the normal from the array's centre,
// and across the plane along the other axis; NaN where the file has no mesh.
imaging::PartExtent part_extent(const io::StoredFmc& stored, const Plane& plane) {
  const double inf = std::numeric_limits<double>::infinity();
  imaging::PartExtent part{{inf, inf}, {-inf, -inf}, inf, -inf};
  const std::array<double, 3>& other = plane.across ? stored.direction : stored.elevation;
  for (int corner = 0; corner < 8; ++corner) {
    double x = 0.0, depth = 0.0, across = 0.0;
    for (std::size_t d = 0; d < 3; ++d) {
      const double at = ((corner >> d) & 1 ? stored.part_max[d] : stored.part_min[d]) - stored.centre[d];
      x += at * plane.axis[d];
      depth += at * stored.normal[d];
      across += at * other[d];
    }
    part.min = {std::min(part.min[0], x), std::min(part.min[1], depth)};
    part.max = {std::max(part.max[0], x), std::max(part.max[1], depth)};
    part.across_min = std::min(part.across_min, across);
    part.across_max = std::max(part.across_max, across);
  }
  if (!std::isfinite(part.min[0] + part.max[0] + part.min[1] + part.max[1]))
    part = {{std::nan(""), std::nan("")}, {std::nan(""), std::nan("")}, std::nan(""), std::nan("")};
  return part;
}

// The interface the views cross: --interface, or an immersed array's water path at the fluid's
// speed (its capture knows both, and the solid's speeds under it); refused where a contact
// capture's interface comes without the part's --speeds (its speeds are those above it).
std::vector<double> interface_of(const ImageArgs& args, const io::StoredFmc& stored, const std::string& what) {
  const bool immersed = stored.quantity == "pressure";
  if (immersed && args.interface.empty()) {
    if (!(stored.interface_depth > 0.0))
      throw Error(str(what, ": the array stands in a fluid that touches the solid under it (",
                      metres(stored.interface_depth), " to the nearest solid node); give --interface DEPTH,SPEED"));
    return {stored.interface_depth, stored.sound_speed};
  }
  if (!immersed && !args.interface.empty() && args.speeds.empty())
    throw Error(str(what, ": with --interface, give the part's --speeds L,T (m/s): the capture knows the speeds "
                          "under the array, above the interface"));
  return args.interface;
}

// A TFM image's PNG, <result stem>.tfm.<array>.<mode>.png in `folder`: the normalised `map` in dB
// over --db, the surface at the top (rows from the shallowest down), the true defects outlined.
Picture tfm_picture(const ImageArgs& args, const fs::path& folder, const std::string& name, const std::string& mode,
                    const imaging::GridMap& map, const std::vector<unsigned char>& defects) {
  const Index nx = map.nx, nz = map.ny;
  imaging::GridMap shown = map;
  for (Index j = 0; j < nz; ++j)
    for (Index i = 0; i < nx; ++i) {
      const double v = map.values[static_cast<std::size_t>((nz - 1 - j) * nx + i)];
      shown.values[static_cast<std::size_t>(j * nx + i)] =
          v > 0.0 ? std::clamp(1.0 + 20.0 * std::log10(v) / args.db, 0.0, 1.0) : 0.0;
    }
  const int scale = args.scale > 0 ? args.scale
                                   : static_cast<int>(std::max<Index>(1, (400 + std::max(nx, nz) - 1) / std::max(nx, nz)));
  Picture picture;
  picture.path = folder / str(fs::path(args.result).stem().string(), ".tfm.", name, ".", mode, ".png");
  io::check_output_path(picture.path, "PNG image");
  picture.pixels = imaging::render(shown, defects, scale);
  picture.width = static_cast<std::size_t>(nx * scale);
  picture.height = static_cast<std::size_t>(nz * scale);
  return picture;
}

// tremor image --tfm: each selected array's capture focused in each mode over a pixel grid in the
// array's plane, x along the array from its centre and z the depth under the surface (docs/imaging.md).
void run_tfm(const ImageArgs& args) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(args.result, error))) io::GridReader missing(args.result);
  io::FileUpdate update = io::FileUpdate::hold(args.result, "result file");
  auto opened = std::make_unique<io::GridReader>(update.file(), true);
  const io::GridReader& reader = *opened;
  std::vector<std::string> names = reader.fmc_names();
  if (names.empty())
    throw Error(str(args.result, ": no full-matrix capture in this result file",
                    reader.status() == "complete"
                        ? std::string(" (an [[array]] with fmc = true makes one)")
                        : str(" (an [[array]] with fmc = true makes one, its rows written as its shots end)",
                              capture_advice(args.result, reader.status()))));
  if (!args.array.empty()) {
    if (std::find(names.begin(), names.end(), args.array) == names.end()) {
      const std::vector<std::string_view> views(names.begin(), names.end());
      throw Error(str(args.result, ": no full-matrix capture of an array named '", args.array, "'",
                      suggestion(args.array, views), "; it has ", listed(names)));
    }
    names = {args.array};
  }
  if (reader.status() != "complete")
    std::fprintf(stderr, "warning: %s: the run's status is '%s'\n", args.result.c_str(), reader.status().c_str());
  std::optional<io::GridReader> baseline;
  open_baseline(args, update, baseline);
  const fs::path folder = picture_folder(args);
  // The delays and the sum over pairs run here (a GPU where one is usable, asked for or "auto").
  const Exec exec = Exec::make(parse_backend(args.backend));
  std::vector<io::StoredImage> images;
  std::vector<Picture> pictures;
  std::vector<std::string> lines;
  for (const std::string& name : names) {
    io::StoredFmc stored = reader.fmc(name);
    const std::size_t n = stored.elements.size();
    const std::string what = str(args.result, ": array '", name, "'");
    const std::size_t whole = whole_rows(stored);
    if (whole < n)
      throw Error(str(what, ": its capture is incomplete (", n - whole, " of its ", n, " rows missing or not ",
                      "numbers)", capture_advice(args.result, reader.status())));
    if (baseline) subtract_baseline(args, *baseline, name, stored);
    imaging::Fmc fmc;
    const Plane plane = image_plane(args, stored, what, fmc);
    // Times from the excitation's peak: a wave leaves the transmitter then.
    fmc.t0 = stored.t0 - stored.signal_peak;
    fmc.dt = stored.dt;
    fmc.n_samples = stored.n_samples;
    fmc.data = std::move(stored.data);
    try {  // (a damaged /fmc group: its messages name neither the file nor the array)
      fmc.check();
    } catch (const Error& e) {
      throw Error(str(what, ": ", e.what()));
    }
    const std::vector<double> interface = interface_of(args, stored, what);
    const double speed_l = args.speeds.empty() ? stored.longitudinal_speed : args.speeds[0];
    const double speed_t = args.speeds.empty() ? stored.shear_speed : args.speeds[1];
    if (!std::isfinite(speed_l) || !std::isfinite(speed_t))
      throw Error(str(what, ": the part under it is not isotropic, so it has no one speed; give --speeds L,T (m/s)"));
    if (!(speed_l > 0.0 && speed_t > 0.0))
      throw Error(str(what, ": the capture's speeds (L ", speed_l, ", T ", speed_t, " m/s) are not above 0; give ",
                      "--speeds L,T (m/s)"));
    const ImageExtent extent = image_extent(args, stored, interface, what, plane.lo, plane.hi, plane.margin);
    const double back_wall = extent.back_wall, pixel = extent.pixel;
    const std::array<double, 2> min = extent.min, max = extent.max;
    const imaging::ImagePlan planned =
        imaging::plan_image(part_extent(stored, plane), min, max, pixel, args.at,
                            args.back_wall > 0.0 ? args.back_wall : std::nan(""), stored.quantity == "displacement",
                            what);
    for (const std::string& warning : planned.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
    const Index nx = planned.nx, nz = planned.ny;
    const std::vector<unsigned char> defects = defect_outline(stored, plane.axis, plane.off, nx, nz, min, max);
    for (const std::string& mode : args.modes) {
      const View view = view_of(mode, speed_l, speed_t, back_wall, interface);
      // The speeds of the legs at the pixel.
      const double c_transmit = view.transmit.speeds.back(), c_receive = view.receive.speeds.back();
      imaging::GridMap map = imaging::total_focusing(fmc, nx, nz, min, max, view.transmit, view.receive, exec);
      // An image that shows nothing is refused with its cause, before anything is written.
      imaging::check_image_shows(map, fmc, view.transmit, view.receive, exec, stored.signal_peak,
                                 baseline ? " less its baseline's" : "", str(what, ", view ", mode));
      double peak = 0.0;
      Index at = 0;
      for (Index p = 0; p < nx * nz; ++p)
        if (map.values[static_cast<std::size_t>(p)] > peak) peak = map.values[static_cast<std::size_t>(at = p)];
      imaging::normalise(map);
      const std::string label = str("tfm/", name, "/", mode);
      io::StoredImage image;
      image.name = label;
      image.nx = nx;
      image.ny = nz;
      image.values = map.values;
      image.numbers = {{"peak", peak},         {"x_min", min[0]},           {"x_max", max[0]},
                       {"depth_min", min[1]},  {"depth_max", max[1]},       {"c_transmit", c_transmit},
                       {"c_receive", c_receive}, {"t0", fmc.t0}};
      if (view.skips) image.numbers.push_back({"back_wall", back_wall});
      if (!interface.empty()) {
        image.numbers.push_back({"interface_depth", interface[0]});
        image.numbers.push_back({"interface_speed", interface[1]});
      }
      image.texts = {{"mode", mode}, {"array", name}, {"baseline", args.baseline}, {"plane", args.plane}};
      image.numbers.push_back({"plane_offset", args.at});
      Picture picture = tfm_picture(args, folder, name, mode, map, defects);
      const auto where = map.point(at);
      lines.push_back(str(label, ": ", group_digits(nx), " x ", group_digits(nz), " pixels of ", metres(pixel),
                          ", x ", metres(min[0]), "..", metres(max[0]), plane.across ? " across" : " along",
                          " the array", args.at != 0.0 ? str(" ", metres(args.at), " from its centre") : "",
                          ", depth ", metres(min[1]),
                          "..", metres(max[1]), "; ", view.legs, "; peak ", peak, " at (", metres(where[0]), ", ", metres(where[1]),
                          ")\n  wrote ", picture.path.string()));
      images.push_back(std::move(image));
      pictures.push_back(std::move(picture));
    }
  }
  baseline.reset();
  opened.reset();
  store(update, args.result, images, pictures, lines);
}

void run_image(const ImageArgs& args) {
  // (A view asked twice would be computed and written twice, to one name.)
  for (std::size_t k = 0; k < args.modes.size(); ++k)
    if (std::find(args.modes.begin(), args.modes.begin() + static_cast<std::ptrdiff_t>(k), args.modes[k]) !=
        args.modes.begin() + static_cast<std::ptrdiff_t>(k))
      throw Error(str("--mode: view '", args.modes[k], "' is given twice"));
  if (args.tfm) return run_tfm(args);
  imaging::MapSettings settings;
  settings.from = args.from;
  settings.to = args.to;
  settings.threshold_db = args.threshold_db;
  settings.smooth = args.smooth;
  settings.check();
  std::error_code error;
  // A missing file: the reader says what there is instead (a run's .partial).
  if (!fs::exists(fs::symlink_status(args.result, error))) io::GridReader missing(args.result);
  // The result file is held from the start, before anything is written: another process that has
  // it open (a run writing it, another tremor image) is named now, not after the PNG images. The
  // maps go into a copy that replaces the file only when complete (docs/imaging.md).
  io::FileUpdate update = io::FileUpdate::hold(args.result, "result file");
  auto opened = std::make_unique<io::GridReader>(update.file(), true);  // closed before the images are added
  const io::GridReader& reader = *opened;
  const std::vector<const io::StoredGrid*> grids = selected_grids(args, reader);
  if (reader.status() != "complete")
    std::fprintf(stderr, "warning: %s: the run's status is '%s': the maps cover the samples it wrote\n",
                 args.result.c_str(), reader.status().c_str());
  std::optional<io::GridReader> baseline;
  open_baseline(args, update, baseline);
  const fs::path folder = picture_folder(args);
  const double fraction = imaging::threshold_fraction(args.threshold_db);
  std::vector<io::StoredImage> images;
  std::vector<Picture> pictures;
  std::vector<std::string> lines;
  for (Mapped& mapped : maps_of(args, reader, baseline ? &*baseline : nullptr, grids)) {
    const io::StoredGrid* grid = mapped.grid;
    imaging::GridMap& map = mapped.map;
    const std::size_t first = mapped.first, last = mapped.last;
    double peak = 0.0;
    Index at = 0;
    for (Index p = 0; p < grid->n_points(); ++p)
      if (map.values[static_cast<std::size_t>(p)] > peak) peak = map.values[static_cast<std::size_t>(at = p)];
    imaging::smooth(map, args.smooth);  // after the peak, which stays the envelope's own
    imaging::normalise(map);
    const std::vector<unsigned char> found = imaging::threshold(map, fraction);
    io::StoredImage image;
    image.name = mapped.label;
    image.nx = map.nx;
    image.ny = map.ny;
    image.values = map.values;
    image.numbers = {{"peak", peak}, {"from", grid->time[first]}, {"to", grid->time[last - 1]},
                     {"threshold_db", args.threshold_db}, {"smooth", args.smooth}};
    image.texts = {{"quantity", args.quantity}, {"component", args.component}, {"baseline", args.baseline}};
    if (!args.combine.empty()) image.texts.push_back({"shots", listed(mapped.shots)});
    const auto where = map.point(at);
    std::string line = str(mapped.label, ": ", group_digits(map.nx), " x ", group_digits(map.ny), " points, samples ",
                           si(grid->time[first]), "s..", si(grid->time[last - 1]), "s; peak ", peak, " at (",
                           metres(where[0]), ", ", metres(where[1]), ")");
    if (!args.combine.empty())
      line += str("\n  the sum of the maps of ", mapped.shots.size(), " shot", mapped.shots.size() == 1 ? "" : "s",
                  " (", listed(mapped.shots), ")");
    const std::size_t n_found = static_cast<std::size_t>(std::count(found.begin(), found.end(), 1));
    line += str("\n  above ", args.threshold_db, " dB   ", args.smooth > 0.0 ? str("(smoothed over ", metres(args.smooth), ") ") : "",
                group_digits(static_cast<long long>(n_found)), " points");
    if (const auto c = imaging::centroid(map, found)) line += str(", centroid (", metres((*c)[0]), ", ", metres((*c)[1]), ")");
    if (!grid->footprint.empty()) {
      const double iou = imaging::intersection_over_union(found, grid->footprint);
      image.numbers.push_back({"iou", iou});
      const auto n_true = static_cast<std::size_t>(std::count(grid->footprint.begin(), grid->footprint.end(), 1));
      line += str("\n  true footprint  ", group_digits(static_cast<long long>(n_true)), " points");
      if (const auto c = imaging::centroid(map, grid->footprint))
        line += str(", centroid (", metres((*c)[0]), ", ", metres((*c)[1]), ")");
      char text[32];
      std::snprintf(text, sizeof text, "%.3f", iou);
      line += str("\n  intersection over union  ", text);
    }
    const int scale = args.scale > 0 ? args.scale
                                     : static_cast<int>(std::max<Index>(1, (400 + std::max(map.nx, map.ny) - 1) /
                                                                               std::max(map.nx, map.ny)));
    Picture picture;
    picture.path = folder / str(fs::path(args.result).stem().string(), ".", mapped.label, ".png");
    io::check_output_path(picture.path, "PNG image");
    picture.pixels = imaging::render(map, grid->footprint, scale);
    picture.width = static_cast<std::size_t>(map.nx * scale);
    picture.height = static_cast<std::size_t>(map.ny * scale);
    line += str("\n  wrote ", picture.path.string());
    lines.push_back(line);
    images.push_back(std::move(image));
    pictures.push_back(std::move(picture));
  }
  baseline.reset();
  opened.reset();
  store(update, args.result, images, pictures, lines);
}

}  // namespace

void add_image_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "image", "Map a result file's receiver grids: the maximum of each point's Hilbert envelope (total displacement), "
               "as PNG images and /images/<grid> in the file, with the defect's footprint reconstructed");
  auto args = std::make_shared<ImageArgs>();
  cmd->add_option("RESULT", args->result, "result file written by tremor run, with a receiver grid")->required();
  cmd->add_option("--grid", args->grid, "the grid to map (default: every grid of the file)");
  cmd->add_option("--shot", args->shots,
                  "the shots whose grids to map, in a model with shots, comma-separated (default: every shot)")
      ->delimiter(',');
  cmd->add_option("--combine", args->combine,
                  "add the selected shots' maps of each grid point by point into one image, NAME.<grid>: each shot "
                  "its own envelopes, so transducers fired in different shots do not interfere (docs/imaging.md)");
  cmd->add_option("--quantity", args->quantity, "displacement (default), velocity or acceleration")
      ->check(CLI::IsMember({"displacement", "velocity", "acceleration"}));
  cmd->add_option("--component", args->component, "x, y or z (default z: out of plane)")
      ->check(CLI::IsMember({"x", "y", "z"}));
  cmd->add_option("--from", args->from, "the time window's start, s (default: the first sample)")->check(finite());
  cmd->add_option("--to", args->to, "the time window's end, s (default: the last sample)")->check(finite());
  cmd->add_option("--baseline", args->baseline,
                  "a result file of the same model without the defect, run the same way: its traces (with --tfm, its "
                  "capture's A-scans) are subtracted before the envelopes");
  cmd->add_option("--smooth", args->smooth,
                  "smooth the map by a Gaussian of this standard deviation, m, before the threshold (default 0: none)")
      ->check(within(0.0, 1.0));
  cmd->add_option("--threshold", args->threshold_db,
                  "the level of the reconstructed footprint, dB of the map's maximum (default -6)")
      ->check(within(-200.0, 0.0));
  cmd->add_option("-o,--output-dir", args->output_dir, "folder for the PNG images (default: the result file's)");
  cmd->add_option("--scale", args->scale, "pixels per grid point (default: 400 pixels across at least)")
      ->check(CLI::Range(1, 64));
  cmd->add_flag("--tfm", args->tfm,
                 "image the file's full-matrix captures (/fmc) by the total focusing method instead of mapping grids: "
                 "PNG images in dB and /images/tfm/<array>/<mode>");
  cmd->add_option("--array", args->array, "with --tfm: the array whose capture to image (default: every array)");
  cmd->add_option("--mode", args->modes,
                  "with --tfm: views, comma-separated: OUT-BACK, each L or T (direct) or LL, LT, TL, TT (half-skip off "
                  "the back wall: down as the first, up as the second); default L-L")
      ->delimiter(',')
      ->check(CLI::Validator(
          [](const std::string& view) -> std::string {
            const auto path = [](std::string_view p) {
              return p == "L" || p == "T" || p == "LL" || p == "LT" || p == "TL" || p == "TT";
            };
            const std::size_t dash = view.find('-');
            if (dash != std::string::npos && path(std::string_view(view).substr(0, dash)) &&
                path(std::string_view(view).substr(dash + 1)))
              return {};
            return str("view '", view, "': expected OUT-BACK, each of L, T, LL, LT, TL, TT (L-L, T-T, LT-T, LL-L, ...)");
          },
          "VIEW"));
  cmd->add_option("--back-wall", args->back_wall,
                  "with --tfm: the back wall's depth under the array, m, where half-skip views turn (default: the "
                  "part's depth under the array)")
      ->check(within(0.0, 1e3, true));
  cmd->add_option("--interface", args->interface,
                  "with --tfm: DEPTH,SPEED: a planar interface parallel to the array DEPTH m under it (a wedge's or "
                  "delay line's face, the water's surface of an immersion test) and the speed above it, m/s; the "
                  "views image the part below, through it, by Fermat's principle (give the part's --speeds); an "
                  "array immersed in the model's fluid takes the water path to the solid and the fluid's speed "
                  "by default")
      ->delimiter(',')
      ->expected(2)
      ->check(within(0.0, 1e6, true));
  cmd->add_option("--plane", args->plane,
                  "with --tfm, 3D: the image's vertical plane, along the array (default) or across it (a matrix "
                  "array's elevation)")
      ->check(CLI::IsMember({"along", "across"}));
  cmd->add_option("--at", args->at,
                  "with --tfm, 3D: the plane's offset from the array's centre, m: across the array for --plane along, "
                  "along it for --plane across (default 0)")
      ->check(within(-1e3, 1e3));
  cmd->add_option("--backend", args->backend, "with --tfm: where the delays and the sum over pairs run (auto: a GPU when usable)")
      ->check(CLI::IsMember(backend_choice_names()));
  cmd->add_option("--speeds", args->speeds,
                  "with --tfm: the longitudinal and shear speeds, m/s (default: the part's under the array)")
      ->delimiter(',')
      ->expected(2)
      ->check(within(0.0, 1e6, true));
  cmd->add_option("--extent", args->extent,
                  "with --tfm: x from, x to (m along the array from its centre), depth from, depth to (m); default: "
                  "the aperture and a pitch either side, the part's whole depth")
      ->delimiter(',')
      ->expected(4)
      ->check(finite());
  cmd->add_option("--pixel", args->pixel, "with --tfm: the pixel's size, m (default: the longer side in 256)")
      ->check(within(0.0, 1.0, true));
  cmd->add_option("--db", args->db, "with --tfm: the PNG's dynamic range, dB below the peak (default 40)")
      ->check(within(0.0, 200.0, true));
  cmd->callback([args, cmd] {
    for (const char* option :
         {"--array", "--mode", "--speeds", "--extent", "--pixel", "--db", "--back-wall", "--interface", "--plane", "--at",
          "--backend"})
      if (!args->tfm && cmd->count(option) > 0) throw Error(str(option, " goes with --tfm"));
    for (const char* option : {"--grid", "--shot", "--combine", "--quantity", "--component", "--from", "--to",
                               "--smooth", "--threshold"})
      if (args->tfm && cmd->count(option) > 0)
        throw Error(str(option, " maps receiver grids; --tfm images full-matrix captures"));
    run_image(*args);
  });
}

}  // namespace tremor::cli
