// Shape functions of the op table: output specs, symbolic dims, type promotion and errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "ir/exception.h"
#include "ir/graph.h"
#include "ir/op_schema.h"
#include "ir/shape/shape_util.h"

namespace ptec::ir {
namespace {

using ::testing::HasSubstr;

class ShapeFnTest : public ::testing::Test {
 protected:
  Node* t(DType dtype, Shape shape) {
    return graph_.add_placeholder("t", TensorSpec(dtype, std::move(shape)));
  }

  // Runs `op`'s shape function on `args`, with schema defaults for the missing trailing ones.
  std::vector<TensorSpec> run(std::string_view name, ArgumentList args) {
    const OpSchema& op = get_op(name);
    for (size_t i = args.size(); i < op.args.size(); ++i) {
      if (!op.args[i].default_value)
        throw std::logic_error("test needs argument " + op.args[i].name);
      args.push_back(*op.args[i].default_value);
    }
    return op.shape_fn(op, args);
  }
  TensorSpec one(std::string_view name, ArgumentList args) {
    auto out = run(name, std::move(args));
    EXPECT_EQ(out.size(), 1u);
    return out.at(0);
  }
  std::string error(std::string_view name, ArgumentList args) {
    try {
      run(name, std::move(args));
    } catch (const Exception& e) {
      EXPECT_EQ(e.code(), Error::InvalidArgument) << e.what();
      return e.what();
    }
    return "<no error>";
  }

  SymInt sym(const std::string& name, int64_t lo = 1, int64_t hi = 64) {
    return SymInt(std::make_shared<Symbol>(Symbol{name, lo, hi}));
  }

  /// The output height of a k x 1 convolution (or transposed convolution) of a [1, 4, in, 8]
  /// input with that stride and padding along the height.
  SymInt conv_height(const SymInt& in, int64_t k, int64_t stride, int64_t pad, bool transposed) {
    const ArgumentList args = {t(DType::Float, {1, 4, in, 8}),
                               t(DType::Float, {4, 4, k, 1}),
                               nullptr,
                               std::vector<int64_t>{stride, 1},
                               std::vector<int64_t>{pad, 0},
                               std::vector<int64_t>{1, 1},
                               transposed,
                               std::vector<int64_t>{0, 0},
                               int64_t{1}};
    return one("aten::convolution", args).shape[2];
  }

