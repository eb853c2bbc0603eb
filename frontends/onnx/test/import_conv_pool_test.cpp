// ConvTranspose (pads, output_shape, auto_pad), 3-D Conv and 3-D MaxPool / AveragePool: the ATen
// calls the importer emits, their arguments and the output shapes (which the importer checks
// against ONNX shape inference).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/test/test_util.h"

namespace ptec::onnx_import::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using V = std::vector<int64_t>;

/// ConvTranspose of x [1, 2, 3, 3] with weight [2, 3, 3, 3] (3 output channels), strides [3, 2].
ModelBuilder conv_transpose_model(int opset = 13) {
  ModelBuilder b(opset);
  b.input("x", {1, 2, 3, 3}).output("y");
  b.init_float("w", {2, 3, 3, 3}, std::vector<float>(54, 0.5f));
  b.init_float("bias", {3}, {1.0f, 2.0f, 3.0f});
  auto& n = b.node("ConvTranspose", {"x", "w", "bias"}, {"y"}, "deconv");
  set_attr(n, "strides", V{3, 2});
  return b;
}

onnx::NodeProto& last_node(ModelBuilder& b) {
  return *b.model().mutable_graph()->mutable_node(b.model().graph().node_size() - 1);
}

Exception import_error(ModelBuilder& b, const OnnxImportOptions& options = {}) {
  try {
    import(b, options);
  } catch (const Exception& e) {
    return e;
  }
  ADD_FAILURE() << "no ptec::Exception";
  return Exception(Error::Ok, "");
}

TEST(OnnxImportConvPool, ConvTransposeSymmetricPadsAndOutputPadding) {
  ModelBuilder b = conv_transpose_model();
  set_attr(last_node(b), "pads", V{1, 0, 1, 0});
  set_attr(last_node(b), "output_padding", V{2, 1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::convolution"));
  const ir::Node* conv = first_call(p, "aten::convolution");
  EXPECT_TRUE(conv->arg("transposed").as_bool());
  EXPECT_EQ(conv->arg("padding").to_int_vector(), (V{1, 0}));
  EXPECT_EQ(conv->arg("output_padding").to_int_vector(), (V{2, 1}));
  EXPECT_EQ(conv->arg("stride").to_int_vector(), (V{3, 2}));
  // H: 3 * 2 + 2 + 3 - 2 = 9; W: 2 * 2 + 1 + 3 = 8.
  EXPECT_EQ(out_sizes(p), (V{1, 3, 9, 8}));
}

TEST(OnnxImportConvPool, ConvTransposeAsymmetricPadsCropTheExcess) {
  ModelBuilder b = conv_transpose_model();
  set_attr(last_node(b), "pads", V{0, 2, 2, 1});  // [h_begin, w_begin, h_end, w_end]
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::convolution", "aten::slice_copy.Tensor",
                                    "aten::slice_copy.Tensor"));
  EXPECT_EQ(first_call(p, "aten::convolution")->arg("padding").to_int_vector(), (V{0, 1}));
  const ir::Node* crop_h = first_call(p, "aten::slice_copy.Tensor");
  // The transposed conv gives H 9 (pad 0): keep [0, 7); W 7 - 2 = 5 (pad 1): keep [1, 5).
  EXPECT_EQ(crop_h->arg("dim").as_int(), 2);
  EXPECT_EQ(crop_h->arg("start").as_int(), 0);
  EXPECT_EQ(crop_h->arg("end").as_int(), 7);
  EXPECT_EQ(out_sizes(p), (V{1, 3, 7, 4}));
}

