// Shape values computed from dynamic dims (frontends/onnx/sym_shape.cpp) beyond Reshape: the
// ConstantOfShape, Range and Expand patterns of decoder exports; and dims that depend on the
// data (NonZero, Compress with a run-time condition), and ReverseSequence with run-time lengths.
// Each graph is imported, lowered, emitted once and run with the portable kernels at several
// sizes or inputs.

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontends/onnx/test/run_util.h"

namespace ptec::onnx_import::testing {
namespace {

OnnxImportOptions seq_dynamic() {
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"x", 1, "seq", 1, 8});
  return options;
}

/// One program for `b` with x's axis 1 dynamic in [1, 8]; run(seq) feeds x = [1, seq] holding
/// 0, 1, 2, ... and returns output 0.
class SymbolicProgram {
 public:
  explicit SymbolicProgram(ModelBuilder& b) : program_(b, seq_dynamic()) {}
  std::pair<std::vector<int32_t>, std::vector<float>> run(int32_t seq) {
    std::vector<float> x(static_cast<size_t>(seq));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {1, seq}, x));
    std::vector<PortableProgram::Output> out = program_.run(inputs);
    if (out.empty()) return {};
    return {out[0].sizes, out[0].values};
  }

 private:
  PortableProgram program_;
};

/// ConstantOfShape's `value` attribute: a one-element tensor.
void set_value(onnx::NodeProto& n, int32_t type, double v) {
  auto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* t = a->mutable_t();
  t->set_data_type(type);
  t->add_dims(1);
  if (type == onnx::TensorProto::FLOAT) {
    t->add_float_data(static_cast<float>(v));
  } else {
    t->add_int64_data(static_cast<int64_t>(v));
  }
}

/// s = Shape(x)[1] as a scalar ("s") and as a 1-D value ("s1").
void seq_of_x(ModelBuilder& b) {
  b.input("x", {1, std::string("seq")});
  b.node("Shape", {"x"}, {"x_shape"});
  b.init_int64("one", {}, {1});
  b.node("Gather", {"x_shape", "one"}, {"s"});
  b.init_int64("axes0", {1}, {0});
  b.node("Unsqueeze", {"s", "axes0"}, {"s1"});
}

// A causal mask: ConstantOfShape([seq, seq]) then Trilu, as torch.full((s, s), v).triu(1)
// exports.
TEST(SymbolicShape, ConstantOfShapeTakesTheDynamicDims) {
  ModelBuilder b(14);
  seq_of_x(b);
  set_attr(b.node("Concat", {"s1", "s1"}, {"ss"}), "axis", int64_t{0});
  set_value(b.node("ConstantOfShape", {"ss"}, {"full"}), onnx::TensorProto::FLOAT, 2.5);
  set_attr(b.node("Trilu", {"full", "one"}, {"y"}), "upper", int64_t{1});
  b.output("y", onnx::TensorProto::FLOAT, {std::string("seq"), std::string("seq")});
  SymbolicProgram p(b);
  for (int32_t n : {1, 3, 8}) {
    const auto [sizes, values] = p.run(n);
    ASSERT_EQ(sizes, (std::vector<int32_t>{static_cast<int32_t>(n), static_cast<int32_t>(n)}));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_EQ(values[static_cast<size_t>(i * n + j)], j > i ? 2.5f : 0.0f) << i << "," << j;
      }
    }
  }
}

// Position ids: Range(0, seq, 1), added to x.
TEST(SymbolicShape, RangeUpToADynamicDim) {
  ModelBuilder b(14);
  seq_of_x(b);
  b.init_int64("zero", {}, {0});
  b.node("Range", {"zero", "s", "one"}, {"pos"});
  set_attr(b.node("Cast", {"pos"}, {"posf"}), "to", int64_t{onnx::TensorProto::FLOAT});
  b.node("Add", {"x", "posf"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {1, std::string("seq")});
  SymbolicProgram p(b);
  for (int32_t n : {1, 5, 8}) {
    const auto [sizes, values] = p.run(n);
    ASSERT_EQ(sizes, (std::vector<int32_t>{1, static_cast<int32_t>(n)}));
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(values[static_cast<size_t>(i)], 2.0f * i);
  }
}

// torch's export of x.expand(2, 1, seq): the target shape goes through Reshape([-1]), Shape,
// ConstantOfShape, Mul(-1), Equal and Where before Expand.
TEST(SymbolicShape, ExpandThroughEqualAndWhere) {
  ModelBuilder b(14);
  seq_of_x(b);
  b.init_int64("two", {1}, {2});
  b.init_int64("one1", {1}, {1});
  onnx::NodeProto& cat = b.node("Concat", {"two", "one1", "s1"}, {"target"});
  set_attr(cat, "axis", int64_t{0});
  b.init_int64("minus1", {1}, {-1});
  b.node("Reshape", {"target", "minus1"}, {"flat"});
  b.node("Shape", {"flat"}, {"flat_shape"});
  set_value(b.node("ConstantOfShape", {"flat_shape"}, {"ones"}), onnx::TensorProto::INT64, 1);
  b.init_int64("m1", {}, {-1});
  b.node("Mul", {"ones", "m1"}, {"neg"});
  b.node("Equal", {"flat", "neg"}, {"is_neg"});
  b.node("Where", {"is_neg", "ones", "flat"}, {"shape"});
  b.init_int64("axes01", {1}, {0});
  b.node("Unsqueeze", {"x", "axes01"}, {"x3"});
  b.node("Expand", {"x3", "shape"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {2, 1, std::string("seq")});
  SymbolicProgram p(b);
  for (int32_t n : {2, 6}) {
    const auto [sizes, values] = p.run(n);
    ASSERT_EQ(sizes, (std::vector<int32_t>{2, 1, static_cast<int32_t>(n)}));
    for (int64_t r = 0; r < 2; ++r) {
      for (int64_t i = 0; i < n; ++i) EXPECT_EQ(values[static_cast<size_t>(r * n + i)], i);
    }
  }
}

/// Output 0 of `program` run on x = f32[2, 3] holding `values`.
PortableProgram::Output run_2x3(PortableProgram& program, const std::vector<float>& values) {
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {2, 3}, values));
  std::vector<PortableProgram::Output> out = program.run(inputs);
  return out.empty() ? PortableProgram::Output{} : out[0];
}

