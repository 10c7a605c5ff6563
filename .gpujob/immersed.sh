#!/bin/bash
# Shots stepped together with a fluid on one GPU: the 3D immersed capture (.gpujob/immersed-3d.toml)
# and the 2D example (examples/array-tfm-immersion-2d) one after another and 16 at a time, in float;
# each run's DOF-steps/s and wall time, and /fmc compared (tremor_h5_equal: equal bit for bit
# where the sums are coloured, within rounding with atomics).
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/immersed
mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $R/gpu.txt
for model in .gpujob/immersed-3d.toml examples/array-tfm-immersion-2d/model.toml; do
  name=$(basename $(dirname $model))-$(basename $model .toml)
  for k in 1 16; do
    .gpu/bin/tremor run $model --precision float --shots-together $k -o $R/$name-k$k.h5 > $R/$name-k$k.log 2>&1
    grep -E "shots|DOF-steps|wall|loop|output" $R/$name-k$k.log | tail -8
  done
  .gpu/bin/tremor_h5_equal $R/$name-k1.h5 $R/$name-k16.h5 /fmc > $R/$name-equal.txt 2>&1; tail -2 $R/$name-equal.txt
  rm -f $R/$name-k*.h5
done
