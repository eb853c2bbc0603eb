// The text format: printer/parser round trips, the exact printed form, parse errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/exception.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace ptec::ir {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Every construct of the format: provenance, range and local symbols, all input and output
// kinds, state_dict/constant/custom_obj/example_input entries, dim orders, every argument kind
// (node, None, ints, floats incl. 1e-05/-inf/nan, bools, escaped strings, dtypes, lists with
// None, keyword arguments), multi-output nodes with getitem, scalar prims, get_attr, variadic
// delegate calls, and node meta (debug handle, source, tag, extra).
constexpr const char* kEverything = R"IR(program uuid=0123456789abcdef0123456789abcdef stage=EDGE
  provenance "import" "onnx: model.onnx (opset 13)"
  provenance "to_edge" "check_ir_validity=true"
  symbol batch [2, 8] multiple 2
  symbol seq [1, 9223372036854775807]
  symbol tmp [2, 4] local
  input USER_INPUT x
  input USER_INPUT ids
  input PARAMETER p_w target="conv.weight"
  input BUFFER b_mean target="bn.mean"
  input CONSTANT_TENSOR c_k target="k"
  input CUSTOM_OBJ engine target="engine0"
  output USER_OUTPUT getitem
  output BUFFER_MUTATION add target="bn.mean"
  output USER_INPUT_MUTATION delegate target="x"
  state_dict "bn.mean" f32[3] bytes=12 hash=00000000000000aa
  state_dict "conv.weight" f32[4, 3, 1, 1] bytes=48 hash=00000000000000bb
  constant "k" i64[2] bytes=16 hash=00000000000000cc
  custom_obj "empty" type="t"
  custom_obj "engine0" type="ptec.engine" bytes=5 hash=00000000000000dd metadata={"a": "1", "b c": "x \"y\""}
  example_input 0 f32[1, 3, 4, 4] bytes=192 hash=00000000000000ee
  example_input 1 i64[1, 5]
graph:
  %x : f32[batch, 3, 4, 4]@[0, 2, 3, 1] = placeholder() #1
  %ids : i64[1, seq] = placeholder() #2
  %p_w : f32[4, 3, 1, 1] = placeholder() #3
  %b_mean : f32[3] = placeholder() #4
  %c_k : i64[2] = placeholder() #5
  %engine = placeholder() #6
  %conv : f32[batch, 4, 4, 4] = aten::convolution(%x, %p_w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1) #7 source="/conv/Conv" tag="cpu_0"
  %clamp : f32[batch, 4, 4, 4] = aten::clamp(%conv, -inf, 6.0) #8
  %hardtanh : f32[batch, 4, 4, 4] = aten::hardtanh(%clamp, -1, 1) #9
  %ln : (f32[batch, 4, 4, 4], f32[batch, 4, 4, 1], f32[batch, 4, 4, 1]) = aten::native_layer_norm(%hardtanh, [4], None, None, 1e-05) #10
  %getitem : f32[batch, 4, 4, 4] = getitem(%ln, 0) #11 extra={"note": "a\tb", "z": ""}
  %gelu : f32[batch, 4, 4, 4] = aten::gelu(%getitem, approximate="tanh") #12 source="line \"1\"\nline 2 \\ end \x01"
  %mean : f32[batch, 4, 1, 1] = aten::mean.dim(%gelu, [2, 3], True, dtype=None) #13
  %half : f16[batch, 4, 1, 1] = aten::_to_copy(%mean, dtype=f16, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None) #14
  %fill : f32[batch, 3, 4, 4] = aten::full_like(%x, nan, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None) #15
  %sym_size = aten::sym_size.int(%ids, 1) #16
  %view : i64[seq] = aten::view_copy(%ids, [%sym_size]) #17
  %index : i64[tmp] = aten::index.Tensor(%c_k, [None, %view]) #18
  %add : f32[3] = aten::add.Tensor(%b_mean, %b_mean, alpha=0.5) #19
  %lowered = get_attr("lowered_module_0") #20
  %delegate : (f32[batch, 4], f32[1]) = executorch_call_delegate(%lowered, %x, %ids) #21
  %engine_out : (f32[1]) = ptec::execute_engine([%x], %engine) #22
  return (%getitem, %add, %delegate) #23
)IR";

// The same graph text with the two engine lines fixed: a single spec prints without parentheses.
std::string canonical_everything() {
  std::string s = kEverything;
  const std::string from = "%engine_out : (f32[1]) =";
  s.replace(s.find(from), from.size(), "%engine_out : f32[1] =");
  return s;
}

