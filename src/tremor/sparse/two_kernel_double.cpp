// Kernel 2 and the assembly entry points in double (two_kernel_values.hpp): forall and
// forall_blocks kernels.
#include "tremor/sparse/two_kernel_values.hpp"

namespace tremor::sparse {

template DeviceCoo<double> assemble_coo<double>(const Exec&, const fem::DeviceElements&, GlobalMatrix, RaceStrategy,
                                          AssemblyTimes*);
template DeviceCsr<double> assemble_csr<double>(const Exec&, const fem::DeviceElements&, GlobalMatrix, RaceStrategy,
                                          AssemblyTimes*);
template EllMatrix<double> assemble_ell<double>(const Exec&, const fem::DeviceElements&, GlobalMatrix, RaceStrategy,
                                          AssemblyTimes*);
template DeviceBlockCsr<double> assemble_block_csr<double>(const Exec&, const fem::DeviceElements&, GlobalMatrix,
                                                     RaceStrategy, AssemblyTimes*);
template DeviceArray<double> assemble_lumped_mass<double>(const Exec&, const fem::DeviceElements&, RaceStrategy, AssemblyTimes*);
template DeviceArray<double> assemble_lumped_damping<double>(const Exec&, const fem::DeviceElements&, RaceStrategy,
                                                      AssemblyTimes*);

}  // namespace tremor::sparse
