// Models of opsets 18-25 (newer than Debian's libonnx knows): each operator takes the schema of
// the newest version at or below the model's opset (op_versions.h), libonnx's checker runs with
// permissive schemas where its own are older (newer_opsets.h), and the newer operators and
// attributes map or fail with an error that names them. Numerics: tests/conformance's
// newer_opsets folders.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/onnx/op_registry.h"
#include "frontends/onnx/op_versions.h"
#include "frontends/onnx/test/test_util.h"

namespace ptec::onnx_import::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(OnnxNewerOpsets, SchemaVersionIsTheNewestAtOrBelowTheOpset) {
  EXPECT_EQ(schema_version("Conv", 13), 11);
  EXPECT_EQ(schema_version("Conv", 21), 11);
  EXPECT_EQ(schema_version("Conv", 22), 22);
  EXPECT_EQ(schema_version("Conv", kNewestOpset), 22);
  EXPECT_EQ(schema_version("Conv", kNewestOpset + 1), -1);
  EXPECT_EQ(schema_version("Resize", 18), 18);
  EXPECT_EQ(schema_version("Resize", 20), 19);
  EXPECT_EQ(schema_version("GroupNormalization", 17), -1);  // not defined before 18
  EXPECT_EQ(schema_version("GroupNormalization", 20), 18);
  EXPECT_EQ(schema_version("NoSuchOperator", 18), -1);
}

TEST(OnnxNewerOpsets, TheTableEntryIsChosenBySchemaVersion) {
  const OpEntry* conv = find_entry("Conv", 21);  // Conv-11
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->op_type, "Conv");
  const OpEntry* resize = find_entry("Resize", 25);  // Resize-19
  ASSERT_NE(resize, nullptr);
  EXPECT_LE(resize->min_opset, 19);
  EXPECT_GE(resize->max_opset, 19);
  EXPECT_EQ(find_entry("Attention", 23), nullptr);  // a newer operator ptec does not map
  EXPECT_EQ(find_entry("Conv", kNewestOpset + 1), nullptr);
}

