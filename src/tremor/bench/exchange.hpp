#pragma once
// `tremor bench exchange`, under mpirun: the interface exchange of the multi-GPU spectral-element
// paper's Figs. 12-15 measured again. For plates of GLL hexahedra (order 4, one element through
// the thickness) of growing size, decomposed by METIS into one subdomain per process, the time of
// one sum of the shared nodes' forces, against the number of shared nodes, for each exchange:
// NCCL point to point and all-reduce on the GPUs (device buffers), and MPI point to point and
// all-reduce in host memory (the CPU cores' exchange).
#include <string>
#include <vector>

namespace tremor::bench {

struct ExchangeArgs {
  std::vector<long long> sizes{16, 32, 64, 128, 256, 512};  // elements along each side of the plate
  std::string precision = "float";
  int repeats = 500;  // exchanges timed per case (after 20 not timed)
  std::string output_dir, note, commit;
};

// Throws tremor::Error outside mpirun (one process) or on a size below 2.
void run_exchange(const ExchangeArgs& args);

}  // namespace tremor::bench