  Graph graph_;
};

TEST_F(ShapeFnTest, BroadcastingKeepsEqualSymbolsAndRefusesMismatches) {
  const SymInt b = sym("b");
  const TensorSpec out =
      one("aten::add.Tensor", {t(DType::Float, {b, 1, 4}), t(DType::Float, {3, 1})});
  EXPECT_EQ(out, TensorSpec(DType::Float, Shape{b, 3, 4}));
  EXPECT_EQ(one("aten::mul.Tensor", {t(DType::Float, {b, 4}), t(DType::Float, {b, 1})}),
            TensorSpec(DType::Float, Shape{b, 4}));
  EXPECT_EQ(error("aten::add.Tensor", {t(DType::Float, {2, 3}), t(DType::Float, {4, 3})}),
            "aten::add.Tensor: arguments 'self' [2, 3] and 'other' [4, 3] do not broadcast "
            "(dimension 2 from the end: 2 vs 4)");
  EXPECT_THAT(error("aten::add.Tensor", {t(DType::Float, {b}), t(DType::Float, {sym("c")})}),
              HasSubstr("b vs c"));
}

TEST_F(ShapeFnTest, TypePromotionFollowsATen) {
  EXPECT_EQ(promote_types(DType::Byte, DType::Char), DType::Short);
  EXPECT_EQ(promote_types(DType::Int, DType::Float), DType::Float);
  EXPECT_EQ(promote_types(DType::Half, DType::BFloat16), DType::Float);
  EXPECT_EQ(promote_types(DType::Bool, DType::Int), DType::Int);
  // uint16/32/64 promote only with themselves and floating types, as c10 does.
  EXPECT_EQ(promote_types(DType::UInt32, DType::UInt32), DType::UInt32);
  EXPECT_EQ(promote_types(DType::UInt64, DType::Half), DType::Half);
  EXPECT_EQ(promote_types(DType::Float, DType::UInt16), DType::Float);
  for (DType other : {DType::Bool, DType::Byte, DType::Long, DType::UInt16}) {
    EXPECT_THROW(promote_types(DType::UInt32, other), Exception) << to_string(other);
  }
  // Tensor-tensor.
  EXPECT_EQ(one("aten::add.Tensor", {t(DType::Int, {2}), t(DType::Long, {2})}).dtype, DType::Long);
  EXPECT_EQ(one("aten::add.Tensor", {t(DType::Int, {2}), t(DType::Float, {2})}).dtype,
            DType::Float);
  // A 0-dim tensor only counts when of a higher category.
  EXPECT_EQ(one("aten::add.Tensor", {t(DType::Half, {2}), t(DType::Float, {})}).dtype, DType::Half);
  EXPECT_EQ(one("aten::add.Tensor", {t(DType::Int, {2}), t(DType::Double, {})}).dtype,
            DType::Double);
  EXPECT_EQ(one("aten::add.Tensor", {t(DType::Int, {2}), t(DType::Long, {})}).dtype, DType::Int);
  // Scalars: an int tensor plus a float scalar is float32; int scalars keep the tensor dtype.
  EXPECT_EQ(one("aten::add.Scalar", {t(DType::Int, {2}), 2.5}).dtype, DType::Float);
  EXPECT_EQ(one("aten::mul.Scalar", {t(DType::Int, {2}), int64_t{3}}).dtype, DType::Int);
  EXPECT_EQ(one("aten::mul.Scalar", {t(DType::Half, {2}), 0.5}).dtype, DType::Half);
  EXPECT_EQ(one("aten::add.Scalar", {t(DType::Bool, {2}), int64_t{1}}).dtype, DType::Long);
  // Division of integers is true division unless a rounding mode is given.
  EXPECT_EQ(one("aten::div.Tensor", {t(DType::Int, {2}), t(DType::Int, {2})}).dtype, DType::Float);
  EXPECT_EQ(one("aten::div.Tensor_mode", {t(DType::Int, {2}), t(DType::Int, {2}), "floor"}).dtype,
            DType::Int);
  EXPECT_EQ(one("aten::div.Scalar", {t(DType::Long, {2}), int64_t{2}}).dtype, DType::Float);
  // Unary float ops on ints give float32; comparisons give bool.
  EXPECT_EQ(one("aten::sigmoid", {t(DType::Int, {2})}).dtype, DType::Float);
  EXPECT_EQ(one("aten::lt.Scalar", {t(DType::Float, {2}), 0.5}).dtype, DType::Bool);
  EXPECT_EQ(
      one("aten::where.self", {t(DType::Bool, {2}), t(DType::Int, {2}), t(DType::Float, {1})}),
      TensorSpec(DType::Float, std::vector<int64_t>{2}));
}

TEST_F(ShapeFnTest, ElementwiseErrors) {
  EXPECT_EQ(error("aten::add.Tensor", {t(DType::Int, {2}), t(DType::Int, {2}), 0.5}),
            "aten::add.Tensor: argument 'alpha': a floating-point alpha needs a floating-point "
            "result, got i32");
  EXPECT_THAT(error("aten::sub.Tensor", {t(DType::Bool, {2}), t(DType::Bool, {2})}),
              HasSubstr("subtraction of bool tensors is not supported"));
  EXPECT_EQ(
      error("aten::where.self", {t(DType::Float, {2}), t(DType::Float, {2}), t(DType::Float, {2})}),
      "aten::where.self: argument 'condition': expected a bool tensor, got f32[2]");
  EXPECT_EQ(error("aten::gelu", {t(DType::Float, {2}), "fast"}),
            "aten::gelu: argument 'approximate': expected \"none\" or \"tanh\"");
  EXPECT_EQ(error("aten::relu", {int64_t{1}}),
            "aten::relu: argument 'self': expected a tensor, got 1");
}

TEST_F(ShapeFnTest, ConvolutionPropagatesBatchSymbol) {
  const SymInt n = sym("n");
  Node* w = t(DType::Float, {8, 3, 3, 3});
  const ArgumentList rest = {
      Argument(std::vector<int64_t>{2, 2}), Argument(std::vector<int64_t>{1, 1}),
      Argument(std::vector<int64_t>{1, 1}), false,
      Argument(std::vector<int64_t>{0, 0}), int64_t{1}};
  ArgumentList args = {t(DType::Float, {n, 3, 32, 32}), w, nullptr};
  args.insert(args.end(), rest.begin(), rest.end());
  EXPECT_EQ(one("aten::convolution", args), TensorSpec(DType::Float, Shape{n, 8, 16, 16}));
  // Depthwise, transposed.
  EXPECT_EQ(one("aten::convolution",
                {t(DType::Float, {1, 4, 5, 5}), t(DType::Float, {4, 1, 3, 3}), t(DType::Float, {4}),
                 std::vector<int64_t>{1}, std::vector<int64_t>{0}, std::vector<int64_t>{1}, false,
                 std::vector<int64_t>{0}, int64_t{4}}),
            TensorSpec(DType::Float, std::vector<int64_t>{1, 4, 3, 3}));
  EXPECT_EQ(one("aten::convolution",
                {t(DType::Float, {1, 4, 5, 5}), t(DType::Float, {4, 2, 3, 3}), nullptr,
                 std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 1}, std::vector<int64_t>{1, 1},
                 true, std::vector<int64_t>{1, 1}, int64_t{1}}),
            TensorSpec(DType::Float, std::vector<int64_t>{1, 2, 10, 10}));
  args[0] = t(DType::Float, {1, 4, 32, 32});
  EXPECT_EQ(error("aten::convolution", args),
            "aten::convolution: argument 'weight': f32[8, 3, 3, 3] expects 3 input channels (3 per "
            "group x 1 groups), input f32[1, 4, 32, 32] has 4");
  args[0] = t(DType::Float, {1, 3, 32, 32});
  args[2] = t(DType::Float, {7});
  EXPECT_EQ(error("aten::convolution", args),
            "aten::convolution: argument 'bias': expected [8], got f32[7]");
}

// Dynamic spatial dims: each convolution, pooling, padding or upsampling counts windows of the
// input's symbol, floor((scale * h + offset) / divisor); counts of counts compose, so the two
// paths of a ResNet block (3x3 stride 2 pad 1, and 1x1 stride 2) reach the same symbol.
TEST_F(ShapeFnTest, WindowCountsOfDynamicSpatialDims) {
  const SymInt h = sym("h", 32, 128);
  auto conv = [&](const SymInt& in, int64_t k, int64_t stride, int64_t pad, bool transposed) {
    return conv_height(in, k, stride, pad, transposed);
  };
  const SymInt stem = conv(h, 7, 2, 3, false);
  EXPECT_EQ(stem.to_string(), "(h+1)/2");
  EXPECT_EQ(stem.lower_bound(), 16);
  EXPECT_EQ(stem.upper_bound(), 64);
  const auto pool = run("aten::max_pool2d_with_indices",
                        {t(DType::Float, {1, 4, stem, 8}), std::vector<int64_t>{3, 3},
                         std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 1}});
  EXPECT_EQ(pool[0].shape[2].to_string(), "(h+3)/4");
  EXPECT_EQ(pool[0].shape[2].upper_bound(), 32);
  EXPECT_EQ(pool[1].shape, pool[0].shape);
  EXPECT_EQ(conv(stem, 3, 2, 1, false), conv(stem, 1, 2, 0, false));
  EXPECT_EQ(conv(h, 3, 1, 1, false), h);  // a same-size convolution keeps the symbol
  // Transposed: (h - 1) * 2 - 2 + 3 + 0 = 2h - 1; then a stride-2 convolution of it.
  const SymInt up = conv(h, 3, 2, 1, true);
  EXPECT_EQ(up.to_string(), "2*h-1");
  EXPECT_EQ(conv(up, 3, 2, 1, false), h);  // floor(2h / 2)
  EXPECT_EQ(one("aten::constant_pad_nd", {t(DType::Float, {1, h}), std::vector<int64_t>{1, 2}, 0.0})
                .shape[1]
                .to_string(),
            "h+3");
  const TensorSpec twice =
      one("aten::upsample_nearest2d.vec",
          {t(DType::Float, {1, 4, stem, 8}), nullptr, ArgumentList{Argument(2.0), Argument(2.0)}});
  EXPECT_EQ(twice.shape[2].to_string(), "((h+1)/2)_x2");
  EXPECT_EQ(twice.shape[3], SymInt(16));
  // An integer upsampling and a view that merges the dim with a static one agree.
  const SymInt doubled =
      one("aten::upsample_nearest2d.vec",
          {t(DType::Float, {1, 4, h, 8}), nullptr, ArgumentList{Argument(2.0), Argument(1.0)}})
          .shape[2];
  EXPECT_EQ(doubled,
            one("aten::view_copy", {t(DType::Float, {h, 2}), std::vector<int64_t>{-1}}).shape[0]);
  EXPECT_EQ(doubled.to_string(), "h_x2");
  EXPECT_EQ(error("aten::upsample_nearest2d.vec", {t(DType::Float, {1, 4, h, 8}), nullptr,
                                                   ArgumentList{Argument(1.5), Argument(2.0)}}),
            "aten::upsample_nearest2d.vec: argument 'scale_factors': 1.5 of the dynamic dim 2 of "
            "f32[1, 4, h, 8] is not an integer");
  // A kernel larger than the smallest input, and ceil mode whose last window could start in the
  // padding (stride 2 + padding 1 > window 2), are refused.
  EXPECT_EQ(error("aten::max_pool2d_with_indices",
                  {t(DType::Float, {1, 4, sym("s", 2, 9), 8}), std::vector<int64_t>{3, 3}}),
            "aten::max_pool2d_with_indices: argument 'input': f32[1, 4, s, 8] is too small at s = "
            "2, the smallest size of its dynamic dim 2");
  EXPECT_EQ(
      error("aten::max_pool2d_with_indices",
            {t(DType::Float, {1, 4, h, 8}), std::vector<int64_t>{2, 2}, std::vector<int64_t>{2, 2},
             std::vector<int64_t>{1, 1}, std::vector<int64_t>{1, 1}, true}),
      "aten::max_pool2d_with_indices: argument 'ceil_mode': with the dynamic dim 2 of f32[1, "
      "4, h, 8], a last window may start in the padding (kernel 2, stride 2, padding 1)");
}

