// Resize (per-axis taps against ONNX's reference interpolation), AveragePool with
// count_include_pad=0 over explicit pads, MaxPool's Indices output, MaxUnpool, LRN,
// MeanVarianceNormalization, Shrink and the window ops: the ATen calls the importer emits and the
// constants it computes.
// Reference matrices come from onnx/backend/test/case/node/resize.py (interpolate_1d_with_x
// applied to unit vectors).

#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/test/test_util.h"

namespace ptec::onnx_import::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using V = std::vector<int64_t>;

/// The constant tensor behind argument `arg` of `call`.
const ir::TensorData& const_arg(const ir::ExportedProgram& p, const ir::Node* call,
                                const std::string& arg) {
  const ir::TensorData* t = p.constant_for_placeholder(call->arg(arg).as_node()->name());
  if (t == nullptr) throw std::runtime_error("argument " + arg + " is not a constant");
  return *t;
}

template <typename T>
std::vector<T> values(const ir::TensorData& t) {
  std::vector<T> v(t.data->size() / sizeof(T));
  std::memcpy(v.data(), t.data->data(), v.size() * sizeof(T));
  return v;
}

/// All calls of `target`, in graph order.
std::vector<const ir::Node*> all_calls(const ir::ExportedProgram& p, const std::string& target) {
  std::vector<const ir::Node*> out;
  for (const ir::Node* n : p.graph().nodes()) {
    if (n->is_call() && n->target() == target) out.push_back(n);
  }
  return out;
}

/// The dense [out, in] interpolation matrix of the resized axis of the `axis_call`-th
/// index_select: its (tap-major) indices and the weights of the mul.Tensor that follows it
/// (directly or after the view_copy that splits the taps), 1 when there is none.
std::vector<double> axis_matrix(const ir::ExportedProgram& p, size_t axis_call, int64_t in,
                                int64_t out) {
  const ir::Node* select = all_calls(p, "aten::index_select").at(axis_call);
  const std::vector<int64_t> index = values<int64_t>(const_arg(p, select, "index"));
  std::vector<float> weight(index.size(), 1.0f);
  const ir::Node* next = select;
  for (int hop = 0; hop < 2 && next->users().size() == 1; ++hop) {
    next = next->users()[0];
    if (next->is_call() && next->target() == "aten::mul.Tensor") {
      weight = values<float>(const_arg(p, next, "other"));
      break;
    }
  }
  EXPECT_EQ(weight.size(), index.size());
  const size_t taps = index.size() / static_cast<size_t>(out);
  std::vector<double> m(static_cast<size_t>(out * in), 0.0);
  for (size_t t = 0; t < taps; ++t) {
    for (int64_t o = 0; o < out; ++o) {
      const size_t k = t * static_cast<size_t>(out) + static_cast<size_t>(o);
      m[static_cast<size_t>(o * in + index[k])] += weight[k];
    }
  }
  return m;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "at " << i;
}

/// Resize of x [1, 1, h, w] (float) with scales or sizes given as initializers.
ModelBuilder resize_model(V in, const std::string& mode, const std::string& coordinate_mode,
                          std::vector<float> scales, V sizes = {}, int32_t dtype = 1) {
  ModelBuilder b;
  b.input("x", {in.begin(), in.end()}, dtype).output("y", dtype);
  std::vector<std::string> inputs{"x", ""};
  if (!scales.empty()) {
    b.init_float("scales", {static_cast<int64_t>(scales.size())}, scales);
    inputs.push_back("scales");
  } else {
    inputs.push_back("");
    b.init_int64("sizes", {static_cast<int64_t>(sizes.size())}, sizes);
    inputs.push_back("sizes");
  }
  auto& n = b.node("Resize", inputs, {"y"}, "resize");
  set_attr(n, "mode", mode);
  if (!coordinate_mode.empty()) set_attr(n, "coordinate_transformation_mode", coordinate_mode);
  return b;
}

onnx::NodeProto& last_node(ModelBuilder& b) {
  return *b.model().mutable_graph()->mutable_node(b.model().graph().node_size() - 1);
}

Exception import_error(ModelBuilder& b) {
  try {
    import(b);
  } catch (const Exception& e) {
    return e;
  }
  ADD_FAILURE() << "no ptec::Exception";
  return Exception(Error::Ok, "");
}