// x[x > 0]: the count is known only at run time (planned at its upper bound, 6); one program serves
// inputs with 0 to 6 positives.
TEST(SymbolicShape, NonZeroCountIsDataDependent) {
  ModelBuilder b(13);
  positives_of_x(b, "y");
  b.output("y", onnx::TensorProto::FLOAT, {std::string("n")});
  PortableProgram p(b);
  const PortableProgram::Output some = run_2x3(p, {1, -2, 3, -4, 0, 6});
  EXPECT_EQ(some.sizes, (std::vector<int32_t>{3}));
  EXPECT_EQ(some.values, (std::vector<float>{1, 3, 6}));
  const PortableProgram::Output all = run_2x3(p, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(all.sizes, (std::vector<int32_t>{6}));
  const PortableProgram::Output none = run_2x3(p, {0, -1, 0, -1, 0, -1});
  EXPECT_EQ(none.sizes, (std::vector<int32_t>{0}));
}

// Compress with a condition computed at run time: the rows of x whose sum is positive.
TEST(SymbolicShape, CompressWithARunTimeCondition) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.init_int64("axes", {1}, {1});
  set_attr(b.node("ReduceSum", {"x", "axes"}, {"sums"}), "keepdims", int64_t{0});
  b.init_float("zero", {}, {0.0f});
  b.node("Greater", {"sums", "zero"}, {"keep"});
  set_attr(b.node("Compress", {"x", "keep"}, {"y"}), "axis", int64_t{0});
  b.output("y", onnx::TensorProto::FLOAT, {std::string("n"), 3});
  PortableProgram p(b);
  const PortableProgram::Output second = run_2x3(p, {1, -2, 0, 4, 5, 6});
  EXPECT_EQ(second.sizes, (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(second.values, (std::vector<float>{4, 5, 6}));
  const PortableProgram::Output both = run_2x3(p, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(both.sizes, (std::vector<int32_t>{2, 3}));
}

// torchvision's pre-NMS top-k: k = min(count, limit) of a count only the data decides
// (NonZero -> Shape -> Concat with the limit -> ReduceMin -> TopK), then the two heads'
// candidates concatenated: a count in [0, 2 k]. With limit 2 and the positives of x:
// k = min(n, 2) values, largest first, twice.
void top_k_of_positives(ModelBuilder& b, int64_t limit) {
  positives_of_x(b, "pos");
  b.node("Shape", {"pos"}, {"pos_shape"});
  b.init_int64("limit", {1}, {limit});
  set_attr(b.node("Concat", {"pos_shape", "limit"}, {"both"}), "axis", int64_t{0});
  set_attr(b.node("ReduceMin", {"both"}, {"k_scalar"}), "keepdims", int64_t{0});
  b.init_int64("one", {1}, {1});
  b.node("Reshape", {"k_scalar", "one"}, {"k"});
  b.node("TopK", {"pos", "k"}, {"top", "top_idx"});
  set_attr(b.node("Concat", {"top", "top"}, {"y"}), "axis", int64_t{0});
  b.output("y", onnx::TensorProto::FLOAT, {std::string("m")});
}

TEST(SymbolicShape, TopKOfARunTimeMinimumOfCounts) {
  ModelBuilder b(13);
  top_k_of_positives(b, 2);
  PortableProgram p(b);
  const PortableProgram::Output three = run_2x3(p, {1, -2, 3, -4, 0, 6});
  EXPECT_EQ(three.sizes, (std::vector<int32_t>{4}));
  EXPECT_EQ(three.values, (std::vector<float>{6, 3, 6, 3}));
  const PortableProgram::Output one = run_2x3(p, {-1, -2, 5, -4, 0, -6});
  EXPECT_EQ(one.sizes, (std::vector<int32_t>{2}));
  EXPECT_EQ(one.values, (std::vector<float>{5, 5}));
  const PortableProgram::Output none = run_2x3(p, {0, -1, 0, -1, 0, -1});
  EXPECT_EQ(none.sizes, (std::vector<int32_t>{0}));
}

// Where the bounds decide the minimum (at most 6 positives, limit 10), k is the count itself:
// no sym_min node, and TopK keeps every positive.
TEST(SymbolicShape, MinimumDecidedByBoundsFoldsAtImport) {
  ModelBuilder imported(13);
  top_k_of_positives(imported, 10);
  const ir::ExportedProgram ep = import(imported);
  for (const ir::Node* n : ep.graph().nodes()) {
    EXPECT_FALSE(n->is_op("executorch_prim::sym_min.Scalar")) << n->name();
  }
  ModelBuilder b(13);
  top_k_of_positives(b, 10);
  PortableProgram p(b);
  const PortableProgram::Output three = run_2x3(p, {1, -2, 3, -4, 0, 6});
  EXPECT_EQ(three.values, (std::vector<float>{6, 3, 1, 6, 3, 1}));
}

// A tensor's element count as torch exports numel(): ReduceProd of its Shape. Of x[x > 0] it is
// the count of positives, here the k of a TopK that sorts them all.
TEST(SymbolicShape, ReduceProdOfARunTimeShapeIsItsElementCount) {
  ModelBuilder b(13);
  positives_of_x(b, "pos");
  b.node("Shape", {"pos"}, {"pos_shape"});
  b.node("ReduceProd", {"pos_shape"}, {"k"});  // keepdims: [1]
  b.node("TopK", {"pos", "k"}, {"y", "y_idx"});
  b.output("y", onnx::TensorProto::FLOAT, {std::string("n")});
  PortableProgram p(b);
  const PortableProgram::Output three = run_2x3(p, {1, -2, 3, -4, 0, 6});
  EXPECT_EQ(three.sizes, (std::vector<int32_t>{3}));
  EXPECT_EQ(three.values, (std::vector<float>{6, 3, 1}));
}

// Reshapes through multiples of a data-dependent count, as Faster R-CNN's box decoding does
// ([n, 4] -> [n * 4] -> [n * 2, 2] -> [n, 4]): the last is n again, so it adds to the first.
TEST(SymbolicShape, ReshapesThroughMultiplesOfACountComeBackToIt) {
  ModelBuilder b(13);
  positives_of_x(b, "pos");
  b.init_int64("axis1", {1}, {1});
  b.node("Unsqueeze", {"pos", "axis1"}, {"col"});
  set_attr(b.node("Concat", {"col", "col", "col", "col"}, {"quad"}), "axis", int64_t{1});
  b.init_int64("flat", {1}, {-1});
  b.node("Reshape", {"quad", "flat"}, {"line"});
  b.init_int64("pairs", {2}, {-1, 2});
  b.node("Reshape", {"line", "pairs"}, {"paired"});
  b.init_int64("fours", {2}, {-1, 4});
  b.node("Reshape", {"paired", "fours"}, {"back"});
  b.node("Add", {"back", "quad"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {std::string("n"), 4});
  PortableProgram p(b);
  const PortableProgram::Output two = run_2x3(p, {-1, -2, 3, -4, 0, 6});
  EXPECT_EQ(two.sizes, (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(two.values, (std::vector<float>{6, 6, 6, 6, 12, 12, 12, 12}));
}

// ScatterElements into zeros shaped like a data-dependent count (MultiScaleRoIAlign's merge of
// its levels), with run-time indices -1, -2, ... that wrap by the count: pos reversed.
TEST(SymbolicShape, ScatterElementsIntoACountWrapsNegativeIndices) {
  ModelBuilder b(13);
  positives_of_x(b, "pos");
  b.node("Shape", {"pos"}, {"pos_shape"});
  set_value(b.node("ConstantOfShape", {"pos_shape"}, {"zeros"}), onnx::TensorProto::FLOAT, 0.0);
  b.init_int64("first", {}, {0});
  b.node("Gather", {"pos_shape", "first"}, {"n"});
  b.init_int64("start", {}, {0});
  b.init_int64("one", {}, {1});
  b.node("Range", {"start", "n", "one"}, {"r"});
  b.node("Add", {"r", "one"}, {"r1"});
  b.node("Neg", {"r1"}, {"idx"});
  b.node("ScatterElements", {"zeros", "idx", "pos"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {std::string("n")});
  PortableProgram p(b);
  const PortableProgram::Output three = run_2x3(p, {1, -2, 3, -4, 0, 6});
  EXPECT_EQ(three.sizes, (std::vector<int32_t>{3}));
  EXPECT_EQ(three.values, (std::vector<float>{6, 3, 1}));
}

// Pad and Resize of the last two dims keep a dynamic batch (Mask R-CNN's mask head pads and
// Keypoint R-CNN's upsamples a box count): x[batch, 1, 2, 2], batch in [1, 4].
TEST(SymbolicShape, PadAndResizeKeepADynamicBatch) {
  ModelBuilder b(13);
  b.input("x", {std::string("batch"), 1, 2, 2});
  b.init_int64("pads", {8}, {0, 0, 1, 0, 0, 0, 0, 1});
  b.node("Pad", {"x", "pads"}, {"padded"});  // [batch, 1, 3, 3]: a row above, a column after
  b.init_float("scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
  onnx::NodeProto& resize = b.node("Resize", {"padded", "", "scales"}, {"y"});
  set_attr(resize, "mode", std::string("nearest"));
  set_attr(resize, "coordinate_transformation_mode", std::string("asymmetric"));
  set_attr(resize, "nearest_mode", std::string("floor"));
  b.output("y", onnx::TensorProto::FLOAT, {std::string("batch"), 1, 6, 6});
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"x", 0, "batch", 1, 4});
  PortableProgram p(b, options);
  for (int32_t n : {1, 3}) {
    std::vector<float> x(static_cast<size_t>(4 * n));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {n, 1, 2, 2}, x));
    const std::vector<PortableProgram::Output> out = p.run(inputs);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].sizes, (std::vector<int32_t>{n, 1, 6, 6}));
    // Image k's padded rows are [0 0 0], [a b 0], [c d 0], each value doubled both ways.
    for (int32_t k = 0; k < n; ++k) {
      const float* img = out[0].values.data() + 36 * k;
      const float a = x[static_cast<size_t>(4 * k)], d = x[static_cast<size_t>(4 * k + 3)];
      EXPECT_EQ(img[0], 0.0f);
      EXPECT_EQ(img[2 * 6 + 0], a);
      EXPECT_EQ(img[5 * 6 + 3], d);
      EXPECT_EQ(img[5 * 6 + 5], 0.0f);
    }
  }
}

// Einsum over a dynamic batch and a dynamic row count (attention scores, "bhid,bhjd->bhij"):
// the batch letters flatten into a product of symbols, and the output takes the symbols back.
// An inference Dropout after it gives its all-true mask at the run's sizes.
TEST(SymbolicShape, EinsumAndDropoutOnDynamicDims) {
  ModelBuilder b(13);
  b.input("q", {std::string("batch"), 2, std::string("seq"), 3});
  b.input("k", {std::string("batch"), 2, 4, 3});
  set_attr(b.node("Einsum", {"q", "k"}, {"s"}), "equation", std::string("bhid,bhjd->bhij"));
  b.node("Dropout", {"s"}, {"y", "mask"});
  set_attr(b.node("Cast", {"mask"}, {"maskf"}), "to", int64_t{onnx::TensorProto::FLOAT});
  const std::vector<Dim> out_dims = {std::string("batch"), 2, std::string("seq"), 4};
  b.output("y", onnx::TensorProto::FLOAT, out_dims);
  b.output("maskf", onnx::TensorProto::FLOAT, out_dims);
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"q", 0, "batch", 1, 4});
  options.dynamic_dims.push_back(DynamicDim{"q", 2, "seq", 1, 8});
  options.dynamic_dims.push_back(DynamicDim{"k", 0, "batch", 1, 4});
  PortableProgram p(b, options);
  for (const auto& [n, s] : {std::pair{1, 5}, std::pair{3, 2}, std::pair{4, 8}}) {
    SCOPED_TRACE(::testing::Message() << "batch " << n << " seq " << s);
    std::vector<float> q(static_cast<size_t>(n * 2 * s * 3)), k(static_cast<size_t>(n * 2 * 4 * 3));
    for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(i % 7) - 3.0f;
    for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(i % 5) * 0.5f;
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {n, 2, s, 3}, q));
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {n, 2, 4, 3}, k));
    const std::vector<PortableProgram::Output> out = p.run(inputs);
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].sizes, (std::vector<int32_t>{n, 2, s, 4}));
    ASSERT_EQ(out[1].sizes, out[0].sizes);
    for (int32_t bh = 0; bh < n * 2; ++bh) {
      for (int32_t i = 0; i < s; ++i) {
        for (int32_t j = 0; j < 4; ++j) {
          float want = 0.0f;
          for (int32_t d = 0; d < 3; ++d) {
            want += q[static_cast<size_t>((bh * s + i) * 3 + d)] *
                    k[static_cast<size_t>((bh * 4 + j) * 3 + d)];
          }
          const size_t at = static_cast<size_t>((bh * s + i) * 4 + j);
          EXPECT_FLOAT_EQ(out[0].values[at], want) << bh << "," << i << "," << j;
          EXPECT_EQ(out[1].values[at], 1.0f);
        }
      }
    }
  }
}

