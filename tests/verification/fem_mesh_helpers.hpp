#pragma once
// Small structured meshes of any element type on [0, 1]^d for patch tests and time-step checks:
// n cells per direction, the vertex nearest the centre moved by `offset`, quads/hexes mapped
// multilinearly from their cell, simplices split from the cells (2 triangles per square, 6 Kuhn
// tetrahedra per cube) with straight edges. Shared nodes are merged by their undistorted position.
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "tremor/fem/elements.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::fem::test {

template <class E>
Mesh structured_mesh(int cells, const double* offset, double size = 1.0) {
  constexpr int dim = E::dim;
  const double h = size / cells;
  Mesh mesh(dim);
  ElementBlock& block = mesh.block_for(E::type, E::order);
  std::map<std::array<long long, 3>, Index> index_of;
  // Physical position of an undistorted point: the grid vertices move (only the centre one),
  // and every point follows the multilinear map of its cell.
  auto vertex = [&](const int* ijk, double* x) {
    bool centre = true;
    for (int d = 0; d < dim; ++d) {
      x[d] = ijk[d] * h;
      centre = centre && (2 * ijk[d] == cells);
    }
    if (centre)
      for (int d = 0; d < dim; ++d) x[d] += offset[d] * h;
  };
  auto add = [&](const double* key_point, const double* x) {
    std::array<long long, 3> key{};
    for (int d = 0; d < dim; ++d) key[static_cast<std::size_t>(d)] = std::llround(key_point[d] / size * 1e9);
    const auto it = index_of.find(key);
    if (it != index_of.end()) return it->second;
    const Index i = mesh.add_node(static_cast<Label>(mesh.n_nodes() + 1), std::span<const double>(x, dim));
    index_of[key] = i;
    return i;
  };
  const int n_cells = dim == 2 ? cells * cells : cells * cells * cells;
  for (int cell = 0; cell < n_cells; ++cell) {
    const int c[3] = {cell % cells, (cell / cells) % cells, cell / (cells * cells)};
    // Cell vertices in Hex8/Quad4 order: physical and undistorted.
    double xv[8][3] = {}, kv[8][3] = {};
    for (int v = 0; v < (dim == 2 ? 4 : 8); ++v) {
      double xi[3];
      Hex8::node(v, xi);
      int ijk[3];
      for (int d = 0; d < 3; ++d) ijk[d] = c[d] + (xi[d] > 0 ? 1 : 0);
      vertex(ijk, xv[v]);
      for (int d = 0; d < dim; ++d) kv[v][d] = ijk[d] * h;
    }
    if constexpr (!E::simplex) {
      for (int a = 0; a < E::n_nodes; ++a) {
        double xi[3] = {}, w[8];
        E::node(a, xi);
        if constexpr (dim == 2)
          Quad4::shape(xi, w);
        else
          Hex8::shape(xi, w);
        double x[3] = {}, k[3] = {};
        for (int v = 0; v < (dim == 2 ? 4 : 8); ++v)
          for (int d = 0; d < dim; ++d) {
            x[d] += w[v] * xv[v][d];
            k[d] += w[v] * kv[v][d];
          }
        block.connectivity.push_back(add(k, x));
      }
      block.labels.push_back(static_cast<Label>(block.labels.size() + 1));
    } else {
      // Simplices as lists of cell vertices (Quad4/Hex8 numbering), positively oriented.
      std::vector<std::array<int, 4>> simplices;
      if constexpr (dim == 2) {
        simplices = {{0, 1, 2, 0}, {0, 2, 3, 0}};
      } else {
        // Kuhn: from vertex 0 to vertex 6 along the axes in each of the 6 orders.
        const int bit_to_vertex[8] = {0, 1, 3, 2, 4, 5, 7, 6};  // (x + 2y + 4z) -> hex vertex
        const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (const auto& order : orders) {
          std::array<int, 4> s{};
          int bits = 0;
          s[0] = 0;
          for (int k = 0; k < 3; ++k) {
            bits |= 1 << order[k];
            s[static_cast<std::size_t>(k + 1)] = bit_to_vertex[bits];
          }
          simplices.push_back(s);
        }
      }
      for (auto s : simplices) {
        // Orientation from the undistorted vertices.
        double e[3][3];
        for (int k = 0; k < dim; ++k)
          for (int d = 0; d < dim; ++d) e[k][d] = kv[s[static_cast<std::size_t>(k + 1)]][d] - kv[s[0]][d];
        const double det = dim == 2 ? e[0][0] * e[1][1] - e[0][1] * e[1][0]
                                    : e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                                          e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                                          e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
        if (det < 0) std::swap(s[1], s[2]);
        for (int a = 0; a < E::n_nodes; ++a) {
          double xi[3] = {}, lambda[4];
          E::node(a, xi);
          detail::barycentric<dim>(xi, lambda);
          double x[3] = {}, k[3] = {};
          for (int v = 0; v <= dim; ++v)
            for (int d = 0; d < dim; ++d) {
              x[d] += lambda[v] * xv[s[static_cast<std::size_t>(v)]][d];
              k[d] += lambda[v] * kv[s[static_cast<std::size_t>(v)]][d];
            }
          block.connectivity.push_back(add(k, x));
        }
        block.labels.push_back(static_cast<Label>(block.labels.size() + 1));
      }
    }
  }
  std::vector<Index> all(static_cast<std::size_t>(mesh.n_elements()));
  for (Index e = 0; e < mesh.n_elements(); ++e) all[static_cast<std::size_t>(e)] = e;
  mesh.element_sets["all"] = all;
  return mesh;
}

}  // namespace tremor::fem::test
