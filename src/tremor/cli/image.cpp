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
#include "tremor/io/file.hpp"
#include "tremor/io/png.hpp"
#include "tremor/io/result_grid.hpp"

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
    throw Error(asked.empty() && names.empty()
                    ? str(args.result, ": no receiver grid in this result file (a [[receiver]] with grid = { ... })")
                    : str(args.result, ": no receiver grid", asked,
                          names.empty() ? std::string("; it has none") : "; it has " + names));
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

void run_image(const ImageArgs& args) {
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
  if (!args.baseline.empty()) {
    // The result file itself is held here, and read without a lock of HDF5's.
    const bool held = fs::equivalent(args.baseline, update.file(), error);
    if (!held && io::locked_by_a_writer(args.baseline))  // HDF5 would say only "Resource temporarily unavailable"
      throw Error(str(args.baseline, ": another process is writing this baseline result file (a run, or tremor "
                                     "image adding its maps); try again once it has ended"));
    baseline.emplace(args.baseline, held);
  }
  const fs::path folder = !args.output_dir.empty() ? fs::path(args.output_dir) : fs::path(args.result).parent_path();
  if (!args.output_dir.empty()) {
    fs::create_directories(folder, error);
    if (error || !fs::is_directory(folder))
      throw Error(str(args.output_dir, ": cannot create the output folder (", error.message(), ")"));
  }
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
  // The maps into the copy first, the PNG images next, the copy over the file last: a failure
  // anywhere leaves the result file as it was (and no PNG image when the file's write failed).
  update.prepare([&](const fs::path& copy) { io::write_images(copy, images); });
  try {
    for (const Picture& picture : pictures) io::write_png(picture.path, picture.pixels, picture.width, picture.height);
  } catch (const Error& e) {
    throw Error(str(e.what(), "; ", args.result, " is unchanged"));  // the update's copy goes with it
  }
  update.commit();
  for (const std::string& line : lines) std::printf("%s\n", line.c_str());
  std::printf("wrote /images/ in %s\n", args.result.c_str());
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
                  "a result file of the same model without the defect, run the same way: its traces are subtracted "
                  "point by point before the envelopes");
  cmd->add_option("--smooth", args->smooth,
                  "smooth the map by a Gaussian of this standard deviation, m, before the threshold (default 0: none)")
      ->check(within(0.0, 1.0));
  cmd->add_option("--threshold", args->threshold_db,
                  "the level of the reconstructed footprint, dB of the map's maximum (default -6)")
      ->check(within(-200.0, 0.0));
  cmd->add_option("-o,--output-dir", args->output_dir, "folder for the PNG images (default: the result file's)");
  cmd->add_option("--scale", args->scale, "pixels per grid point (default: 400 pixels across at least)")
      ->check(CLI::Range(1, 64));
  cmd->callback([args] { run_image(*args); });
}

}  // namespace tremor::cli