// DepthToSpace (a super-resolution network's pixel shuffle) on a dynamic height and width, in
// both modes, then Resize by 2 of the input added to it: the two paths' sizes (the views' h * 2
// and the upsampling's) are one symbol.
TEST(SymbolicShape, DepthToSpaceOnDynamicHeightAndWidth) {
  for (const std::string mode : {"DCR", "CRD"}) {
    SCOPED_TRACE(mode);
    ModelBuilder b(13);
    b.input("x", {1, 4, std::string("h"), std::string("w")});
    b.input("img", {1, 1, std::string("h"), std::string("w")});
    onnx::NodeProto& d2s = b.node("DepthToSpace", {"x"}, {"up"});
    set_attr(d2s, "blocksize", int64_t{2});
    set_attr(d2s, "mode", mode);
    b.init_float("scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
    onnx::NodeProto& resize = b.node("Resize", {"img", "", "scales"}, {"big"});
    set_attr(resize, "mode", std::string("nearest"));
    set_attr(resize, "coordinate_transformation_mode", std::string("asymmetric"));
    set_attr(resize, "nearest_mode", std::string("floor"));
    b.node("Add", {"up", "big"}, {"y"});
    b.output("y", onnx::TensorProto::FLOAT, {1, 1, std::string("h2"), std::string("w2")});
    OnnxImportOptions options;
    options.dynamic_dims.push_back(DynamicDim{"x", 2, "h", 1, 8});
    options.dynamic_dims.push_back(DynamicDim{"x", 3, "w", 1, 8});
    options.dynamic_dims.push_back(DynamicDim{"img", 2, "h", 1, 8});
    options.dynamic_dims.push_back(DynamicDim{"img", 3, "w", 1, 8});
    PortableProgram p(b, options);
    for (const auto& [h, w] : {std::pair{1, 3}, std::pair{4, 2}}) {
      std::vector<float> x(static_cast<size_t>(4 * h * w)), img(static_cast<size_t>(h * w));
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
      for (size_t i = 0; i < img.size(); ++i) img[i] = 1000.0f * static_cast<float>(i + 1);
      std::vector<runtime::OwnedTensor> inputs;
      inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {1, 4, h, w}, x));
      inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {1, 1, h, w}, img));
      const std::vector<PortableProgram::Output> out = p.run(inputs);
      ASSERT_EQ(out.size(), 1u);
      ASSERT_EQ(out[0].sizes, (std::vector<int32_t>{1, 1, 2 * h, 2 * w}));
      // Output (i, j) takes channel (i % 2) * 2 + j % 2 at (i / 2, j / 2) (one output channel:
      // DCR and CRD agree), plus the nearest input pixel.
      for (int32_t i = 0; i < 2 * h; ++i) {
        for (int32_t j = 0; j < 2 * w; ++j) {
          const int32_t c = (i % 2) * 2 + j % 2, at = (i / 2) * w + j / 2;
          EXPECT_EQ(out[0].values[static_cast<size_t>(i * 2 * w + j)],
                    x[static_cast<size_t>(c * h * w + at)] + img[static_cast<size_t>(at)])
              << i << "," << j;
        }
      }
    }
  }
}

