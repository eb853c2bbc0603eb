#include "frontends/builder/graph_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/exception.h"
#include "ir/op_schema.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace ptec::builder {
namespace {

using ::testing::HasSubstr;

TensorData zeros(DType dtype, const std::vector<int64_t>& sizes) {
  TensorSpec spec(dtype, sizes);
  return TensorData{spec, ir::Buffer::from_vector(std::vector<uint8_t>(spec.nbytes_upper_bound()))};
}

template <typename Fn>
std::pair<Error, std::string> error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Exception& e) {
    return {e.code(), e.what()};
  }
  return {Error::Ok, "<no error>"};
}

TEST(GraphBuilder, BuildsAVerifiedCnn) {
  GraphBuilder b("cnn");
  const SymInt batch = b.symbol("batch", 1, 8);
  const Value x = b.input("x", DType::Float, {batch, 3, 8, 8});
  const TensorData w = zeros(DType::Float, {4, 3, 3, 3});
  const Value weight = b.parameter("conv.weight", w);
  const Value bias = b.parameter("conv.bias", zeros(DType::Float, {4}));
  const Value conv = b.conv2d(x, weight, bias, {1, 1}, {1, 1});
  EXPECT_EQ(conv.spec(), TensorSpec(DType::Float, Shape{batch, 4, 8, 8}));
  const Value r = b.relu(conv);
  const Value m = b.mean(r, {2, 3});
  EXPECT_EQ(m.spec(), TensorSpec(DType::Float, Shape{batch, 4}));
  const Value fc = b.linear(m, b.parameter("fc.weight", zeros(DType::Float, {2, 4})),
                            b.parameter("fc.bias", zeros(DType::Float, {2})));
  b.output({fc});
  const ir::ExportedProgram p = b.build();
  EXPECT_TRUE(ir::verify(p).empty());
  EXPECT_EQ(p.stage(), ir::Stage::Aten);
  ASSERT_EQ(p.provenance().size(), 1u);
  EXPECT_EQ(p.provenance()[0], (ir::ProvenanceStep{"import", "builder: cnn"}));
  // Parameters share the caller's payload.
  EXPECT_EQ(p.state_dict().at("conv.weight").data.get(), w.data.get());
  ASSERT_EQ(p.signature().inputs.size(), 5u);
  EXPECT_EQ(p.signature().inputs[0], (ir::InputSpec{ir::InputKind::UserInput, "x", ""}));
  EXPECT_EQ(p.signature().inputs[1],
            (ir::InputSpec{ir::InputKind::Parameter, "p_conv_weight", "conv.weight"}));
  EXPECT_EQ(p.signature().user_outputs(), std::vector<std::string>{"addmm"});
  EXPECT_EQ(p.range_constraints().count("batch"), 1u);
  // Defaults are materialised: mean.dim's keepdim and dtype.
  const ir::Node& mean = p.graph().get("mean");
  ASSERT_EQ(mean.args().size(), 4u);
  EXPECT_EQ(mean.arg("keepdim"), ir::Argument(false));
  EXPECT_TRUE(mean.arg("dtype").is_none());
}

TEST(GraphBuilder, KeywordArgumentsDefaultsAndScalarForSizedList) {
  GraphBuilder b;
  const Value x = b.input("x", DType::Float, {1, 2, 8, 8});
  const Value y = b.call("aten::add.Tensor", {x, x}, {{"alpha", 2}});
  EXPECT_EQ(y.node()->arg("alpha"), ir::Argument(int64_t{2}));
  const Value pool = b.call("aten::avg_pool2d", {x, 2}, {{"padding", 1}});
  // `2` for int[2] kernel_size means [2, 2]; stride=[] defaults to the kernel.
  EXPECT_EQ(pool.node()->arg("kernel_size"), ir::Argument(std::vector<int64_t>{2, 2}));
  EXPECT_EQ(pool.node()->arg("padding"), ir::Argument(std::vector<int64_t>{1, 1}));
  EXPECT_EQ(pool.spec(), TensorSpec(DType::Float, std::vector<int64_t>{1, 2, 5, 5}));
  // An int for a float argument becomes a float.
  const Value lrelu = b.call("aten::leaky_relu", {x, 1});
  EXPECT_EQ(lrelu.node()->arg("negative_slope"), ir::Argument(int64_t{1}));  // Scalar keeps int
  const std::vector<Value> ln =
      b.call_multi("aten::native_layer_norm", {x, std::vector<int64_t>{8}, nullptr, nullptr, 1});
  EXPECT_EQ(ln[0].node()->arg(0).as_node()->arg("eps"), ir::Argument(1.0));
  b.output({y, pool, lrelu, ln[0]});
  EXPECT_NO_THROW(b.build());
}

