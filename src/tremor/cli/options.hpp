#pragma once
// Checks of numeric command-line options, shared by every command: a value must parse whole as a
// finite number (NaN and infinities are refused, never read as "not given"), and a refusal
// states its bounds briefly ("--dt: must be a finite number above 0, got 'nan'").
#include <CLI/CLI.hpp>

namespace tremor::cli {

CLI::Validator positive();      // finite, > 0
CLI::Validator non_negative();  // finite, >= 0
// finite, in [low, high]; `low_open`: (low, high].
CLI::Validator within(double low, double high, bool low_open = false);
// A whole number in [low, high], for counts ("--check-every: must be a whole number in [1, 2147483647], got '0.5'").
CLI::Validator whole(long long low, long long high);

}  // namespace tremor::cli
