#pragma once
// What the exporters of a result file share (export_csv.hpp, export_traces.hpp): the file opened
// for reading and the folder made, its history sets listed, and each output written by the rules
// of every output (docs/running.md).
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tremor/io/export_csv.hpp"
#include "tremor/io/result_hdf5.hpp"

namespace tremor::io {

// The result file opened for reading (a writer's lock refused naming it), its status into
// `summary`, and `out_dir` created when missing. Throws tremor::Error naming the file or folder.
h5::Handle open_for_export(const std::filesystem::path& result_path, const std::filesystem::path& out_dir,
                           ExportSummary& summary);

// A history set: /histories/<name>, or a shot's /shots/<shot>/histories/<name>.
struct HistorySet {
  std::string path;  // its parent group
  std::string shot;  // empty: none
  std::string name;
  // Its outputs' names before the extension: "<name>", or "<shot>.<name>".
  std::string file_stem() const { return shot.empty() ? name : shot + "." + name; }
  // For messages: "history set 'probe'", "history set 'probe' of shot 'a'".
  std::string said() const;
};
std::vector<HistorySet> history_sets(hid_t file, const std::string& result);

// The names an export will give its outputs (files, or an ASDF file's tags and traces), each with
// what it comes from, gathered before anything is written: a name that two sources both become
// (shot "a" with set "b.c" and shot "a.b" with set "c"; a shot named "fmc" beside a capture) is
// refused naming both, so that no output replaces another.
class PlannedNames {
 public:
  // `kind`: what the names are, "CSV file", "ASDF tag".
  PlannedNames(std::string result, std::string kind) : result_(std::move(result)), kind_(std::move(kind)) {}
  // Throws tremor::Error when `name` is another source's already; the same source again is no clash.
  void add(const std::string& name, const std::string& source);

 private:
  std::string result_, kind_;
  std::map<std::string, std::string> sources_;
};

// Refuses `path` (a `kind`, "CSV file") and its temporary unless each is absent or a regular
// file: checked for every output before any is written.
void check_export_path(const std::filesystem::path& path, const char* kind);
// Writes `path` by write(FILE*): as `path`.partial, claimed (locked, not a link) and truncated,
// synced and renamed when complete, so that an interrupted export leaves no torn file under the
// final name; a write error of the stream or an exception from `write` removes the temporary.
void write_export_file(const std::filesystem::path& path, const char* kind,
                       const std::function<void(std::FILE*)>& write);

// The same for a writer that makes its file by name (an HDF5 file): write(temporary) creates or
// truncates `temporary`, claimed for it, and closes it; it is then synced and renamed.
void write_export_file_at(const std::filesystem::path& path, const char* kind,
                          const std::function<void(const std::filesystem::path&)>& write);

}  // namespace tremor::io
