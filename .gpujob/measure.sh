#!/bin/bash
# One call: the attenuating plate's bench (float and double, sem and sem:atomic, with Nsight Compute
# on the float column kernel), then the PML plate against the same plate without its layer.
[ -d .gpu ] || xz -dc .gpu.tar.xz | tar xf -
ROUNDS="1 2" NCU=${NCU_ATT:-1} timeout ${T1:-330} bash .gpujob/atten2.sh
NCU=0 timeout ${T2:-220} bash .gpujob/pml.sh
