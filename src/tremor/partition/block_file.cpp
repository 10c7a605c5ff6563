#include "tremor/partition/block_file.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ios>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor::partition {

namespace {

constexpr char magic[8] = {'T', 'R', 'M', 'B', 'L', 'O', 'C', 'K'};
constexpr std::uint32_t byte_order_probe = 0x01020304u;
constexpr std::uint32_t version = 1;

std::uint64_t checksum(const std::string& bytes, std::size_t n) {
  std::uint64_t h = 0x424C4F434Bull;
  std::size_t i = 0;
  auto mix = [&h](std::uint64_t word) {
    h ^= word + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  };
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    mix(word);
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, bytes.data() + i, n - i);
  mix(tail ^ (static_cast<std::uint64_t>(n) << 56));
  return h;
}

template <class T>
void put(std::string& out, T value) {
  char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  out.append(raw, sizeof(T));
}

class Reader {
 public:
  Reader(const std::string& bytes, std::size_t end, std::string_view file) : bytes_(bytes), end_(end), file_(file) {}
  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::vector<Index> indices(std::size_t count, const char* what) {
    TREMOR_CHECK(count <= (end_ - pos_) / sizeof(Index), file_, ": truncated block file: ", what, " needs ", count,
                 " entries, ", (end_ - pos_) / sizeof(Index), " remain");
    std::vector<Index> values(count);
    std::memcpy(values.data(), bytes_.data() + pos_, count * sizeof(Index));
    pos_ += count * sizeof(Index);
    return values;
  }
  std::string text(std::size_t count, const char* what) {
    need(count, what);
    std::string value = bytes_.substr(pos_, count);
    pos_ += count;
    return value;
  }
  std::size_t position() const { return pos_; }

 private:
  void need(std::size_t n, const char* what) {
    TREMOR_CHECK(end_ - pos_ >= n, file_, ": truncated block file: ", what, " missing at byte ", pos_);
  }
  const std::string& bytes_;
  std::size_t end_, pos_ = 0;
  std::string_view file_;
};

}  // namespace

std::string encode_block_file(const BlockPartition& partition) {
  const BlockLayout& layout = partition.layout;
  TREMOR_CHECK(partition.slot_node.size() == static_cast<std::size_t>(partition.n_blocks) * layout.block_size &&
                   partition.load_start.size() == static_cast<std::size_t>(partition.n_blocks) * layout.n_loads(),
               "the partition's arrays do not match its block count");
  std::string out;
  out.reserve(128 + partition.partitioner.size() + sizeof(Index) * (partition.slot_node.size() + partition.load_start.size()));
  out.append(magic, sizeof magic);
  put(out, byte_order_probe);
  put(out, version);
  put(out, partition.fingerprint);
  put(out, static_cast<std::int64_t>(partition.n_nodes));
  put(out, static_cast<std::int64_t>(partition.n_blocks));
  for (int value : {layout.block_size, layout.boundary_rows, layout.loads[0], layout.loads[1], layout.loads[2]})
    put(out, static_cast<std::int32_t>(value));
  put(out, static_cast<std::uint32_t>(partition.partitioner.size()));
  out += partition.partitioner;
  const PartitionStats& s = partition.stats;
  put(out, s.partition_seconds);
  put(out, s.arrange_seconds);
  for (std::int64_t value : {static_cast<std::int64_t>(s.initial_blocks), static_cast<std::int64_t>(s.split_blocks),
                             static_cast<std::int64_t>(s.arrange_passes), static_cast<std::int64_t>(s.loads_used[0]),
                             static_cast<std::int64_t>(s.loads_used[1]), static_cast<std::int64_t>(s.loads_used[2]),
                             static_cast<std::int64_t>(s.loaded_slots), static_cast<std::int64_t>(s.needed_sections)})
    put(out, value);
  out.append(reinterpret_cast<const char*>(partition.slot_node.data()), partition.slot_node.size() * sizeof(Index));
  out.append(reinterpret_cast<const char*>(partition.load_start.data()), partition.load_start.size() * sizeof(Index));
  put(out, checksum(out, out.size()));
  return out;
}