TEST(GraphBuilder, MultiOutputOpsReturnGetitemValues) {
  GraphBuilder b;
  const Value x = b.input("x", DType::Float, {1, 2, 8, 8});
  const std::vector<Value> pool =
      b.call_multi("aten::max_pool2d_with_indices", {x, {2, 2}}, {}, "pool");
  ASSERT_EQ(pool.size(), 2u);
  EXPECT_TRUE(pool[0].node()->is_op("getitem"));
  EXPECT_EQ(pool[0].node()->arg(0).as_node()->name(), "pool");
  EXPECT_EQ(pool[1].node()->arg(1), ir::Argument(int64_t{1}));
  EXPECT_EQ(pool[1].dtype(), DType::Long);
  const std::vector<Value> parts =
      b.call_multi("aten::split_with_sizes_copy", {x, std::vector<int64_t>{3, 5}, 3});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].spec(), TensorSpec(DType::Float, std::vector<int64_t>{1, 2, 8, 5}));
  b.output({pool[0], parts[1]});
  EXPECT_NO_THROW(b.build());
  EXPECT_EQ(error_of([&] { b.call("aten::relu", {x}); }).second,
            "GraphBuilder 'graph' has already built its program");
}

TEST(GraphBuilder, SymbolicSizesBecomeSymSizeNodes) {
  GraphBuilder b;
  const SymInt seq = b.symbol("seq", 1, 128);
  const Value ids = b.input("ids", DType::Long, {1, seq});
  const Value mask = b.input("mask", DType::Bool, {1, seq});
  const Value table = b.parameter("emb", zeros(DType::Float, {10, 4}));
  const Value e = b.call("aten::embedding", {table, ids});
  EXPECT_EQ(e.spec(), TensorSpec(DType::Float, Shape{1, seq, 4}));
  const Value v = b.view(e, {seq, 4});
  EXPECT_EQ(v.spec(), TensorSpec(DType::Float, Shape{seq, 4}));
  EXPECT_TRUE(v.node()->arg("size").as_list()[0].as_node()->is_op("aten::sym_size.int"));
  const Value masked =
      b.call("aten::masked_fill.Scalar", {e, b.call("aten::unsqueeze_copy", {mask, 2}), 0.0});
  b.output({v, masked});
  const ir::ExportedProgram p = b.build();
  EXPECT_EQ(p.range_constraints().size(), 1u);
  EXPECT_EQ(p.graph().get("ids").spec().shape[1].symbol(),
            p.graph().get("mask").spec().shape[1].symbol());
}

TEST(GraphBuilder, UnknownOpListsCloseNames) {
  GraphBuilder b;
  const Value x = b.input("x", DType::Float, {2});
  const auto [code, message] = error_of([&] { b.call("aten::reluu", {x}); });
  EXPECT_EQ(code, Error::NotFound);
  EXPECT_EQ(message, "unknown operator 'aten::reluu'; did you mean aten::relu?");
}

TEST(GraphBuilder, WrongArity) {
  GraphBuilder b;
  const Value x = b.input("x", DType::Float, {2});
  auto [code, message] = error_of([&] { b.call("aten::relu", {x, x}); });
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_EQ(message, "aten::relu takes 1 argument (self), got 2");
  std::tie(code, message) = error_of([&] { b.call("aten::mm", {x}); });
  EXPECT_EQ(message, "aten::mm: missing argument 'mat2' (argument 2 of 2: self, mat2)");
}

TEST(GraphBuilder, UnknownAndDuplicateKeywords) {
  GraphBuilder b;
  const Value x = b.input("x", DType::Float, {2});
  EXPECT_EQ(error_of([&] {
              b.call("aten::add.Tensor", {x, x}, {{"alpah", 2}});
            }).second,
            "aten::add.Tensor has no argument 'alpah' (arguments: self, other, alpha)");
  EXPECT_EQ(error_of([&] {
              b.call("aten::add.Tensor", {x, x}, {{"other", x}});
            }).second,
            "aten::add.Tensor: argument 'other' is given twice");
}