TEST(OnnxImportConvPool, ConvTransposeOutputShapeSplitsTheTotalPadding) {
  // Full size H 9, W 7; output_shape [6, 6]: total padding 3 and 1. NOTSET (and SAME_LOWER)
  // put the odd element at the beginning: H begin 2, end 1; W begin 1, end 0.
  ModelBuilder b = conv_transpose_model();
  set_attr(last_node(b), "output_shape", V{6, 6});
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(first_call(p, "aten::convolution")->arg("padding").to_int_vector(), (V{1, 0}));
  const ir::Node* crop = first_call(p, "aten::slice_copy.Tensor");
  EXPECT_EQ(crop->arg("dim").as_int(), 2);
  EXPECT_EQ(crop->arg("start").as_int(), 1);
  EXPECT_EQ(crop->arg("end").as_int(), 7);
  EXPECT_EQ(out_sizes(p), (V{1, 3, 6, 6}));
}

TEST(OnnxImportConvPool, ConvTransposeLargerOutputShapeBecomesOutputPadding) {
  ModelBuilder b = conv_transpose_model();
  set_attr(last_node(b), "output_shape", V{10, 8});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::convolution"));
  EXPECT_EQ(first_call(p, "aten::convolution")->arg("output_padding").to_int_vector(), (V{1, 1}));
  EXPECT_EQ(out_sizes(p), (V{1, 3, 10, 8}));
  // output_shape may also name N and C (ONNX shape inference does not take that form).
  ModelBuilder full(13);
  full.input("x", {1, 2, 3, 3}).output("y", onnx::TensorProto::FLOAT, {1, 3, 10, 8});
  full.init_float("w", {2, 3, 3, 3}, std::vector<float>(54, 0.5f));
  auto& n = full.node("ConvTranspose", {"x", "w"}, {"y"});
  set_attr(n, "strides", V{3, 2});
  set_attr(n, "output_shape", V{1, 3, 10, 8});
  OnnxImportOptions options;
  options.check_inferred_shapes = false;
  EXPECT_EQ(out_sizes(import(full, options)), (V{1, 3, 10, 8}));
}

TEST(OnnxImportConvPool, ConvTransposeSameUpperCropsTheEnd) {
  ModelBuilder b = conv_transpose_model();
  set_attr(last_node(b), "auto_pad", std::string("SAME_UPPER"));
  const ir::ExportedProgram p = import(b);
  // Target = input * stride = [9, 6]; full [9, 7]: W total 1 → begin 0, end 1.
  EXPECT_THAT(calls(p), ElementsAre("aten::convolution", "aten::slice_copy.Tensor"));
  const ir::Node* crop = first_call(p, "aten::slice_copy.Tensor");
  EXPECT_EQ(crop->arg("dim").as_int(), 3);
  EXPECT_EQ(crop->arg("start").as_int(), 0);
  EXPECT_EQ(crop->arg("end").as_int(), 6);
  EXPECT_EQ(out_sizes(p), (V{1, 3, 9, 6}));
  ModelBuilder lower = conv_transpose_model();
  set_attr(last_node(lower), "auto_pad", std::string("SAME_LOWER"));
  const ir::ExportedProgram q = import(lower);
  EXPECT_EQ(first_call(q, "aten::slice_copy.Tensor")->arg("start").as_int(), 1);
  EXPECT_EQ(out_sizes(q), (V{1, 3, 9, 6}));
}

TEST(OnnxImportConvPool, ConvTransposeErrors) {
  ModelBuilder big = conv_transpose_model();
  set_attr(last_node(big), "output_shape", V{14, 7});
  const Exception e = import_error(big);
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_THAT(e.what(), HasSubstr("node 'deconv' (ConvTranspose, opset 13): output_shape 14 "
                                  "exceeds the computed size 9 by 5"));
  ModelBuilder pads(13);
  pads.input("x", {1, 2, 3, 3}).output("y", onnx::TensorProto::FLOAT, {1, 3, 9, 7});
  pads.init_float("w", {2, 3, 3, 3}, std::vector<float>(54, 0.5f));
  set_attr(pads.node("ConvTranspose", {"x", "w"}, {"y"}, "deconv"), "pads", V{1, 1});
  OnnxImportOptions options;
  options.check_inferred_shapes = false;
  EXPECT_THAT(import_error(pads, options).what(),
              HasSubstr("pads has 2 values; 2 spatial dims need 4"));
}