/// Input x = [1, 1, h, 2] and "up", its 2x2 max pool upsampled by 2 (Resize nearest with
/// asymmetric coordinates rounding down, or ONNX's default half-pixel rounding to the nearest).
void pooled_and_upsampled(ModelBuilder& b, bool asymmetric) {
  b.input("x", {1, 1, std::string("h"), 2});
  onnx::NodeProto& pool = b.node("MaxPool", {"x"}, {"p"});
  set_attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
  set_attr(pool, "strides", std::vector<int64_t>{2, 2});
  b.init_float("scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
  onnx::NodeProto& resize = b.node("Resize", {"p", "", "scales"}, {"up"});
  set_attr(resize, "mode", std::string("nearest"));
  if (asymmetric) {
    set_attr(resize, "coordinate_transformation_mode", std::string("asymmetric"));
    set_attr(resize, "nearest_mode", std::string("floor"));
  }
}

// A skip connection: x's 2x2 max pool upsampled by 2 (nearest) and concatenated with x. The
// sizes agree for even sides only: refused for a plain dynamic h, imported when h is declared a
// multiple of 2 (the pool is then h/2 and its upsampling h), and run at two sizes.
void skip_connection(ModelBuilder& b) {
  pooled_and_upsampled(b, true);
  set_attr(b.node("Concat", {"up", "x"}, {"y"}, "skip"), "axis", int64_t{1});
  b.output("y", onnx::TensorProto::FLOAT, {1, 2, std::string("h"), 2});
}

TEST(SymbolicShape, SkipConnectionOnADeclaredMultiple) {
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"x", 2, "h", 2, 8});
  {
    ModelBuilder b(13);
    skip_connection(b);
    const std::string what = import_error(b, options);
    EXPECT_NE(what.find("skip"), std::string::npos) << what;
    EXPECT_NE(what.find("dimension 2 differs"), std::string::npos) << what;
    EXPECT_NE(what.find("the sizes agree where 'h' is a multiple of 2"), std::string::npos) << what;
  }
  {
    ModelBuilder b(13);
    skip_connection(b);
    options.dynamic_dims[0].multiple = 4;  // [2, 8] holds sizes that are not multiples of 4
    const std::string what = import_error(b, options);
    EXPECT_NE(what.find("must be multiples of 4"), std::string::npos) << what;
  }
  ModelBuilder b(13);
  skip_connection(b);
  options.dynamic_dims[0].multiple = 2;
  PortableProgram p(b, options);
  for (const int32_t h : {2, 6}) {
    std::vector<float> x(static_cast<size_t>(2 * h));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11);
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {1, 1, h, 2}, x));
    const std::vector<PortableProgram::Output> out = p.run(inputs);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].sizes, (std::vector<int32_t>{1, 2, h, 2}));
    for (int32_t i = 0; i < h; ++i) {
      const size_t r = static_cast<size_t>(i / 2 * 2) * 2;  // the window's first row
      const float window = std::max({x[r], x[r + 1], x[r + 2], x[r + 3]});
      for (int32_t j = 0; j < 2; ++j) {
        const size_t at = static_cast<size_t>(i * 2 + j);
        EXPECT_EQ(out[0].values[at], window) << h << ": " << i << "," << j;
        EXPECT_EQ(out[0].values[static_cast<size_t>(2 * h) + at], x[at]);
      }
    }
  }
}