TEST(GraphBuilder, WrongArgumentType) {
  GraphBuilder b;
  const Value x = b.input("x", DType::Float, {1, 3, 8, 8});
  EXPECT_EQ(error_of([&] { b.call("aten::relu", {3}); }).second,
            "aten::relu: argument 'self': expected Tensor, got int 3");
  EXPECT_EQ(error_of([&] {
              b.call("aten::sum.dim_IntList", {x, {1}, "yes"});
            }).second,
            "aten::sum.dim_IntList: argument 'keepdim': expected bool, got str \"yes\"");
  EXPECT_EQ(error_of([&] {
              b.call("aten::permute_copy", {x, {0, 1.5, 2, 3}});
            }).second,
            "aten::permute_copy: argument 'dims': item 1 of int[]: expected int, got float 1.5");
}

TEST(GraphBuilder, WrongDtypeFromTheShapeFunction) {
  GraphBuilder b;
  const Value x = b.input("x", DType::Float, {1, 3, 8, 8});
  const Value w = b.parameter("w", zeros(DType::Long, {4, 3, 3, 3}));
  const auto [code, message] = error_of([&] { b.conv2d(x, w); });
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_EQ(message,
            "aten::convolution: argument 'weight': dtype i64 does not match the input's f32");
  const Value i = b.input("i", DType::Int, {4});
  EXPECT_EQ(error_of([&] {
              b.call("aten::mean.dim", {i, {0}});
            }).second,
            "aten::mean.dim: argument 'self': mean needs a floating-point tensor or dtype, got "
            "i32[4]");
}

TEST(GraphBuilder, InputAndSymbolErrors) {
  GraphBuilder b;
  b.symbol("n", 1, 4);
  EXPECT_EQ(error_of([&] { b.symbol("n", 1, 5); }).second,
            "symbol 'n' already exists with range [1, 4], not [1, 5]");
  EXPECT_EQ(error_of([&] { b.symbol("n", 1, 4, 2); }).second,
            "symbol 'n': the bounds of [1, 4] must be multiples of 2");
  EXPECT_EQ(b.symbol("h", 8, 64, 8).symbol()->multiple, 8);
  EXPECT_EQ(error_of([&] { b.symbol("h", 8, 64); }).second,
            "symbol 'h' already exists with range [8, 64], not [8, 64] (multiples of 8, not 1)");
  b.input("x", DType::Float, {2});
  EXPECT_EQ(error_of([&] { b.input("x", DType::Float, {2}); }).second,
            "input 'x': the name is already used");
  EXPECT_THAT(error_of([&] {
                b.parameter("w", DType::Float, {2, 2}, ir::Buffer::copy_of("abc", 3));
              }).second,
              HasSubstr("needs 16 bytes but its buffer holds 3"));
  EXPECT_EQ(error_of([&] { b.build(); }).second,
            "GraphBuilder 'graph': call output() before build()");
}

TEST(GraphBuilder, BuiltProgramsRoundTripThroughTheTextFormat) {
  GraphBuilder b("rt");
  const SymInt batch = b.symbol("batch", 1, 4);
  const Value x = b.input("x", DType::Float, {batch, 3, 8, 8});
  const TensorData w = zeros(DType::Float, {4, 3, 3, 3});
  const Value conv = b.conv2d(x, b.parameter("conv.weight", w), std::nullopt, {2, 2}, {1, 1});
  const std::vector<Value> pool = b.call_multi("aten::max_pool2d_with_indices", {conv, 2});
  const Value flat = b.view(pool[0], {batch, 16});
  const Value sm = b.softmax(b.call("aten::mul.Scalar", {flat, 0.125}), -1);
  b.output({sm, pool[1]});
  const ir::ExportedProgram p = b.build();
  const std::string text = ir::print(p);
  const ir::ExportedProgram parsed = ir::parse(text, {{"conv.weight", w.data}});
  EXPECT_EQ(ir::print(parsed), text);
  EXPECT_TRUE(ir::verify(parsed).empty());
  EXPECT_EQ(parsed.state_dict().at("conv.weight").data.get(), w.data.get());
  EXPECT_EQ(parsed.uuid(), p.uuid());
}

}  // namespace
}  // namespace ptec::builder
