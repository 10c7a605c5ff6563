#!/usr/bin/env bash
# The multi-GPU checks and benchmarks of one host in one go (docs/parallel.md): tests/mpi over the
# host's GPUs, the same GPU cases over threads (OverThreadsGpu), `tremor bench exchange`, `tremor run --gpus N` against `mpirun -np N tremor run`
# (the same bits), and bench/scaling.sh's weak and strong cases up to N GPUs (SEM plates at GLL
# order 4 and hex8 block_ell plates, 10M DOF per GPU, float and double; the all-reduce exchange,
# no overlap and --gpus N at N GPUs).
#
# Usage, from the repository root on a GPU host: bench/multi-gpu.sh BIN RESULTS_DIR N
# BIN: the folder holding tremor, tremor_mpi_tests, tremor_unit_tests and tremor_h5_equal.
# MPIRUN (default "mpirun") is the launcher with its flags (on a host without MPI installed, a
# relocatable bundle's mpirun with -x for its environment). PARTS (default "tests scaling") picks
# the checks, the scaling cases or both.
set -uo pipefail
bin=${1:?usage: bench/multi-gpu.sh BIN RESULTS_DIR N}
out=${2:?usage: bench/multi-gpu.sh BIN RESULTS_DIR N}
n=${3:?usage: bench/multi-gpu.sh BIN RESULTS_DIR N}
mpirun=${MPIRUN:-mpirun}
parts=" ${PARTS:-tests scaling} "
mkdir -p "$out"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
  nvidia-smi topo -m
} > "$out/device.txt" 2>&1
if [[ $parts == *" tests "* ]]; then
timeout 300 $mpirun -np "$n" "$bin/tremor_mpi_tests" > "$out/mpi-np$n.log" 2>&1
echo "tests/mpi -np $n: rc=$?" | tee "$out/summary.txt"
grep -h "PASSED\|FAILED" "$out/mpi-np$n.log" | sort | uniq -c | tee -a "$out/summary.txt"
# One process, a thread per GPU (--gpus): the decomposed GPU cases over up to four of the host's
# GPUs, NCCL between them, against one GPU.
timeout 300 "$bin/tremor_unit_tests" --gtest_filter='OverThreadsGpu*' > "$out/threads.log" 2>&1
echo "OverThreadsGpu: rc=$?" | tee -a "$out/summary.txt"
grep -h "PASSED\|FAILED\|SKIPPED" "$out/threads.log" | sort | uniq -c | tee -a "$out/summary.txt"
timeout 300 $mpirun -np "$n" "$bin/tremor" bench exchange --output-dir "$out/exchange-np$n" > "$out/exchange-np$n.log" 2>&1
echo "bench exchange -np $n: rc=$?" | tee -a "$out/summary.txt"
# One process driving the N GPUs against N processes: the same result file, bit for bit (colour-by-
# colour assembly in both, point to point), for the SEM and hex8 examples.
for model in examples/plate-sem-3d/model.toml examples/plate-a0-3d/model.toml; do
  [ -f "$model" ] || continue
  name=$(basename "$(dirname "$model")")
  timeout 300 $mpirun -np "$n" "$bin/tremor" run "$model" --deterministic --duration 10e-6 -o "$out/$name-np$n.h5" \
    > "$out/$name-np$n.log" 2>&1
  rc_mpi=$?
  timeout 300 "$bin/tremor" run "$model" --deterministic --duration 10e-6 --gpus "$n" -o "$out/$name-gpus$n.h5" \
    > "$out/$name-gpus$n.log" 2>&1
  rc_gpus=$?
  equal=$("$bin/tremor_h5_equal" "$out/$name-np$n.h5" "$out/$name-gpus$n.h5" /histories 2>&1 | tail -1)
  echo "$name: mpirun -np $n rc=$rc_mpi, --gpus $n rc=$rc_gpus, histories: $equal" | tee -a "$out/summary.txt"
  rm -f "$out/$name"-*.h5 "$out/$name"-*.xdmf
done
fi
[[ $parts == *" scaling "* ]] || exit 0
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
        "$n:hex8-${hex8[last]}:float:--exchange,allreduce" "$n:hex8-${hex8[last]}:float:--no-overlap"
        "$n:sem-${sem[last]}:float:--gpus,$n" "$n:sem-${sem[last]}:double:--gpus,$n"
        "$n:hex8-${hex8[last]}:float:--gpus,$n")
bench/scaling.sh "$bin/tremor" "$out" "${cases[@]}"
