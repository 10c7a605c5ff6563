#!/usr/bin/env bash
# The largest SEM plates (docs/parallel.md, "The largest plate"): examples/plate-sem-3d's 2 mm
# aluminium plate at CELLS x CELLS cells of 2 mm, GLL order 4, one through the thickness
# (15 (4 CELLS + 1)^2 DOF: 999M at 2040), run for DURATION (2 us: about 70 steps) by
# PROCESSES processes under mpirun, one GPU each. Samples every GPU's memory with nvidia-smi
# every 2 s and the host's with free every 5 s beside tremor's own counts, and writes the run's
# summary, the largest samples and the timeline into RESULTS_DIR/largest-plate-CELLS-npPROCESSES.log.
#
# Usage, from the repository root: bench/largest-plate.sh TREMOR RESULTS_DIR CELLS PROCESSES [PRECISION] [DURATION]
# Environment: MPIRUN (default "mpirun"; the bundled OpenMPI's command line with its -x options
# on a GPU host), TREMOR_BACKEND (default cuda), TIMEOUT (seconds, default 580: a device
# command's limit, less the logging).
set -uo pipefail
usage="usage: bench/largest-plate.sh TREMOR RESULTS_DIR CELLS PROCESSES [PRECISION] [DURATION]"
tremor=${1:?$usage}
out=${2:?$usage}
cells=${3:?$usage}
processes=${4:?$usage}
precision=${5:-float}
duration=${6:-2e-6}
backend=${TREMOR_BACKEND:-cuda}
mpirun=${MPIRUN:-mpirun}
case $cells in '' | *[!0-9]*) echo "CELLS must be a whole number, got '$cells'" >&2; exit 2 ;; esac
case $processes in '' | *[!0-9]*) echo "PROCESSES must be a whole number, got '$processes'" >&2; exit 2 ;; esac
[ "$cells" -ge 4 ] || { echo "CELLS must be 4 or more (the receivers sit 8-20 mm from the source)" >&2; exit 2; }
mkdir -p "$out" || exit 1
scratch=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$scratch"' EXIT
log=$out/largest-plate-$cells-np$processes.log
model=$scratch/plate-$cells.toml

# The example's model at CELLS x CELLS cells of 2 mm, the source at the centre.
half=$(awk "BEGIN {printf \"%.6f\", $cells * 0.001}")
sed -e "s/^origin = .*/origin = [-$half, -$half, 0.0]/" \
    -e "s/^size = .*/size = [$(awk "BEGIN {printf \"%.6f\", 2 * $half}"), $(awk "BEGIN {printf \"%.6f\", 2 * $half}"), 0.002]/" \
    -e "s/^divisions = .*/divisions = [$cells, $cells, 1]/" \
    -e "s/^duration = .*/duration = $duration/" examples/plate-sem-3d/model.toml > "$model"
grep -q "divisions = \[$cells, $cells, 1\]" "$model" || { echo "could not set the plate's cells in $model" >&2; exit 1; }

{
  echo "# examples/plate-sem-3d's plate at $cells x $cells cells of 2 mm, GLL order 4, $precision, $duration s,"
  echo "# $processes processes: $mpirun -np $processes $tremor run MODEL --backend $backend --precision $precision"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
  echo "host: $(getconf _NPROCESSORS_ONLN) CPUs, $(awk '/MemTotal/ {print $2 / 1048576 " GiB"}' /proc/meminfo)"
} > "$log"

if command -v nvidia-smi > /dev/null 2>&1; then
  nvidia-smi --query-gpu=timestamp,index,memory.used --format=csv,noheader -l 2 > "$scratch/smi" 2>/dev/null &
fi
while :; do echo "$(date +%H:%M:%S) $(free -m | awk '/^Mem:/ {print $3}')"; sleep 5; done > "$scratch/free" &
started=$(date +%s)
# shellcheck disable=SC2086
timeout "${TIMEOUT:-580}" $mpirun -np "$processes" "$tremor" run "$model" -o "$scratch/plate.h5" \
  --backend "$backend" --precision "$precision" > "$scratch/run.out" 2>&1
rc=$?
ended=$(date +%s)
kill $(jobs -p) 2>/dev/null
wait 2>/dev/null
{
  echo
  echo "=== rc=$rc, $((ended - started)) s in all$([ $rc -eq 124 ] && echo ' (stopped at the time limit)')"
  grep -v '^progress' "$scratch/run.out"
  echo
  echo "## largest nvidia-smi sample per GPU (MiB in use, CUDA contexts included)"
  if [ -s "$scratch/smi" ]; then
    sort -t, -k2,2n -k3,3n "$scratch/smi" | awk -F', ' '{max[$2] = $0} END {for (g in max) print max[g]}' | sort -t, -k2,2n
  else
    echo "(none)"
  fi
  echo "## largest host memory used (free -m, MB)"
  sort -k2,2n "$scratch/free" | tail -1
  echo "## nvidia-smi per GPU, every 30 s"
  [ -s "$scratch/smi" ] && awk 'NR % 15 == 1' "$scratch/smi"
} >> "$log"
echo "$log"
exit $rc