// A U-Net's Up block as it is often written: the upsampled map (a default nearest Resize: half
// pixels rounding to the nearest, the same as asymmetric floor for an integer scale) is padded by
// the difference of its size and the skip connection's (F.pad with sizes from Shape), then
// concatenated. With h
// declared a multiple of 2 the difference is 0 and the padding folds away; without, the error
// of the Pad that cannot take run-time pads says which multiple to declare.
TEST(SymbolicShape, PaddingToTheSkipConnectionFoldsForDeclaredMultiples) {
  auto model = [](ModelBuilder& b) {
    pooled_and_upsampled(b, false);
    b.node("Shape", {"x"}, {"x_shape"});
    b.node("Shape", {"up"}, {"up_shape"});
    b.init_int64("i2", {1}, {2});
    b.node("Gather", {"x_shape", "i2"}, {"hx"});
    b.node("Gather", {"up_shape", "i2"}, {"hu"});
    b.node("Sub", {"hx", "hu"}, {"diff"}, "size_difference");
    b.init_int64("zeros6", {6}, {0, 0, 0, 0, 0, 0});
    b.init_int64("zero1", {1}, {0});
    set_attr(b.node("Concat", {"zeros6", "diff", "zero1"}, {"pads"}), "axis", int64_t{0});
    b.node("Pad", {"up", "pads"}, {"padded"}, "pad_to_skip");
    set_attr(b.node("Concat", {"padded", "x"}, {"z"}), "axis", int64_t{1});
    b.output("z", onnx::TensorProto::FLOAT, {1, 2, std::string("h"), 2});
  };
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"x", 2, "h", 2, 8});
  {
    ModelBuilder b(13);
    model(b);
    const std::string what = import_error(b, options);
    EXPECT_NE(what.find("pad_to_skip"), std::string::npos) << what;
    EXPECT_NE(what.find("node 'size_difference' subtracts sizes h and (h/2)_x2, equal where 'h' "
                        "is a multiple of 2"),
              std::string::npos)
        << what;
  }
  options.dynamic_dims[0].multiple = 2;
  ModelBuilder b(13);
  model(b);
  PortableProgram p(b, options);
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {1, 1, 6, 2}, x));
  const std::vector<PortableProgram::Output> out = p.run(inputs);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sizes, (std::vector<int32_t>{1, 2, 6, 2}));
  EXPECT_EQ(std::vector<float>(out[0].values.begin() + 12, out[0].values.end()), x);
  // The default nearest Resize (half_pixel, round_prefer_floor) by 2 repeats each pooled value:
  // the pool of rows 2k and 2k + 1 is x[4k + 3].
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(out[0].values[i], x[i / 4 * 4 + 3]) << i;
}

