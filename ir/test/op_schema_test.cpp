#include "ir/op_schema.h"

#include <cmath>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/exception.h"
#include "ir/op_table.h"

namespace ptec::ir {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> names(const std::vector<ArgSchema>& args) {
  std::vector<std::string> out;
  for (const ArgSchema& a : args) out.push_back(a.name);
  return out;
}

template <typename Fn>
std::string error_of(Fn&& fn, Error* code = nullptr) {
  try {
    fn();
  } catch (const Exception& e) {
    if (code != nullptr) *code = e.code();
    return e.what();
  }
  return "<no error>";
}

TEST(ParseSchema, NamespaceOverloadKwargOnlyAndDefaults) {
  const OpSchema op =
      parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(op.ns, "aten");
  EXPECT_EQ(op.name, "add");
  EXPECT_EQ(op.overload, "Tensor");
  EXPECT_EQ(op.qualified_name(), "aten::add.Tensor");
  ASSERT_EQ(op.args.size(), 3u);
  EXPECT_FALSE(op.args[1].kwarg_only);
  EXPECT_TRUE(op.args[2].kwarg_only);
  ASSERT_TRUE(op.args[2].default_value.has_value());
  EXPECT_EQ(*op.args[2].default_value, Argument(int64_t{1}));
  ASSERT_EQ(op.returns.size(), 1u);
  EXPECT_EQ(op.returns[0].base, BaseType::Tensor);
  EXPECT_EQ(op.arg_index("alpha"), 2);
  EXPECT_EQ(op.arg_index("beta"), -1);
}

TEST(ParseSchema, NoNamespaceAndDefaultOverload) {
  const OpSchema op = parse_schema("relu(Tensor self) -> Tensor");
  EXPECT_EQ(op.ns, "");
  EXPECT_EQ(op.overload, "");
  EXPECT_EQ(op.qualified_name(), "relu");
}

TEST(ParseSchema, AliasAnnotationsOutArgsAndTuples) {
  const OpSchema op = parse_schema(
      "max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] "
      "padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, Tensor(b!) indices) "
      "-> (Tensor(a!), Tensor(b!))");
  ASSERT_EQ(op.args.size(), 8u);
  EXPECT_FALSE(op.args[0].is_out);
  EXPECT_TRUE(op.args[6].is_out);
  EXPECT_TRUE(op.args[7].is_out);
  EXPECT_EQ(op.args[1].type.to_string(), "int[2]");
  EXPECT_EQ(op.args[1].type.list_size, 2);
  EXPECT_EQ(*op.args[2].default_value, Argument(ArgumentList{}));
  // A scalar default of a sized list is that value repeated.
  EXPECT_EQ(*op.args[3].default_value, Argument(std::vector<int64_t>{0, 0}));
  EXPECT_EQ(*op.args[4].default_value, Argument(std::vector<int64_t>{1, 1}));
  EXPECT_EQ(*op.args[5].default_value, Argument(false));
  EXPECT_EQ(op.returns.size(), 2u);
}

TEST(ParseSchema, MutablePositionalSelfIsNotAnOutArgument) {
  const OpSchema op = parse_schema("relu.out(Tensor(a!) self, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_FALSE(op.args[0].is_out);
  EXPECT_TRUE(op.args[1].is_out);
}

TEST(ParseSchema, OptionalListAndElementOptionalTypes) {
  const OpSchema op = parse_schema(
      "f(Tensor? a, int[]? b, Tensor?[] c, SymInt[] d, Tensor(a!)[] e, float[]? f=None, Tensor(a) "
      "g) -> Tensor[]");
  EXPECT_EQ(op.args[0].type.to_string(), "Tensor?");
  EXPECT_TRUE(op.args[0].type.optional);
  EXPECT_EQ(op.args[1].type.to_string(), "int[]?");
  EXPECT_TRUE(op.args[1].type.optional);
  EXPECT_TRUE(op.args[1].type.is_list);
  EXPECT_EQ(op.args[2].type.to_string(), "Tensor?[]");
  EXPECT_TRUE(op.args[2].type.element_optional);
  EXPECT_FALSE(op.args[2].type.optional);
  EXPECT_EQ(op.args[3].type.base, BaseType::SymInt);
  EXPECT_TRUE(op.args[4].type.is_list);
  EXPECT_FALSE(op.args[4].is_out);  // not keyword-only
  EXPECT_TRUE(op.args[5].default_value->is_none());
  EXPECT_EQ(op.args[6].type.to_string(), "Tensor");
  ASSERT_EQ(op.returns.size(), 1u);
  EXPECT_TRUE(op.returns[0].is_list);
}

TEST(ParseSchema, FloatBoolStringAndEnumDefaults) {
  const OpSchema op = parse_schema(
      "f(float eps=1e-05, float lo=-inf, Scalar slope=0.01, bool b=True, str approximate='none', "
      "str m=\"x\\\"y\", MemoryFormat mf=contiguous_format, Layout? l=None, int[] dims=[0, 1], "
      "ScalarType dt=long) -> ()");
  EXPECT_EQ(op.args[0].default_value->as_double(), 1e-05);
  EXPECT_TRUE(std::isinf(op.args[1].default_value->as_double()));
  EXPECT_LT(op.args[1].default_value->as_double(), 0);
  EXPECT_EQ(op.args[2].default_value->as_double(), 0.01);
  EXPECT_EQ(*op.args[3].default_value, Argument(true));
  EXPECT_EQ(op.args[4].default_value->as_string(), "none");
  EXPECT_EQ(op.args[5].default_value->as_string(), "x\"y");
  EXPECT_EQ(*op.args[6].default_value, Argument(int64_t{0}));
  EXPECT_TRUE(op.args[7].default_value->is_none());
  EXPECT_EQ(*op.args[8].default_value, Argument(std::vector<int64_t>{0, 1}));
  EXPECT_EQ(*op.args[9].default_value, Argument(DType::Long));
  EXPECT_TRUE(op.returns.empty());
}

TEST(ParseSchema, NamedReturnsAndVarargs) {
  const OpSchema op = parse_schema(
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor "
      "indices)");
  EXPECT_EQ(op.returns.size(), 2u);
  const OpSchema v =
      parse_schema("executorch_call_delegate(CustomObj lowered_module, ...) -> Tensor[]");
  EXPECT_TRUE(v.is_vararg);
  EXPECT_EQ(v.args.size(), 1u);
  EXPECT_EQ(v.args[0].type.base, BaseType::CustomObj);
}

TEST(ParseSchema, ErrorsNameTheProblemAndColumn) {
  Error code = Error::Ok;
  EXPECT_EQ(error_of([] { parse_schema("aten::f(Tensr self) -> Tensor"); }, &code),
            "schema 'aten::f(Tensr self) -> Tensor': unknown type 'Tensr' at column 9 (near "
            "'Tensr self) ')");
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_THAT(error_of([] { parse_schema("aten::f(Tensor self -> Tensor"); }),
              HasSubstr("expected ','"));
  EXPECT_THAT(error_of([] { parse_schema("aten::f(int x=foo) -> Tensor"); }),
              HasSubstr("default value 'foo' for int x: not a valid int"));
  EXPECT_THAT(error_of([] { parse_schema("aten::f(Tensor x=None) -> Tensor"); }),
              HasSubstr("None for a non-optional type"));
  EXPECT_THAT(error_of([] { parse_schema("aten::f(Tensor x, Tensor x) -> Tensor"); }),
              HasSubstr("argument 'x' appears twice"));
  EXPECT_THAT(error_of([] { parse_schema("aten::f(Tensor x) -> Tensor )"); }),
              HasSubstr("trailing text"));
}

// ---------------------------------------------------------------------------------------------
// The op table
// ---------------------------------------------------------------------------------------------

TEST(OpTable, EveryRowParsesAndIsRegistered) {
  std::set<std::string> seen;
  for (const OpTableRow& row : op_table()) {
    SCOPED_TRACE(row.schema);
    const OpSchema op = parse_schema(row.schema);
    if (row.out_schema != nullptr) parse_schema(row.out_schema);
    ASSERT_NE(row.shape_fn, nullptr);
    std::string name = op.qualified_name();
    if (op.ns.empty() && name != "getitem" && name != "executorch_call_delegate") {
      name = "aten::" + name;
    }
    const OpSchema* registered = find_op(name);
    ASSERT_NE(registered, nullptr) << name;
    EXPECT_EQ(registered->schema, row.schema);
    EXPECT_TRUE(seen.insert(name).second) << name << " twice";
  }
  EXPECT_EQ(all_ops().size(), op_table().size());
  EXPECT_GE(all_ops().size(), 150u);
  EXPECT_TRUE(
      std::is_sorted(all_ops().begin(), all_ops().end(), [](const OpSchema* a, const OpSchema* b) {
        return a->qualified_name() < b->qualified_name();
      }));
}

TEST(OpTable, OutVariantArgumentsAreFunctionalArgumentsThenOuts) {
  for (const OpSchema* op : all_ops()) {
    SCOPED_TRACE(op->qualified_name());
    if (op->out_overload.empty()) {
      EXPECT_TRUE(op->out_args.empty());
      continue;
    }
    bool seen_out = false;
    for (const ArgSchema& a : op->out_args) {
      if (a.is_out) {
        seen_out = true;
        EXPECT_EQ(a.type.base, BaseType::Tensor);
      } else {
        EXPECT_FALSE(seen_out) << "functional argument " << a.name << " after an out argument";
        EXPECT_GE(op->arg_index(a.name), 0) << a.name;
      }
    }
    EXPECT_TRUE(seen_out);
  }
}

TEST(OpTable, OutVariantNamesAndOrderMatchOperatorsMd) {
  struct Case {
    const char* op;
    const char* out;
    std::vector<std::string> out_args;
  };
  const std::vector<Case> cases = {
      {"aten::add.Tensor", "aten::add.out", {"self", "other", "alpha", "out"}},
      {"aten::add.Scalar", "aten::add.Scalar_out", {"self", "other", "alpha", "out"}},
      {"aten::sum.dim_IntList",
       "aten::sum.IntList_out",
       {"self", "dim", "keepdim", "dtype", "out"}},
      {"aten::mean.dim", "aten::mean.out", {"self", "dim", "keepdim", "dtype", "out"}},
      {"aten::max.dim", "aten::max.dim_max", {"self", "dim", "keepdim", "max", "max_values"}},
      {"aten::native_layer_norm",
       "aten::native_layer_norm.out",
       {"input", "normalized_shape", "weight", "bias", "eps", "out0", "out1", "out2"}},
      {"aten::split_with_sizes_copy",
       "aten::split_with_sizes_copy.out",
       {"self", "split_sizes", "dim", "out"}},
      {"aten::div.Tensor_mode", "aten::div.out_mode", {"self", "other", "rounding_mode", "out"}},
      {"aten::arange.start_step", "aten::arange.start_out", {"start", "end", "step", "out"}},
      {"aten::convolution",
       "aten::convolution.out",
       {"input", "weight", "bias", "stride", "padding", "dilation", "transposed", "output_padding",
        "groups", "out"}},
      {"aten::_native_batch_norm_legit_no_training",
       "aten::_native_batch_norm_legit_no_training.out",
       {"input", "weight", "bias", "running_mean", "running_var", "momentum", "eps", "out0", "out1",
        "out2"}},
      {"quantized_decomposed::quantize_per_tensor",
       "quantized_decomposed::quantize_per_tensor.out",
       {"input", "scale", "zero_point", "quant_min", "quant_max", "dtype", "out"}},
      {"quantized_decomposed::choose_qparams.tensor",
       "quantized_decomposed::choose_qparams.Tensor_out",
       {"input", "quant_min", "quant_max", "eps", "dtype", "scale_out", "zero_point_out"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    const OpSchema& op = get_op(c.op);
    EXPECT_EQ(op.out_qualified_name(), c.out);
    EXPECT_EQ(names(op.out_args), c.out_args);
  }
  const OpSchema& split = get_op("aten::split_with_sizes_copy");
  EXPECT_EQ(split.out_args.back().type.to_string(), "Tensor[]");
  EXPECT_TRUE(split.out_args.back().is_out);
}

TEST(OpTable, OpsWithoutOutVariant) {
  for (const char* name : {"aten::sym_size.int", "executorch_prim::add.Scalar", "getitem",
                           "ptec::execute_engine", "executorch_call_delegate"}) {
    SCOPED_TRACE(name);
    const OpSchema& op = get_op(name);
    EXPECT_EQ(op.out_qualified_name(), "");
  }
  EXPECT_FALSE(get_op("aten::sym_size.int").returns_tensors());
  EXPECT_TRUE(get_op("getitem").returns_tensors());
  EXPECT_EQ(get_op("getitem").ns, "");
  EXPECT_TRUE(get_op("ptec::execute_engine").opaque_outputs);
  EXPECT_TRUE(get_op("executorch_call_delegate").is_vararg);
  EXPECT_EQ(names(get_op("ptec::execute_engine").args),
            (std::vector<std::string>{"inputs", "engine"}));
}

TEST(OpTable, RequiredCoverage) {
  for (const char* name : {"aten::convolution",
                           "aten::_native_batch_norm_legit_no_training",
                           "aten::add.Tensor",
                           "aten::add.Scalar",
                           "aten::sub.Tensor",
                           "aten::sub.Scalar",
                           "aten::mul.Tensor",
                           "aten::mul.Scalar",
                           "aten::div.Tensor",
                           "aten::div.Scalar",
                           "aten::div.Tensor_mode",
                           "aten::rsub.Scalar",
                           "aten::relu",
                           "aten::clamp",
                           "aten::clamp.Tensor",
                           "aten::hardtanh",
                           "aten::sigmoid",
                           "aten::tanh",
                           "aten::gelu",
                           "aten::exp",
                           "aten::log",
                           "aten::sqrt",
                           "aten::rsqrt",
                           "aten::reciprocal",
                           "aten::neg",
                           "aten::abs",
                           "aten::erf",
                           "aten::pow.Tensor_Scalar",
                           "aten::pow.Tensor_Tensor",
                           "aten::max_pool2d_with_indices",
                           "aten::avg_pool2d",
                           "aten::_adaptive_avg_pool2d",
                           "aten::mean.dim",
                           "aten::sum.dim_IntList",
                           "aten::amax",
                           "aten::max.dim",
                           "aten::argmax",
                           "aten::view_copy",
                           "aten::permute_copy",
                           "aten::t_copy",
                           "aten::transpose_copy.int",
                           "aten::unsqueeze_copy",
                           "aten::squeeze_copy.dims",
                           "aten::expand_copy",
                           "aten::cat",
                           "aten::split_with_sizes_copy",
                           "aten::slice_copy.Tensor",
                           "aten::select_copy.int",
                           "aten::constant_pad_nd",
                           "aten::addmm",
                           "aten::mm",
                           "aten::bmm",
                           "aten::_softmax",
                           "aten::_log_softmax",
                           "aten::native_layer_norm",
                           "aten::clone",
                           "aten::_to_copy",
                           "aten::full",
                           "aten::full_like",
                           "aten::where.self",
                           "aten::eq.Scalar",
                           "aten::eq.Tensor",
                           "aten::ne.Scalar",
                           "aten::ne.Tensor",
                           "aten::lt.Scalar",
                           "aten::lt.Tensor",
                           "aten::le.Scalar",
                           "aten::le.Tensor",
                           "aten::gt.Scalar",
                           "aten::gt.Tensor",
                           "aten::ge.Scalar",
                           "aten::ge.Tensor",
                           "aten::logical_not",
                           "aten::embedding",
                           "aten::index_select",
                           "aten::gather",
                           "aten::arange.start_step",
                           "aten::maximum",
                           "aten::minimum",
                           "aten::leaky_relu",
                           "aten::elu",
                           "aten::native_group_norm",
                           "aten::upsample_nearest2d.vec",
                           "aten::upsample_bilinear2d.vec",
                           "quantized_decomposed::quantize_per_tensor",
                           "quantized_decomposed::dequantize_per_tensor",
                           "quantized_decomposed::quantize_per_channel",
                           "quantized_decomposed::dequantize_per_channel",
                           "quantized_decomposed::choose_qparams.tensor",
                           "aten::sym_size.int",
                           "ptec::execute_engine",
                           "executorch_call_delegate",
                           "getitem"}) {
    EXPECT_NE(find_op(name), nullptr) << name;
  }
}

TEST(Registry, FindOpAcceptsDefaultOverloadSpelling) {
  EXPECT_EQ(find_op("aten::relu.default"), find_op("aten::relu"));
  EXPECT_EQ(find_op("aten::nope"), nullptr);
}

TEST(Registry, GetOpNotFoundListsCloseNames) {
  Error code = Error::Ok;
  EXPECT_EQ(error_of([] { get_op("aten::convolutoin"); }, &code),
            "unknown operator 'aten::convolutoin'; did you mean aten::convolution?");
  EXPECT_EQ(code, Error::NotFound);
  // Other overloads of the same operator come first.
  EXPECT_THAT(error_of([] { get_op("aten::add"); }),
              HasSubstr("did you mean aten::add.Scalar, aten::add.Tensor"));
  EXPECT_THAT(error_of([] { get_op("relu"); }), HasSubstr("aten::relu"));
  EXPECT_EQ(error_of([] { get_op("zzzzzzzzzzzzzzzzzzzzzzzzzz::q"); }),
            fmt::format("unknown operator 'zzzzzzzzzzzzzzzzzzzzzzzzzz::q' (ptec's op table has {} "
                        "operators)",
                        all_ops().size()));
}

}  // namespace
}  // namespace ptec::ir
