#!/usr/bin/env bash
# Strong and weak scaling of `tremor run` over GPUs (docs/benchmarks.md, "Several GPUs"): each case
# runs one plate on N GPUs, one process per GPU under mpirun (N = 1: one process, no mpirun; with
# --gpus among its options: one process driving them, no mpirun), and
# its summary goes into RESULTS_DIR/scaling.log; a line per case goes into RESULTS_DIR/scaling.txt
# (GPUs, plate, DOF, precision, options, loop speed in DOF-steps/s, wall time).
#
# Plates: sem-N, the 2 mm aluminium plate of examples/plate-sem-3d with N x N hex8 cells of 2 mm
# raised to GLL order 4 (15 (4N + 1)^2 DOF: N = 204 is 10.0M, 288 19.9M, 408 40.0M); hex8-N, the
# plate of bench/models/plate-hex8-21M.toml with N x N x 4 hex8 cells (15 (N + 1)^2 DOF: N = 816
# is 10.0M, 1154 20.0M). The operator is the plate's default on a GPU (sem; block_ell).
#
# Usage, from the repository root on a GPU host: bench/scaling.sh TREMOR RESULTS_DIR CASE...
# CASE: GPUS:PLATE:PRECISION[:OPTIONS], options comma-separated tremor run flags, e.g.
# 4:sem-408:float:--exchange,allreduce. MPIRUN (default "mpirun") is the launcher with its flags.
set -uo pipefail
tremor=${1:?usage: bench/scaling.sh TREMOR RESULTS_DIR CASE...}
out=${2:?usage: bench/scaling.sh TREMOR RESULTS_DIR CASE...}
shift 2
mpirun=${MPIRUN:-mpirun}
duration=${DURATION:-60e-6}
mkdir -p "$out"
scratch=$(mktemp -d)
model() {  # PLATE -> the model file's path
  local kind=${1%-*} n=${1#*-} file=$scratch/$1.toml
  [ -f "$file" ] && { echo "$file"; return; }
  case $kind in
    sem) sed -e "s/^origin = .*/origin = [-0.001, -0.001, 0.0]/" \
             -e "s/^size = .*/size = [$(awk "BEGIN {print 0.002 * $n}"), $(awk "BEGIN {print 0.002 * $n}"), 0.002]/" \
             -e "s/^divisions = .*/divisions = [$n, $n, 1]/" -e "s/^duration = .*/duration = $duration/" \
             examples/plate-sem-3d/model.toml > "$file" ;;
    hex8) sed -e "s/^divisions = .*/divisions = [$n, $n, 4]/" -e "s/^duration = .*/duration = $duration/" \
              bench/models/plate-hex8-21M.toml > "$file" ;;
    *) echo "unknown plate $1" >&2; return 1 ;;
  esac
  echo "$file"
}
for case in "$@"; do
  IFS=: read -r gpus plate precision options <<< "$case"
  file=$(model "$plate") || continue
  flags=(--precision "$precision")
  [ -n "$options" ] && IFS=, read -r -a more <<< "$options" && flags+=("${more[@]}")
  if [ "$gpus" = 1 ] || [[ ",$options," == *",--gpus,"* ]]; then
    command=("$tremor" run "$file" "${flags[@]}" -o "$scratch/run.h5")
  else
    command=($mpirun -np "$gpus" "$tremor" run "$file" "${flags[@]}" -o "$scratch/run.h5")
  fi
  started=$(date +%s.%N)
  timeout 400 "${command[@]}" > "$scratch/run.out" 2>&1
  rc=$?
  ended=$(date +%s.%N)
  {
    echo
    echo "=== $case (rc=$rc, $(awk "BEGIN {print $ended - $started}") s in all)"
    grep -v '^progress' "$scratch/run.out"
  } >> "$out/scaling.log"
  dofs=$(awk '/^  DOF /{gsub(",", "", $2); print $2}' "$scratch/run.out")
  speed=$(awk '/^  speed /{print $2}' "$scratch/run.out")
  wall=$(awk '/^  wall time /{print $3}' "$scratch/run.out")
  printf '%s %s %s %s %s %s %s rc=%s\n' "$gpus" "$plate" "${dofs:-?}" "$precision" "${options:--}" "${speed:-?}" \
    "${wall:-?}" "$rc" | tee -a "$out/scaling.txt"
  rm -f "$scratch"/run.h5*
done
rm -rf "$scratch"
