// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, ConvInteger,
// QLinearMatMul and QLinearConv: the calls the importer emits, their arguments, output dtypes and
// shapes, and the errors for unsupported types. (Values: the ONNX backend tests in the
// conformance runner.)

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/test/test_util.h"

namespace ptec::onnx_import::testing {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using V = std::vector<int64_t>;
constexpr int32_t kU8 = onnx::TensorProto::UINT8;
constexpr int32_t kI8 = onnx::TensorProto::INT8;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;

Exception import_error(ModelBuilder& b) {
  try {
    import(b);
  } catch (const Exception& e) {
    return e;
  }
  ADD_FAILURE() << "no ptec::Exception";
  return Exception(Error::Ok, "");
}

DType out_dtype(const ir::ExportedProgram& p, size_t i = 0) {
  return p.graph().outputs().at(i)->spec().dtype;
}

TEST(OnnxImportQuantize, QuantizeLinearPerAxisDividesRoundsAndSaturates) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 2, 2}).input("s", {3}).input("zp", {3}, kI8).output("y", kI8);
  b.node("QuantizeLinear", {"x", "s", "zp"}, {"y"});
  const ir::ExportedProgram p = import(b);
  const std::vector<std::string> c = calls(p);
  EXPECT_THAT(c, Contains("aten::div.Tensor"));
  EXPECT_THAT(c, Contains("aten::round"));
  EXPECT_THAT(c, Not(Contains("quantized_decomposed::quantize_per_tensor.tensor")));
  // The scale and zero point are viewed along axis 1.
  EXPECT_EQ(first_call(p, "aten::view_copy")->arg("size").to_int_vector(), (V{1, 3, 1, 1}));
  const ir::Node* clamp = first_call(p, "aten::clamp");
  ASSERT_NE(clamp, nullptr);
  EXPECT_EQ(clamp->arg("min").as_double(), -128.0);
  EXPECT_EQ(clamp->arg("max").as_double(), 127.0);
  EXPECT_EQ(out_dtype(p), DType::Char);
  EXPECT_EQ(out_sizes(p), (V{1, 3, 2, 2}));
}

TEST(OnnxImportQuantize, QuantizeLinearWithoutZeroPointIsUint8) {
  ModelBuilder b(10);
  b.input("x", {4}).input("s", {}).output("y", kU8);
  b.node("QuantizeLinear", {"x", "s"}, {"y"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::div.Tensor", "aten::round", "aten::clamp", "aten::_to_copy"));
  EXPECT_EQ(first_call(p, "aten::clamp")->arg("max").as_double(), 255.0);
  EXPECT_EQ(out_dtype(p), DType::Byte);
}

TEST(OnnxImportQuantize, DequantizeLinearPerTensorAndPerAxis) {
  {
    ModelBuilder b(13);
    b.input("x", {4}, kU8).input("s", {}).output("y");
    b.node("DequantizeLinear", {"x", "s"}, {"y"});
    const ir::ExportedProgram p = import(b);
    const ir::Node* dq = first_call(p, "quantized_decomposed::dequantize_per_tensor.tensor");
    ASSERT_NE(dq, nullptr);
    EXPECT_EQ(dq->arg("quant_min").as_int(), 0);
    EXPECT_EQ(dq->arg("quant_max").as_int(), 255);
    EXPECT_EQ(dq->arg("dtype").as_dtype(), DType::Byte);
    EXPECT_EQ(dq->arg("scale").as_node()->spec().dtype, DType::Double);
    // No zero point: a Long zero constant.
    EXPECT_EQ(dq->arg("zero_point").as_node()->spec().dtype, DType::Long);
    EXPECT_EQ(out_dtype(p), DType::Float);
  }
  {
    ModelBuilder b(13);
    b.input("x", {2, 3, 4}, kI8).input("s", {4}).input("zp", {4}, kI8).output("y");
    set_attr(b.node("DequantizeLinear", {"x", "s", "zp"}, {"y"}), "axis", int64_t{-1});
    const ir::ExportedProgram p = import(b);
    const ir::Node* dq = first_call(p, "quantized_decomposed::dequantize_per_channel");
    ASSERT_NE(dq, nullptr);
    EXPECT_EQ(dq->arg("axis").as_int(), 2);
    EXPECT_EQ(dq->arg("quant_min").as_int(), -128);
    EXPECT_EQ(dq->arg("zero_points").as_node()->spec().dtype, DType::Long);
    EXPECT_EQ(out_sizes(p), (V{2, 3, 4}));
  }
}

TEST(OnnxImportQuantize, DynamicQuantizeLinearUsesOnnxFormulas) {
  ModelBuilder b(11);
  b.input("x", {2, 3}).output("y", kU8).output("s", kF32).output("zp", kU8);
  b.node("DynamicQuantizeLinear", {"x"}, {"y", "s", "zp"});
  const ir::ExportedProgram p = import(b);
  const std::vector<std::string> c = calls(p);
  EXPECT_THAT(c, Contains("aten::amin"));
  EXPECT_THAT(c, Contains("aten::amax"));
  EXPECT_THAT(c, Not(Contains("quantized_decomposed::choose_qparams.tensor")));
  EXPECT_EQ(first_call(p, "aten::div.Scalar")->arg("other").as_double(), 255.0);
  // A zero range gets scale 1.
  EXPECT_EQ(first_call(p, "aten::eq.Scalar")->arg("other").as_double(), 0.0);
  EXPECT_THAT(c, Contains("aten::where.self"));
  EXPECT_EQ(out_dtype(p, 0), DType::Byte);
  EXPECT_EQ(out_dtype(p, 1), DType::Float);
  EXPECT_EQ(out_dtype(p, 2), DType::Byte);
  EXPECT_EQ(out_sizes(p, 1), V{});
  EXPECT_EQ(out_sizes(p, 2), V{});
}

TEST(OnnxImportQuantize, MatMulIntegerComputesInDoubleAndReturnsInt32) {
  ModelBuilder b(10);
  b.input("a", {4, 3}, kU8)
      .input("b", {3, 2}, kI8)
      .input("azp", {4}, kU8)
      .output("y", onnx::TensorProto::INT32);
  b.node("MatMulInteger", {"a", "b", "azp"}, {"y"});
  const ir::ExportedProgram p = import(b);
  const ir::Node* mm = first_call(p, "aten::mm");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->spec().dtype, DType::Double);
  // The per-row zero point of A is viewed [4, 1].
  EXPECT_EQ(first_call(p, "aten::view_copy")->arg("size").to_int_vector(), (V{4, 1}));
  EXPECT_EQ(out_dtype(p), DType::Int);
  EXPECT_EQ(out_sizes(p), (V{4, 2}));
}

TEST(OnnxImportQuantize, ConvIntegerPadsAfterRemovingTheZeroPoint) {
  ModelBuilder b(10);
  b.input("x", {1, 1, 3, 3}, kU8).input("w", {2, 1, 2, 2}, kU8).input("xzp", {}, kU8);
  b.input("wzp", {2}, kU8).output("y", onnx::TensorProto::INT32);
  set_attr(b.node("ConvInteger", {"x", "w", "xzp", "wzp"}, {"y"}), "pads", V{1, 1, 1, 1});
  const ir::ExportedProgram p = import(b);
  const ir::Node* conv = first_call(p, "aten::convolution");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->spec().dtype, DType::Double);
  EXPECT_EQ(conv->arg("padding").to_int_vector(), (V{1, 1}));
  EXPECT_EQ(first_call(p, "aten::view_copy")->arg("size").to_int_vector(), (V{2, 1, 1, 1}));
  EXPECT_EQ(out_dtype(p), DType::Int);
  EXPECT_EQ(out_sizes(p), (V{1, 2, 4, 4}));
}

