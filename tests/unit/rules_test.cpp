// The rules of numbers given by users (core/rules.hpp), shared by the command line's options and
// the Python package's arguments: NaN and infinities refused, bounds exact, one wording.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tremor/core/error.hpp"
#include "tremor/core/rules.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

std::string refusal_of(const NumberRule& rule, const char* name, double value) {
  try {
    rule.check(name, value);
  } catch (const Error& e) {
    return e.what();
  }
  return "admitted";
}

TEST(Rules, NonFiniteNumbersAreRefusedByEveryRule) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (const NumberRule& rule : {finite_number(), positive_number(), non_negative_number(), number_within(-200.0, 0.0),
                                 number_within(0.0, 1.0, true)})
    for (const double value : {nan, inf, -inf}) EXPECT_FALSE(rule.admits(value)) << rule.description << " " << value;
}

TEST(Rules, RefusalsNameTheValueAndTheBounds) {
  EXPECT_EQ(refusal_of(positive_number(), "duration", std::nan("")),
            "duration: must be a finite number above 0, got nan");
  EXPECT_EQ(refusal_of(positive_number(), "dt", -1e-9), "dt: must be a finite number above 0, got -1e-09");
  EXPECT_EQ(refusal_of(positive_number(), "duration", 0.0), "duration: must be a finite number above 0, got 0");
  EXPECT_EQ(refusal_of(number_within(-200.0, 0.0), "threshold", 1e-12),
            "threshold: must be a number in [-200, 0], got 1e-12");
  EXPECT_EQ(refusal_of(number_within(0.0, 1.0, true), "safety", 0.0), "safety: must be a number in (0, 1], got 0");
  EXPECT_EQ(refusal_of(finite_number(), "from", std::numeric_limits<double>::infinity()),
            "from: must be a finite number, got inf");
  EXPECT_EQ(positive_number().refusal("'nan'"), "must be a finite number above 0, got 'nan'");
}

TEST(Rules, BoundsAreExact) {
  EXPECT_TRUE(positive_number().admits(std::numeric_limits<double>::denorm_min()));
  EXPECT_TRUE(positive_number().admits(std::numeric_limits<double>::max()));
  EXPECT_TRUE(non_negative_number().admits(0.0));
  EXPECT_FALSE(non_negative_number().admits(-std::numeric_limits<double>::denorm_min()));
  EXPECT_TRUE(number_within(0.0, 1.0).admits(0.0));
  EXPECT_TRUE(number_within(0.0, 1.0).admits(1.0));
  EXPECT_FALSE(number_within(0.0, 1.0).admits(std::nextafter(1.0, 2.0)));
  EXPECT_FALSE(number_within(0.0, 1.0, true).admits(0.0));
  EXPECT_EQ(positive_number().check("x", 2.5), 2.5);
}

TEST(Rules, WholeNumbers) {
  const WholeRule rule = whole_number(1, 8);
  EXPECT_TRUE(rule.admits(1));
  EXPECT_TRUE(rule.admits(8));
  EXPECT_FALSE(rule.admits(0));
  EXPECT_FALSE(rule.admits(-1));
  EXPECT_EQ(rule.check("order", 4), 4);
  try {
    rule.check("order", -1);
    FAIL() << "order -1 admitted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "order: must be a whole number in [1, 8], got -1");
  }
  EXPECT_FALSE(whole_number(1, 2147483647).admits(std::numeric_limits<long long>::max()));
}

}  // namespace
}  // namespace tremor
