// Truncated and corrupted files return an error or run; they never crash or read out of bounds
// (run these under the asan-ubsan build too).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/portable/register.h"
#include "runtime/test/fuzz/exercise_program.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::AlignedBytes;
using testing::fixtures_dir;
using testing::LogCapture;
using testing::read_file;

class CorruptionTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    PTEC_SKIP_WITHOUT_FIXTURES();
    ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok);
    file_ = read_file(fixtures_dir() / GetParam());
    ASSERT_FALSE(file_.empty());
  }
  std::vector<uint8_t> file_;
};

TEST_P(CorruptionTest, IntactFileRuns) {
  AlignedBytes bytes(file_);
  fuzz::ExerciseStats stats = fuzz::exercise_program(bytes.data(), bytes.size());
  EXPECT_TRUE(stats.loaded);
  EXPECT_EQ(stats.methods_executed, 1u);
}

TEST_P(CorruptionTest, EveryPrefixIsRejected) {
  LogCapture quiet;
  for (size_t n = 0; n < file_.size(); ++n) {
    AlignedBytes bytes(
        std::vector<uint8_t>(file_.begin(), file_.begin() + static_cast<ptrdiff_t>(n)));
    fuzz::ExerciseStats stats = fuzz::exercise_program(bytes.data(), bytes.size());
    // A prefix can never be a complete program: the flatbuffer or the segments are cut.
    EXPECT_FALSE(stats.loaded) << "prefix of " << n << " bytes loaded";
  }
}

TEST_P(CorruptionTest, EverySingleByteChangeIsHandled) {
  LogCapture quiet;
  size_t loaded = 0;
  size_t executed = 0;
  for (size_t i = 0; i < file_.size(); ++i) {
    for (uint8_t mask : {0xFF, 0x01, 0x80}) {
      std::vector<uint8_t> mutated = file_;
      mutated[i] ^= mask;
      AlignedBytes bytes(mutated);
      fuzz::ExerciseStats stats = fuzz::exercise_program(bytes.data(), bytes.size());
      loaded += stats.loaded;
      executed += stats.methods_executed;
    }
  }
  // Many flips hit padding or values and still run; the point is that none crashed.
  EXPECT_GT(loaded, 0u);
  EXPECT_GT(executed, 0u);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CorruptionTest,
                         ::testing::Values("executorch/add.pte", "executorch/AddModel.pte",
                                           "handmade/ok.pte"),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           name = name.substr(name.find('/') + 1);
                           return name.substr(0, name.find('.'));
                         });

// Inputs the fuzzer once crashed on (runtime/test/fuzz/regressions); each must now be handled.
TEST(FuzzRegressionTest, EveryRecordedInputIsHandled) {
  const testing::fs::path dir =
      testing::fs::path(PTEC_SOURCE_DIR) / "runtime" / "test" / "fuzz" / "regressions";
  ASSERT_TRUE(testing::fs::exists(dir));
  LogCapture log;
  size_t n = 0;
  for (const auto& entry : testing::fs::directory_iterator(dir)) {
    AlignedBytes bytes(read_file(entry.path()));
    fuzz::exercise_program(bytes.data(), bytes.size());
    fuzz::exercise_data_map(bytes.data(), bytes.size());
    ++n;
  }
  EXPECT_GT(n, 0u);
}

TEST(FuzzRegressionTest, MisalignedEightByteVectorIsRejected) {
  const testing::fs::path file = testing::fs::path(PTEC_SOURCE_DIR) /
                                 "runtime/test/fuzz/regressions/misaligned_int64_vector.pte";
  AlignedBytes bytes(read_file(file));
  BufferDataLoader loader(bytes.data(), bytes.size());
  LogCapture log;
  EXPECT_EQ(Program::load(&loader).error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("misaligned 8-byte vector")) << log.all();
}

TEST(CorruptionDataMapTest, EverySingleByteChangeOfThePtdIsHandled) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  const std::vector<uint8_t> file = read_file(fixtures_dir() / "handmade/handmade.ptd");
  LogCapture quiet;
  for (size_t i = 0; i < file.size(); ++i) {
    std::vector<uint8_t> mutated = file;
    mutated[i] ^= 0xFF;
    AlignedBytes bytes(mutated);
    fuzz::exercise_data_map(bytes.data(), bytes.size());
  }
}

}  // namespace
}  // namespace ptec::runtime