// With h declared a multiple of 8, the counts of a network that halves it three times are exact
// fractions ("h/2"), whatever path reached them, and upsampling one by 2 gives the next level's
// symbol again: a U-Net's skip connections concatenate. Without the multiple, 2 * ((h+1)/2) is
// not h (odd sizes).
TEST_F(ShapeFnTest, WindowCountsOfADeclaredMultiple) {
  auto h_sym = std::make_shared<Symbol>(Symbol{"h", 32, 256});
  h_sym->multiple = 8;
  const SymInt h(h_sym);
  auto conv = [&](const SymInt& in, int64_t k, int64_t stride, int64_t pad, bool transposed) {
    return conv_height(in, k, stride, pad, transposed);
  };
  auto pool = [&](const SymInt& in) {
    return run("aten::max_pool2d_with_indices",
               {t(DType::Float, {1, 4, in, 8}), std::vector<int64_t>{2, 2}})[0]
        .shape[2];
  };
  auto upsample = [&](const SymInt& in) {
    return one("aten::upsample_nearest2d.vec", {t(DType::Float, {1, 4, in, 8}), nullptr,
                                                ArgumentList{Argument(2.0), Argument(1.0)}})
        .shape[2];
  };
  const SymInt half = conv(h, 3, 2, 1, false);  // floor((h + 1) / 2)
  EXPECT_EQ(half.to_string(), "h/2");
  EXPECT_EQ(half.lower_bound(), 16);
  EXPECT_EQ(half.upper_bound(), 128);
  EXPECT_EQ(pool(h), half);                  // floor(h / 2)
  EXPECT_EQ(conv(h, 1, 2, 0, false), half);  // floor((h - 1) / 2) + 1
  EXPECT_EQ(upsample(half), h);
  EXPECT_EQ(conv(half, 2, 2, 0, true), h);  // a 2x2 stride-2 transposed convolution
  const SymInt eighth = conv(pool(pool(h)), 3, 2, 1, false);
  EXPECT_EQ(eighth.to_string(), "h/8");
  EXPECT_EQ(upsample(eighth), pool(half));
  EXPECT_EQ(upsample(upsample(upsample(eighth))), h);
  // A view that merges h/2 with 2 is h as well, and one that splits a 2 off h/2 infers h/4 (a
  // pixel unshuffle's [c, h/2, w] -> [c, h/4, 2, w]).
  auto view = [&](const Shape& in, std::vector<int64_t> size) {
    return one("aten::view_copy", {t(DType::Float, in), std::move(size)}).shape;
  };
  EXPECT_EQ(view({half, 2}, {-1})[0], h);
  EXPECT_EQ(view({3, half, 5}, {3, -1, 2, 5})[1], pool(half));
  EXPECT_EQ(view({3, half, 5}, {3, -1, 2, 5})[1].to_string(), "h/4");
  // Fractions stay as they were where no split is needed: [h/2, h/8] flattens to (h/2)*(h/8).
  EXPECT_EQ(view({half, eighth}, {-1})[0].to_string(), "(h/2)*(h/8)");
  // Past the declared multiple: h / 16 is not known to be whole.
  EXPECT_EQ(error("aten::view_copy", {t(DType::Float, {eighth, 1}), std::vector<int64_t>{-1, 2}}),
            "aten::view_copy: argument 'size': cannot infer -1 in [-1, 2] for the symbolic input "
            "f32[h/8, 1] (h/8 is not a multiple of 2)");
  // Inexact counts keep their floor: a 3x3 stride-3 window count of h (a multiple of 8 only).
  EXPECT_EQ(conv(h, 3, 3, 0, false).to_string(), "h/3");
  EXPECT_EQ(conv(half, 3, 1, 0, false).to_string(), "(h-4)/2");  // h / 2 - 2
  // The same network on a symbol without the multiple: the sizes of the two paths differ.
  const SymInt g = sym("g", 32, 256);
  EXPECT_EQ(upsample(conv(g, 3, 2, 1, false)).to_string(), "((g+1)/2)_x2");
  EXPECT_NE(upsample(conv(g, 3, 2, 1, false)), g);
  // Which multiple would make them agree: 2 for one halving, 8 for three; none for h + 1 vs h.
  const SymInt g8 = upsample(upsample(upsample(conv(pool(pool(g)), 3, 2, 1, false))));
  std::optional<AgreeingMultiple> m = agreeing_multiple(upsample(conv(g, 3, 2, 1, false)), g);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->multiple, 2);
  EXPECT_EQ(m->symbol, g.symbol());
  m = agreeing_multiple(g8, g);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->multiple, 8);
  EXPECT_FALSE(agreeing_multiple(affine(g, 1, 1, 1), g).has_value());
  EXPECT_EQ(
      error("aten::cat",
            {ArgumentList{t(DType::Float, {1, 4, g8, 8}), t(DType::Float, {1, 3, g, 8})},
             int64_t{1}}),
      "aten::cat: argument 'tensors': tensor 1 is f32[1, 3, g, 8] but tensor 0 is f32[1, 4, " +
          g8.to_string() +
          ", 8] (dimension 2 differs) (the sizes agree where 'g' is a multiple of 8: declare it "
          "so, e.g. ptec export --dynamic INPUT:AXIS=g:MIN..MAX:8)");
  // With g a multiple of 8 already, 2 * (g / 16) needs 16.
  auto g_sym = std::make_shared<Symbol>(Symbol{"g", 32, 256});
  g_sym->multiple = 8;
  const SymInt g_8(g_sym);
  m = agreeing_multiple(upsample(pool(pool(pool(pool(g_8))))), pool(pool(pool(g_8))));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->multiple, 16);
}