void write_block_file(const std::filesystem::path& path, const BlockPartition& partition) {
  std::string out;
  try {
    out = encode_block_file(partition);
  } catch (const Error& e) {
    throw Error(str(path.string(), ": ", e.what()));
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  TREMOR_CHECK(file.is_open(), path.string(), ": cannot create the block file");
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  file.close();
  TREMOR_CHECK(!file.fail(), path.string(), ": cannot write the block file (disk full?)");
}

BlockPartition read_block_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code error;
  TREMOR_CHECK(std::filesystem::is_regular_file(path, error), name, ": no such block file");
  std::ifstream file(path, std::ios::binary);
  TREMOR_CHECK(file.is_open(), name, ": cannot open the block file");
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  TREMOR_CHECK(!file.bad(), name, ": cannot read the block file");
  TREMOR_CHECK(bytes.size() >= sizeof magic && std::memcmp(bytes.data(), magic, sizeof magic) == 0, name,
               ": not a tremor block file (written by `tremor partition`)");
  TREMOR_CHECK(bytes.size() >= 16, name, ": truncated block file");
  const std::size_t end = bytes.size() - 8;
  Reader in(bytes, bytes.size(), name);
  in.text(sizeof magic, "magic");
  TREMOR_CHECK(in.get<std::uint32_t>("byte order") == byte_order_probe, name,
               ": block file written on a machine of the other byte order");
  const auto file_version = in.get<std::uint32_t>("version");
  TREMOR_CHECK(file_version == version, name, ": block file version ", file_version, "; this tremor reads version ",
               version);
  std::uint64_t stored_sum;
  std::memcpy(&stored_sum, bytes.data() + end, 8);
  TREMOR_CHECK(stored_sum == checksum(bytes, end), name, ": block file is corrupt (checksum mismatch)");
  Reader body(bytes, end, name);
  body.text(16, "header");
  BlockPartition p;
  p.fingerprint = body.get<std::uint64_t>("fingerprint");
  const auto n_nodes = body.get<std::int64_t>("node count");
  const auto n_blocks = body.get<std::int64_t>("block count");
  TREMOR_CHECK(n_nodes >= 0 && n_nodes <= std::numeric_limits<Index>::max() && n_blocks >= 0 &&
                   n_blocks <= std::numeric_limits<Index>::max(),
               name, ": block file counts out of range (", n_nodes, " nodes, ", n_blocks, " blocks)");
  p.n_nodes = static_cast<Index>(n_nodes);
  p.n_blocks = static_cast<Index>(n_blocks);
  p.layout.block_size = body.get<std::int32_t>("block size");
  p.layout.boundary_rows = body.get<std::int32_t>("boundary rows");
  for (int& loads : p.layout.loads) loads = body.get<std::int32_t>("load counts");
  try {
    p.layout.validate();
  } catch (const Error& e) {
    throw Error(str(name, ": ", e.what()));
  }
  const auto name_length = body.get<std::uint32_t>("partitioner name");
  p.partitioner = body.text(name_length, "partitioner name");
  PartitionStats& s = p.stats;
  s.partition_seconds = body.get<double>("statistics");
  s.arrange_seconds = body.get<double>("statistics");
  s.initial_blocks = static_cast<Index>(body.get<std::int64_t>("statistics"));
  s.split_blocks = static_cast<Index>(body.get<std::int64_t>("statistics"));
  s.arrange_passes = static_cast<int>(body.get<std::int64_t>("statistics"));
  for (Size& used : s.loads_used) used = body.get<std::int64_t>("statistics");
  s.loaded_slots = body.get<std::int64_t>("statistics");
  s.needed_sections = body.get<std::int64_t>("statistics");
  p.slot_node = body.indices(static_cast<std::size_t>(n_blocks) * static_cast<std::size_t>(p.layout.block_size),
                             "the slot table");
  p.load_start = body.indices(static_cast<std::size_t>(n_blocks) * static_cast<std::size_t>(p.layout.n_loads()),
                              "the link table");
  TREMOR_CHECK(body.position() == end, name, ": block file has ", end - body.position(), " unexpected bytes");
  for (Index v : p.slot_node)
    TREMOR_CHECK(v >= -1 && v < p.n_nodes, name, ": block file slot holds node ", v, " of ", p.n_nodes);
  const Size slots = static_cast<Size>(p.n_blocks) * p.layout.block_size;
  for (Index start : p.load_start)
    TREMOR_CHECK(start >= -1 && start < slots, name, ": block file load starts at slot ", start, " of ", slots);
  return p;
}

void check_fingerprint(const BlockPartition& partition, const NodeGraph& graph, std::string_view source) {
  const std::uint64_t fingerprint = graph_fingerprint(graph);
  TREMOR_CHECK(partition.fingerprint == fingerprint && partition.n_nodes == graph.n_nodes(), source,
               ": the partition was made for another mesh (its mesh: ", partition.n_nodes, " nodes, graph fingerprint ",
               hex16(partition.fingerprint), "; this mesh: ", graph.n_nodes(), " nodes, fingerprint ", hex16(fingerprint),
               "); partition this mesh again with `tremor partition`");
}

BlockPartition read_block_file(const std::filesystem::path& path, const NodeGraph& graph) {
  BlockPartition partition = read_block_file(path);
  check_fingerprint(partition, graph, path.string());
  return partition;
}

}  // namespace tremor::partition