TEST(TextFormat, ParsesAndPrintsEveryConstructExactly) {
  const ExportedProgram p = parse(kEverything);
  EXPECT_EQ(print(p), canonical_everything());
  // Spot-check the parsed structure.
  EXPECT_EQ(p.uuid(), "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(p.stage(), Stage::Edge);
  EXPECT_EQ(p.range_constraints().size(), 2u);
  EXPECT_EQ(p.range_constraints().at("seq")->max, INT64_MAX);
  const Node& x = p.graph().get("x");
  EXPECT_EQ(x.spec().dim_order, (std::vector<uint8_t>{0, 2, 3, 1}));
  EXPECT_EQ(x.spec().shape[0].symbol(), p.range_constraints().at("batch"));
  EXPECT_EQ(p.range_constraints().at("batch")->multiple, 2);
  EXPECT_TRUE(p.graph().get("engine").meta().val.empty());
  const Node& conv = p.graph().get("conv");
  EXPECT_EQ(conv.debug_handle(), 7);
  EXPECT_EQ(conv.meta().source, "/conv/Conv");
  EXPECT_EQ(conv.meta().delegation_tag, "cpu_0");
  EXPECT_EQ(conv.arg("stride"), Argument(std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(conv.arg("bias").is_none());
  EXPECT_EQ(p.graph().get("gelu").meta().source, "line \"1\"\nline 2 \\ end \x01");
  EXPECT_EQ(p.graph().get("getitem").meta().extra.at("note"), "a\tb");
  EXPECT_TRUE(std::isinf(p.graph().get("clamp").arg(1).as_double()));
  EXPECT_EQ(p.graph().get("hardtanh").arg(1), Argument(int64_t{-1}));
  EXPECT_TRUE(std::isnan(p.graph().get("fill").arg(1).as_double()));
  EXPECT_EQ(p.graph().get("ln").arg("eps"), Argument(1e-05));
  EXPECT_EQ(p.graph().get("half").arg("dtype"), Argument(DType::Half));
  EXPECT_EQ(p.graph().get("add").arg("alpha"), Argument(0.5));
  EXPECT_EQ(p.graph().get("index").arg(1).as_list()[0], Argument());
  EXPECT_EQ(p.graph().get("delegate").args().size(), 3u);
  EXPECT_EQ(p.graph().get("lowered").target(), "lowered_module_0");
  EXPECT_EQ(p.custom_objects().at("engine0").metadata.at("b c"), "x \"y\"");
  EXPECT_EQ(p.custom_objects().at("empty").payload, nullptr);
  EXPECT_EQ(p.example_inputs().size(), 2u);
  EXPECT_EQ(p.example_inputs()[1].data, nullptr);
  // Absent payloads are zero-filled buffers of the printed size.
  const TensorData& w = p.state_dict().at("conv.weight");
  ASSERT_NE(w.data, nullptr);
  EXPECT_EQ(w.data->size(), 48u);
  EXPECT_EQ(w.data->data()[47], 0);
}

TEST(TextFormat, DefaultsFillOmittedArgumentsAndKeywordsAnyArgument) {
  const ExportedProgram p = parse(R"IR(program uuid=1 stage=ATEN
  input USER_INPUT x
  output USER_OUTPUT add
graph:
  %x : f32[2] = placeholder() #1
  %add : f32[2] = aten::add.Tensor(other=%x, self=%x) #2
  %sum : f32[] = aten::sum.dim_IntList(%x, None) #3
  return (%add) #4
)IR");
  EXPECT_EQ(p.graph().get("add").args().size(), 3u);
  EXPECT_EQ(p.graph().get("add").arg("alpha"), Argument(int64_t{1}));
  EXPECT_EQ(p.graph().get("sum").arg("keepdim"), Argument(false));
  EXPECT_THAT(print(p), HasSubstr("%add : f32[2] = aten::add.Tensor(%x, %x, alpha=1) #2\n"));
}

void expect_round_trip(const ExportedProgram& p, const PayloadMap& payloads = {}) {
  const std::string first = print(p);
  const ExportedProgram parsed = parse(first, payloads);
  EXPECT_EQ(print(parsed), first);
  EXPECT_EQ(verify(parsed), verify(p));
  // Structure: same names, handles, meta, order.
  ASSERT_EQ(parsed.graph().size(), p.graph().size());
  auto a = p.graph().nodes().begin();
  auto b = parsed.graph().nodes().begin();
  for (; a != p.graph().nodes().end(); ++a, ++b) {
    EXPECT_EQ((*a)->name(), (*b)->name());
    EXPECT_EQ((*a)->kind(), (*b)->kind());
    EXPECT_EQ((*a)->target(), (*b)->target());
    EXPECT_EQ((*a)->debug_handle(), (*b)->debug_handle());
    EXPECT_EQ((*a)->meta(), (*b)->meta());
    EXPECT_EQ((*a)->args().size(), (*b)->args().size());
  }
  EXPECT_EQ(parsed.signature(), p.signature());
  EXPECT_EQ(parsed.provenance(), p.provenance());
}

TEST(TextFormat, RoundTripsEveryConstruct) { expect_round_trip(parse(kEverything)); }

TEST(TextFormat, RoundTripsACnnWithPayloadsSharedNotCopied) {
  ExportedProgram p = parse(R"IR(program uuid=00000000000000000000000000000abc stage=ATEN
  provenance "import" "builder: cnn"
  symbol batch [1, 4]
  input PARAMETER p_conv_weight target="conv.weight"
  input PARAMETER p_conv_bias target="conv.bias"
  input USER_INPUT x
  output USER_OUTPUT relu
graph:
  %p_conv_weight : f32[2, 1, 3, 3] = placeholder() #1
  %p_conv_bias : f32[2] = placeholder() #2
  %x : f32[batch, 1, 5, 5] = placeholder() #3
  %convolution : f32[batch, 2, 3, 3] = aten::convolution(%x, %p_conv_weight, %p_conv_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1) #4
  %getitem : f32[batch, 2, 1, 1] = aten::_adaptive_avg_pool2d(%convolution, [1, 1]) #5
  %relu : f32[batch, 2, 1, 1] = aten::relu(%getitem) #6
  return (%relu) #7
)IR");
  std::vector<float> w(18);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i);
  const BufferPtr weight = Buffer::copy_of(w.data(), w.size() * sizeof(float));
  const BufferPtr bias = Buffer::copy_of(w.data(), 2 * sizeof(float));
  p.state_dict()["conv.weight"] =
      TensorData{TensorSpec(DType::Float, std::vector<int64_t>{2, 1, 3, 3}), weight};
  p.state_dict()["conv.bias"] = TensorData{TensorSpec(DType::Float, std::vector<int64_t>{2}), bias};
  ASSERT_THAT(verify(p), ElementsAre());
  const PayloadMap payloads = {{"conv.weight", weight}, {"conv.bias", bias}};
  expect_round_trip(p, payloads);
  const ExportedProgram parsed = parse(print(p), payloads);
  EXPECT_EQ(parsed.state_dict().at("conv.weight").data.get(), weight.get());
  EXPECT_THAT(print(p), HasSubstr(fmt::format("state_dict \"conv.weight\" f32[2, 1, 3, 3] bytes=72 "
                                              "hash={}\n",
                                              payload_hash(*weight))));
  // Without payloads the text still round-trips: zero-filled stand-ins keep the printed hash.
  expect_round_trip(parse(print(p)));
  // A payload whose bytes differ from the text is refused.
  try {
    parse(print(p), {{"conv.weight", Buffer::copy_of(w.data(), 72)}, {"conv.bias", weight}});
    FAIL() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("payload 'conv.bias' has 72 bytes but the text says 8"));
  }
}

TEST(TextFormat, RoundTripsMultiOutputAndSymbolicPrograms) {
  const ExportedProgram p = parse(R"IR(program uuid=2 stage=ATEN
  symbol b [1, 16]
  symbol s [2, 512]
  input USER_INPUT x
  input USER_INPUT y
  output USER_OUTPUT getitem
  output USER_OUTPUT getitem_3
  output USER_OUTPUT view_copy
graph:
  %x : f32[b, s, 8] = placeholder() #1
  %y : f32[b, s, 8] = placeholder() #2
  %native_layer_norm : (f32[b, s, 8], f32[b, s, 1], f32[b, s, 1]) = aten::native_layer_norm(%x, [8], None, None, 1e-05) #3
  %getitem : f32[b, s, 8] = getitem(%native_layer_norm, 0) #4
  %split_with_sizes_copy : (f32[b, s, 3], f32[b, s, 5]) = aten::split_with_sizes_copy(%y, [3, 5], -1) #5
  %getitem_3 : f32[b, s, 5] = getitem(%split_with_sizes_copy, 1) #6
  %sym_size = aten::sym_size.int(%x, 0) #7
  %view_copy : f32[b, 8, s] = aten::view_copy(%getitem, [%sym_size, 8, -1]) #8
  return (%getitem, %getitem_3, %view_copy) #9
)IR");
  EXPECT_THAT(verify(p), ElementsAre());
  expect_round_trip(p);
}

TEST(TextFormat, ASymbolsBoundsMustBeMultiplesOfItsMultiple) {
  try {
    parse("program uuid=1 stage=ATEN\n  symbol h [2, 9] multiple 2\ngraph:\n");
    ADD_FAILURE() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(std::string(e.what()),
              "line 2, column 3: symbol 'h': the bounds must be multiples of 2");
  }
}

TEST(TextFormat, ParseErrorsNameLineAndColumn) {
  auto error = [](const std::string& graph_lines) {
    try {
      parse(
          "program uuid=1 stage=ATEN\n  symbol n [1, 4]\ngraph:\n  %x : f32[2] = placeholder() "
          "#1\n" +
          graph_lines);
    } catch (const Exception& e) {
      EXPECT_EQ(e.code(), Error::InvalidArgument);
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_EQ(error("  %y : f32[2] = aten::reluu(%x) #2\n"),
            "line 5, column 17: unknown operator 'aten::reluu'; did you mean aten::relu?");
  EXPECT_EQ(error("  %y : f32[2] = aten::relu(%z) #2\n"),
            "line 5, column 29: unknown node %z (nodes must be defined before use)");
  EXPECT_EQ(error("  %y : f32[m] = aten::relu(%x) #2\n"),
            "line 5, column 12: unknown symbol 'm' (declare it with a 'symbol' line) (found 'm')");
  EXPECT_EQ(error("  %y : g32[2] = aten::relu(%x) #2\n"), "line 5, column 8: unknown dtype 'g32'");
  EXPECT_EQ(error("  %y : f32[2] = aten::relu(%x)\n"),
            "line 5, column 31: expected '#' (at the end of the line)");
  EXPECT_EQ(error("  %y : f32[2] = aten::relu(%x, $) #2\n"),
            "line 5, column 32: unexpected character '$'");
  EXPECT_EQ(error("  %y : f32[2] = aten::relu(%x) #2 source=\"abc\n"),
            "line 5, column 42: unterminated string");
  EXPECT_EQ(error("  %y : f32[2] = aten::mm(%x) #2\n"),
            "line 5, column 17: aten::mm: missing argument 'mat2'");
  EXPECT_EQ(error("  %y : f32[2] = aten::relu(%x, slope=1) #2\n"),
            "line 5, column 32: aten::relu has no argument 'slope'");
  EXPECT_EQ(error("  %x : f32[2] = aten::relu(%x) #2\n"),
            "line 5, column 4: node %x is defined twice");
  EXPECT_EQ(error("  %y : f32[2] = aten::relu(%x) #2 colour=\"red\"\n"),
            "line 5, column 35: unknown node attribute 'colour' (source, tag, extra)");
  EXPECT_EQ(error("  return (%x) #2\n  %y : f32[2] = aten::relu(%x) #3\n"),
            "line 6, column 3: a node after the return (found '%')");
  try {
    parse("program uuid=1 stage=ATEN\n  bogus 1\n");
    FAIL();
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("line 2, column 3: unknown declaration 'bogus'"));
  }
  try {
    parse("program uuid=1 stage=ATEN\n");
    FAIL();
  } catch (const Exception& e) {
    EXPECT_STREQ(e.what(), "line 2, column 1: expected a 'graph:' line");
  }
  try {
    parse("program uuid=1 stage=NEW\ngraph:\n");
    FAIL();
  } catch (const Exception& e) {
    EXPECT_STREQ(e.what(),
                 "line 1, column 22: unknown stage 'NEW' (ATEN, EDGE, LOWERED, EXECUTORCH)");
  }
}

TEST(TextFormat, FloatsPrintExactly) {
  ExportedProgram p = parse(R"IR(program uuid=1 stage=ATEN
graph:
  %x : f32[2] = placeholder() #1
  %a : f32[2] = aten::mul.Scalar(%x, 0.1) #2
  %b : f32[2] = aten::mul.Scalar(%x, 1.0) #3
  %c : f32[2] = aten::mul.Scalar(%x, 1e+300) #4
  %d : f32[2] = aten::mul.Scalar(%x, -2.5e-07) #5
  return (%a) #6
)IR");
  Graph& g = p.graph();
  const double tricky = 0.1 + 0.2;  // 0.30000000000000004
  g.set_arg(&g.get("a"), 1, tricky);
  const ExportedProgram q = parse(print(p));
  EXPECT_EQ(q.graph().get("a").arg(1).as_double(), tricky);
  EXPECT_EQ(q.graph().get("b").arg(1), Argument(1.0));
  EXPECT_EQ(q.graph().get("c").arg(1), Argument(1e300));
  EXPECT_EQ(q.graph().get("d").arg(1), Argument(-2.5e-07));
  EXPECT_THAT(print(q), HasSubstr("aten::mul.Scalar(%x, 0.30000000000000004) #2"));
  EXPECT_THAT(print(q), HasSubstr("aten::mul.Scalar(%x, 1.0) #3"));
}

}  // namespace
}  // namespace ptec::ir
