# Sourced by the GPU jobs: the GPU unit tests (the filter U, all by default), the parity tests of
# filter P (the backend's by default) and the GPU verification tests, their logs in $R.
timeout 150 .gpu/bin/tremor_unit_tests --gtest_brief=1 --gtest_filter="${U:-*}" > $R/unit.log 2>&1
echo "unit rc $?" >> $R/unit.log; grep -v "^warning" $R/unit.log | tail -4
timeout 300 .gpu/bin/tremor_parity_tests --gtest_brief=1 \
  --gtest_filter="${P:-ForallBlocks*:ExecScratch*:BackendParity*}" > $R/parity.log 2>&1
echo "parity rc $?" >> $R/parity.log; grep -v "^warning" $R/parity.log | tail -4
timeout 100 .gpu/bin/tremor_verification_tests --gtest_filter='*Gpu*' > $R/verif.log 2>&1
echo "verification rc $?" >> $R/verif.log; grep -E "PASSED|FAILED|rc " $R/verif.log
