#pragma once
// CSV export of a result file's histories (docs/output-format.md): one file per history set,
// `<out_dir>/<history name>.csv` (a shot's: `<shot>.<history name>.csv`), first column `time`, then one column per node, quantity and
// component named `<node label>_ux`, `_uy`, `_uz` (`_vx`.. velocity, `_ax`.. acceleration; a
// history at positions `p1_ux`, `p2_ux`, .. instead of node labels), in
// the order of the values dataset ([node][quantity][component]); and one per full-matrix capture,
// `fmc.<array>.csv`, a column `t<i>_r<j>` per A-scan written (transmitter i, receiver j). Numbers
// are printed with %.17g, so they read back to the same doubles.
#include <filesystem>
#include <string>
#include <vector>

namespace tremor::io {

struct ExportSummary {
  std::vector<std::filesystem::path> files;  // written, in history-name order
  std::string status;                        // the result file's /metadata status
  std::vector<std::string> warnings;         // what a format could not hold exactly
};

// Each CSV follows the rules of every output (docs/running.md): its name must be absent or a
// regular file (a symbolic link, FIFO, device or folder there is refused before any CSV is
// written), and it is written as `<csv>.partial` in `out_dir` (created when missing), locked, and
// renamed when complete, so an interrupted export leaves no truncated CSV. Throws tremor::Error
// naming the file at fault (the result file, or the CSV that could not be written).
ExportSummary export_histories(const std::filesystem::path& result_path, const std::filesystem::path& out_dir);

// The column names of a history's CSV, after `time`: at nodes `<node label>_ux`, ...; at
// positions `p<k>_ux`, ..., k counting the history's positions from 1 in their order.
std::vector<std::string> history_columns(const std::vector<long long>& node_labels,
                                         const std::vector<std::string>& quantities, int dimension);
std::vector<std::string> position_columns(std::size_t n_positions, const std::vector<std::string>& quantities,
                                          int dimension);

}  // namespace tremor::io
