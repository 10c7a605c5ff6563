#!/usr/bin/env bash
# A material field at every GLL point against one material (docs/benchmarks.md, "Material fields:
# moduli at every GLL point"): `tremor run` of a 0.2 x 0.2 x 0.1 m box of 60 x 60 x 30 hexahedra
# raised to GLL order 4 (21,083,403 DOF, the `sem` operator), a point force, a fixed step of 30 ns
# (below both stable steps) for `STEPS` steps: one material (steel's speeds), and a field of 41 x 41 x 21 points (CSV) whose
# c_p varies with depth and position (5510 to 7410 m/s), which the sem operator reads as lambda and
# mu at each of the 13.5M GLL points and the lumped mass as the density at each node. Alternated,
# ROUNDS of each, in float and double; each run's summary line (speed, wall time, set-up) kept.
#
# The same on the bench's gll4 plate (below), whose one-material speed docs/benchmarks.md records.
#
# Usage, from the repository root on a GPU host: bench/field-points.sh TREMOR RESULTS_DIR [ROUNDS] [STEPS]
set -uo pipefail
tremor=${1:?usage: bench/field-points.sh TREMOR RESULTS_DIR [ROUNDS] [STEPS]}
out=${2:?usage: bench/field-points.sh TREMOR RESULTS_DIR [ROUNDS] [STEPS]}
rounds=${3:-2}
steps=${4:-5000}
mkdir -p "$out"
scratch=$(mktemp -d)
log=$out/field-points.log
python3 - "$scratch/field.csv" <<'EOF'
import math, sys
with open(sys.argv[1], "w") as f:
    f.write("x,y,z,vp,vs,rho\n")
    for l in range(21):
        for j in range(41):
            for i in range(41):
                x, y, z = 0.005 * i, 0.005 * j, 0.005 * l
                vp = 5900.0 + 1300.0 * z / 0.1 + 300.0 * math.sin(31.4 * x) * math.cos(31.4 * y) - 90.0
                f.write(f"{x},{y},{z},{vp},{vp * 0.54},{7850.0 - 300.0 * z / 0.1}\n")
EOF
model() {  # $1: the material's lines
  cat <<EOF
[mesh]
generator = "box"
element = "hex8"
size = [0.2, 0.2, 0.1]
divisions = [60, 60, 30]
order = 4
[[material]]
name = "m"
$1
[[section]]
element_set = "all"
material = "m"
[explicit]
duration = $(awk "BEGIN {print $steps * 3e-8}")
time_step = 3e-8
[[source]]
position = [0.1, 0.1, 0.1]
direction = [0.0, 0.0, -1.0]
signal = { kind = "ricker", frequency = 2e5 }
[[receiver]]
name = "r"
positions = [[0.05, 0.1, 0.1]]
record = ["displacement"]
EOF
}
model $'density = 7850\np_wave_speed = 5900\ns_wave_speed = 3200' > "$scratch/one.toml"
model 'field = "field.csv"' > "$scratch/field.toml"
# The bench's gll4 plate (bench/models/plate-gll4-pml.toml without its layers, 1000 steps of 20 ns:
# docs/benchmarks.md's elastic figures) with its aluminium, and with a field of 41 x 41 x 2 points
# about it (c_p 5890 to 6510 m/s, c_s / c_p 0.5036, 2600 to 2800 kg/m^3).
sed '/^\[\[absorbing\]\]/,$d' bench/models/plate-gll4-pml.toml > "$scratch/plate-one.toml"
python3 - "$scratch/plate.csv" <<'PY'
import math, sys
with open(sys.argv[1], "w") as f:
    f.write("x,y,z,vp,vs,rho\n")
    for z in (0.0, 0.002):
        for j in range(41):
            for i in range(41):
                x, y = -0.288 + 0.0144 * i, -0.288 + 0.0144 * j
                vp = 6200.0 + 310.0 * math.sin(20.0 * x) * math.cos(15.0 * y)
                f.write(f"{x},{y},{z},{vp},{vp * 0.5036},{2700.0 + 100.0 * math.cos(25.0 * x)}\n")
PY
sed -e '/^density = 2700.0/,/^poisson_ratio/c\field = "plate.csv"' "$scratch/plate-one.toml" > "$scratch/plate-field.toml"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "host: $(nproc) CPUs"
} > "$log"
for precision in float double; do
  for round in $(seq "$rounds"); do
    for name in one field plate-one plate-field; do
      timeout 600 "$tremor" run "$scratch/$name.toml" -o "$scratch/$name.h5" --backend cuda --precision "$precision" \
        > "$scratch/$name.out" 2>&1
      echo "=== $name, $precision, round $round (rc=$?)" >> "$log"
      grep -v '^progress' "$scratch/$name.out" >> "$log"
      rm -f "$scratch/$name.h5" "$scratch/$name.h5.xmf"
    done
  done
done
rm -rf "$scratch"
grep -E '^=== |operator|speed|wall time|set-up  ' "$log"