TEST_F(ShapeFnTest, DerivedDimsEvaluateAtGivenSizes) {
  auto h_sym = std::make_shared<Symbol>(Symbol{"h", 32, 256});
  h_sym->multiple = 8;
  const SymInt h(h_sym), w = sym("w", 1, 100);
  const std::map<std::string, int64_t> at{{"h", 48}, {"w", 7}};
  EXPECT_EQ(evaluate(SymInt(5), at), 5);
  EXPECT_EQ(evaluate(h, at), 48);
  EXPECT_EQ(evaluate(affine(h, 1, 1, 2), at), 24);   // "h/2": the exact fraction
  EXPECT_EQ(evaluate(affine(w, 1, 1, 2), at), 4);    // "(w+1)/2": the floor
  EXPECT_EQ(evaluate(affine(w, 1, -9, 2), at), -1);  // floor, not truncation, below zero
  EXPECT_EQ(evaluate(affine(affine(w, 1, 1, 2), 2, 0, 1), at), 8);  // "((w+1)/2)_x2"
  EXPECT_EQ(evaluate(times(h, w), at), 48 * 7);                     // "h*w"
  EXPECT_EQ(evaluate(times(affine(h, 1, 0, 4), SymInt(3)), at), 36);
  EXPECT_EQ(evaluate(times(h, w), {{"h", 48}}), std::nullopt);  // w has no size
}

