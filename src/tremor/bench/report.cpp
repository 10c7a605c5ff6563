#include "tremor/bench/report.hpp"

#include <unistd.h>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"

namespace tremor::bench {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20) out += ch;
  }
  return out + "\"";
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string gib(std::size_t bytes) { return fixed(double(bytes) / double(std::size_t(1) << 30), 2) + " GiB"; }

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

int host_threads(const Exec& exec) {
#if defined(_OPENMP)
  if (exec.backend() == Backend::OpenMP) return omp_get_max_threads();
#endif
  (void)exec;
  return 1;
}

LoadAverage::LoadAverage() {
  if (::getloadavg(values, 3) < 0) values[0] = values[1] = values[2] = -1;
}

std::string LoadAverage::json() const { return str("[", values[0], ", ", values[1], ", ", values[2], "]"); }

void RunRecord::finish() {
  load_at_end = LoadAverage();
  date = utc_date();
}

void RunRecord::json_provenance(std::ostream& json) const {
  json << ",\n  \"date\": " << json_string(date) << ",\n  \"git_commit\": " << json_string(commit)
       << ",\n  \"note\": " << json_string(note);
}

void RunRecord::json_machine(std::ostream& json) const {
  json << ",\n  \"cpu\": " << json_string(cpu_model()) << ",\n  \"logical_cpus\": " << ::sysconf(_SC_NPROCESSORS_ONLN)
       << ",\n  \"load_average_at_start\": " << load_at_start.json()
       << ",\n  \"load_average_at_end\": " << load_at_end.json();
}

std::vector<Device> make_devices(const std::vector<std::string>& names) {
  std::vector<Device> devices;
  for (const std::string& name : names) {
    const Backend backend = parse_backend(name);
    if (std::any_of(devices.begin(), devices.end(), [&](const Device& d) { return d.exec.backend() == backend; }))
      continue;
    Device d{Exec::make(backend), {}, {}};
    d.memory = memory_info(d.exec);
    devices.push_back(d);
  }
  return devices;
}

void print_devices(const std::vector<Device>& devices, bool measured) {
  for (const Device& d : devices)
    std::printf("backend %-7s %s (%d thread%s), %s of %s free%s\n", d.name().c_str(), d.exec.describe().c_str(),
                host_threads(d.exec), host_threads(d.exec) == 1 ? "" : "s", gib(d.memory.free_bytes).c_str(),
                gib(d.memory.total_bytes).c_str(),
                measured ? str(", copy ", fixed(1e-9 * d.copy.bytes_per_second(), 1), " GB/s").c_str() : "");
}

void write_devices(std::ostream& json, std::ostream& md, const std::vector<Device>& devices) {
  md << "| backend | device | threads | copy GB/s | free / total memory |\n|---|---|---:|---:|---:|\n";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Device& d = devices[i];
    json << (i ? ",\n" : "\n") << "    {\"backend\": " << json_string(d.name())
         << ", \"device\": " << json_string(d.exec.describe()) << ", \"threads\": " << host_threads(d.exec)
         << ", \"copy_bandwidth_GBps\": " << 1e-9 * d.copy.bytes_per_second()
         << ", \"free_memory_bytes\": " << d.memory.free_bytes << ", \"total_memory_bytes\": " << d.memory.total_bytes
         << "}";
    md << "| " << d.name() << " | " << d.exec.describe() << " | " << host_threads(d.exec) << " | "
       << fixed(1e-9 * d.copy.bytes_per_second(), 0) << " | " << gib(d.memory.free_bytes) << " / "
       << gib(d.memory.total_bytes) << " |\n";
  }
}

CopyBandwidth measure_copy(const Exec& exec, int copy_mb) {
  return measure_copy_bandwidth(exec, std::size_t(copy_mb) << 20);
}

double percent_of_copy(double gbytes_per_second, const CopyBandwidth& copy) {
  const double bytes_per_second = copy.bytes_per_second();
  return bytes_per_second > 0 ? 100.0 * gbytes_per_second * 1e9 / bytes_per_second : 0.0;
}

JsonArray::JsonArray(std::ostream& out, bool bracket_on_own_line)
    : out_(out), bracket_on_own_line_(bracket_on_own_line) {
  out_ << "[";
}

std::ostream& JsonArray::next() {
  out_ << (entries_++ ? ",\n" : "\n") << "    ";
  return out_;
}

void JsonArray::close() { out_ << (entries_ > 0 || bracket_on_own_line_ ? "\n  ]" : "]"); }

void markdown_head(std::ostream& md, const std::vector<std::string>& columns, std::string_view align) {
  markdown_row(md, columns);
  md << "|";
  for (std::size_t i = 0; i < columns.size(); ++i) md << (i < align.size() && align[i] == 'r' ? "---:|" : "---|");
  md << "\n";
}

void markdown_row(std::ostream& md, const std::vector<std::string>& cells, std::string_view after) {
  md << "|";
  for (const std::string& cell : cells) md << " " << cell << " |";
  md << after << "\n";
}

void write_skips_and_failures(std::ostream& json, std::ostream& md, const std::vector<Skip>& skips,
                              const std::vector<Failure>& failures) {
  json << "\"skipped\": ";
  JsonArray skipped(json);
  if (!skips.empty()) md << "\nNot run:\n\n";
  for (const Skip& skip : skips) {
    skipped.next() << "{\"case\": " << json_string(skip.what) << ", \"why\": " << json_string(skip.why) << "}";
    md << "- " << skip.what << ": " << skip.why << "\n";
  }
  skipped.close();
  json << ",\n  \"failures\": ";
  JsonArray failed(json);
  for (const Failure& failure : failures)
    failed.next() << "{\"case\": " << json_string(failure.what) << ", \"error\": " << json_string(failure.error) << "}";
  failed.close();
  json << "\n}\n";
}

void check_no_failures(const std::vector<Failure>& failures) {
  TREMOR_CHECK(failures.empty(), failures.size(), " case", failures.size() == 1 ? "" : "s", " failed, the first: ",
               failures.front().what, ": ", failures.front().error);
}

void make_output_dir(const std::string& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  TREMOR_CHECK(!error && std::filesystem::is_directory(folder), "--output-dir ", folder, ": cannot create the folder (",
               error ? error.message() : std::string("not a folder"), ")");
}

void write_report(const std::string& json_path, const std::string& json, const std::string& md_path,
                  const std::string& md) {
  if (!json_path.empty()) io::write_file_atomically(json_path, json, "benchmark JSON");
  if (!md_path.empty()) io::write_file_atomically(md_path, md, "benchmark table");
}

void write_report_to(const std::string& folder, const std::string& name, const std::string& json,
                     const std::string& md) {
  write_report(folder + "/" + name + ".json", json, folder + "/" + name + ".md", md);
  std::printf("wrote %s/%s.json and %s.md\n", folder.c_str(), name.c_str(), name.c_str());
}

}  // namespace tremor::bench