// An anchor grid as YOLO exports build it from a feature map's h and w: Range(0.0, Cast(w to
// float), 1.0) and ConstantOfShape([h * w, 1]). A dim cast to float is a Range's limit only.
TEST(SymbolicShape, FloatRangeAndAProductOfDims) {
  ModelBuilder b(13);
  b.input("x", {1, std::string("h"), std::string("w")});
  b.node("Shape", {"x"}, {"shape"});
  b.init_int64("i1", {}, {1});
  b.init_int64("i2", {}, {2});
  b.node("Gather", {"shape", "i1"}, {"h"});
  b.node("Gather", {"shape", "i2"}, {"w"});
  set_attr(b.node("Cast", {"w"}, {"wf"}), "to", int64_t{onnx::TensorProto::FLOAT});
  b.init_float("zero", {}, {0.0f});
  b.init_float("one_f", {}, {1.0f});
  b.node("Range", {"zero", "wf", "one_f"}, {"xs"});
  b.node("Mul", {"h", "w"}, {"hw"});
  b.init_int64("axes0", {1}, {0});
  b.node("Unsqueeze", {"hw", "axes0"}, {"hw1"});
  b.init_int64("one_i", {1}, {1});
  set_attr(b.node("Concat", {"hw1", "one_i"}, {"size"}), "axis", int64_t{0});
  onnx::NodeProto& fill = b.node("ConstantOfShape", {"size"}, {"strides"});
  set_value(fill, onnx::TensorProto::FLOAT, 8.0);
  b.output("xs", onnx::TensorProto::FLOAT, {std::string("w")});
  b.output("strides", onnx::TensorProto::FLOAT, {std::string("hw"), 1});
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"x", 1, "h", 1, 8});
  options.dynamic_dims.push_back(DynamicDim{"x", 2, "w", 1, 8});
  PortableProgram p(b, options);
  for (const auto& [h, w] : {std::pair{2, 3}, std::pair{5, 1}}) {
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(runtime::OwnedTensor::from<float>(
        DType::Float, {1, h, w}, std::vector<float>(static_cast<size_t>(h * w), 0.0f)));
    const std::vector<PortableProgram::Output> out = p.run(inputs);
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].sizes, (std::vector<int32_t>{w}));
    for (int32_t i = 0; i < w; ++i) EXPECT_EQ(out[0].values[static_cast<size_t>(i)], i);
    EXPECT_EQ(out[1].sizes, (std::vector<int32_t>{h * w, 1}));
    EXPECT_EQ(out[1].values, std::vector<float>(static_cast<size_t>(h * w), 8.0f));
  }
}

