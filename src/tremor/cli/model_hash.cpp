#include "tremor/cli/model_hash.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <vector>

#include "tremor/core/error.hpp"

namespace tremor::cli {

namespace {

// FNV-1a (64 bit), fed piece by piece.
class Fnv1a {
 public:
  void add(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) {
      hash_ ^= bytes[i];
      hash_ *= 1099511628211ull;
    }
  }
  template <class T>
  void add(const std::vector<T>& values) {
    add(values.data(), values.size() * sizeof(T));
  }
  std::string hex() const {
    char text[24];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash_));
    return text;
  }

 private:
  std::uint64_t hash_ = 14695981039346656037ull;
};

}  // namespace

std::string model_hash(const std::string& path, const Model& model) {
  Fnv1a file, inputs;
  std::ifstream in(path, std::ios::binary);
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) file.add(buffer, static_cast<std::size_t>(in.gcount()));
  const Mesh& mesh = model.mesh;
  inputs.add(mesh.coordinates);
  inputs.add(mesh.node_labels);
  for (const ElementBlock& block : mesh.blocks) {
    const int kind[2] = {static_cast<int>(block.type), block.order};
    inputs.add(kind, sizeof kind);
    inputs.add(block.connectivity);
    inputs.add(block.labels);
  }
  const auto signal = [&](const Signal& s) { inputs.add(s.table); };
  for (const PointSource& source : model.point_sources) signal(source.signal);
  for (const PrescribedDisplacement& p : model.prescribed) signal(p.signal);
  for (const SurfaceLoad& load : model.surface_loads)
    if (load.signal) signal(*load.signal);
  for (const Amplitude& amplitude : model.amplitudes) inputs.add(amplitude.points);
  return str("fnv1a64:", file.hex(), ":", inputs.hex());
}

}  // namespace tremor::cli
