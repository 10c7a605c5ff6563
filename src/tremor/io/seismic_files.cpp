#include "tremor/io/seismic_files.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "tremor/core/error.hpp"
#include "tremor/core/text_rows.hpp"

namespace tremor::io {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A block of `key: value` lines after a header line.
struct Block {
  long line = 0;
  std::string_view header;
  struct Entry {
    long line;
    std::string_view value;
  };
  std::map<std::string, Entry> entries;  // by key, lower case, inner blanks as one
};

std::string key_of(std::string_view raw) {
  std::string out;
  for (const std::string_view w : words_of(raw)) {
    if (!out.empty()) out += ' ';
    out += lower(w);
  }
  return out;
}

std::vector<Block> blocks_of(std::string_view text, const std::string& file, const char* kind) {
  std::vector<Block> out;
  for (const auto& [line, content] : text_lines(text)) {
    if (content.empty() || content.front() == '#') continue;
    const std::size_t colon = content.find(':');
    if (colon == std::string_view::npos) {
      out.push_back({line, content, {}});
      continue;
    }
    if (out.empty())
      throw Error(str(file, ":", line, ": '", content, "' comes before the ", kind,
                      "'s header line (such as the PDE or FORCE line that starts each source)"));
    const std::string key = key_of(content.substr(0, colon));
    if (!out.back().entries.emplace(key, Block::Entry{line, trim_blanks(content.substr(colon + 1))}).second)
      throw Error(str(file, ":", line, ": '", key, "' given twice in the source that starts at line ",
                      out.back().line));
  }
  if (out.empty()) throw Error(str(file, ": no ", kind, " in the file (it is empty or all comments)"));
  return out;
}

// The first word of entry `key`'s value as a number; `keys` lists the spellings accepted.
double number_of(const Block& block, std::initializer_list<const char*> keys, const std::string& file,
                 const char* meaning, bool required = true, double fallback = 0.0) {
  for (const char* key : keys) {
    const auto it = block.entries.find(key);
    if (it == block.entries.end()) continue;
    const std::vector<std::string_view> w = words_of(it->second.value);
    double value = 0.0;
    if (w.empty() || !fortran_number(w.front(), value))
      throw Error(str(file, ":", it->second.line, ": '", key, "' is '", it->second.value, "'; expected ", meaning));
    return value;
  }
  if (!required) return fallback;
  throw Error(str(file, ":", block.line, ": the source that starts here has no '", *keys.begin(), ":' line (",
                  meaning, ")"));
}

void only(const Block& block, std::initializer_list<const char*> known, const std::string& file) {
  for (const auto& [key, entry] : block.entries)
    if (std::find_if(known.begin(), known.end(), [&](const char* k) { return key == k; }) == known.end()) {
      std::string list;
      for (const char* k : known) list += str(list.empty() ? "" : ", ", k);
      throw Error(str(file, ":", entry.line, ": unknown line '", key, ":'; expected ", list));
    }
}

}  // namespace

bool fortran_number(std::string_view text, double& out) {
  std::string s(trim_blanks(text));
  for (char& c : s)
    if (c == 'd' || c == 'D') c = 'e';
  return finite_number(s, out);
}

std::vector<CmtSolution> parse_cmtsolution(std::string_view text, const std::string& file) {
  std::vector<CmtSolution> out;
  for (const Block& block : blocks_of(text, file, "CMTSOLUTION source")) {
    only(block,
         {"event name", "time shift", "half duration", "latorutm", "latitude", "longorutm", "longitude", "depth", "mrr",
          "mtt", "mpp", "mrt", "mrp", "mtp"},
         file);
    CmtSolution cmt;
    cmt.line = block.line;
    if (const auto it = block.entries.find("event name"); it != block.entries.end()) cmt.event = it->second.value;
    cmt.time_shift = number_of(block, {"time shift"}, file, "a time in seconds");
    cmt.half_duration = number_of(block, {"half duration"}, file, "a half duration in seconds, >= 0");
    if (cmt.half_duration < 0.0)
      throw Error(str(file, ":", block.entries.at("half duration").line, ": half duration ", cmt.half_duration,
                      " is negative"));
    cmt.lat = number_of(block, {"latorutm", "latitude"}, file, "the y (north) coordinate in metres");
    cmt.lon = number_of(block, {"longorutm", "longitude"}, file, "the x (east) coordinate in metres");
    cmt.depth = number_of(block, {"depth"}, file, "the depth in km below the surface");
    const char* names[6] = {"mrr", "mtt", "mpp", "mrt", "mrp", "mtp"};
    double size = 0.0;
    for (std::size_t k = 0; k < 6; ++k) {
      cmt.m[k] = number_of(block, {names[k]}, file, "a moment tensor component in dyne cm");
      size = std::max(size, std::abs(cmt.m[k]));
    }
    if (size == 0.0)
      throw Error(str(file, ":", block.line, ": the moment tensor of the source that starts here is zero (a zero "
                      "scalar moment): it would radiate nothing"));
    out.push_back(std::move(cmt));
  }
  return out;
}

