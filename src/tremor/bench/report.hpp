#pragma once
// What the benchmarks of `tremor bench` share in their reports: the machine and its backends
// described, when and at which commit they ran, the cases not run or failed, and the JSON and
// markdown written.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tremor/backend/bandwidth.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/backend/memory_info.hpp"

namespace tremor::bench {

// A JSON string literal: quotes and backslashes escaped, control characters dropped.
std::string json_string(const std::string& s);

// `value` with `digits` digits after the point ("%.*f").
std::string fixed(double value, int digits);

// "1.50 GiB".
std::string gib(std::size_t bytes);

// Now, UTC, ISO 8601: "2026-11-22T10:31:05Z".
std::string utc_date();

// The host CPU's model name from /proc/cpuinfo, "unknown" without it.
std::string cpu_model();

// Threads a kernel on `exec` runs on the host: OpenMP's maximum, 1 for Serial (and a GPU).
int host_threads(const Exec& exec);

// The 1, 5 and 15 minute load averages when constructed (-1 where unknown): other work on the
// machine slows every number down.
struct LoadAverage {
  double values[3] = {-1, -1, -1};
  LoadAverage();
  std::string json() const;
};

// When and where a benchmark ran, as every report states it.
struct RunRecord {
  std::string commit, note;   // given by the command
  LoadAverage load_at_start;  // when the record is made
  LoadAverage load_at_end;
  std::string date;
  RunRecord(std::string commit_, std::string note_) : commit(std::move(commit_)), note(std::move(note_)) {}
  // The end of the measurements: the load then, and the date the report carries.
  void finish();
  // The JSON object's entries ",\n  \"date\": ..." for the date, commit and note.
  void json_provenance(std::ostream& json) const;
  // The JSON object's entries for the CPU, the logical CPUs and the load averages.
  void json_machine(std::ostream& json) const;
};

// A backend of a run, with its copy bandwidth and memory.
struct Device {
  Exec exec;
  CopyBandwidth copy;
  MemoryInfo memory;
  bool host() const { return exec.space() == MemorySpace::Host; }
  std::string name() const { return std::string(to_string(exec.backend())); }
};

// The backends named (a repeated one once, in the order first named), each with its free and
// total memory; their copy bandwidth is not measured.
std::vector<Device> make_devices(const std::vector<std::string>& names);

// One console line a backend: device, threads, memory, and the copy bandwidth when `measured`.
void print_devices(const std::vector<Device>& devices, bool measured);

// The backends' entries of the JSON "backends" array and the markdown table describing them.
void write_devices(std::ostream& json, std::ostream& md, const std::vector<Device>& devices);

// The copy bandwidth of `exec` over an array of `copy_mb` MiB (--copy-mb): what the GB/s of every
// case are set against.
CopyBandwidth measure_copy(const Exec& exec, int copy_mb);

// `gbytes_per_second` as a percentage of the copy bandwidth (0 where it was not measured).
double percent_of_copy(double gbytes_per_second, const CopyBandwidth& copy);

// A JSON array of objects as the reports write it: each entry on a line of its own indented by
// four, the closing bracket on one indented by two. next() before each entry, close() after the
// last. An empty array is "[]", or "[\n  ]" with `bracket_on_own_line`.
class JsonArray {
 public:
  explicit JsonArray(std::ostream& out, bool bracket_on_own_line = false);
  // The separator before the next entry; returns the stream to write the entry to.
  std::ostream& next();
  void close();

 private:
  std::ostream& out_;
  bool bracket_on_own_line_;
  std::size_t entries_ = 0;
};

// The head of a markdown table: the column names, then the alignment row; `align` holds a letter
// a column, 'r' for a right-aligned one ("---:"), any other for left ("---").
void markdown_head(std::ostream& md, const std::vector<std::string>& columns, std::string_view align);

// One row of a markdown table, "| a | b |", then `after` and the end of the line.
void markdown_row(std::ostream& md, const std::vector<std::string>& cells, std::string_view after = "");

// A case not run, and why; a case that failed, and its error.
struct Skip {
  std::string what, why;
};
struct Failure {
  std::string what, error;
};

// The report's last entries, "skipped" and "failures" (the JSON object closed after them), and
// the markdown's list of the cases not run.
void write_skips_and_failures(std::ostream& json, std::ostream& md, const std::vector<Skip>& skips,
                              const std::vector<Failure>& failures);

// Throws tremor::Error counting the failures and naming the first, when there are any.
void check_no_failures(const std::vector<Failure>& failures);

// Makes `folder` (and its parents) before anything runs, so that a path which cannot hold the
// results is named at once rather than after minutes of measuring.
void make_output_dir(const std::string& folder);

// The JSON and the markdown, each under a temporary name renamed when whole (io/file.hpp); an
// empty path writes nothing.
void write_report(const std::string& json_path, const std::string& json, const std::string& md_path,
                  const std::string& md);

// The JSON and the markdown as folder/NAME.json and folder/NAME.md, said on the console.
void write_report_to(const std::string& folder, const std::string& name, const std::string& json,
                     const std::string& md);

}  // namespace tremor::bench