TEST(SymbolicShape, ArithmeticOnADimCastToFloatFails) {
  ModelBuilder b(13);
  seq_of_x(b);
  set_attr(b.node("Cast", {"s"}, {"sf"}), "to", int64_t{onnx::TensorProto::FLOAT});
  b.init_float("half", {}, {0.5f});
  b.node("Mul", {"sf", "half"}, {"y"}, "scale_of_seq");
  b.output("y", onnx::TensorProto::FLOAT, {});
  const std::string what = import_error(b, seq_dynamic());
  EXPECT_NE(what.find("scale_of_seq"), std::string::npos) << what;
  EXPECT_NE(what.find("cast to a floating-point type"), std::string::npos) << what;
}

// SpaceToDepth then DepthToSpace (DCR) gives the input back. A dynamic H and W must be declared
// multiples of the block; undeclared, the import says so.
TEST(SymbolicShape, SpaceToDepthOnDeclaredMultiples) {
  auto model = [](ModelBuilder& b) {
    b.input("x", {1, 2, std::string("h"), std::string("w")});
    set_attr(b.node("SpaceToDepth", {"x"}, {"s"}, "s2d"), "blocksize", int64_t{2});
    set_attr(b.node("DepthToSpace", {"s"}, {"y"}), "blocksize", int64_t{2});
    b.output("y", onnx::TensorProto::FLOAT, {1, 2, std::string("h"), std::string("w")});
  };
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"x", 2, "h", 2, 8});
  options.dynamic_dims.push_back(DynamicDim{"x", 3, "w", 2, 8});
  {
    ModelBuilder b(13);
    model(b);
    const std::string what = import_error(b, options);
    EXPECT_NE(what.find("s2d"), std::string::npos) << what;
    EXPECT_NE(what.find("H (h) must divide by blocksize 2"), std::string::npos) << what;
  }
  options.dynamic_dims[0].multiple = options.dynamic_dims[1].multiple = 2;
  ModelBuilder b(13);
  model(b);
  PortableProgram p(b, options);
  for (const auto& [h, w] : {std::pair{2, 6}, std::pair{8, 4}}) {
    std::vector<float> x(static_cast<size_t>(2 * h * w));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {1, 2, h, w}, x));
    const std::vector<PortableProgram::Output> out = p.run(inputs);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].sizes, (std::vector<int32_t>{1, 2, h, w}));
    EXPECT_EQ(out[0].values, x);
  }
}

// A YOLOv5 Focus layer: x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2] and
// x[..., 1::2, 1::2] concatenated on channels (for even h and w, declared), and x[:, :, :-1] of a
// dynamic dim.
TEST(SymbolicShape, StridedSlicesOfDynamicDims) {
  ModelBuilder b(13);
  b.input("x", {1, 1, std::string("h"), std::string("w")});
  b.init_int64("axes", {2}, {2, 3});
  b.init_int64("steps", {2}, {2, 2});
  b.init_int64("end", {2}, {INT64_MAX, INT64_MAX});
  const std::vector<std::pair<int64_t, int64_t>> starts = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
  std::vector<std::string> parts;
  for (size_t i = 0; i < starts.size(); ++i) {
    const std::string start = "start" + std::to_string(i), part = "part" + std::to_string(i);
    b.init_int64(start, {2}, {starts[i].first, starts[i].second});
    b.node("Slice", {"x", start, "end", "axes", "steps"}, {part});
    parts.push_back(part);
  }
  set_attr(b.node("Concat", parts, {"y"}), "axis", int64_t{1});
  b.init_int64("zero", {1}, {0});
  b.init_int64("minus1", {1}, {-1});
  b.init_int64("axis2", {1}, {2});
  b.node("Slice", {"x", "zero", "minus1", "axis2"}, {"z"});
  b.output("y", onnx::TensorProto::FLOAT, {1, 4, std::string("h2"), std::string("w2")});
  b.output("z", onnx::TensorProto::FLOAT, {1, 1, std::string("hm"), std::string("w")});
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"x", 2, "h", 2, 8, 2});
  options.dynamic_dims.push_back(DynamicDim{"x", 3, "w", 2, 8, 2});
  PortableProgram p(b, options);
  for (const auto& [h, w] : {std::pair{2, 6}, std::pair{8, 4}}) {
    std::vector<float> x(static_cast<size_t>(h * w));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {1, 1, h, w}, x));
    const std::vector<PortableProgram::Output> out = p.run(inputs);
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].sizes, (std::vector<int32_t>{1, 4, h / 2, w / 2}));
    for (size_t k = 0; k < starts.size(); ++k) {
      for (int32_t i = 0; i < h / 2; ++i) {
        for (int32_t j = 0; j < w / 2; ++j) {
          const auto at =
              static_cast<size_t>((static_cast<int32_t>(k) * (h / 2) + i) * (w / 2) + j);
          const auto from =
              static_cast<size_t>((2 * i + starts[k].first) * w + 2 * j + starts[k].second);
          EXPECT_EQ(out[0].values[at], x[from]) << k << ": " << i << "," << j;
        }
      }
    }
    ASSERT_EQ(out[1].sizes, (std::vector<int32_t>{1, 1, h - 1, w}));
    EXPECT_EQ(out[1].values, std::vector<float>(x.begin(), x.end() - w));
  }
}

