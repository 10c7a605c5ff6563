#!/usr/bin/env bash
# The compressed solver's timing (cavity of 9-node quadrilaterals, 41k and 101k unknowns), then the
# GPU suite (unit and parity).
set -u
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
S=$OUT/summary.txt
cat .gpu/COMMIT >> $S; date -u >> $S
for d in 16 25; do
  start=$(date +%s)
  /usr/bin/time -v timeout 110 .gpu/bin/tremor bem .gpujob/cav_hmatrix_$d.toml --backend cuda -o /tmp/cav_$d.h5 > /tmp/log_$d.txt 2>&1
  echo "== d=$d rc $? took $(( $(date +%s) - start )) s" >> $S
  grep -E "elements  |solver  |Hz  |max \|u\||Elapsed|Maximum resident|rror" /tmp/log_$d.txt >> $S
done
R=results/suite
mkdir -p $R
TREMOR_BENCH=0 TREMOR_GPU_TESTS="unit parity" timeout 440 .gpu/run $R > $R/run.log 2>&1
echo "== suite rc $?" >> $S
tail -25 $R/run.log >> $S
grep -h -E "BemHMatrixParity|GPU against OpenMP|FAILED|Failure" $R/*.txt $R/*.log 2>/dev/null | head -40 >> $S
ls $R >> $S
