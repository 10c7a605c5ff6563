#!/usr/bin/env bash
# The compressed solver on the GPU, cavity of 9-node quadrilaterals: 16k, 41k, 101k unknowns.
set -u
tar xJf .gpu.tar.xz
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,memory.total --format=csv >> $S
limit=100
for d in 10 16 25; do
  start=$(date +%s)
  /usr/bin/time -v timeout $limit .gpu/bin/tremor bem .gpujob/cav_hmatrix_$d.toml --backend cuda -o /tmp/cav_$d.h5 > /tmp/log_$d.txt 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  echo "== d=$d rc $rc took $took s" >> $S
  grep -E "elements  |solver  |Hz  |Elapsed|Maximum resident|rror" /tmp/log_$d.txt >> $S
  [ $took -gt 90 ] && break
  limit=200
done