// ReverseSequence with lengths known only at run time: x is [time 3, batch 2], the graph input
// lens reverses the first lens[b] steps of column b.
TEST(SymbolicShape, ReverseSequenceWithRunTimeLengths) {
  ModelBuilder b(13);
  b.input("x", {3, 2});
  b.input("lens", {2}, onnx::TensorProto::INT64);
  b.node("ReverseSequence", {"x", "lens"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {3, 2});
  PortableProgram p(b);
  auto run = [&](std::vector<int64_t> lens) {
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(
        runtime::OwnedTensor::from<float>(DType::Float, {3, 2}, {0, 10, 1, 11, 2, 12}));
    inputs.push_back(runtime::OwnedTensor::from<int64_t>(DType::Long, {2}, lens));
    std::vector<PortableProgram::Output> out = p.run(inputs);
    return out.empty() ? std::vector<float>{} : out[0].values;
  };
  EXPECT_EQ(run({3, 2}), (std::vector<float>{2, 11, 1, 10, 0, 12}));
  EXPECT_EQ(run({1, 0}), (std::vector<float>{0, 10, 1, 11, 2, 12}));
}

// Gather with run-time indices of two dynamic dims ([seq, seq], T5's relative positions): the
// flattened count seq * seq is no symbol, so the indices keep their shape (index.Tensor).
TEST(SymbolicShape, GatherWithTwoDynamicIndexDims) {
  ModelBuilder b(13);
  b.input("ids", {std::string("seq"), std::string("seq")}, onnx::TensorProto::INT64);
  b.init_float("table", {5, 2}, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41});
  b.node("Gather", {"table", "ids"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {std::string("seq"), std::string("seq"), 2});
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"ids", 0, "seq", 1, 8});
  options.dynamic_dims.push_back(DynamicDim{"ids", 1, "seq", 1, 8});
  PortableProgram p(b, options);
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<int64_t>(DType::Long, {2, 2}, {0, 4, -1, 2}));
  const std::vector<PortableProgram::Output> out = p.run(inputs);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sizes, (std::vector<int32_t>{2, 2, 2}));
  EXPECT_EQ(out[0].values, (std::vector<float>{0, 1, 40, 41, 40, 41, 20, 21}));  // -1 wraps to 4
}

TEST(SymbolicShape, RangeFromANonZeroStartFails) {
  ModelBuilder b(14);
  seq_of_x(b);
  b.node("Range", {"one", "s", "one"}, {"pos"}, "range_from_1");
  set_attr(b.node("Cast", {"pos"}, {"y"}), "to", int64_t{onnx::TensorProto::FLOAT});
  b.output("y");
  const std::string what = import_error(b, seq_dynamic());
  EXPECT_NE(what.find("range_from_1"), std::string::npos) << what;
  EXPECT_NE(what.find("start must be 0 and delta 1"), std::string::npos) << what;
}

// seq == 3 is true for one size in [1, 8] and false for the others: compared at run time, which
// a Where on shape values cannot take.
TEST(SymbolicShape, WhereOnAnEqualityKnownOnlyAtRunTimeFails) {
  ModelBuilder b(14);
  seq_of_x(b);
  b.init_int64("three", {1}, {3});
  b.node("Equal", {"s1", "three"}, {"eq"}, "seq_is_3");
  b.node("Where", {"eq", "three", "s1"}, {"w"});
  b.node("Reshape", {"x", "w"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {1, std::string("seq")});
  const std::string what = import_error(b, seq_dynamic());
  EXPECT_NE(what.find("the condition ('eq') is computed at run time"), std::string::npos) << what;
}

}  // namespace
}  // namespace ptec::onnx_import::testing