TEST(OnnxImportQuantize, QLinearConvPerChannelScalesAndBias) {
  ModelBuilder b(10);
  b.input("x", {1, 2, 4, 4}, kU8).input("xs", {}).input("xzp", {}, kU8);
  b.input("w", {3, 2, 1, 1}, kI8).input("ws", {3}).input("wzp", {3}, kI8);
  b.input("ys", {}).input("yzp", {}, kI8).input("bias", {3}, onnx::TensorProto::INT32);
  b.output("y", kI8);
  b.node("QLinearConv", {"x", "xs", "xzp", "w", "ws", "wzp", "ys", "yzp", "bias"}, {"y"});
  const ir::ExportedProgram p = import(b);
  const ir::Node* conv = first_call(p, "aten::convolution");
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE(conv->arg("bias").is_node());
  EXPECT_EQ(conv->arg("bias").as_node()->spec().dtype, DType::Double);
  EXPECT_EQ(first_call(p, "aten::clamp")->arg("min").as_double(), -128.0);
  EXPECT_EQ(out_dtype(p), DType::Char);
  EXPECT_EQ(out_sizes(p), (V{1, 3, 4, 4}));
}

TEST(OnnxImportQuantize, QLinearMatMulBatched) {
  ModelBuilder b(10);
  b.input("a", {2, 2, 4}, kU8).input("as", {1}).input("azp", {1}, kU8);
  b.input("b", {2, 4, 3}, kU8).input("bs", {1}).input("bzp", {1}, kU8);
  b.input("ys", {1}).input("yzp", {1}, kU8).output("y", kU8);
  b.node("QLinearMatMul", {"a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"}, {"y"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), Contains("aten::bmm"));
  EXPECT_EQ(out_dtype(p), DType::Byte);
  EXPECT_EQ(out_sizes(p), (V{2, 2, 3}));
}

TEST(OnnxImportQuantize, UnsupportedTypesAreErrors) {
  {
    ModelBuilder b(13);
    b.input("x", {4})
        .input("s", {})
        .input("zp", {}, onnx::TensorProto::INT16)
        .output("y", onnx::TensorProto::INT16);
    b.node("QuantizeLinear", {"x", "s", "zp"}, {"y"}, "q");
    const Exception e = import_error(b);
    EXPECT_THAT(e.what(), HasSubstr("node 'q' (QuantizeLinear"));
    EXPECT_THAT(e.what(), HasSubstr("only uint8 and int8 are supported"));
  }
  {
    ModelBuilder b(13);
    b.input("x", {4}, kU8).input("s", {}).input("zp", {}, kI8).output("y");
    b.node("DequantizeLinear", {"x", "s", "zp"}, {"y"}, "dq");
    EXPECT_THAT(import_error(b).what(), HasSubstr("x_zero_point has type"));
  }
  {
    ModelBuilder b(13);
    b.input("x", {2, 3}, kU8).input("s", {3}).input("zp", {1}, kU8).output("y");
    b.node("DequantizeLinear", {"x", "s", "zp"}, {"y"}, "dq");
    EXPECT_THAT(import_error(b).what(), HasSubstr("x_zero_point u8[1] and x_scale f32[3] differ"));
  }
}

}  // namespace
}  // namespace ptec::onnx_import::testing
