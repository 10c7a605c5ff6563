#!/usr/bin/env bash
# The pre-flight's device-memory estimate against what each run allocated (docs/running.md,
# "Pre-flight"): short runs of a hex8 plate with every operator, a tet4 plate, the SEM plates (the example and
# the defect-imaging plate), and the same over 2 processes under mpirun (each process's estimate
# against its own peak). Writes RESULTS_DIR/memory-estimate.md, a row per run: the estimate the
# pre-flight printed, the peak of tremor's device allocations the summary printed, their ratio.
#
# Usage, from the repository root: bench/memory-estimate.sh TREMOR RESULTS_DIR
# Environment: MPIRUN (default "mpirun"; empty: no runs over processes), TREMOR_BACKEND (cuda).
set -uo pipefail
usage="usage: bench/memory-estimate.sh TREMOR RESULTS_DIR"
tremor=${1:?$usage}
out=${2:?$usage}
backend=${TREMOR_BACKEND:-cuda}
mpirun=${MPIRUN-mpirun}
mkdir -p "$out" || exit 1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
table=$out/memory-estimate.md
log=$out/memory-estimate.log
: > "$log"

# The 21.6M-DOF hex8 benchmark plate at a quarter of its area (5.4M DOF): the same layout per DOF.
sed 's/^divisions = \[1200, 1200, 4\]/divisions = [600, 600, 4]/' bench/models/plate-hex8-21M.toml > "$scratch/hex8.toml"
# The same plate of tet4 (6 per cell) at 300 x 300 x 4 cells (1.4M DOF): matrix_free in tiles of
# tetrahedra against block_ell.
sed 's/^divisions = \[1200, 1200, 4\]/divisions = [300, 300, 4]/; s/^element = "hex8"/element = "tet4"/' \
  bench/models/plate-hex8-21M.toml > "$scratch/tet4.toml"

{
  echo "# Pre-flight device-memory estimate against the allocated peak"
  echo
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), backend $backend"
  echo
  echo "| model | operator | precision | processes | estimate | allocated peak | estimate / peak |"
  echo "|---|---|---|---:|---:|---:|---:|"
} > "$table"

# bytes of "1.25 GB", "79 MB", "812 kB" (the summary's SI figures)
bytes() {
  awk -v v="$1" -v u="$2" 'BEGIN { m = 1; if (u == "kB") m = 1e3; else if (u == "MB") m = 1e6;
    else if (u == "GB") m = 1e9; else if (u == "TB") m = 1e12; printf "%.0f", v * m }'
}

one() {  # NAME MODEL OPERATOR PRECISION PROCESSES [extra arguments]
  local name=$1 model=$2 op=$3 precision=$4 processes=$5
  shift 5
  local command=("$tremor" run "$model" -o "$scratch/$name.h5" --backend "$backend" --precision "$precision" "$@")
  [ "$op" = auto ] || command+=(--operator "$op")
  if [ "$processes" -gt 1 ]; then
    [ -n "$mpirun" ] || return 0
    # shellcheck disable=SC2086
    command=($mpirun -np "$processes" "${command[@]}")
  fi
  echo "== $name: ${command[*]}" >> "$log"
  local text
  text=$(timeout 300 "${command[@]}" 2>&1)
  echo "$text" >> "$log"
  # "memory          GPU 1.25 GB at most (estimate 1.69 GB); ..." (per process over processes)
  local line
  line=$(echo "$text" | grep -E '^  memory .* at most \(estimate' | tail -1)
  local used estimate
  used=$(echo "$line" | sed -E 's/.* ([0-9.]+) ([kMGT]?B) at most.*/\1 \2/')
  estimate=$(echo "$line" | sed -E 's/.*\(estimate ([0-9.]+) ([kMGT]?B)\).*/\1 \2/')
  if [ -z "$line" ]; then
    echo "| $name | $op | $precision | $processes | (no summary: see memory-estimate.log) | | |" >> "$table"
    return 0
  fi
  local ub eb
  ub=$(bytes $used)
  eb=$(bytes $estimate)
  echo "| $name | $op | $precision | $processes | $estimate | $used | $(awk -v e="$eb" -v u="$ub" 'BEGIN { printf "%.3f", e / u }') |" >> "$table"
}

short=(--duration 2e-6)
for op in block_ell block_csr ell sell jds cusparse matrix_free; do
  one "hex8-5M-$op" "$scratch/hex8.toml" "$op" float 1 "${short[@]}"
done
one hex8-5M-block_ell-double "$scratch/hex8.toml" block_ell double 1 "${short[@]}"
one hex8-5M-matrix_free-double "$scratch/hex8.toml" matrix_free double 1 "${short[@]}"
for op in block_ell matrix_free; do
  one "tet4-1M-$op" "$scratch/tet4.toml" "$op" float 1 "${short[@]}"
done
one plate-sem-3d examples/plate-sem-3d/model.toml auto float 1 "${short[@]}"
one plate-sem-3d-double examples/plate-sem-3d/model.toml auto double 1 "${short[@]}"
one imaging-plate examples/lamb-defect-imaging/plate.toml auto float 1 "${short[@]}"
one plate-sem-3d-np2 examples/plate-sem-3d/model.toml auto float 2 "${short[@]}"
one imaging-plate-np2 examples/lamb-defect-imaging/plate.toml auto float 2 "${short[@]}"
one hex8-5M-np2 "$scratch/hex8.toml" block_ell float 2 "${short[@]}"
cat "$table"
