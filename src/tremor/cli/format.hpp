#pragma once
// Number formatting for terminal output.
#include <string>

namespace tremor::cli {

// 1234567 -> "1,234,567".
std::string group_digits(long long value);
// Engineering notation with an SI prefix: 2.1e11 -> "210 G", 1.5e-7 -> "150 n", 7850 -> "7.85 k".
std::string si(double value);

}  // namespace tremor::cli
