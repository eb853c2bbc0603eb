#pragma once

// Test helpers: decode a .pte independently of ptec's own code, with flatc.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ptec::emit::testing {

/// A fresh empty directory under the test's temp dir.
inline std::filesystem::path temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ptec_emit_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Decodes `pte` with `flatc --json --strict-json --raw-binary --defaults-json` and the schema
/// in schema/program.fbs. The root offset at byte 0 already accounts for an extended header.
inline nlohmann::json decode(const std::filesystem::path& pte) {
  const auto out = pte.parent_path() / "json";
  std::filesystem::create_directories(out);
  const std::string cmd = "flatc --json --strict-json --raw-binary --defaults-json -o '" +
                          out.string() + "' '" + PTEC_SOURCE_DIR + "/schema/program.fbs' -- '" +
                          pte.string() + "' 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / (pte.stem().string() + ".json"));
  return nlohmann::json::parse(in);
}

inline uint64_t read_u64(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b.at(at + static_cast<size_t>(i));
  return v;
}
inline uint32_t read_u32(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<uint32_t>(read_u64(
      std::vector<uint8_t>{b.at(at), b.at(at + 1), b.at(at + 2), b.at(at + 3), 0, 0, 0, 0}, 0));
}

}  // namespace ptec::emit::testing
