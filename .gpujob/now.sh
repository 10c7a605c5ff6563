#!/bin/bash
# One call: the fluid bench of the committed kernels (lead.sh, the gll4 plate's one-shot step beside
# it), then the attenuating plate beside the elastic one with Nsight Compute on its column kernel.
rm -rf .gpu; xz -dc .gpu.tar.xz | tar xf -
SKIP_TESTS=1 SKIP_TIMELINE=1 GLL4=1 PRECISIONS="float double float" timeout ${T1:-200} bash .gpujob/lead.sh
SKIP_TESTS=1 ROUNDS="1 2" NCU=1 timeout ${T2:-380} bash .gpujob/atten2.sh
