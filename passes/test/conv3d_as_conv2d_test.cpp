// Conv3dAsConv2d: which 3-D convolutions become 2-D ones, and the graph around them. tests/models'
// tiny_video model checks the numbers end to end against PyTorch (through the cpu recipes).

#include <gtest/gtest.h>

#include "passes/conv3d_as_conv2d.h"
#include "passes/test/test_graphs.h"

namespace ptec::passes {
namespace {

using testing::calls;
using Ints = std::vector<int64_t>;
using Names = std::vector<std::string>;

struct Model {
  ir::ExportedProgram p;
  ir::Node* x = nullptr;
  explicit Model(Ints sizes = {2, 4, 5, 6, 7}) {
    x = testing::input(p, "x", ir::TensorSpec(DType::Float, sizes));
  }
  // A convolution of x with a weight of `kernel` (4 -> 6 channels over `groups`), biased.
  ir::Node* conv(const Ints& kernel, const Ints& stride, const Ints& padding,
                 const Ints& dilation = {1, 1, 1}, int64_t groups = 1) {
    Ints sizes = {6, 4 / groups};
    sizes.insert(sizes.end(), kernel.begin(), kernel.end());
    int64_t numel = 1;
    for (int64_t s : sizes) numel *= s;
    ir::Node* w = testing::param(p, "w", testing::float_tensor(sizes, std::vector<float>(numel)));
    ir::Node* b = testing::param(p, "b", testing::float_tensor({6}, std::vector<float>(6)));
    return testing::call(p, "aten::convolution",
                         {x, w, b, stride, padding, dilation, false, Ints{0, 0, 0}, groups},
                         "conv");
  }
  const ir::TensorData& weight_of(const ir::Node& conv) {
    return *p.constant_for_placeholder(conv.arg("weight").as_node()->name());
  }
};

TEST(Conv3dAsConv2d, TemporalKernelConvolvesTimeByPixels) {
  Model m;
  ir::Node* conv = m.conv({3, 1, 1}, {2, 1, 1}, {1, 0, 0}, {1, 1, 1}, 2);
  ir::Node* relu = testing::call(m.p, "aten::relu", {conv}, "relu");
  testing::output(m.p, {relu});
  const ir::BufferPtr bytes = m.p.state_dict().at("w").data;
  const Ints out_sizes = conv->spec().upper_bound_sizes();

  ASSERT_TRUE(Conv3dAsConv2d().run(m.p).modified);
  EXPECT_EQ(calls(m.p), (Names{"view_copy(aten::view_copy)", "convolution(aten::convolution)",
                               "view_copy_1(aten::view_copy)", "relu(aten::relu)"}));
  const ir::Node& c = m.p.graph().get("convolution");
  EXPECT_EQ(c.arg(0).as_node()->spec().upper_bound_sizes(), (Ints{2, 4, 5, 42}));
  EXPECT_EQ(c.arg("stride").to_int_vector(), (Ints{2, 1}));
  EXPECT_EQ(c.arg("padding").to_int_vector(), (Ints{1, 0}));
  EXPECT_EQ(c.arg("dilation").to_int_vector(), (Ints{1, 1}));
  EXPECT_EQ(c.arg("groups").as_int(), 2);
  // The weights keep their bytes under a 4-D shape; the 5-D parameter is gone.
  EXPECT_EQ(m.weight_of(c).spec.upper_bound_sizes(), (Ints{6, 2, 3, 1}));
  EXPECT_EQ(m.weight_of(c).data, bytes);
  EXPECT_EQ(m.p.state_dict().count("w"), 0u);
  EXPECT_EQ(m.p.graph().get("relu").arg(0).as_node()->spec().upper_bound_sizes(), out_sizes);
  EXPECT_FALSE(Conv3dAsConv2d().run(m.p).modified);
}

TEST(Conv3dAsConv2d, SingleTapKernelTakesTheFramesAsTheBatch) {
  Model m;
  ir::Node* conv = m.conv({1, 3, 3}, {1, 2, 1}, {0, 1, 1}, {1, 1, 2});
  testing::output(m.p, {conv});
  const Ints out_sizes = conv->spec().upper_bound_sizes();  // [2, 6, 5, 3, 5]

  ASSERT_TRUE(Conv3dAsConv2d().run(m.p).modified);
  EXPECT_EQ(calls(m.p), (Names{"permute_copy(aten::permute_copy)", "view_copy(aten::view_copy)",
                               "convolution(aten::convolution)", "view_copy_1(aten::view_copy)",
                               "permute_copy_1(aten::permute_copy)"}));
  const ir::Node& c = m.p.graph().get("convolution");
  EXPECT_EQ(c.arg(0).as_node()->spec().upper_bound_sizes(), (Ints{10, 4, 6, 7}));
  EXPECT_EQ(c.spec().upper_bound_sizes(), (Ints{10, 6, 3, 5}));
  EXPECT_EQ(c.arg("stride").to_int_vector(), (Ints{2, 1}));
  EXPECT_EQ(c.arg("padding").to_int_vector(), (Ints{1, 1}));
  EXPECT_EQ(c.arg("dilation").to_int_vector(), (Ints{1, 2}));
  EXPECT_EQ(m.weight_of(c).spec.upper_bound_sizes(), (Ints{6, 4, 3, 3}));
  EXPECT_EQ(m.p.graph().get("permute_copy").arg(1).to_int_vector(), (Ints{0, 2, 1, 3, 4}));
  EXPECT_EQ(m.p.graph().get("permute_copy_1").spec().upper_bound_sizes(), out_sizes);
  ASSERT_EQ(m.p.signature().outputs.size(), 1u);
  EXPECT_EQ(m.p.signature().outputs[0].name, "permute_copy_1");
}

TEST(Conv3dAsConv2d, OneFrameNeedsNoPermute) {
  Model m({1, 4, 1, 5, 5});
  testing::output(m.p, {m.conv({1, 1, 1}, {1, 2, 2}, {0, 0, 0})});
  ASSERT_TRUE(Conv3dAsConv2d().run(m.p).modified);
  EXPECT_EQ(calls(m.p), (Names{"view_copy(aten::view_copy)", "convolution(aten::convolution)",
                               "view_copy_1(aten::view_copy)"}));
}

TEST(Conv3dAsConv2d, TemporalStrideSlicesTheFramesRead) {
  Model m;  // T = 5, stride 2: frames 0, 2 and 4
  ir::Node* conv = m.conv({1, 1, 1}, {2, 2, 2}, {0, 0, 0});
  testing::output(m.p, {conv});
  const Ints out_sizes = conv->spec().upper_bound_sizes();  // [2, 6, 3, 3, 4]
  ASSERT_TRUE(Conv3dAsConv2d().run(m.p).modified);
  EXPECT_EQ(calls(m.p),
            (Names{"slice_copy(aten::slice_copy.Tensor)", "permute_copy(aten::permute_copy)",
                   "view_copy(aten::view_copy)", "convolution(aten::convolution)",
                   "view_copy_1(aten::view_copy)", "permute_copy_1(aten::permute_copy)"}));
  const ir::Node& slice = m.p.graph().get("slice_copy");
  EXPECT_EQ(slice.spec().upper_bound_sizes(), (Ints{2, 4, 3, 6, 7}));
  EXPECT_EQ(slice.arg("step").as_int(), 2);
  const ir::Node& c = m.p.graph().get("convolution");
  EXPECT_EQ(c.arg(0).as_node()->spec().upper_bound_sizes(), (Ints{6, 4, 6, 7}));
  EXPECT_EQ(c.arg("stride").to_int_vector(), (Ints{2, 2}));
  EXPECT_EQ(m.p.graph().get("permute_copy_1").spec().upper_bound_sizes(), out_sizes);
}

TEST(Conv3dAsConv2d, OtherConvolutionsStay) {
  struct Case {
    const char* why;
    Ints kernel, stride, padding;
  };
  for (const Case& c :
       {Case{"3x3x3", {3, 3, 3}, {1, 1, 1}, {1, 1, 1}},
        Case{"temporal with spatial padding", {3, 1, 1}, {1, 1, 1}, {1, 1, 0}},
        Case{"temporal with a spatial stride", {3, 1, 1}, {1, 2, 1}, {1, 0, 0}},
        Case{"single tap with temporal padding", {1, 3, 3}, {1, 1, 1}, {1, 1, 1}}}) {
    Model m;
    testing::output(m.p, {m.conv(c.kernel, c.stride, c.padding)});
    EXPECT_FALSE(Conv3dAsConv2d().run(m.p).modified) << c.why;
  }
  // A 2-D convolution, and a 3-D one whose weights are computed.
  Model m2({1, 4, 5, 5});
  ir::Node* w =
      testing::param(m2.p, "w", testing::float_tensor({6, 4, 1, 1}, std::vector<float>(24)));
  testing::output(m2.p, {testing::call(m2.p, "aten::convolution",
                                       {m2.x, w, nullptr, Ints{1, 1}, Ints{0, 0}, Ints{1, 1}, false,
                                        Ints{0, 0}, 1})});
  EXPECT_FALSE(Conv3dAsConv2d().run(m2.p).modified);
  Model m3;
  ir::Node* w3 =
      testing::param(m3.p, "w", testing::float_tensor({6, 4, 3, 1, 1}, std::vector<float>(72)));
  ir::Node* neg = testing::call(m3.p, "aten::neg", {w3});
  testing::output(m3.p, {testing::call(m3.p, "aten::convolution",
                                       {m3.x, neg, nullptr, Ints{1, 1, 1}, Ints{0, 0, 0},
                                        Ints{1, 1, 1}, false, Ints{0, 0, 0}, 1})});
  EXPECT_FALSE(Conv3dAsConv2d().run(m3.p).modified);
}

}  // namespace
}  // namespace ptec::passes
