// The --dynamic syntax and the record of dynamic dims that `export` stores in the .pte.

#include "tools/ptec/dynamic_dims.h"

#include <string>

#include <gtest/gtest.h>

#include "ir/exception.h"

namespace ptec::cli {
namespace {

std::string parse_error(const std::string& text) {
  try {
    parse_dynamic_dim(text);
  } catch (const Exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DynamicDims, ParsesASymbolARangeAndAMultiple) {
  onnx_import::DynamicDim d = parse_dynamic_dim("ids:1=seq:1..512");
  EXPECT_EQ(d.input, "ids");
  EXPECT_EQ(d.axis, 1);
  EXPECT_EQ(d.symbol, "seq");
  EXPECT_EQ(d.min, 1);
  EXPECT_EQ(d.max, 512);
  EXPECT_EQ(d.multiple, 1);

  d = parse_dynamic_dim("images:2=h:64..640:32");
  EXPECT_EQ(d.symbol, "h");
  EXPECT_EQ(d.min, 64);
  EXPECT_EQ(d.max, 640);
  EXPECT_EQ(d.multiple, 32);

  d = parse_dynamic_dim("x:0=8..64:8");  // no symbol, a multiple
  EXPECT_EQ(d.symbol, "");
  EXPECT_EQ(d.min, 8);
  EXPECT_EQ(d.max, 64);
  EXPECT_EQ(d.multiple, 8);
}

TEST(DynamicDims, RefusesABadMultiple) {
  EXPECT_NE(parse_error("images:2=h:64..640:0").find("MULTIPLE must be a positive integer"),
            std::string::npos);
  EXPECT_NE(parse_error("images:2=h:64..640:x").find("MULTIPLE must be a positive integer"),
            std::string::npos);
  EXPECT_NE(parse_error("images:2=h:60..640:32").find("MIN and MAX must be multiples of MULTIPLE"),
            std::string::npos);
  EXPECT_NE(parse_error("images:2=h:64..650:32").find("MIN and MAX must be multiples of MULTIPLE"),
            std::string::npos);
}

TEST(DynamicDims, RecordsKeepTheMultiple) {
  const std::vector<DynamicDimRecord> records = {
      {"forward", 0, "images", 2, "h", 64, 640, 32},
      {"forward", 1, "ids", 1, "seq", 1, 512, 1},
  };
  const std::string text = encode_dynamic_dims(records);
  // A dim without a multiple keeps the seven fields of earlier files.
  EXPECT_EQ(text, "forward\t0\timages\t2\th\t64\t640\t32\nforward\t1\tids\t1\tseq\t1\t512\n");
  const std::vector<DynamicDimRecord> back = decode_dynamic_dims(text);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].multiple, 32);
  EXPECT_EQ(back[0].max, 640);
  EXPECT_EQ(back[1].multiple, 1);
  EXPECT_EQ(back[1].symbol, "seq");
  EXPECT_THROW(decode_dynamic_dims("forward\t0\timages\t2\th\t64\t640\t0\n"), Exception);
}

}  // namespace
}  // namespace ptec::cli
