#include "core/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ptec {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return Error::InvalidArgument;
  return v;
}

Result<int> doubled(int v) {
  PTEC_TRY_ASSIGN(int x, parse_positive(v));
  return 2 * x;
}

Error check_even(int v) {
  PTEC_CHECK_OR_RETURN_ERROR(v % 2 == 0, InvalidArgument, "value %d is odd", v);
  return Error::Ok;
}

Error both(int v) {
  PTEC_TRY(check_even(v));
  return Error::NotFound;
}

std::vector<std::string>* g_logged = nullptr;
void capture(LogLevel, const char* message, void*) { g_logged->push_back(message); }

TEST(ResultTest, HoldsValueOrError) {
  Result<int> ok = parse_positive(3);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  EXPECT_EQ(ok.error(), Error::Ok);

  Result<int> bad = parse_positive(-1);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), Error::InvalidArgument);
}

TEST(ResultTest, OkIsNotAnError) {
  Result<int> r(Error::Ok);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::Internal);
}

TEST(ResultTest, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(7));
  ASSERT_TRUE(r.ok());
  Result<std::unique_ptr<int>> moved(std::move(r));
  EXPECT_EQ(**moved, 7);
}

TEST(ResultTest, TryAssignPropagates) {
  EXPECT_EQ(*doubled(4), 8);
  EXPECT_EQ(doubled(0).error(), Error::InvalidArgument);
}

TEST(ResultTest, CheckOrReturnLogsAndReturns) {
  std::vector<std::string> logged;
  g_logged = &logged;
  set_log_sink(capture, nullptr);
  EXPECT_EQ(check_even(3), Error::InvalidArgument);
  EXPECT_EQ(both(5), Error::InvalidArgument);
  EXPECT_EQ(both(4), Error::NotFound);
  set_log_sink(nullptr, nullptr);
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_EQ(logged[0], "value 3 is odd");
}

TEST(ResultTest, AccessingErrorAborts) {
  Result<int> bad = parse_positive(-1);
  EXPECT_DEATH({ (void)bad.get(); }, "Result accessed while holding an error");
}

TEST(ErrorTest, Names) {
  EXPECT_STREQ(to_string(Error::Ok), "Ok");
  EXPECT_STREQ(to_string(Error::InvalidProgram), "InvalidProgram");
  EXPECT_STREQ(to_string(Error::OperatorMissing), "OperatorMissing");
  EXPECT_EQ(static_cast<uint32_t>(Error::InvalidProgram), 0x23u);
  EXPECT_EQ(static_cast<uint32_t>(Error::NotFound), 0x20u);
  EXPECT_STREQ(to_string(static_cast<Error>(0x99)), "Unknown");
}

}  // namespace
}  // namespace ptec
