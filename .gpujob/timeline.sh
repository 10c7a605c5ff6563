#!/bin/bash
# One call: `tremor bench fluid` in float without and with the GPU timeline (tools/timeline), and a
# typical step of the water box (K_f of 12,800 blocks) and the mixed box (6,400) from it.
xz -dc .gpu.tar.xz | tar xf -
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TREMOR_SOURCE_DIR=$PWD NCCL_NVLS_ENABLE=0
R=$OUT/timeline
mkdir -p $R
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cat .gpu/COMMIT; ls /usr/local/cuda/lib64/libcupti*; } > $R/gpu.txt 2>&1
timeout ${T1:-120} .gpu/bin/tremor bench fluid --precision float --sizes 40 > $R/bench-plain.txt 2>&1
echo "bench rc $?" >> $R/bench-plain.txt; grep -E "^ +40\^3" $R/bench-plain.txt
TREMOR_TIMELINE=$R/trace.csv CUDA_INJECTION64_PATH=$PWD/.gpu/lib/libtremor_timeline.so \
  timeout ${T2:-150} .gpu/bin/tremor bench fluid --precision float --sizes 40 > $R/bench-traced.txt 2>&1
echo "traced rc $?" >> $R/bench-traced.txt; grep -E "^ +40\^3|timeline" $R/bench-traced.txt
for grid in 12800 6400; do
  python3 tools/timeline/summarize.py $R/trace.csv --grid $grid > $R/step-$grid.txt 2>&1; head -40 $R/step-$grid.txt
done
xz -T8 $R/trace.csv
