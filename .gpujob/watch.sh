#!/bin/bash
# The GPU suites and the fluid benchmark (suite-and-fluid.sh, SEM=0), then the growth watch on the
# GPU: a 7 x 7 GLL4 block lined by a PML of two elements designed for R 1e-6 (grows), float and double.
SEM=0 bash .gpujob/suite-and-fluid.sh
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD
for precision in double float; do
  timeout 60 .gpu/bin/tremor run .gpujob/growing.toml --backend cuda --precision $precision -o /tmp/g-$precision.h5 \
    > $OUT/watch-$precision.txt 2>&1
  echo "watch $precision rc $?: $(grep -E '^(warning: t =|error: unstable)' $OUT/watch-$precision.txt | cut -c1-160)"
done
