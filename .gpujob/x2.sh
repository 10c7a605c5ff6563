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
# Fluids over 2 GPUs: the 3D immersed capture decomposed (water and steel parts on each GPU, the
# interface crossing the cut), one after another, against one GPU; /fmc within rounding.
for gpus in 1 2; do
  extra=$([ $gpus = 2 ] && echo "--gpus 2 --no-shots-parallel" || echo "--backend cuda")
  .gpu/bin/tremor run .gpujob/immersed-3d.toml --precision float --shots-together 1 $extra \
    -o $T/immersed-$gpus.h5 > $OUT/x2/immersed-$gpus.log 2>&1
  grep -E "pre-flight|domains|shots  |speed|wall time|output" $OUT/x2/immersed-$gpus.log
done
python3 - $T/immersed-1.h5 $T/immersed-2.h5 <<'PY' | tee $OUT/x2/immersed-equal.txt
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:3])
for name in a["fmc"]:
    x, y = np.array(a["fmc"][name]["data"]), np.array(b["fmc"][name]["data"])
    print(name, x.shape, "largest difference / largest value:", np.max(np.abs(x - y)) / np.max(np.abs(x)))
PY
