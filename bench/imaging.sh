#!/usr/bin/env bash
# The guided-wave imaging example at the paper's size on a GPU (examples/lamb-defect-imaging,
# docs/imaging.md): the plate (its A0 and S0 shots on one set-up) and its baseline, each run's wall
# time with its set-up, the maps and their overlap with the true footprint, and what the 101 x 101
# receiver grid costs a run (the plate again without it).
#
# Usage, from the repository root on a GPU host: bench/imaging.sh TREMOR RESULTS_DIR [PRECISION]
# Writes RESULTS_DIR/imaging.txt (a line per run: name, wall s, set-up s, steps, DOF-steps/s),
# the runs' logs, the maps' printouts and PNG images.
set -uo pipefail
tremor=${1:?usage: bench/imaging.sh TREMOR RESULTS_DIR [PRECISION]}
out=${2:?usage: bench/imaging.sh TREMOR RESULTS_DIR [PRECISION]}
precision=${3:-float}
example=${EXAMPLE:-examples/lamb-defect-imaging}  # a folder with plate.toml and sound.toml
mkdir -p "$out"
scratch=$(mktemp -d)
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1
} > "$out/device.txt"
# The plate without its receiver grid: the grid's cost is the difference of the loop's speed.
sed '/^\[\[receiver\]\]/,$d' "$example/plate.toml" > "$scratch/no-grid.toml"
run() {  # NAME MODEL
  local started ended
  started=$(date +%s.%N)
  timeout 600 "$tremor" run "$2" --precision "$precision" -o "$scratch/$1.h5" > "$out/$1.log" 2>&1
  local rc=$?
  ended=$(date +%s.%N)
  printf '%s wall=%.2fs %s %s %s rc=%s\n' "$1" "$(awk "BEGIN {print $ended - $started}")" \
    "$(awk '/set-up .* to the first step/{print "setup=" $2 "s"}' "$out/$1.log")" \
    "$(awk '/^  steps .* of /{gsub(",", "", $2); print "steps=" $2}' "$out/$1.log")" \
    "$(awk '/^  speed /{print "speed=" $2}' "$out/$1.log")" "$rc" | tee -a "$out/imaging.txt"
}
run plate "$example/plate.toml"
run sound "$example/sound.toml"
run no-grid "$scratch/no-grid.toml"
# A0 mapped out of plane (z), S0 in plane (x): the motion each mode carries.
for shot in A0 S0; do
  component=z
  [ "$shot" = S0 ] && component=x
  for with in baseline none; do
    extra=()
    [ "$with" = baseline ] && extra=(--baseline "$scratch/sound.h5")
    "$tremor" image "$scratch/plate.h5" --shot "$shot" --component "$component" "${extra[@]}" -o "$scratch/png" \
      > "$out/image-$shot-$with.txt" 2>&1
    cp "$scratch/png/plate.$shot.area.png" "$out/$shot-$with.png" 2>/dev/null
    echo "== $shot ($with)" | tee -a "$out/imaging.txt"
    grep -E "above|true|intersection" "$out/image-$shot-$with.txt" | tee -a "$out/imaging.txt"
  done
done
rm -rf "$scratch"
