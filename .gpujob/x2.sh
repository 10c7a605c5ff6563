#!/bin/bash
# Shots side by side on 2 GPUs against one: the 3D capture example (64 shots, 43.5M DOF GLL4 float).
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
mkdir -p $OUT/x2
nvidia-smi -L > $OUT/x2/gpus.txt
T=/tmp/x2; mkdir -p $T
.gpu/bin/tremor run examples/array-tfm-3d/model.toml -o $T/two.h5 --gpus 2 > $OUT/x2/two.log 2>&1
.gpu/bin/tremor run examples/array-tfm-3d/model.toml -o $T/one.h5 --backend cuda > $OUT/x2/one.log 2>&1
grep -E "side by side|shots  |speed|wall time|output" $OUT/x2/two.log $OUT/x2/one.log
.gpu/bin/tremor_h5_equal $T/one.h5 $T/two.h5 /fmc > $OUT/x2/equal.txt 2>&1; tail -3 $OUT/x2/equal.txt
