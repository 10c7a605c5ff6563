#include "tremor/io/export_traces.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cctype>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/io/export_files.hpp"
#include "tremor/io/result_file.hpp"

namespace tremor::io {

namespace fs = std::filesystem;
using h5::Handle;

namespace {

// A history set read whole: its points (name and x, y, z), quantities, and samples.
struct TraceSet {
  std::vector<std::string> points;             // node label, p<k>, or a station's NET.STA
  // Per point, a station's network and name where the history names its points (a STATIONS file's);
  // empty strings otherwise.
  std::vector<std::string> networks, stations;
  std::vector<std::array<double, 3>> where;    // m
  std::vector<Quantity> quantities;
  int components = 3;                          // a motion's axes; 1 for pressure
  std::vector<double> times, values;           // values [sample][point][quantity][component]
  double delta = 0.0;                          // s between samples
  std::size_t value(std::size_t s, std::size_t p, std::size_t q, std::size_t c) const {
    return ((s * points.size() + p) * quantities.size() + q) * static_cast<std::size_t>(components) + c;
  }
};

TraceSet read_set(hid_t file, const HistorySet& set, const std::string& result) {
  const std::string where = set.path + "/" + set.name;
  Handle histories = h5::open_group(file, set.path, result);
  Handle group = h5::open_group(histories.get(), set.name, result);
  TraceSet t;
  for (const std::string& q : h5::read_strings_attribute(group.get(), "quantities", result))
    t.quantities.push_back(parse_quantity(q));
  const auto dimension = static_cast<int>(h5::read_int_attribute(group.get(), "dimension", result));
  if (dimension < 1 || dimension > 3) throw Error(str(result, ": ", where, ": dimension ", dimension, " is not 1..3"));
  const bool pressure = t.quantities.size() == 1 && t.quantities[0] == Quantity::Pressure;
  t.components = pressure ? 1 : dimension;
  // Each point's coordinates: its position, or its node's (node_indices into /mesh/coordinates).
  std::vector<double> xyz;
  if (H5Lexists(group.get(), "positions", H5P_DEFAULT) > 0) {
    xyz = h5::read_doubles(group.get(), "positions", result, where + "/positions");
    for (std::size_t p = 0; p < xyz.size() / static_cast<std::size_t>(dimension); ++p) t.points.push_back(str("p", p + 1));
  } else {
    const std::vector<std::int64_t> labels = h5::read_int64(group.get(), "node_labels", result, where + "/node_labels");
    const std::vector<std::int64_t> nodes = h5::read_int64(group.get(), "node_indices", result, where + "/node_indices");
    Handle mesh = h5::open_group(file, "mesh", result);
    const std::vector<double> coordinates = h5::read_doubles(mesh.get(), "coordinates", result, "/mesh/coordinates");
    if (nodes.size() != labels.size()) throw Error(str(result, ": ", where, ": node_labels and node_indices differ"));
    for (std::size_t p = 0; p < nodes.size(); ++p) {
      const auto at = static_cast<std::size_t>(nodes[p]) * static_cast<std::size_t>(dimension);
      if (nodes[p] < 0 || at + static_cast<std::size_t>(dimension) > coordinates.size())
        throw Error(str(result, ": ", where, ": node index ", nodes[p], " lies outside /mesh/coordinates"));
      t.points.push_back(str(labels[p]));
      xyz.insert(xyz.end(), coordinates.begin() + static_cast<std::ptrdiff_t>(at),
                 coordinates.begin() + static_cast<std::ptrdiff_t>(at) + dimension);
    }
  }
  t.networks.assign(t.points.size(), std::string());
  t.stations = t.networks;
  if (h5::has_attribute(group.get(), "point_names")) {
    const std::vector<std::string> names = h5::read_strings_attribute(group.get(), "point_names", result);
    if (names.size() != t.points.size())
      throw Error(str(result, ": ", where, ": ", names.size(), " point names for ", t.points.size(), " points"));
    for (std::size_t p = 0; p < names.size(); ++p) {
      t.points[p] = names[p];
      const std::size_t dot = names[p].find('.');
      t.networks[p] = dot == std::string::npos ? std::string() : names[p].substr(0, dot);
      t.stations[p] = dot == std::string::npos ? names[p] : names[p].substr(dot + 1);
    }
  }
  for (std::size_t p = 0; p < t.points.size(); ++p) {
    std::array<double, 3> x{};
    for (int c = 0; c < dimension; ++c) x[static_cast<std::size_t>(c)] = xyz[p * static_cast<std::size_t>(dimension) + static_cast<std::size_t>(c)];
    t.where.push_back(x);
  }
  t.times = h5::read_doubles(group.get(), "time", result, where + "/time");
  t.values = h5::read_doubles(group.get(), "values", result, where + "/values");
  if (t.values.size() != t.times.size() * t.points.size() * t.quantities.size() * static_cast<std::size_t>(t.components))
    throw Error(str(result, ": ", where, ": the shapes of time, values and its points disagree"));
  // Evenly spaced (a receiver samples every `every` steps); a trace format has no other way.
  if (t.times.size() > 1) {
    t.delta = (t.times.back() - t.times.front()) / static_cast<double>(t.times.size() - 1);
    for (std::size_t s = 1; s < t.times.size(); ++s)
      if (std::abs(t.times[s] - t.times.front() - static_cast<double>(s) * t.delta) > 1e-6 * t.delta)
        throw Error(str(result, ": ", where, ": its samples are not evenly spaced (sample ", s, " at ", t.times[s],
                        " s), which a trace format needs"));
  }
  return t;
}

// The run's event, when it has one named point source at a position (a CMTSOLUTION's, a
// [[source]]'s with a name): its name and position, for SAC's event header.
struct Event {
  std::string name;
  std::array<double, 3> at{};
};

std::optional<Event> event_of(hid_t file, const std::string& result) {
  if (H5Lexists(file, "sources", H5P_DEFAULT) <= 0) return std::nullopt;
  Handle group = h5::open_group(file, "sources", result);
  const std::vector<std::string> names = h5::read_strings_attribute(group.get(), "names", result);
  const std::vector<double> positions = h5::read_doubles(group.get(), "positions", result, "/sources/positions");
  std::optional<Event> out;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (names[k].empty()) continue;
    if (out || positions.size() < 3 * (k + 1)) return std::nullopt;  // several events: none is the one
    out = Event{names[k], {positions[3 * k], positions[3 * k + 1], positions[3 * k + 2]}};
  }
  return out;
}

// A trace's name: the quantity's letter and the axis ("ux", "vz"), or "p" for pressure.
std::string trace_code(Quantity q, int c) {
  static constexpr std::array<char, 3> axes{'x', 'y', 'z'};
  return q == Quantity::Pressure ? std::string(1, quantity_letter(q))
                                 : str(quantity_letter(q), axes.at(static_cast<std::size_t>(c)));
}

// The samples of trace (p, q, c) as float32.
std::vector<float> trace(const TraceSet& t, std::size_t p, std::size_t q, std::size_t c) {
  std::vector<float> out(t.times.size());
  for (std::size_t s = 0; s < out.size(); ++s) out[s] = static_cast<float>(t.values[t.value(s, p, q, c)]);
  return out;
}

template <class T>
void put(std::vector<char>& bytes, std::size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

// SAC's header (NVHDR 6): 70 floats, 40 integers and logicals, then 8-character strings from byte
// 440 (KEVNM 16), 632 bytes; undefined values -12345.
constexpr std::size_t sac_header = 632, sac_strings = 440;
void sac_string(std::vector<char>& h, std::size_t offset, const std::string& text, std::size_t width = 8) {
  std::string field = text.substr(0, width);
  field.resize(width, ' ');
  std::memcpy(h.data() + sac_strings + offset, field.data(), width);
}

void write_sac(std::FILE* out, const TraceSet& t, std::size_t p, std::size_t q, std::size_t c,
               const std::string& set, const std::string& shot, const std::optional<Event>& event) {
  const std::vector<float> y = trace(t, p, q, c);
  std::vector<char> h(sac_header);
  for (std::size_t k = 0; k < 70; ++k) put(h, 4 * k, -12345.0f);
  for (std::size_t k = 70; k < 110; ++k) put(h, 4 * k, std::int32_t{-12345});
  sac_string(h, 0, "-12345");                                      // KSTNM
  sac_string(h, 8, "-12345", 16);                                  // KEVNM, 16 characters
  for (std::size_t at = 24; at < sac_header - sac_strings; at += 8) sac_string(h, at, "-12345");  // KHOLE .. KINST
  const auto f = [&](std::size_t word, double value) { put(h, 4 * word, static_cast<float>(value)); };
  const auto i = [&](std::size_t word, std::int32_t value) { put(h, 4 * (70 + word), value); };
  const double begin = t.times.empty() ? 0.0 : t.times.front();
  f(0, t.delta);                                                    // DELTA
  if (!y.empty()) {
    f(1, *std::min_element(y.begin(), y.end()));                    // DEPMIN
    f(2, *std::max_element(y.begin(), y.end()));                    // DEPMAX
    double sum = 0.0;
    for (float v : y) sum += v;
    f(56, sum / static_cast<double>(y.size()));                     // DEPMEN
  }
  f(5, begin);                                                      // B
  f(6, begin + t.delta * static_cast<double>(y.empty() ? 0 : y.size() - 1));  // E
  for (std::size_t a = 0; a < 3; ++a) f(40 + a, t.where[p][a]);     // USER0-2: x, y, z
  // A station's and the event's places in the model's frame, as SPECFEM's Cartesian runs write
  // them: latitude the y (north) coordinate, longitude x (east), elevation z, all in metres (LCALDA
  // 0: SAC computes no distance from them).
  if (!t.stations[p].empty()) {
    f(31, t.where[p][1]);                                           // STLA
    f(32, t.where[p][0]);                                           // STLO
    f(33, t.where[p][2]);                                           // STEL
  }
  if (event) {
    f(35, event->at[1]);                                            // EVLA
    f(36, event->at[0]);                                            // EVLO
    f(37, event->at[2]);                                            // EVEL
  }
  i(6, 6);                                                          // NVHDR
  i(9, static_cast<std::int32_t>(y.size()));                        // NPTS
  i(15, 1);                                                         // IFTYPE: ITIME
  const Quantity quantity = t.quantities[q];
  i(16, quantity == Quantity::Displacement ? 6 : quantity == Quantity::Velocity ? 7
        : quantity == Quantity::Acceleration ? 8 : 5);              // IDEP: IDISP, IVEL, IACC, IUNKN
  i(35, 1);                                                         // LEVEN
  i(36, 0);                                                         // LPSPOL
  i(37, 1);                                                         // LOVROK
  i(38, 0);                                                         // LCALDA
  sac_string(h, 0, t.stations[p].empty() ? t.points[p] : t.stations[p]);  // KSTNM
  if (!shot.empty())
    sac_string(h, 8, shot, 16);                                     // KEVNM
  else if (event)
    sac_string(h, 8, event->name, 16);
  sac_string(h, 160, quantity == Quantity::Pressure ? "BXP" : str("BX", static_cast<char>('X' + c)));  // KCMPNM
  sac_string(h, 168, t.networks[p].empty() ? set : t.networks[p]);   // KNETWK
  std::fwrite(h.data(), 1, h.size(), out);
  std::fwrite(y.data(), sizeof(float), y.size(), out);
}

// SU: a 240-byte SEG-Y trace header and ns float32 samples, per trace.
constexpr std::size_t su_header = 240;
constexpr double su_scale = 1e4;  // coordinates in tenths of a millimetre (scalco -10000)

void write_su(std::FILE* out, const TraceSet& t, std::size_t q, std::size_t c) {
  const auto dt_us = static_cast<std::uint16_t>(std::clamp(std::lround(t.delta * 1e6), 0L, 65535L));
  for (std::size_t p = 0; p < t.points.size(); ++p) {
    std::vector<char> h(su_header, 0);
    const auto number = static_cast<std::int32_t>(p + 1);
    put(h, 0, number);                                                // tracl
    put(h, 4, number);                                                // tracr
    put(h, 8, std::int32_t{1});                                       // fldr
    put(h, 12, number);                                               // tracf
    put(h, 28, std::int16_t{1});                                      // trid: seismic data
    const auto scaled = [](double x) { return static_cast<std::int32_t>(std::lround(x * su_scale)); };
    put(h, 40, scaled(t.where[p][2]));                                // gelev
    put(h, 68, std::int16_t{-10000});                                 // scalel
    put(h, 70, std::int16_t{-10000});                                 // scalco
    put(h, 80, scaled(t.where[p][0]));                                // gx
    put(h, 84, scaled(t.where[p][1]));                                // gy
    put(h, 88, std::int16_t{1});                                      // counit: length (m)
    put(h, 114, static_cast<std::uint16_t>(t.times.size()));          // ns
    put(h, 116, dt_us);                                               // dt, us
    put(h, 180, static_cast<float>(t.delta));                         // d1, s
    put(h, 184, static_cast<float>(t.times.empty() ? 0.0 : t.times.front()));  // f1, s
    put(h, 204, static_cast<std::int32_t>(t.points.size()));          // ntr
    const std::vector<float> y = trace(t, p, q, c);
    std::fwrite(h.data(), 1, h.size(), out);
    std::fwrite(y.data(), sizeof(float), y.size(), out);
  }
}

// An ASDF name's part: letters, digits, '-' and '_' kept, anything else '_' (a tag: lower case).
std::string asdf_code(const std::string& text, bool lower) {
  std::string out = text;
  for (char& c : out) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) c = '_';
    if (lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// ASDF's times in a waveform's name: YYYY-MM-DDTHH:MM:SS from 1970-01-01 (whole seconds).
std::string asdf_time(double seconds) {
  const auto whole = static_cast<std::time_t>(std::floor(seconds));
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  return text;
}

// Each trace's ASDF names: its station (NET.STA) and its dataset's name in the station's group.
struct AsdfName {
  std::string station, dataset;
};

template <class Each>
void asdf_names(const std::vector<std::pair<HistorySet, TraceSet>>& sets, Each&& each) {
  static const char* tags[] = {"displacement", "velocity", "acceleration", "pressure"};
  for (const auto& [set, t] : sets) {
    const double begin = t.times.empty() ? 0.0 : t.times.front();
    const double end = begin + t.delta * static_cast<double>(t.times.empty() ? 0 : t.times.size() - 1);
    for (std::size_t p = 0; p < t.points.size(); ++p) {
      const std::string station =
          t.stations[p].empty() ? str(asdf_code(set.name, false), ".", asdf_code(t.points[p], false))
                                : str(asdf_code(t.networks[p], false), ".", asdf_code(t.stations[p], false));
      for (std::size_t q = 0; q < t.quantities.size(); ++q) {
        const std::string quantity = tags[static_cast<int>(t.quantities[q])];
        const std::string tag = set.shot.empty() ? quantity : str(asdf_code(set.shot, true), "_", quantity);
        for (std::size_t c = 0; c < static_cast<std::size_t>(t.components); ++c) {
          const std::string channel =
              t.quantities[q] == Quantity::Pressure ? "BXP" : str("BX", static_cast<char>('X' + c));
          each(set, t, p, q, c, tag,
               AsdfName{station, str(station, "..", channel, "__", asdf_time(begin), "__", asdf_time(end), "__", tag)});
        }
      }
    }
  }
}

// Refuses two shots that become one tag, and two traces one name, before the file is written.
void check_asdf_names(const std::string& result, const std::vector<std::pair<HistorySet, TraceSet>>& sets) {
  PlannedNames tags(result, "ASDF tag"), traces(result, "ASDF trace");
  asdf_names(sets, [&](const HistorySet& set, const TraceSet& t, std::size_t p, std::size_t, std::size_t,
                       const std::string& tag, const AsdfName& name) {
    if (!set.shot.empty()) tags.add(tag, str("shot '", set.shot, "'"));
    traces.add(str(name.station, "/", name.dataset), str("point ", t.points[p], " of ", set.said()));
  });
}

// Every set's traces into the ASDF file `path` (created, truncated).
void write_asdf(const fs::path& path, const std::vector<std::pair<HistorySet, TraceSet>>& sets) {
  const std::string file = path.string();
  Handle access = h5::writer_access(file);
  Handle root = h5::open_or_fail(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose, file,
                                 "cannot create the ASDF file");
  h5::set_bytes_attribute(root.get(), "file_format", "ASDF", file);
  h5::set_bytes_attribute(root.get(), "file_format_version", "1.0.3", file);
  Handle waveforms = h5::create_group(root.get(), "Waveforms", file);
  (void)h5::create_group(root.get(), "AuxiliaryData", file);
  (void)h5::create_group(root.get(), "Provenance", file);
  asdf_names(sets, [&](const HistorySet&, const TraceSet& t, std::size_t p, std::size_t q, std::size_t c,
                       const std::string&, const AsdfName& name) {
    Handle group = H5Lexists(waveforms.get(), name.station.c_str(), H5P_DEFAULT) > 0
                       ? h5::open_group(waveforms.get(), name.station, file)
                       : h5::create_group(waveforms.get(), name.station, file);
    const std::vector<float> y = trace(t, p, q, c);
    const std::array<hsize_t, 1> dims{y.size()};
    h5::write_floats(group.get(), name.dataset, y, dims, file);
    Handle dataset = h5::open_dataset(group.get(), name.dataset, file);
    const double begin = t.times.empty() ? 0.0 : t.times.front();
    h5::set_attribute(dataset.get(), "starttime", static_cast<std::int64_t>(std::llround(begin * 1e9)), file);
    h5::set_attribute(dataset.get(), "sampling_rate", t.delta > 0.0 ? 1.0 / t.delta : 0.0, file);
  });
}

}  // namespace

ExportSummary export_traces(const fs::path& result_path, const fs::path& out_dir, TraceFormat format) {
  const std::string result = result_path.string();
  ExportSummary summary;
  const Handle file = open_for_export(result_path, out_dir, summary);
  const char* kind = format == TraceFormat::Sac ? "SAC file" : format == TraceFormat::Su ? "SU file" : "ASDF file";
  if (format == TraceFormat::Asdf) {  // one file for every set
    const fs::path asdf = out_dir / str(result_path.stem().string(), ".asdf.h5");
    check_export_path(asdf, kind);
    std::vector<std::pair<HistorySet, TraceSet>> sets;
    for (const HistorySet& set : history_sets(file.get(), result))
      sets.emplace_back(set, read_set(file.get(), set, result));
    if (sets.empty()) return summary;
    check_asdf_names(result, sets);
    write_export_file_at(asdf, kind, [&](const fs::path& temporary) { write_asdf(temporary, sets); });
    summary.files.push_back(asdf);
    return summary;
  }
  struct Planned {
    HistorySet set;
    TraceSet traces;
    std::vector<std::pair<fs::path, std::array<std::size_t, 3>>> files;  // (p, q, c); SU: p unused
  };
  std::vector<Planned> planned;
  PlannedNames names(result, kind);
  const std::optional<Event> event = format == TraceFormat::Sac ? event_of(file.get(), result) : std::nullopt;
  for (const HistorySet& set : history_sets(file.get(), result)) {
    Planned one{set, read_set(file.get(), set, result), {}};
    const TraceSet& t = one.traces;
    if (format == TraceFormat::Su && t.times.size() > 65535)
      throw Error(str(result, ": ", set.path, "/", set.name, ": ", t.times.size(), " samples, more than the 65,535 "
                      "an SU trace holds (its ns is 16 bits): export it as sac, or record every n-th step"));
    for (std::size_t q = 0; q < t.quantities.size(); ++q)
      for (std::size_t c = 0; c < static_cast<std::size_t>(t.components); ++c) {
        const std::string code = trace_code(t.quantities[q], static_cast<int>(c));
        if (format == TraceFormat::Su) {
          one.files.push_back({out_dir / str(set.file_stem(), ".", code, ".su"), {0, q, c}});
          names.add(one.files.back().first.string(), set.said());
        } else {
          for (std::size_t p = 0; p < t.points.size(); ++p) {
            one.files.push_back({out_dir / str(set.file_stem(), ".", t.points[p], ".", code, ".sac"), {p, q, c}});
            names.add(one.files.back().first.string(), str("point ", t.points[p], " of ", set.said()));
          }
        }
      }
    for (const auto& [path, trace] : one.files) check_export_path(path, kind);
    if (format == TraceFormat::Su && t.times.size() > 1 && std::abs(t.delta * 1e6 - std::round(t.delta * 1e6)) > 1e-9 * t.delta * 1e6)
      summary.warnings.push_back(str(set.file_stem(), ": samples every ", t.delta, " s, not a whole number of "
                                     "microseconds: SU's dt holds ", std::lround(t.delta * 1e6), " us; d1 holds the "
                                     "interval exactly"));
    planned.push_back(std::move(one));
  }
  for (const Planned& one : planned)
    for (const auto& [path, at] : one.files) {
      write_export_file(path, kind, [&](std::FILE* out) {
        if (format == TraceFormat::Sac)
          write_sac(out, one.traces, at[0], at[1], at[2], one.set.name, one.set.shot, event);
        else
          write_su(out, one.traces, at[1], at[2]);
      });
      summary.files.push_back(path);
    }
  return summary;
}

}  // namespace tremor::io