TEST(OnnxImportResize, NearestHalfPixelDownsampleSelectsOnnxIndices) {
  // upsample_nearest2d would take floor(o * 4/3) = [0, 1, 2]; ONNX rounds (o + 0.5) * 4/3 - 0.5.
  ModelBuilder b = resize_model({1, 1, 2, 4}, "nearest", "", {}, {1, 1, 1, 3});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::index_select", "aten::index_select"));
  const auto selects = all_calls(p, "aten::index_select");
  EXPECT_EQ(selects[0]->arg("dim").as_int(), 2);
  EXPECT_EQ(values<int64_t>(const_arg(p, selects[0], "index")), (V{0}));
  EXPECT_EQ(selects[1]->arg("dim").as_int(), 3);
  EXPECT_EQ(values<int64_t>(const_arg(p, selects[1], "index")), (V{0, 1, 3}));
  EXPECT_EQ(out_sizes(p), (V{1, 1, 1, 3}));
}

TEST(OnnxImportResize, NearestCeilHalfPixel) {
  ModelBuilder b = resize_model({1, 1, 1, 4}, "nearest", "half_pixel", {}, {1, 1, 1, 8});
  set_attr(last_node(b), "nearest_mode", std::string("ceil"));
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::index_select"));
  EXPECT_EQ(values<int64_t>(const_arg(p, first_call(p, "aten::index_select"), "index")),
            (V{0, 1, 1, 2, 2, 3, 3, 3}));
}

TEST(OnnxImportResize, NearestMatchingAtenKeepsUpsampleNearest2d) {
  ModelBuilder b = resize_model({1, 1, 2, 2}, "nearest", "asymmetric", {1, 1, 2, 3});
  set_attr(last_node(b), "nearest_mode", std::string("floor"));
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::upsample_nearest2d.vec"));
  EXPECT_EQ(out_sizes(p), (V{1, 1, 4, 6}));
}

TEST(OnnxImportResize, LinearHalfPixelKeepsUpsampleBilinear2d) {
  ModelBuilder b = resize_model({1, 1, 2, 2}, "linear", "", {1, 1, 2, 2});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::upsample_bilinear2d.vec"));
  EXPECT_FALSE(first_call(p, "aten::upsample_bilinear2d.vec")->arg("align_corners").as_bool());
}

TEST(OnnxImportResize, LinearAlignCornersDownsampleUsesTheUnflooredLength) {
  // W: 4 * 0.6 = 2.4 → 2 outputs, but the coordinate divides by 2.4 - 1 (ONNX's reference), which
  // upsample_bilinear2d (dividing by 2 - 1) cannot express.
  ModelBuilder b = resize_model({1, 1, 1, 4}, "linear", "align_corners", {1, 1, 1, 0.6f});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::index_select", "aten::view_copy", "aten::mul.Tensor",
                                    "aten::sum.dim_IntList"));
  expect_near(axis_matrix(p, 0, 4, 2), {1, 0, 0, 0, 0, 0, 0.857143003, 0.142856997});
  EXPECT_EQ(out_sizes(p), (V{1, 1, 1, 2}));
}

TEST(OnnxImportResize, CubicExcludeOutsideMatchesTheReference) {
  ModelBuilder b = resize_model({1, 1, 1, 4}, "cubic", "", {1, 1, 1, 2});
  set_attr(last_node(b), "cubic_coeff_a", -0.5f);
  set_attr(last_node(b), "exclude_outside", int64_t{1});
  const ir::ExportedProgram p = import(b);
  expect_near(axis_matrix(p, 0, 4, 8), {1.08823529,
                                        -0.0882352941,
                                        0,
                                        0,
                                        0.810218978,
                                        0.211678832,
                                        -0.0218978102,
                                        0,
                                        0.221374046,
                                        0.847328244,
                                        -0.0687022901,
                                        0,
                                        -0.0703125,
                                        0.8671875,
                                        0.2265625,
                                        -0.0234375,
                                        -0.0234375,
                                        0.2265625,
                                        0.8671875,
                                        -0.0703125,
                                        0,
                                        -0.0687022901,
                                        0.847328244,
                                        0.221374046,
                                        0,
                                        -0.0218978102,
                                        0.211678832,
                                        0.810218978,
                                        0,
                                        0,
                                        -0.0882352941,
                                        1.08823529});
  EXPECT_EQ(out_sizes(p), (V{1, 1, 1, 8}));
}

