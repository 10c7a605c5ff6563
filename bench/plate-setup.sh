#!/usr/bin/env bash
# The explicit solver's set-up at scale (docs/benchmarks.md, "Set-up on the device"): `tremor run`
# on bench/models/plate-hex8-21M.toml (21.6M DOF), once at full length in double and in float, then
# a few steps per operator and with --deterministic, sampling the GPU's memory with nvidia-smi
# every 100 ms beside tremor's own counts. Each run's summary breaks down the time from the start
# to the first step and prints the memory used against the pre-flight's estimate.
#
# Usage, from the repository root on a GPU host: bench/plate-setup.sh TREMOR RESULTS_DIR [OPERATORS]
set -uo pipefail
tremor=${1:?usage: bench/plate-setup.sh TREMOR RESULTS_DIR [OPERATORS]}
out=${2:?usage: bench/plate-setup.sh TREMOR RESULTS_DIR [OPERATORS]}
operators=${3:-block_csr assembled ell sell jds cusparse matrix_free}
model=bench/models/plate-hex8-21M.toml
mkdir -p "$out"
scratch=$(mktemp -d)
log=$out/plate-setup.log
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "host: $(nproc) CPUs, $(awk '/MemTotal/ {print $2 / 1048576 " GiB"}' /proc/meminfo)"
  echo "GPU memory in use before the runs: $(nvidia-smi --query-gpu=memory.used --format=csv,noheader)"
} > "$log"
one() {
  local name=$1
  shift
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$scratch/$name.smi" 2>/dev/null &
  local smi=$!
  local started=$(date +%s.%N)
  timeout 300 "$tremor" run "$model" -o "$scratch/$name.h5" "$@" > "$scratch/$name.out" 2>&1
  local rc=$?
  local ended=$(date +%s.%N)
  kill "$smi" 2>/dev/null
  wait "$smi" 2>/dev/null
  {
    echo
    echo "=== $name: tremor run $model $* (rc=$rc, $(awk "BEGIN {print $ended - $started}") s in all)"
    echo "nvidia-smi: at most $(sort -n "$scratch/$name.smi" | tail -1) MiB in use on the GPU (CUDA context included)"
    grep -v '^progress' "$scratch/$name.out"
  } >> "$log"
  rm -f "$scratch/$name.h5" "$scratch/$name.h5.xmf"
}
one full-double
one full-float --precision float
for op in $operators; do one "short-$op" --operator "$op" --duration 2e-7; done
one short-deterministic --deterministic --duration 2e-7
rm -rf "$scratch"
grep -E '^=== |nvidia-smi:|set-up  |GPU .* at most|wall time|speed' "$log"