TEST(OnnxImportConvPool, Conv3dAndConvTranspose3d) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 4, 5, 6}).output("y").output("t");
  b.init_float("w", {4, 1, 3, 3, 3}, std::vector<float>(108, 0.1f));
  auto& conv = b.node("Conv", {"x", "w"}, {"y"}, "conv3d");
  set_attr(conv, "group", int64_t{2});
  set_attr(conv, "pads", V{1, 0, 1, 1, 0, 1});
  b.init_float("wt", {2, 3, 2, 2, 2}, std::vector<float>(48, 0.1f));
  auto& deconv = b.node("ConvTranspose", {"x", "wt"}, {"t"}, "deconv3d");
  set_attr(deconv, "strides", V{2, 1, 2});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::convolution", "aten::convolution"));
  EXPECT_EQ(first_call(p, "aten::convolution")->arg("padding").to_int_vector(), (V{1, 0, 1}));
  EXPECT_EQ(out_sizes(p, 0), (V{1, 4, 4, 3, 6}));
  EXPECT_EQ(out_sizes(p, 1), (V{1, 3, 8, 6, 12}));
}

TEST(OnnxImportConvPool, Pool3d) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 5, 6, 7}).output("m").output("a");
  auto& mp = b.node("MaxPool", {"x"}, {"m"}, "maxpool3d");
  set_attr(mp, "kernel_shape", V{3, 2, 2});
  set_attr(mp, "strides", V{2, 2, 2});
  set_attr(mp, "pads", V{1, 0, 0, 1, 0, 0});
  set_attr(mp, "ceil_mode", int64_t{1});
  auto& ap = b.node("AveragePool", {"x"}, {"a"}, "avgpool3d");
  set_attr(ap, "kernel_shape", V{2, 2, 2});
  set_attr(ap, "count_include_pad", int64_t{1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::max_pool3d_with_indices", "getitem", "aten::avg_pool3d"));
  const ir::Node* mpool = first_call(p, "aten::max_pool3d_with_indices");
  EXPECT_EQ(mpool->arg("padding").to_int_vector(), (V{1, 0, 0}));
  EXPECT_TRUE(mpool->arg("ceil_mode").as_bool());
  EXPECT_TRUE(first_call(p, "aten::avg_pool3d")->arg("count_include_pad").as_bool());
  EXPECT_EQ(out_sizes(p, 0), (V{1, 2, 3, 3, 4}));
  EXPECT_EQ(out_sizes(p, 1), (V{1, 2, 4, 5, 6}));
}

TEST(OnnxImportConvPool, Pool3dPadsBeyondAtenBecomeConstantPad) {
  ModelBuilder b(13);
  b.input("x", {1, 1, 4, 4, 4}).output("m");
  auto& mp = b.node("MaxPool", {"x"}, {"m"});
  set_attr(mp, "kernel_shape", V{2, 2, 2});
  set_attr(mp, "pads", V{0, 1, 0, 1, 0, 0});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::constant_pad_nd", "aten::max_pool3d_with_indices", "getitem"));
  EXPECT_EQ(first_call(p, "aten::constant_pad_nd")->arg("pad").to_int_vector(),
            (V{0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(out_sizes(p), (V{1, 1, 4, 4, 3}));
  ModelBuilder avg(13);
  avg.input("x", {1, 1, 4, 4, 4}).output("a");
  auto& ap = avg.node("AveragePool", {"x"}, {"a"}, "avg");
  set_attr(ap, "kernel_shape", V{2, 2, 2});
  set_attr(ap, "auto_pad", std::string("SAME_UPPER"));
  set_attr(ap, "strides", V{1, 1, 1});
  const Exception e = import_error(avg);
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_THAT(e.what(), HasSubstr("cannot be expressed by avg_pool3d with count_include_pad=0"));
}

}  // namespace
}  // namespace ptec::onnx_import::testing