TEST(OnnxImportResize, CubicDownsampleMatchesTheReference) {
  ModelBuilder b = resize_model({1, 1, 1, 4}, "cubic", "", {1, 1, 1, 0.8f});
  const ir::ExportedProgram p = import(b);
  expect_near(axis_matrix(p, 0, 4, 3),
              {0.895507821, 0.114746084, -0.0102539048, 0, -0.109863283, 0.749511751, 0.426269494,
               -0.0659179619, 0, -0.0659179802, 0.426269594, 0.639648386});
}

TEST(OnnxImportResize, TfCropAndResizeFillsOutsideTheRoi) {
  ModelBuilder b;
  b.input("x", {1, 1, 1, 4}).output("y");
  b.init_float("roi", {8}, {0, 0, 0, -0.5f, 1, 1, 1, 1.5f});
  b.init_float("scales", {0}, {});
  b.init_int64("sizes", {4}, {1, 1, 1, 3});
  auto& n = b.node("Resize", {"x", "roi", "scales", "sizes"}, {"y"}, "resize");
  set_attr(n, "mode", std::string("linear"));
  set_attr(n, "coordinate_transformation_mode", std::string("tf_crop_and_resize"));
  set_attr(n, "extrapolation_value", 10.0f);
  const ir::ExportedProgram p = import(b);
  // x = 2 * 3 * o / 2 - 1.5: -1.5 and 4.5 lie outside [0, 3].
  expect_near(axis_matrix(p, 0, 4, 3), {0, 0, 0, 0, 0, 0.5, 0.5, 0, 0, 0, 0, 0});
  const ir::Node* where = first_call(p, "aten::where.self");
  ASSERT_NE(where, nullptr);
  const ir::TensorData& mask = const_arg(p, where, "condition");
  EXPECT_EQ(mask.spec.to_string(), "bool[1, 1, 1, 3]");
  EXPECT_EQ(values<uint8_t>(mask), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(values<float>(const_arg(p, where, "self")), (std::vector<float>{10.0f}));
}

TEST(OnnxImportResize, AnyRankAndOnlyTheResizedAxes) {
  ModelBuilder b = resize_model({2, 3, 4}, "linear", "", {}, {2, 3, 8});
  const ir::ExportedProgram p = import(b);
  const auto selects = all_calls(p, "aten::index_select");
  ASSERT_EQ(selects.size(), 1u);
  EXPECT_EQ(selects[0]->arg("dim").as_int(), 2);
  EXPECT_EQ(out_sizes(p), (V{2, 3, 8}));
}

TEST(OnnxImportResize, IdentityResizeForwardsTheInput) {
  ModelBuilder b = resize_model({1, 2, 3, 4}, "cubic", "", {1, 1, 1, 1});
  const ir::ExportedProgram p = import(b);
  EXPECT_TRUE(calls(p).empty());
}

TEST(OnnxImportResize, Errors) {
  ModelBuilder ints =
      resize_model({1, 1, 2, 2}, "linear", "", {1, 1, 1.5f, 1.5f}, {}, onnx::TensorProto::INT32);
  Exception e = import_error(ints);
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_THAT(e.what(), HasSubstr("only floating-point inputs"));
  ModelBuilder rule = resize_model({1, 1, 2, 2}, "nearest", "", {1, 1, 2, 2});
  set_attr(last_node(rule), "nearest_mode", std::string("nearest"));
  e = import_error(rule);
  EXPECT_EQ(e.code(), Error::InvalidArgument);
  EXPECT_THAT(e.what(), HasSubstr("unknown nearest_mode 'nearest'"));
}

TEST(OnnxImportPool, AveragePoolSameUpperExcludingPadsDividesByWindowCounts) {
  ModelBuilder b;
  b.input("x", {1, 1, 3, 3}).output("y");
  auto& n = b.node("AveragePool", {"x"}, {"y"}, "pool");
  set_attr(n, "kernel_shape", V{2, 2});
  set_attr(n, "auto_pad", std::string("SAME_UPPER"));
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::constant_pad_nd", "aten::avg_pool2d", "aten::div.Tensor"));
  EXPECT_EQ(first_call(p, "aten::constant_pad_nd")->arg("pad").to_int_vector(), (V{0, 1, 0, 1}));
  EXPECT_EQ(first_call(p, "aten::avg_pool2d")->arg("divisor_override").as_int(), 1);
  // Rows and columns see 2, 2, 1 input elements.
  EXPECT_EQ(values<float>(const_arg(p, first_call(p, "aten::div.Tensor"), "other")),
            (std::vector<float>{4, 4, 2, 4, 4, 2, 2, 2, 1}));
  EXPECT_EQ(out_sizes(p), (V{1, 1, 3, 3}));
}

TEST(OnnxImportPool, AveragePoolSymmetricPadsStayInAvgPool2d) {
  ModelBuilder b;
  b.input("x", {1, 1, 5, 5}).output("y");
  auto& n = b.node("AveragePool", {"x"}, {"y"}, "pool");
  set_attr(n, "kernel_shape", V{3, 3});
  set_attr(n, "pads", V{1, 1, 1, 1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::avg_pool2d"));
  EXPECT_FALSE(first_call(p, "aten::avg_pool2d")->arg("count_include_pad").as_bool());
}

TEST(OnnxImportPool, MaxPoolIndicesColumnMajorWithPlaneOffsets) {
  ModelBuilder b;
  b.input("x", {1, 2, 2, 3}).output("y").output("i", onnx::TensorProto::INT64);
  auto& n = b.node("MaxPool", {"x"}, {"y", "i"}, "pool");
  set_attr(n, "kernel_shape", V{2, 2});
  set_attr(n, "storage_order", int64_t{1});
  const ir::ExportedProgram p = import(b);
  // Per-plane row-major h * 3 + w → column-major w * 2 + h, then + plane * 6.
  const ir::Node* lookup = first_call(p, "aten::index_select");
  ASSERT_NE(lookup, nullptr);
  EXPECT_EQ(values<int64_t>(const_arg(p, lookup, "self")), (V{0, 2, 4, 1, 3, 5}));
  const ir::Node* add = first_call(p, "aten::add.Tensor");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(values<int64_t>(const_arg(p, add, "other")), (V{0, 6}));
  EXPECT_EQ(out_sizes(p, 1), (V{1, 2, 1, 2}));
}

TEST(OnnxImportPool, MaxPoolIndicesUndoAnExplicitPad) {
  ModelBuilder b;
  b.input("x", {1, 1, 2, 2}).output("y").output("i", onnx::TensorProto::INT64);
  auto& n = b.node("MaxPool", {"x"}, {"y", "i"}, "pool");
  set_attr(n, "kernel_shape", V{2, 2});
  set_attr(n, "pads", V{0, 1, 0, 0});  // one column of padding on the left
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(first_call(p, "aten::constant_pad_nd")->arg("pad").to_int_vector(), (V{1, 0, 0, 0}));
  // Padded plane [2, 3] → input plane [2, 2]; the pad column maps to its nearest input column.
  EXPECT_EQ(values<int64_t>(const_arg(p, first_call(p, "aten::index_select"), "self")),
            (V{0, 0, 1, 2, 2, 3}));
  EXPECT_EQ(first_call(p, "aten::add.Tensor"), nullptr);  // one plane: no offset
}

TEST(OnnxImportPool, MaxUnpoolScattersIntoZerosOfTheInferredShape) {
  ModelBuilder b(11);
  b.input("x", {1, 2, 2, 2}).input("i", {1, 2, 2, 2}, onnx::TensorProto::INT64).output("y");
  auto& n = b.node("MaxUnpool", {"x", "i"}, {"y"}, "unpool");
  set_attr(n, "kernel_shape", V{2, 2});
  set_attr(n, "strides", V{2, 2});
  set_attr(n, "pads", V{0, 0, 1, 0});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::view_copy", "aten::full", "aten::view_copy",
                                    "aten::scatter.src", "aten::view_copy"));
  // (2 - 1) * 2 + 2 - pads: H 3, W 4; the indices are flat over all of [1, 2, 3, 4].
  EXPECT_EQ(first_call(p, "aten::full")->arg("size").to_int_vector(), (V{24}));
  EXPECT_EQ(out_sizes(p), (V{1, 2, 3, 4}));
}

TEST(OnnxImportPool, MaxUnpoolTakesAConstantOutputShape) {
  ModelBuilder b(11);
  b.input("x", {1, 1, 2, 2}).input("i", {1, 1, 2, 2}, onnx::TensorProto::INT64);
  b.output("y", onnx::TensorProto::FLOAT, {1, 1, 5, 5});
  b.init_int64("shape", {4}, {1, 1, 5, 5});
  auto& n = b.node("MaxUnpool", {"x", "i", "shape"}, {"y"}, "unpool");
  set_attr(n, "kernel_shape", V{2, 2});
  set_attr(n, "strides", V{2, 2});
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(first_call(p, "aten::full")->arg("size").to_int_vector(), (V{25}));
  EXPECT_EQ(out_sizes(p), (V{1, 1, 5, 5}));
}

TEST(OnnxImportLocalNorm, LrnSumsAnAsymmetricChannelWindow) {
  ModelBuilder b;
  b.input("x", {1, 5, 2, 2}).output("y");
  auto& n = b.node("LRN", {"x"}, {"y"}, "lrn");
  set_attr(n, "size", int64_t{4});
  const ir::ExportedProgram p = import(b);
  // size 4: channels [c - 1, c + 2].
  EXPECT_EQ(first_call(p, "aten::constant_pad_nd")->arg("pad").to_int_vector(), (V{0, 0, 1, 2}));
  const ir::Node* pool = first_call(p, "aten::avg_pool2d");
  EXPECT_EQ(pool->arg("kernel_size").to_int_vector(), (V{4, 1}));
  EXPECT_EQ(pool->arg("divisor_override").as_int(), 1);
  EXPECT_NEAR(first_call(p, "aten::mul.Scalar")->arg("other").as_double(), 1e-4 / 4, 1e-12);
  EXPECT_NEAR(first_call(p, "aten::pow.Tensor_Scalar")->arg("exponent").as_double(), 0.75, 1e-7);
  EXPECT_EQ(out_sizes(p), (V{1, 5, 2, 2}));
}

TEST(OnnxImportLocalNorm, MeanVarianceNormalizationDefaultAxes) {
  ModelBuilder b;
  b.input("x", {2, 3, 2, 2}).output("y");
  b.node("MeanVarianceNormalization", {"x"}, {"y"}, "mvn");
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::mean.dim", "aten::sub.Tensor", "aten::mul.Tensor",
                          "aten::mean.dim", "aten::sqrt", "aten::add.Scalar", "aten::div.Tensor"));
  EXPECT_EQ(first_call(p, "aten::mean.dim")->arg("dim").to_int_vector(), (V{0, 2, 3}));
}