std::vector<ForceSolution> parse_forcesolution(std::string_view text, const std::string& file) {
  std::vector<ForceSolution> out;
  for (const Block& block : blocks_of(text, file, "FORCESOLUTION source")) {
    only(block,
         {"time shift", "f0", "half duration", "hdur", "latorutm", "latitude", "longorutm", "longitude", "depth",
          "source time function", "factor force source", "component dir vect source e",
          "component dir vect source n", "component dir vect source z_up"},
         file);
    ForceSolution force;
    force.line = block.line;
    const std::vector<std::string_view> header = words_of(block.header);
    force.name = header.size() > 1 ? std::string(header[1]) : std::string();
    force.time_shift = number_of(block, {"time shift"}, file, "a time in seconds");
    force.f0 = number_of(block, {"f0", "half duration", "hdur"}, file,
                         "a half duration (s) or a Ricker's peak frequency (Hz), > 0");
    force.lat = number_of(block, {"latorutm", "latitude"}, file, "the y (north) coordinate in metres");
    force.lon = number_of(block, {"longorutm", "longitude"}, file, "the x (east) coordinate in metres");
    force.depth = number_of(block, {"depth"}, file, "the depth in km below the surface");
    force.factor = number_of(block, {"factor force source"}, file, "the force in newtons");
    const double kind = number_of(block, {"source time function"}, file, "0 (Gaussian), 1 (Ricker) or 2 (Heaviside)",
                                  false, -1.0);
    force.time_function = static_cast<int>(kind);
    if (kind != -1.0 && (kind != 0.0 && kind != 1.0 && kind != 2.0))
      throw Error(str(file, ":", block.entries.at("source time function").line, ": source time function ", kind,
                      "; tremor reads 0 (Gaussian), 1 (Ricker) or 2 (Heaviside)"));
    force.east_north_up = {number_of(block, {"component dir vect source e"}, file, "the east component"),
                           number_of(block, {"component dir vect source n"}, file, "the north component"),
                           number_of(block, {"component dir vect source z_up"}, file, "the upward component")};
    if (force.east_north_up == std::array<double, 3>{0.0, 0.0, 0.0})
      throw Error(str(file, ":", block.line, ": the force of the source that starts here has no direction "
                      "(E, N and Z_UP all 0)"));
    if (!(force.f0 > 0.0))
      throw Error(str(file, ":", block.line, ": f0 ", force.f0, " is not positive"));
    out.push_back(std::move(force));
  }
  return out;
}

std::vector<Station> parse_stations(std::string_view text, const std::string& file) {
  std::vector<Station> out;
  std::set<std::string> seen;
  for (const auto& [line, content] : text_lines(text)) {
    if (content.empty() || content.front() == '#') continue;
    const std::vector<std::string_view> w = words_of(content);
    if (w.size() < 6)
      throw Error(str(file, ":", line, ": ", w.size(), " fields; a station takes 6: name, network, latorUTM, "
                      "longorUTM, elevation, burial"));
    Station s;
    s.line = line;
    s.name = w[0];
    s.network = w[1];
    const char* what[4] = {"latorUTM (m)", "longorUTM (m)", "elevation (m)", "burial (m)"};
    double* into[4] = {&s.lat, &s.lon, &s.elevation, &s.burial};
    for (std::size_t k = 0; k < 4; ++k)
      if (!fortran_number(w[k + 2], *into[k]))
        throw Error(str(file, ":", line, ": field ", k + 3, " '", w[k + 2], "' is not a number (", what[k], ")"));
    for (const std::string* code : {&s.name, &s.network})
      if (std::any_of(code->begin(), code->end(), [](char c) {
            return !(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_');
          }))
        throw Error(str(file, ":", line, ": ", code == &s.name ? "station" : "network", " '", *code,
                        "' has a character other than a letter, digit, '-' or '_' (it names files and traces)"));
    if (!seen.insert(s.network + "." + s.name).second)
      throw Error(str(file, ":", line, ": station ", s.network, ".", s.name, " is listed twice"));
    out.push_back(std::move(s));
  }
  if (out.empty()) throw Error(str(file, ": no station in the file (it is empty or all comments)"));
  return out;
}

}  // namespace tremor::io
