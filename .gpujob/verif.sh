#!/bin/bash
# The GPU verification tests (every test named *Gpu*) on a bundle of tremor_verification_tests
# (.gpu-verif.tar.xz, carried: the libraries, tremor and this test program; made as .gpu.tar.xz is,
# with tremor_verification_tests in place of the unit and parity tests).
rm -rf .gpu; xz -dc ${BUNDLE:-.gpu-verif.tar.xz} | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/verif; mkdir -p $R
{ date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; } > $R/gpu.txt 2>&1; cat $R/gpu.txt
timeout ${T:-500} .gpu/bin/tremor_verification_tests --gtest_filter='*Gpu*' > $R/verif.log 2>&1
echo "verification rc $?" >> $R/verif.log
grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|rc " $R/verif.log
