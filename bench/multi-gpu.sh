#!/usr/bin/env bash
# The multi-GPU checks and benchmarks of one host in one go (docs/parallel.md): tests/mpi over the
# host's GPUs, `tremor bench exchange`, and bench/scaling.sh's weak and strong cases up to N GPUs
# (SEM plates at GLL order 4 and hex8 block_ell plates, 10M DOF per GPU, float and double; the
# all-reduce exchange and no overlap at N GPUs).
#
# Usage, from the repository root on a GPU host: bench/multi-gpu.sh BIN RESULTS_DIR N
# BIN: the folder holding tremor and tremor_mpi_tests. MPIRUN (default "mpirun") is the launcher
# with its flags (on a host without MPI installed, a relocatable bundle's mpirun with -x for its
# environment).
set -uo pipefail
bin=${1:?usage: bench/multi-gpu.sh BIN RESULTS_DIR N}
out=${2:?usage: bench/multi-gpu.sh BIN RESULTS_DIR N}
n=${3:?usage: bench/multi-gpu.sh BIN RESULTS_DIR N}
mpirun=${MPIRUN:-mpirun}
mkdir -p "$out"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
  nvidia-smi topo -m
} > "$out/device.txt" 2>&1
timeout 300 $mpirun -np "$n" "$bin/tremor_mpi_tests" > "$out/mpi-np$n.log" 2>&1
echo "tests/mpi -np $n: rc=$?" | tee "$out/summary.txt"
grep -h "PASSED\|FAILED" "$out/mpi-np$n.log" | sort | uniq -c | tee -a "$out/summary.txt"
timeout 300 $mpirun -np "$n" "$bin/tremor" bench exchange --output-dir "$out/exchange-np$n" > "$out/exchange-np$n.log" 2>&1
echo "bench exchange -np $n: rc=$?" | tee -a "$out/summary.txt"
# Plates of 10M, 20M, 40M, ... DOF: side s with 15 (4s + 1)^2 (SEM) or 15 (s + 1)^2 (hex8) DOF.
sem=(204 288 408 577 816) hex8=(816 1154 1632 2308 3264)
cases=()
for p in float double; do
  for ((g = 1, k = 0; g <= n; g *= 2, k++)); do
    cases+=("1:sem-${sem[k]}:$p")
    ((g > 1)) && cases+=("$g:sem-${sem[k]}:$p")          # weak: 10M DOF per GPU; strong: against 1 GPU
    ((g > 1)) && cases+=("$g:hex8-${hex8[k]}:$p" "1:hex8-${hex8[k]}:$p")
    ((g == 1)) && cases+=("1:hex8-${hex8[0]}:$p")
  done
done
last=$(( n >= 8 ? 3 : n >= 4 ? 2 : 1 ))
cases+=("$n:sem-${sem[last]}:float:--exchange,allreduce" "$n:sem-${sem[last]}:float:--no-overlap"
        "$n:hex8-${hex8[last]}:float:--exchange,allreduce" "$n:hex8-${hex8[last]}:float:--no-overlap")
bench/scaling.sh "$bin/tremor" "$out" "${cases[@]}"