TEST(OnnxImportShrink, ComparesWithLambdAndShiftsByBias) {
  ModelBuilder b(9);
  b.input("x", {5}).output("y");
  auto& n = b.node("Shrink", {"x"}, {"y"}, "shrink");
  set_attr(n, "lambd", 1.5f);
  set_attr(n, "bias", 0.25f);
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(first_call(p, "aten::lt.Scalar")->arg("other").as_double(), -1.5);
  EXPECT_EQ(first_call(p, "aten::gt.Scalar")->arg("other").as_double(), 1.5);
  EXPECT_EQ(first_call(p, "aten::add.Scalar")->arg("other").as_double(), 0.25);
  EXPECT_EQ(first_call(p, "aten::sub.Scalar")->arg("other").as_double(), 0.25);
  EXPECT_EQ(all_calls(p, "aten::where.self").size(), 2u);
}

TEST(OnnxImportWindow, WindowsAreConstants) {
  struct Case {
    const char* op;
    int64_t periodic;
    std::vector<double> want;
  };
  const Case cases[] = {
      {"HannWindow", 1, {0, 0.5, 1, 0.5}},
      {"HannWindow", 0, {0, 0.75, 0.75, 0}},
      {"HammingWindow", 1, {2.0 / 23, 25.0 / 46, 1, 25.0 / 46}},
      {"BlackmanWindow", 0, {0, 0.63, 0.63, 0}},
  };
  for (const Case& c : cases) {
    ModelBuilder b(17);
    b.output("y", onnx::TensorProto::DOUBLE);
    b.init_int64("size", {}, {4});
    auto& n = b.node(c.op, {"size"}, {"y"}, "window");
    set_attr(n, "periodic", c.periodic);
    set_attr(n, "output_datatype", int64_t{onnx::TensorProto::DOUBLE});
    const ir::ExportedProgram p = import(b);
    EXPECT_TRUE(calls(p).empty()) << c.op;
    ASSERT_EQ(p.constants().size(), 1u) << c.op;
    const ir::TensorData& w = p.constants().begin()->second;
    EXPECT_EQ(w.spec.to_string(), "f64[4]");
    const std::vector<double> got = values<double>(w);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(got[i], c.want[i], 1e-12) << c.op << " " << i;
  }
}

}  // namespace
}  // namespace ptec::onnx_import::testing
