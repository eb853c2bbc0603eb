#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <sstream>

#include "emit/emitter.h"
#include "emit/pte_writer.h"
#include "emit/test/pte_test_util.h"
#include "ir/exception.h"
#include "passes/test/test_graphs.h"
#include "program/to_edge.h"

namespace ptec::emit {
namespace {

EmittedProgram program_with_constants(size_t n) {
  ir::ExportedProgram p;
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i);
  const auto size = static_cast<int64_t>(n);
  ir::Node* w = ptec::testing::param(p, "w", ptec::testing::float_tensor({size}, values));
  ir::Node* x =
      ptec::testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{size}));
  ptec::testing::output(p, {ptec::testing::call(p, "aten::add.Tensor", {x, w})});
  std::map<std::string, ir::ExportedProgram> m;
  m.emplace("forward", program::to_edge(p));
  return emit_program(m);
}

size_t count_entries(const std::filesystem::path& dir) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                           std::filesystem::directory_iterator()));
}

TEST(PteWriter, StreamFileAndBytesAgree) {
  const EmittedProgram emitted = program_with_constants(5);
  const auto dir = testing::temp_dir("agree");
  write_pte(emitted, (dir / "a.pte").string());
  std::ostringstream os;
  write_pte(emitted, os);
  const std::string streamed = os.str();
  const std::vector<uint8_t> file = testing::read_file(dir / "a.pte");
  EXPECT_EQ(std::vector<uint8_t>(streamed.begin(), streamed.end()), file);
  EXPECT_EQ(pte_bytes(emitted), file);
  const PteLayout layout = layout_pte(emitted);
  EXPECT_EQ(layout.file_size(), file.size());
  EXPECT_EQ(layout.segment_data_size, 20u);
  EXPECT_EQ(count_entries(dir), 1u);  // no temporary file left behind
}

TEST(PteWriter, MissingDirectoryThrowsAndLeavesNothing) {
  const EmittedProgram emitted = program_with_constants(5);
  const auto dir = testing::temp_dir("missing");
  const std::string path = (dir / "no_such_dir" / "out.pte").string();
  try {
    write_pte(emitted, path);
    FAIL();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::AccessFailed);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(count_entries(dir), 0u);
}

TEST(PteWriter, RenameFailureLeavesTargetAndNoTemporary) {
  const EmittedProgram emitted = program_with_constants(5);
  const auto dir = testing::temp_dir("rename");
  std::filesystem::create_directories(dir / "target.pte" / "inside");  // a non-empty directory
  EXPECT_THROW(write_pte(emitted, (dir / "target.pte").string()), Exception);
  EXPECT_TRUE(std::filesystem::is_directory(dir / "target.pte" / "inside"));
  EXPECT_EQ(count_entries(dir), 1u);
}

TEST(PteWriter, WriteFailureLeavesAnExistingFileUntouched) {
  // A file-size limit makes write() fail part-way (EFBIG) for any user, root included.
  const EmittedProgram emitted = program_with_constants(4096);  // 16 KiB of constants
  const auto dir = testing::temp_dir("efbig");
  const auto path = dir / "model.pte";
  { std::ofstream(path) << "previous contents"; }
  struct rlimit old_limit {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = old_limit;
  limit.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  bool threw = false;
  try {
    write_pte(emitted, path.string());
  } catch (const Exception& e) {
    threw = true;
    EXPECT_EQ(e.code(), Error::AccessFailed);
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "previous contents");
  EXPECT_EQ(count_entries(dir), 1u);
}

TEST(PteWriter, FailingStreamThrows) {
  const EmittedProgram emitted = program_with_constants(5);
  std::ostringstream os;
  os.setstate(std::ios::badbit);
  EXPECT_THROW(write_pte(emitted, os), Exception);
}

}  // namespace
}  // namespace ptec::emit
