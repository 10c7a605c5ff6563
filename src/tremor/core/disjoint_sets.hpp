#pragma once
// Union-find over 0 .. n - 1 (path halving): which items a relation joins into one group, as the
// elements of a mesh's pieces through their shared nodes.
#include <cstddef>
#include <numeric>
#include <vector>

namespace tremor {

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), std::size_t(0)); }
  // The representative of i's group.
  std::size_t root(std::size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void unite(std::size_t a, std::size_t b) { parent_[root(a)] = root(b); }

 private:
  std::vector<std::size_t> parent_;
};

}  // namespace tremor
