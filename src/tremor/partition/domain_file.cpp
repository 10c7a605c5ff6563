#include "tremor/partition/domain_file.hpp"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string_view>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor::partition {

namespace {

constexpr std::string_view header = "# tremor decomposition 1";

// FNV-1a over the bytes of `value`.
void mix(std::uint64_t& hash, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    hash ^= (value >> (8 * i)) & 0xffu;
    hash *= 0x100000001b3ull;
  }
}

}  // namespace

std::uint64_t mesh_fingerprint(const Mesh& mesh) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  mix(hash, static_cast<std::uint64_t>(mesh.dim()));
  mix(hash, static_cast<std::uint64_t>(mesh.n_nodes()));
  for (const ElementBlock& block : mesh.blocks) {
    mix(hash, static_cast<std::uint64_t>(block.type));
    mix(hash, static_cast<std::uint64_t>(block.order));
    mix(hash, static_cast<std::uint64_t>(block.n_elements()));
    for (const Index node : block.connectivity) mix(hash, static_cast<std::uint64_t>(node));
  }
  return hash;
}

std::string encode_domain_file(const Mesh& mesh, const Decomposition& decomposition) {
  TREMOR_CHECK(static_cast<Index>(decomposition.element_domain.size()) == mesh.n_elements(), "a decomposition of ",
               decomposition.element_domain.size(), " elements for a mesh of ", mesh.n_elements());
  std::string out;
  out.reserve(decomposition.element_domain.size() * 3 + 128);
  out += str(header, "\nelements ", mesh.n_elements(), "\ndomains ", decomposition.n_domains(), "\nmesh ",
             hex16(mesh_fingerprint(mesh)), "\n");
  char number[16];
  for (const int d : decomposition.element_domain) {
    const auto [end, error] = std::to_chars(number, number + sizeof number, d);
    (void)error;
    out.append(number, end);
    out += '\n';
  }
  return out;
}

SavedDecomposition read_domain_file(const std::filesystem::path& path, const Mesh& mesh) {
  std::ifstream in(path);
  TREMOR_CHECK(in.good(), path.string(), ": cannot open the decomposition file");
  const std::string where = path.string();
  std::string line;
  long long number = 0;
  // The next line that is not a comment (after the first), or false at the end.
  const auto next = [&] {
    while (std::getline(in, line)) {
      ++number;
      if (number > 1 && !line.empty() && line[0] == '#') continue;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
    return false;
  };
  TREMOR_CHECK(next() && line == header, where, ":1: not a decomposition file (it starts with \"", header,
               "\"; `tremor partition MODEL --domains N` writes one)");
  // "KEY VALUE" lines in order.
  const auto field = [&](std::string_view key) {
    TREMOR_CHECK(next(), where, ": ends before its \"", key, "\" line");
    std::istringstream words(line);
    std::string name, value, extra;
    words >> name >> value;
    TREMOR_CHECK(name == key && !value.empty() && !(words >> extra), where, ":", number, ": expected \"", key,
                 " VALUE\", found \"", line, "\"");
    return value;
  };
  const auto whole = [&](std::string_view key) {
    const std::string value = field(key);
    long long n = -1;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
    TREMOR_CHECK(error == std::errc() && end == value.data() + value.size() && n >= 1, where, ":", number, ": ", key,
                 " \"", value, "\" is not a positive whole number");
    return n;
  };
  const long long n_elements = whole("elements");
  const long long n_domains = whole("domains");
  const std::string fingerprint = field("mesh");
  TREMOR_CHECK(n_elements == mesh.n_elements() && fingerprint == hex16(mesh_fingerprint(mesh)), where,
               ": the decomposition was made for another mesh (", group_digits(n_elements), " elements; this mesh has ",
               group_digits(mesh.n_elements()), " elements, ", group_digits(mesh.n_nodes()),
               " nodes): run `tremor partition MODEL --domains N` again");
  TREMOR_CHECK(n_domains <= n_elements, where, ":3: ", n_domains, " subdomains of ", n_elements, " elements");
  SavedDecomposition out;
  out.n_domains = static_cast<int>(n_domains);
  out.element_domain.reserve(static_cast<std::size_t>(n_elements));
  std::vector<char> used(static_cast<std::size_t>(n_domains), 0);
  while (next()) {
    int d = -1;
    const auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), d);
    TREMOR_CHECK(error == std::errc() && end == line.data() + line.size() && d >= 0 && d < n_domains, where, ":",
                 number, ": element ", out.element_domain.size() + 1, "'s subdomain \"", line,
                 "\" is not a whole number from 0 to ", n_domains - 1);
    TREMOR_CHECK(static_cast<long long>(out.element_domain.size()) < n_elements, where, ":", number,
                 ": more subdomain lines than its ", group_digits(n_elements), " elements");
    out.element_domain.push_back(d);
    used[static_cast<std::size_t>(d)] = 1;
  }
  TREMOR_CHECK(static_cast<long long>(out.element_domain.size()) == n_elements, where, ": ",
               group_digits(static_cast<long long>(out.element_domain.size())), " subdomain lines for its ",
               group_digits(n_elements), " elements (cut short?)");
  for (long long d = 0; d < n_domains; ++d)
    TREMOR_CHECK(used[static_cast<std::size_t>(d)], where, ": subdomain ", d, " has no element");
  return out;
}

}  // namespace tremor::partition
