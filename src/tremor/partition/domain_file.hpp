#pragma once
// The decomposition file: a METIS decomposition saved once (`tremor partition --domains N`) and
// reused by runs on the same mesh (`tremor run --decomposition FILE`), which then skip METIS (51 s
// for a 639M-DOF plate). Text, so that it can be read and edited:
//
//   # tremor decomposition 1
//   elements E
//   domains N
//   mesh FINGERPRINT          (16 hex digits: mesh_fingerprint() of the mesh it was made for)
//   D                         (then E lines: each element's subdomain, 0 .. N-1, in the model's
//   ...                        element order, over the blocks as Mesh::locate counts them)
//
// Lines starting with '#' after the first are comments. read_domain_file() refuses a file made
// for another mesh, and names the file and line of anything it cannot read.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tremor/mesh/mesh.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor::partition {

// A fingerprint of a mesh's nodes, elements and connectivity (not its coordinates or labels): two
// meshes with the same one number and connect their elements alike.
std::uint64_t mesh_fingerprint(const Mesh& mesh);

// The file's text for `decomposition` of `mesh`.
std::string encode_domain_file(const Mesh& mesh, const Decomposition& decomposition);

// Each element's subdomain and the number of subdomains, from a decomposition file of `mesh`.
// Throws tremor::Error naming the file (and line) when it is missing, malformed, made for another
// mesh, or leaves a subdomain empty.
struct SavedDecomposition {
  std::vector<int> element_domain;
  int n_domains = 0;
};
SavedDecomposition read_domain_file(const std::filesystem::path& path, const Mesh& mesh);

}  // namespace tremor::partition
