// The log's one sink: stderr, silenced by set_quiet without losing the warnings it keeps, and
// threads silenced on their own.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tremor/core/log.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

TEST(Log, QuietSilencesStderrButKeepsTheWarnings) {
  (void)log::take_warnings();  // what earlier tests left
  ::testing::internal::CaptureStderr();
  log::set_quiet(true);
  log::warn("kept");
  log::info("dropped");
  log::set_quiet(false);
  const std::string quiet_text = ::testing::internal::GetCapturedStderr();
  ::testing::internal::CaptureStderr();
  log::warn("heard");
  log::info("said");
  const std::string text = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(quiet_text, "");
  EXPECT_EQ(text, "warning: heard\nsaid\n");
  EXPECT_EQ(log::take_warnings(), (std::vector<std::string>{"kept", "heard"}));
  EXPECT_TRUE(log::take_warnings().empty());  // taken once
}

// A Quiet scope sets aside what came before it and restores the setting before it, nested or
// left by an exception.
TEST(Log, AQuietScopeRestoresTheSettingBeforeIt) {
  ::testing::internal::CaptureStderr();
  log::warn("before");
  try {
    const log::Quiet outer;
    EXPECT_TRUE(log::take_warnings().empty());  // "before" set aside
    {
      const log::Quiet inner;
      log::warn("inner");
    }
    log::warn("outer");  // still quiet: the inner scope restored the outer one's setting
    EXPECT_EQ(log::take_warnings(), (std::vector<std::string>{"inner", "outer"}));
    throw std::runtime_error("leaves the scope");
  } catch (const std::runtime_error&) {
  }
  log::warn("heard");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "warning: before\nwarning: heard\n");
  EXPECT_EQ(log::take_warnings(), (std::vector<std::string>{"heard"}));
}

TEST(Log, ASilentThreadIsNeitherHeardNorRecorded) {
  (void)log::take_warnings();
  ::testing::internal::CaptureStderr();
  std::thread([] {
    log::set_thread_silent(true);
    log::warn("from the silent thread");
    log::info("from the silent thread");
  }).join();
  std::thread([] { log::warn("from another thread"); }).join();
  const std::string text = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(text, "warning: from another thread\n");
  EXPECT_EQ(log::take_warnings(), (std::vector<std::string>{"from another thread"}));
}

}  // namespace
}  // namespace tremor