TEST(OnnxNewerOpsets, Opset21ModelOfIrVersion10Imports) {
  ModelBuilder b(21);
  b.model().set_ir_version(10);  // newer than libonnx's checker (8)
  b.input("x", {1, 3, 4, 4}).output("y", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
  b.init_float("w", {2, 3, 3, 3}, std::vector<float>(54, 0.5f));
  auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
  set_attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(calls(p), (std::vector<std::string>{"aten::convolution", "aten::relu"}));
  EXPECT_EQ(out_sizes(p), (std::vector<int64_t>{1, 2, 4, 4}));
}

TEST(OnnxNewerOpsets, ChangedSchemaIsNotCheckedAgainstLibonnxsOlderOne) {
  // ReduceMean-18 takes its axes as an input; libonnx's ReduceMean-13 allows one input.
  ModelBuilder b(18);
  b.input("x", {2, 3, 4}).output("y", onnx::TensorProto::FLOAT, {2, 1, 4});
  b.init_int64("axes", {1}, {1});
  b.node("ReduceMean", {"x", "axes"}, {"y"}, "mean");
  const ir::ExportedProgram p = import(b);
  const ir::Node* mean = first_call(p, "aten::mean.dim");
  ASSERT_NE(mean, nullptr);
  EXPECT_EQ(mean->arg("dim").to_int_vector(), (std::vector<int64_t>{1}));
  EXPECT_EQ(out_sizes(p), (std::vector<int64_t>{2, 1, 4}));
}

TEST(OnnxNewerOpsets, TheCheckerStillRunsOnNewerModels) {
  ModelBuilder b(21);
  b.input("x", {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  b.node("Relu", {"undefined_value"}, {"y"}, "relu");
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::InvalidProgram);
  EXPECT_THAT(e.what(), StartsWith("test.onnx: checker: "));
}

TEST(OnnxNewerOpsets, AnOpsetNewerThanPtecKnowsIsNamed) {
  ModelBuilder b(kNewestOpset + 1);
  b.input("x", {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  b.node("Relu", {"x"}, {"y"}, "relu");
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_EQ(std::string(e.what()),
            "test.onnx: opset 26 of the default domain is newer than this importer knows "
            "(opsets 1-25)");
}

TEST(OnnxNewerOpsets, UnmappedNewerOperatorsAreListed) {
  ModelBuilder b(23);
  b.input("x", {1, 2, 3, 4}).output("y", onnx::TensorProto::FLOAT, {1, 2, 3, 4});
  b.init_float("c", {3, 2}, std::vector<float>(6, 1.0f));
  b.init_float("s", {3, 2}, std::vector<float>(6, 0.0f));
  b.node("RotaryEmbedding", {"x", "c", "s"}, {"y"}, "rope");
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_THAT(e.what(), HasSubstr("RotaryEmbedding (opset 23) at nodes [rope]"));
}

TEST(OnnxNewerOpsets, GroupNormalization18RepeatsPerGroupScales) {
  ModelBuilder b(18);
  b.input("x", {2, 6, 3}).output("y", onnx::TensorProto::FLOAT, {2, 6, 3});
  b.init_float("s", {3}, {1.0f, 2.0f, 3.0f});
  b.init_float("b", {3}, {0.0f, 0.5f, 1.0f});
  auto& gn = b.node("GroupNormalization", {"x", "s", "b"}, {"y"}, "gn");
  set_attr(gn, "num_groups", int64_t{3});
  const ir::ExportedProgram p = import(b);
  const ir::Node* norm = first_call(p, "aten::native_group_norm");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->arg("group").as_int(), 3);
  EXPECT_EQ(norm->arg("C").as_int(), 6);
  EXPECT_EQ(norm->arg("HxW").as_int(), 3);
  EXPECT_NE(first_call(p, "aten::expand_copy"), nullptr);  // [3] -> [3, 2] -> [6]
}

TEST(OnnxNewerOpsets, GroupNormalizationChecksItsGroupsAndScales) {
  ModelBuilder b(21);
  b.input("x", {1, 6, 2}).output("y", onnx::TensorProto::FLOAT, {1, 6, 2});
  b.init_float("s", {3}, std::vector<float>(3, 1.0f));  // per group: version 18's layout
  b.init_float("b", {3}, std::vector<float>(3, 0.0f));
  auto& gn = b.node("GroupNormalization", {"x", "s", "b"}, {"y"}, "gn");
  set_attr(gn, "num_groups", int64_t{3});
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::InvalidArgument);
  EXPECT_THAT(e.what(), HasSubstr("input 1 has sizes [3]; expected [6] (one per channel)"));
  ModelBuilder c(21);
  c.input("x", {1, 6, 2}).output("y", onnx::TensorProto::FLOAT, {1, 6, 2});
  c.init_float("s", {6}, std::vector<float>(6, 1.0f));
  c.init_float("b", {6}, std::vector<float>(6, 0.0f));
  auto& gn4 = c.node("GroupNormalization", {"x", "s", "b"}, {"y"}, "gn");
  set_attr(gn4, "num_groups", int64_t{4});
  const Exception e2 = expect_error([&] { import(c); });
  EXPECT_THAT(e2.what(), HasSubstr("num_groups 4 does not divide the 6 channels"));
}

TEST(OnnxNewerOpsets, PadWrapModeIsRefusedByName) {
  ModelBuilder b(19);
  b.input("x", {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 5});
  b.init_int64("pads", {4}, {0, 1, 0, 1});
  auto& pad = b.node("Pad", {"x", "pads"}, {"y"}, "pad");
  set_attr(pad, "mode", std::string("wrap"));
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_THAT(e.what(), HasSubstr("(Pad, opset 19): mode 'wrap' is not supported"));
}

TEST(OnnxNewerOpsets, QuantizeLinearOutputDtypeMustMatchItsZeroPoint) {
  ModelBuilder b(21);
  b.input("x", {4}).output("y", onnx::TensorProto::UINT8, {4});
  b.init_float("scale", {}, {0.1f});
  onnx::TensorProto& zp = *b.graph().add_initializer();
  zp.set_name("zp");
  zp.set_data_type(onnx::TensorProto::UINT8);
  zp.add_int32_data(3);
  auto& q = b.node("QuantizeLinear", {"x", "scale", "zp"}, {"y"}, "q");
  set_attr(q, "output_dtype", int64_t{onnx::TensorProto::INT8});
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::InvalidArgument);
  EXPECT_THAT(e.what(), HasSubstr("output_dtype i8 differs from y_zero_point's type u8"));
}

TEST(OnnxNewerOpsets, ResizeAxesAndAspectRatioGiveTheOutputSizes) {
  ModelBuilder b(18);
  b.input("x", {1, 2, 4, 6}).output("y", onnx::TensorProto::FLOAT, {1, 2, 5, 8});
  b.init_int64("sizes", {2}, {8, 8});
  auto& r = b.node("Resize", {"x", "", "", "sizes"}, {"y"}, "resize");
  set_attr(r, "mode", std::string("linear"));
  set_attr(r, "axes", std::vector<int64_t>{2, 3});
  set_attr(r, "keep_aspect_ratio_policy", std::string("not_larger"));
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(out_sizes(p), (std::vector<int64_t>{1, 2, 5, 8}));  // scale min(8/4, 8/6) = 4/3
  ModelBuilder c(18);
  c.input("x", {1, 2, 4, 6}).output("y", onnx::TensorProto::FLOAT, {1, 2, 8, 6});
  c.init_int64("sizes", {2}, {8, 6});
  auto& r2 = c.node("Resize", {"x", "", "", "sizes"}, {"y"}, "resize");
  set_attr(r2, "axes", std::vector<int64_t>{2});
  const Exception e = expect_error([&] { import(c); });
  EXPECT_EQ(e.code(), Error::InvalidArgument);
  EXPECT_THAT(e.what(), HasSubstr("sizes has 2 values for 1 axes"));
}

}  // namespace
}  // namespace ptec::onnx_import::testing
