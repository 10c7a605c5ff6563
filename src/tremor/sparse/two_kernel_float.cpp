// Kernel 2 and the assembly entry points in float (two_kernel_values.hpp): forall and
// forall_blocks kernels.
#include "tremor/sparse/two_kernel_values.hpp"

namespace tremor::sparse {

template DeviceCoo<float> assemble_coo<float>(const Exec&, const fem::DeviceElements&, GlobalMatrix, RaceStrategy,
                                          AssemblyTimes*);
template DeviceCsr<float> assemble_csr<float>(const Exec&, const fem::DeviceElements&, GlobalMatrix, RaceStrategy,
                                          AssemblyTimes*);
template EllMatrix<float> assemble_ell<float>(const Exec&, const fem::DeviceElements&, GlobalMatrix, RaceStrategy,
                                          AssemblyTimes*);
template DeviceBlockCsr<float> assemble_block_csr<float>(const Exec&, const fem::DeviceElements&, GlobalMatrix,
                                                     RaceStrategy, AssemblyTimes*);
template DeviceArray<float> assemble_lumped_mass<float>(const Exec&, const fem::DeviceElements&, RaceStrategy, AssemblyTimes*);
template DeviceArray<float> assemble_lumped_damping<float>(const Exec&, const fem::DeviceElements&, RaceStrategy,
                                                      AssemblyTimes*);

}  // namespace tremor::sparse
