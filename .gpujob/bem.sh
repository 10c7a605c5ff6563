#!/bin/bash
# The boundary elements' GPU measurements: bench bem --hmatrix (three sizes of the quadratic
# cavity against the dense path) and the 52,544-element circular foundation, each under its own
# timeout so one call (600 s) returns what finished. Summaries to $OUT/bem.
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD
mkdir -p $OUT/bem results
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/bem/device.txt
cat .gpu/COMMIT >> $OUT/bem/device.txt
# The host's cores and model: ACA's arithmetic, the recompression and the storing run there.
(nproc; lscpu | grep -E "Model name|Thread|Core|Socket") >> $OUT/bem/device.txt 2>&1
case "${1:-bench}" in
  bench)
    timeout 560 .gpu/bin/tremor bench bem --hmatrix ${SIZES:-10,16,25} --output-dir results/b > $OUT/bem/bench.log 2>&1
    cp results/b/bem_hmatrix.md $OUT/bem/ 2>/dev/null ;;
  foundation)
    timeout 560 .gpu/bin/tremor bem examples/bem-foundation/large.toml -o results/large.h5 > $OUT/bem/foundation.log 2>&1
    # What examples/bem-foundation/plot.py reads, small enough to come back.
    python3 - <<'PY' >> $OUT/bem/foundation.log 2>&1
import h5py, os
with h5py.File("results/large.h5", "r") as f, h5py.File(os.environ["OUT"] + "/bem/large.h5", "w") as g:
    for name in ("mesh/coordinates", "bem/elements/connectivity", "bem/elements/prescribed", "bem/frequency",
                 "bem/force_real", "bem/force_imag", "bem/displacement_real"):
        f.copy(f[name], g.require_group(os.path.dirname(name)), os.path.basename(name))
    for group in ("bem", "metadata"):
        g.require_group(group).attrs.update(dict(f[group].attrs))
PY
    ;;
esac
echo "rc $?" >> $OUT/bem/device.txt
