#!/usr/bin/env bash
# Quick: the compressed solver on the GPU, cavity of 9-node quadrilaterals, against dense.
set -u
tar xJf .gpu.tar.xz
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt
for m in cav_hmatrix_10 cav_dense_10 cav_hmatrix_16 cav_dense_16 cav_hmatrix_25; do
  /usr/bin/time -v timeout 170 .gpu/bin/tremor bem .gpujob/$m.toml --backend cuda -o $OUT/$m.h5 > $OUT/$m.log 2> $OUT/$m.err
  echo "$m rc $?" >> $OUT/summary.txt
  grep -E "hmatrix|dense|Maximum resident|Elapsed|solver|GMRES" $OUT/$m.log $OUT/$m.err | head -12 >> $OUT/summary.txt
done
rm -f $OUT/*.h5