TEST_F(ShapeFnTest, Pooling) {
  const auto out = run("aten::max_pool2d_with_indices",
                       {t(DType::Float, {1, 2, 7, 7}), std::vector<int64_t>{3, 3},
                        std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 1}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], TensorSpec(DType::Float, std::vector<int64_t>{1, 2, 4, 4}));
  EXPECT_EQ(out[1].dtype, DType::Long);
  // ceil_mode
  EXPECT_EQ(one("aten::avg_pool2d", {t(DType::Float, {1, 1, 6, 6}), std::vector<int64_t>{4, 4},
                                     std::vector<int64_t>{4, 4}, std::vector<int64_t>{0, 0}, true}),
            TensorSpec(DType::Float, std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(one("aten::_adaptive_avg_pool2d",
                {t(DType::Float, {sym("b"), 8, sym("h"), 9}), std::vector<int64_t>{1, 1}})
                .shape[1],
            SymInt(8));
  EXPECT_EQ(error("aten::avg_pool2d", {t(DType::Float, {1, 1, 2, 2}), std::vector<int64_t>{3, 3},
                                       ArgumentList{}, std::vector<int64_t>{0, 0}}),
            "aten::avg_pool2d: argument 'self': input f32[1, 1, 2, 2] is too small for kernel 3 "
            "(output size 0)");
}

TEST_F(ShapeFnTest, Pooling3dAndConvolution3d) {
  using V = std::vector<int64_t>;
  const auto out =
      run("aten::max_pool3d_with_indices", {t(DType::Float, {1, 2, 5, 6, 7}), V{3}, V{2}, V{1}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], TensorSpec(DType::Float, V{1, 2, 3, 3, 4}));
  EXPECT_EQ(out[1], TensorSpec(DType::Long, V{1, 2, 3, 3, 4}));
  // (C, D, H, W) input, ceil_mode.
  EXPECT_EQ(
      one("aten::avg_pool3d", {t(DType::Float, {2, 4, 4, 5}), V{3, 3, 3}, V{2, 2, 2}, V{0}, true}),
      TensorSpec(DType::Float, V{2, 2, 2, 2}));
  EXPECT_EQ(error("aten::avg_pool3d", {t(DType::Float, {1, 1, 4, 4, 4}), V{2, 2}}),
            "aten::avg_pool3d: argument 'kernel_size': expected 1 or 3 values, got 2");
  EXPECT_EQ(error("aten::avg_pool3d", {t(DType::Float, {1, 4, 4}), V{2}}),
            "aten::avg_pool3d: argument 'self': expected a 4-d or 5-d tensor, got f32[1, 4, 4]");
  // Regular and transposed 3-D convolution.
  EXPECT_EQ(
      one("aten::convolution", {t(DType::Float, {1, 2, 4, 5, 6}), t(DType::Float, {4, 1, 3, 3, 3}),
                                nullptr, V{1}, V{1}, V{1}, false, V{0}, int64_t{2}}),
      TensorSpec(DType::Float, V{1, 4, 4, 5, 6}));
  EXPECT_EQ(
      one("aten::convolution", {t(DType::Float, {1, 2, 3, 3, 3}), t(DType::Float, {2, 3, 2, 2, 2}),
                                nullptr, V{2}, V{0}, V{1}, true, V{1}, int64_t{1}}),
      TensorSpec(DType::Float, V{1, 3, 7, 7, 7}));
  EXPECT_EQ(
      error("aten::convolution", {t(DType::Float, {1, 2, 3, 3}), t(DType::Float, {2, 3, 2, 2}),
                                  nullptr, V{2}, V{0}, V{1}, true, V{2}, int64_t{1}}),
      "aten::convolution: argument 'output_padding': 2 must be >= 0 and smaller than either "
      "stride 2 or dilation 1");
  EXPECT_EQ(
      error("aten::convolution", {t(DType::Float, {1, 3, 3, 3}), t(DType::Float, {3, 1, 2, 2}),
                                  nullptr, V{1}, V{0}, V{1}, true, V{0}, int64_t{2}}),
      "aten::convolution: argument 'groups': 3 input channels are not divisible by 2 groups");
}

TEST_F(ShapeFnTest, Reductions) {
  const SymInt b = sym("b");
  EXPECT_EQ(
      one("aten::mean.dim", {t(DType::Float, {b, 8, 4, 4}), std::vector<int64_t>{-1, -2}, true}),
      TensorSpec(DType::Float, Shape{b, 8, 1, 1}));
  EXPECT_EQ(one("aten::sum.dim_IntList", {t(DType::Int, {2, 3}), std::vector<int64_t>{1}}),
            TensorSpec(DType::Long, std::vector<int64_t>{2}));
  EXPECT_EQ(one("aten::sum.dim_IntList", {t(DType::Float, {2, 3}), nullptr}),
            TensorSpec(DType::Float, std::vector<int64_t>{}));
  const auto max = run("aten::max.dim", {t(DType::Float, {2, 3}), int64_t{1}, true});
  EXPECT_EQ(max[0], TensorSpec(DType::Float, std::vector<int64_t>{2, 1}));
  EXPECT_EQ(max[1], TensorSpec(DType::Long, std::vector<int64_t>{2, 1}));
  EXPECT_EQ(one("aten::argmax", {t(DType::Float, {2, 3})}),
            TensorSpec(DType::Long, std::vector<int64_t>{}));
  EXPECT_EQ(error("aten::amax", {t(DType::Float, {2, 3}), std::vector<int64_t>{1, -1}}),
            "aten::amax: argument 'dim': dimension -1 appears more than once");
  EXPECT_EQ(error("aten::_softmax", {t(DType::Float, {2, 3}), int64_t{2}, false}),
            "aten::_softmax: argument 'dim': dimension 2 is out of range for a tensor of rank 2");
}

TEST_F(ShapeFnTest, ViewsAndShapeOps) {
  const SymInt b = sym("b");
  Node* x = t(DType::Float, {b, 3, 4});
  EXPECT_EQ(one("aten::view_copy", {t(DType::Float, {2, 3, 4}), std::vector<int64_t>{-1, 4}}),
            TensorSpec(DType::Float, std::vector<int64_t>{6, 4}));
  // A symbolic dim passes through view as the symbol itself (via sym_size) or as -1.
  Node* bsize = graph_.add_call(get_op("aten::sym_size.int"), {x, int64_t{0}});
  EXPECT_EQ(one("aten::view_copy", {x, ArgumentList{bsize, int64_t{12}}}),
            TensorSpec(DType::Float, Shape{b, 12}));
  EXPECT_EQ(one("aten::view_copy", {x, std::vector<int64_t>{12, -1}}),
            TensorSpec(DType::Float, Shape{12, b}));
  // Merged with static dims, it becomes a multiple of itself, which a later view undoes.
  const TensorSpec flat = one("aten::view_copy", {x, std::vector<int64_t>{-1}});
  ASSERT_EQ(flat.rank(), 1u);
  EXPECT_EQ(flat.shape[0].to_string(), "b_x12");
  EXPECT_EQ(flat.shape[0].upper_bound(), 12 * b.upper_bound());
  Node* line = t(DType::Float, {flat.shape[0]});
  EXPECT_EQ(one("aten::view_copy", {line, std::vector<int64_t>{-1, 6}}).shape[0].to_string(),
            "b_x2");
  EXPECT_EQ(one("aten::view_copy", {line, std::vector<int64_t>{-1, 3, 4}}),
            TensorSpec(DType::Float, Shape{b, 3, 4}));
  // Two symbols merge into their product, named and bounded canonically, which views split
  // again by the symbols themselves or by multiples of them (a batch of heads).
  const SymInt s = sym("s", 1, 10);
  Node* bs = t(DType::Float, {s, b, 8});
  const TensorSpec rows = one("aten::view_copy", {bs, std::vector<int64_t>{-1, 8}});
  ASSERT_EQ(rows.rank(), 2u);
  EXPECT_EQ(rows.shape[0].to_string(), "b*s");
  EXPECT_EQ(rows.shape[0].lower_bound(), 1);
  EXPECT_EQ(rows.shape[0].upper_bound(), 64 * 10);
  EXPECT_EQ(
      rows.shape[0],
      one("aten::view_copy", {t(DType::Float, {b, s, 8}), std::vector<int64_t>{-1, 8}}).shape[0]);
  Node* flat_bs = t(DType::Float, {rows.shape[0], 8});
  Node* s_size = graph_.add_call(get_op("aten::sym_size.int"), {bs, int64_t{0}});
  Node* b_size = graph_.add_call(get_op("aten::sym_size.int"), {bs, int64_t{1}});
  EXPECT_EQ(one("aten::view_copy", {flat_bs, ArgumentList{b_size, s_size, int64_t{8}}}),
            TensorSpec(DType::Float, Shape{b, s, 8}));
  const TensorSpec heads = one("aten::view_copy", {flat_bs, ArgumentList{s_size, int64_t{-1}, 2}});
  EXPECT_EQ(heads.shape[1].to_string(), "b_x4");
  EXPECT_EQ(
      one("aten::view_copy", {t(DType::Float, heads.shape), ArgumentList{int64_t{-1}, 8}}).shape[0],
      rows.shape[0]);
  EXPECT_EQ(error("aten::view_copy", {flat_bs, ArgumentList{s_size, s_size, int64_t{8}}}),
            "aten::view_copy: argument 'size': symbol 's' of [s, s, 8] is not a dimension of self "
            "f32[b*s, 8]");
  EXPECT_EQ(error("aten::view_copy", {bs, std::vector<int64_t>{-1, 3}}),
            "aten::view_copy: argument 'size': cannot infer -1 in [-1, 3] for the symbolic input "
            "f32[s, b, 8] (b*s is not a multiple of 3)");
  EXPECT_EQ(
      error("aten::view_copy", {x, std::vector<int64_t>{-1, 5}}),
      "aten::view_copy: argument 'size': cannot infer -1 in [-1, 5] for the symbolic input f32[b, "
      "3, 4] (b is not a multiple of 5)");
  EXPECT_EQ(error("aten::view_copy", {t(DType::Float, {2, 3}), std::vector<int64_t>{4, 2}}),
            "aten::view_copy: argument 'size': shape [4, 2] is invalid for an input f32[2, 3]");
  EXPECT_EQ(one("aten::permute_copy", {x, std::vector<int64_t>{2, 0, 1}}),
            TensorSpec(DType::Float, Shape{4, b, 3}));
  EXPECT_EQ(one("aten::transpose_copy.int", {x, int64_t{0}, int64_t{-1}}),
            TensorSpec(DType::Float, Shape{4, 3, b}));
  EXPECT_EQ(one("aten::unsqueeze_copy", {x, int64_t{-1}}),
            TensorSpec(DType::Float, Shape{b, 3, 4, 1}));
  EXPECT_EQ(
      one("aten::squeeze_copy.dims", {t(DType::Float, {1, 3, 1}), std::vector<int64_t>{0, 1}}),
      TensorSpec(DType::Float, std::vector<int64_t>{3, 1}));
  EXPECT_EQ(one("aten::expand_copy", {t(DType::Float, {3, 1}), std::vector<int64_t>{2, -1, 5}}),
            TensorSpec(DType::Float, std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(one("aten::cat", {ArgumentList{x, t(DType::Float, {b, 5, 4})}, int64_t{1}}),
            TensorSpec(DType::Float, Shape{b, 8, 4}));
  EXPECT_EQ(error("aten::cat", {ArgumentList{x, t(DType::Float, {b, 5, 5})}, int64_t{1}}),
            "aten::cat: argument 'tensors': tensor 1 is f32[b, 5, 5] but tensor 0 is f32[b, 3, 4] "
            "(dimension 2 differs)");
  const auto parts =
      run("aten::split_with_sizes_copy", {x, std::vector<int64_t>{1, 3}, int64_t{2}});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1], TensorSpec(DType::Float, Shape{b, 3, 3}));
  EXPECT_EQ(
      error("aten::split_with_sizes_copy", {x, std::vector<int64_t>{1, 2}, int64_t{2}}),
      "aten::split_with_sizes_copy: argument 'split_sizes': sizes add up to 3 but dimension 2 "
      "of f32[b, 3, 4] is 4");
  EXPECT_EQ(one("aten::slice_copy.Tensor", {x, int64_t{2}, int64_t{1}, int64_t{-1}}),
            TensorSpec(DType::Float, Shape{b, 3, 2}));
  EXPECT_EQ(one("aten::slice_copy.Tensor", {x, int64_t{0}}),
            TensorSpec(DType::Float, Shape{b, 3, 4}));
  EXPECT_EQ(one("aten::select_copy.int", {x, int64_t{1}, int64_t{-1}}),
            TensorSpec(DType::Float, Shape{b, 4}));
  EXPECT_EQ(one("aten::constant_pad_nd", {x, std::vector<int64_t>{1, 2}}),
            TensorSpec(DType::Float, Shape{b, 3, 7}));
  EXPECT_EQ(one("aten::embedding", {t(DType::Float, {10, 16}), t(DType::Long, {b, 7})}),
            TensorSpec(DType::Float, Shape{b, 7, 16}));
  EXPECT_EQ(one("aten::index.Tensor",
                {t(DType::Float, {5, 6, 7}), ArgumentList{nullptr, t(DType::Long, {2, 3})}}),
            TensorSpec(DType::Float, std::vector<int64_t>{5, 2, 3, 7}));
}

TEST_F(ShapeFnTest, ScatterIndexPutTopk) {
  const SymInt b = sym("b");
  Node* x = t(DType::Float, {b, 5});
  Node* idx = t(DType::Long, {2, 3});
  EXPECT_EQ(one("aten::scatter.src", {x, int64_t{1}, idx, t(DType::Float, {2, 3})}),
            TensorSpec(DType::Float, Shape{b, 5}));
  EXPECT_EQ(one("aten::scatter.value", {x, int64_t{-1}, idx, 2.5}),
            TensorSpec(DType::Float, Shape{b, 5}));
  EXPECT_EQ(one("aten::scatter_reduce.two",
                {x, int64_t{0}, idx, t(DType::Float, {2, 3}), std::string("amax")}),
            TensorSpec(DType::Float, Shape{b, 5}));
  EXPECT_THAT(error("aten::scatter_add", {x, int64_t{0}, t(DType::Int, {2, 3}), x}),
              HasSubstr("argument 'index': expected an int64 tensor"));
  EXPECT_THAT(error("aten::scatter.src", {x, int64_t{0}, t(DType::Long, {3}), x}),
              HasSubstr("must have the rank of self"));
  EXPECT_THAT(error("aten::scatter.src", {x, int64_t{0}, idx, t(DType::Double, {2, 3})}),
              HasSubstr("argument 'src'"));
  EXPECT_THAT(error("aten::scatter_reduce.two",
                    {x, int64_t{0}, idx, t(DType::Float, {2, 3}), std::string("max")}),
              HasSubstr("argument 'reduce'"));
  Node* y = t(DType::Float, {4, 5, 6});
  EXPECT_EQ(one("aten::index_put", {y, ArgumentList{t(DType::Long, {2, 1}), t(DType::Long, {3})},
                                    t(DType::Float, {6})}),
            TensorSpec(DType::Float, std::vector<int64_t>{4, 5, 6}));
  EXPECT_THAT(
      error("aten::index_put", {y, ArgumentList{t(DType::Long, {2})}, t(DType::Float, {3, 5, 6})}),
      HasSubstr("'values' [3, 5, 6] and 'indexing result' [2, 5, 6] do not broadcast"));
  const auto tk = run("aten::topk", {x, int64_t{3}, int64_t{-1}});
  ASSERT_EQ(tk.size(), 2u);
  EXPECT_EQ(tk[0], TensorSpec(DType::Float, Shape{b, 3}));
  EXPECT_EQ(tk[1], TensorSpec(DType::Long, Shape{b, 3}));
  EXPECT_THAT(error("aten::topk", {x, int64_t{6}}), HasSubstr("argument 'k'"));
}

TEST_F(ShapeFnTest, MatmulAndNorms) {
  const SymInt b = sym("b");
  EXPECT_EQ(
      one("aten::addmm", {t(DType::Float, {4}), t(DType::Float, {b, 8}), t(DType::Float, {8, 4})}),
      TensorSpec(DType::Float, Shape{b, 4}));
  EXPECT_EQ(
      error("aten::mm", {t(DType::Float, {2, 3}), t(DType::Float, {4, 5})}),
      "aten::mm: argument 'mat2': f32[4, 5] cannot be multiplied with 'self' f32[2, 3] (inner "
      "dimensions 3 and 4)");
  EXPECT_EQ(one("aten::bmm", {t(DType::Float, {b, 2, 3}), t(DType::Float, {b, 3, 5})}),
            TensorSpec(DType::Float, Shape{b, 2, 5}));
  const auto ln =
      run("aten::native_layer_norm", {t(DType::Float, {b, 7, 16}), std::vector<int64_t>{16},
                                      t(DType::Float, {16}), nullptr, 1e-5});
  ASSERT_EQ(ln.size(), 3u);
  EXPECT_EQ(ln[0], TensorSpec(DType::Float, Shape{b, 7, 16}));
  EXPECT_EQ(ln[1], TensorSpec(DType::Float, Shape{b, 7, 1}));
  const auto bn = run("aten::_native_batch_norm_legit_no_training",
                      {t(DType::Float, {2, 3, 4, 4}), t(DType::Float, {3}), t(DType::Float, {3}),
                       t(DType::Float, {3}), t(DType::Float, {3}), 0.1, 1e-5});
  EXPECT_EQ(bn[0], TensorSpec(DType::Float, std::vector<int64_t>{2, 3, 4, 4}));
  EXPECT_EQ(bn[1], TensorSpec(DType::Float, std::vector<int64_t>{0}));
  EXPECT_EQ(error("aten::_native_batch_norm_legit_no_training",
                  {t(DType::Float, {2, 3, 4, 4}), t(DType::Float, {4}), nullptr,
                   t(DType::Float, {3}), t(DType::Float, {3}), 0.1, 1e-5}),
            "aten::_native_batch_norm_legit_no_training: argument 'weight': expected shape [3], "
            "got f32[4]");
  const auto gn =
      run("aten::native_group_norm", {t(DType::Float, {2, 6, 4, 4}), nullptr, nullptr, int64_t{2},
                                      int64_t{6}, int64_t{16}, int64_t{3}, 1e-5});
  EXPECT_EQ(gn[1], TensorSpec(DType::Float, std::vector<int64_t>{2, 3}));
}

TEST_F(ShapeFnTest, CreationQuantizationAndStructuralOps) {
  EXPECT_EQ(one("aten::full", {std::vector<int64_t>{2, 3}, int64_t{7}}),
            TensorSpec(DType::Long, std::vector<int64_t>{2, 3}));
  EXPECT_EQ(one("aten::full", {std::vector<int64_t>{2}, 1.5, DType::Half}).dtype, DType::Half);
  EXPECT_EQ(one("aten::arange.start_step", {int64_t{1}, int64_t{10}, int64_t{3}}),
            TensorSpec(DType::Long, std::vector<int64_t>{3}));
  EXPECT_EQ(one("aten::arange.start_step", {0.0, 1.0, 0.25}),
            TensorSpec(DType::Float, std::vector<int64_t>{4}));
  EXPECT_EQ(one("aten::_to_copy", {t(DType::Float, {2}), DType::Half}).dtype, DType::Half);
  Node* x = t(DType::Float, {2, 4});
  EXPECT_EQ(one("quantized_decomposed::quantize_per_tensor",
                {x, 0.1, int64_t{0}, int64_t{-128}, int64_t{127}, DType::Char}),
            TensorSpec(DType::Char, std::vector<int64_t>{2, 4}));
  EXPECT_EQ(
      one("quantized_decomposed::dequantize_per_tensor",
          {t(DType::Char, {2, 4}), 0.1, int64_t{0}, int64_t{-128}, int64_t{127}, DType::Char}),
      TensorSpec(DType::Float, std::vector<int64_t>{2, 4}));
  EXPECT_EQ(
      error("quantized_decomposed::dequantize_per_tensor",
            {t(DType::Byte, {2}), 0.1, int64_t{0}, int64_t{0}, int64_t{255}, DType::Char}),
      "quantized_decomposed::dequantize_per_tensor: argument 'input': dtype u8 does not match "
      "the 'dtype' argument i8");
  EXPECT_THAT(error("quantized_decomposed::quantize_per_channel",
                    {x, t(DType::Float, {3}), t(DType::Long, {3}), int64_t{1}, int64_t{-128},
                     int64_t{127}, DType::Char}),
              HasSubstr("expected one scale per channel of axis 1"));
  const auto qp = run("quantized_decomposed::choose_qparams.tensor",
                      {x, int64_t{-128}, int64_t{127}, 1e-5, DType::Char});
  EXPECT_EQ(qp[0], TensorSpec(DType::Double, std::vector<int64_t>{1}));
  EXPECT_EQ(qp[1], TensorSpec(DType::Long, std::vector<int64_t>{1}));
  EXPECT_TRUE(run("aten::sym_size.int", {x, int64_t{1}}).empty());
  EXPECT_TRUE(run("executorch_prim::add.Scalar", {int64_t{1}, int64_t{2}}).empty());
  // getitem takes one output of a multi-output node.
  Node* split = graph_.add_call(get_op("aten::split_with_sizes_copy"),
                                {x, Argument(std::vector<int64_t>{1, 3}), int64_t{1}});
  split->meta().val =
      run("aten::split_with_sizes_copy", {x, std::vector<int64_t>{1, 3}, int64_t{1}});
  EXPECT_EQ(one("getitem", {split, int64_t{1}}),
            TensorSpec(DType::Float, std::vector<int64_t>{2, 3}));
  EXPECT_EQ(error("getitem", {split, int64_t{2}}),
            "getitem: argument 'idx': 2 is out of range for 2 outputs");
  // Engine and delegate outputs are set by their creator.
  try {
    run("ptec::execute_engine", {ArgumentList{x}, x});
    ADD_FAILURE() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::NotSupported);
  }
}

TEST_F(ShapeFnTest, EveryOpHasAShapeFunction) {
  for (const OpSchema* op : all_ops()) EXPECT_NE(op->shape_fn, nullptr) << op->qualified_name();
}

}  // namespace
}  // namespace ptec::ir
