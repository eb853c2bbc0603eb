// ptec's JSON graph format: round trips (printed form and UUID), payload references and the
// pluggable payload storage, symbols, non-UTF-8 text, and errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "ir/exception.h"
#include "ir/graph_json.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace ptec::ir {
namespace {

using ::testing::HasSubstr;

// The text format test's program with every construct (ir/test/text_format_test.cpp).
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

void expect_same_structure(const ExportedProgram& a, const ExportedProgram& b) {
  EXPECT_EQ(print(a), print(b));
  EXPECT_EQ(a.uuid(), b.uuid());
  ASSERT_EQ(a.graph().size(), b.graph().size());
  auto x = a.graph().nodes().begin();
  auto y = b.graph().nodes().begin();
  for (; x != a.graph().nodes().end(); ++x, ++y) {
    EXPECT_EQ((*x)->name(), (*y)->name());
    EXPECT_EQ((*x)->kind(), (*y)->kind());
    EXPECT_EQ((*x)->target(), (*y)->target());
    EXPECT_EQ((*x)->debug_handle(), (*y)->debug_handle());
    EXPECT_EQ((*x)->meta(), (*y)->meta());
    EXPECT_EQ((*x)->args().size(), (*y)->args().size());
  }
  EXPECT_EQ(a.signature(), b.signature());
  EXPECT_EQ(a.provenance(), b.provenance());
}

TEST(GraphJson, RoundTripsEveryConstructWithPrintedFormAndUuid) {
  const ExportedProgram p = parse(kEverything);
  const std::string json = to_json(p);
  const ExportedProgram back = program_from_json(json);
  EXPECT_EQ(print(back), canonical_everything());
  expect_same_structure(p, back);
  EXPECT_EQ(back.uuid(), "0123456789abcdef0123456789abcdef");
  // Symbols stay shared objects and range constraints stay range constraints.
  EXPECT_EQ(back.range_constraints().size(), 2u);
  EXPECT_EQ(back.graph().get("x").spec().shape[0].symbol(), back.range_constraints().at("batch"));
  EXPECT_EQ(back.graph().get("ids").spec().shape[1].symbol(), back.range_constraints().at("seq"));
  EXPECT_EQ(back.range_constraints().at("seq")->max, INT64_MAX);
  EXPECT_EQ(back.range_constraints().at("batch")->multiple, 2);
  EXPECT_EQ(back.range_constraints().at("seq")->multiple, 1);
  EXPECT_EQ(back.graph().get("index").spec().shape[0].symbol()->name, "tmp");
  // Argument kinds survive exactly.
  EXPECT_TRUE(std::isinf(back.graph().get("clamp").arg(1).as_double()));
  EXPECT_TRUE(std::isnan(back.graph().get("fill").arg(1).as_double()));
  EXPECT_EQ(back.graph().get("hardtanh").arg(1), Argument(int64_t{-1}));
  EXPECT_EQ(back.graph().get("ln").arg("eps"), Argument(1e-05));
  EXPECT_EQ(back.graph().get("half").arg("dtype"), Argument(DType::Half));
  EXPECT_EQ(back.graph().get("gelu").arg("approximate"), Argument("tanh"));
  EXPECT_EQ(back.graph().get("view").arg(1).as_list()[0].as_node(), &back.graph().get("sym_size"));
  EXPECT_EQ(back.graph().get("conv").meta().source, "/conv/Conv");
  EXPECT_EQ(back.graph().get("conv").meta().delegation_tag, "cpu_0");
  EXPECT_EQ(back.graph().get("conv").debug_handle(), 7);
  // A second round trip gives the same JSON.
  EXPECT_EQ(to_json(back), json);
}

TEST(GraphJson, TheDocumentNamesOpsBySchemaAndCarriesMeta) {
  const nlohmann::json doc = nlohmann::json::parse(to_json(parse(kEverything)));
  EXPECT_EQ(doc["format"], "ptec.exported_program");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["uuid"], "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(doc["stage"], "EDGE");
  const nlohmann::json* conv = nullptr;
  for (const auto& n : doc["graph"]["nodes"]) {
    if (n["name"] == "conv") conv = &n;
  }
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ((*conv)["target"], "aten::convolution");
  EXPECT_EQ((*conv)["kind"], "call_function");
  EXPECT_EQ((*conv)["debug_handle"], 7);
  EXPECT_EQ((*conv)["source"], "/conv/Conv");
  EXPECT_EQ((*conv)["args"][0], nlohmann::json({{"node", "x"}}));
  EXPECT_EQ((*conv)["args"][3], nlohmann::json::array({1, 1}));
  EXPECT_EQ((*conv)["val"][0]["shape"], nlohmann::json::array({"batch", 4, 4, 4}));
  // Payloads are references: name, spec, size, hash and key, no bytes.
  const auto& w = doc["state_dict"][1];
  EXPECT_EQ(w["name"], "conv.weight");
  EXPECT_EQ(w["spec"]["dtype"], "f32");
  EXPECT_EQ(w["payload"]["nbytes"], 48);
  EXPECT_EQ(w["payload"]["hash"], "00000000000000bb");
  EXPECT_EQ(w["payload"]["key"], "state_dict/conv.weight");
}

ExportedProgram program_with_weights(BufferPtr* weight_out) {
  ExportedProgram p = parse(R"IR(program uuid=00000000000000000000000000000abc stage=ATEN
  provenance "import" "builder: mlp"
  input PARAMETER p_w target="fc.weight"
  input CONSTANT_TENSOR c_k target="k"
  input USER_INPUT x
  output USER_OUTPUT add
graph:
  %p_w : f32[4] = placeholder() #1
  %c_k : f32[4] = placeholder() #2
  %x : f32[4] = placeholder() #3
  %mul : f32[4] = aten::mul.Tensor(%x, %p_w) #4 source="/fc/Mul"
  %add : f32[4] = aten::add.Tensor(%mul, %c_k) #5 source="/fc/Add"
  return (%add) #6
)IR");
  const float w[4] = {1.5f, -2.0f, 3.25f, 4.0f};
  const float k[4] = {0.5f, 0.25f, 0.125f, 1.0f};
  const BufferPtr weight = Buffer::copy_of(w, sizeof(w));
  p.state_dict()["fc.weight"] =
      TensorData{TensorSpec(DType::Float, std::vector<int64_t>{4}), weight};
  p.constants()["k"] =
      TensorData{TensorSpec(DType::Float, std::vector<int64_t>{4}), Buffer::copy_of(k, sizeof(k))};
  p.example_inputs().push_back(
      TensorData{TensorSpec(DType::Float, std::vector<int64_t>{4}), Buffer::copy_of(k, sizeof(k))});
  if (weight_out != nullptr) *weight_out = weight;
  return p;
}

TEST(GraphJson, WithoutStoragePayloadsAreStandInsThatPrintTheSame) {
  BufferPtr weight;
  const ExportedProgram p = program_with_weights(&weight);
  const std::string json = to_json(p);
  // No bytes in the document: 1.5f is 0x3fc00000.
  EXPECT_EQ(json.find("3fc00000"), std::string::npos);
  const ExportedProgram back = program_from_json(json);
  expect_same_structure(p, back);
  const TensorData& w = back.state_dict().at("fc.weight");
  ASSERT_NE(w.data, nullptr);
  EXPECT_EQ(w.data->size(), 16u);
  EXPECT_EQ(w.data->data()[0], 0);  // zero-filled stand-in
  EXPECT_EQ(payload_hash(*w.data), payload_hash(*weight));
}

TEST(GraphJson, PayloadStorageIsPluggableAndSharesBuffers) {
  BufferPtr weight;
  const ExportedProgram p = program_with_weights(&weight);
  std::map<std::string, BufferPtr> store;
  const std::string json = to_json(p, [&](const std::string& key, const Buffer& payload) {
    const std::string stored = "blob/" + payload_hash(payload);
    store[stored] = Buffer::copy_of(payload.data(), payload.size());
    EXPECT_TRUE(key == "state_dict/fc.weight" || key == "constants/k" || key == "example_inputs/0")
        << key;
    return stored;
  });
  // The constant and the example input have the same bytes: stored once under one key.
  EXPECT_EQ(store.size(), 2u);
  EXPECT_THAT(json, HasSubstr("\"key\":\"blob/" + payload_hash(*weight) + "\""));

  std::vector<std::string> asked;
  const ExportedProgram back =
      program_from_json(json, [&](const std::string& key, size_t nbytes, const std::string&) {
        asked.push_back(key);
        EXPECT_EQ(nbytes, 16u);
        return store.at(key);
      });
  EXPECT_EQ(asked.size(), 3u);
  expect_same_structure(p, back);
  EXPECT_EQ(back.state_dict().at("fc.weight").data.get(),
            store.at("blob/" + payload_hash(*weight)).get());
  EXPECT_EQ(std::memcmp(back.state_dict().at("fc.weight").data->data(), weight->data(), 16), 0);

  // A reader that returns other bytes is refused, naming the payload.
  try {
    program_from_json(json, [&](const std::string&, size_t, const std::string&) {
      return Buffer::from_vector(std::vector<uint8_t>(16, 7));
    });
    FAIL() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("graph json: state_dict 'fc.weight': payload 'blob/"));
    EXPECT_THAT(e.what(), HasSubstr("the reference says"));
  }
  // A reader that has nothing gives stand-ins.
  const ExportedProgram none = program_from_json(
      json, [](const std::string&, size_t, const std::string&) { return BufferPtr(); });
  EXPECT_EQ(print(none), print(p));
}

TEST(GraphJson, TextThatIsNotUtf8IsStoredAsHex) {
  ExportedProgram p = program_with_weights(nullptr);
  CustomObject obj;
  obj.type = "ptec.lowered_module";
  obj.metadata["compile_specs"] = std::string("\x01\x00\x00\x00\xff\xfe", 6);
  obj.payload = Buffer::copy_of("abc", 3);
  p.custom_objects()["lowered_module_0"] = obj;
  p.graph().get("mul").meta().extra["raw"] = "\xc3\x28";  // invalid UTF-8
  const std::string json = to_json(p);
  EXPECT_THAT(json, HasSubstr("{\"hex\":\"01000000fffe\"}"));
  const ExportedProgram back = program_from_json(json);
  EXPECT_EQ(back.custom_objects().at("lowered_module_0").metadata.at("compile_specs"),
            std::string("\x01\x00\x00\x00\xff\xfe", 6));
  EXPECT_EQ(back.graph().get("mul").meta().extra.at("raw"), "\xc3\x28");
  EXPECT_EQ(print(back), print(p));
}

void expect_error(const std::string& json, const std::string& message) {
  try {
    program_from_json(json);
    FAIL() << "no error for " << json;
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr(message));
  }
}

TEST(GraphJson, DerivedSymbolsKeepTheirFunction) {
  // A program whose specs use window counts and products of h (a multiple of 8): read back, they
  // are still functions of h, so shape functions rerun on the read program compose with them
  // (h/4 upsampled by 2 is h/2 again) and they evaluate at a size of h.
  ExportedProgram p = parse(R"IR(program stage=ATEN
  symbol h [32, 256] multiple 8
  symbol a [1, 64] local
  symbol b [1, 128] local
  symbol c [1, 16384] local
  input USER_INPUT x
  output USER_OUTPUT up
graph:
  %x : f32[1, 1, h, h] = placeholder() #1
  %pool : f32[1, 1, a, a] = aten::avg_pool2d(%x, [4, 4], [4, 4], [0, 0]) #2
  %up : f32[1, 1, b, b] = aten::upsample_nearest2d.vec(%pool, None, [2.0, 2.0]) #3
  %view : f32[c] = aten::view_copy(%up, [-1]) #4
  return (%up) #5
)IR");
  // The specs the shape functions compute: h/4, h/2 and a product of h/2 with itself.
  for (Node* n : p.graph().nodes()) {
    if (n->is_call()) n->meta().val = n->op()->shape_fn(*n->op(), n->args());
  }
  const ExportedProgram back = program_from_json(to_json(p));
  const SymbolPtr quarter = back.graph().get("pool").spec().shape[2].symbol();
  ASSERT_NE(quarter, nullptr);
  ASSERT_NE(quarter->of, nullptr);
  EXPECT_EQ(quarter->of, back.range_constraints().at("h"));
  EXPECT_EQ(quarter->divisor, 4);
  EXPECT_EQ(affine(SymInt(quarter), 2, 0, 1), back.graph().get("up").spec().shape[2]);
  EXPECT_EQ(evaluate(back.graph().get("view").spec().shape[0], {{"h", 64}}), 32 * 32);
  EXPECT_THAT(verify(back), ::testing::IsEmpty());
  EXPECT_EQ(to_json(back), to_json(p));
  // A derived symbol naming an operand the document has not declared before it.
  std::string json = to_json(p);
  const std::string from = "\"of\":\"h\"";
  ASSERT_NE(json.find(from), std::string::npos) << json;
  json.replace(json.find(from), from.size(), "\"of\":\"k\"");
  expect_error(json, "unknown symbol 'k'");
}

TEST(GraphJson, MalformedDocumentsGiveErrorsNamingTheProblem) {
  expect_error("{not json", "graph json: document: not valid JSON");
  expect_error(R"({"format": "other", "version": 1})",
               "graph json: document: format is \"other\", expected \"ptec.exported_program\"");
  expect_error(R"({"format": "ptec.exported_program", "version": 9})",
               "version 9 is not supported");
  const std::string good = to_json(program_with_weights(nullptr));
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    s.replace(at, from.size(), to);
    return s;
  };
  expect_error(replaced("\"aten::mul.Tensor\"", "\"aten::mul.Tnsor\""), "graph json: node %mul: ");
  expect_error(replaced("{\"node\":\"mul\"}", "{\"node\":\"nope\"}"),
               "graph json: node %add: unknown node %nope");
  expect_error(replaced("\"stage\":\"ATEN\"", "\"stage\":\"LATE\""),
               "graph json: stage: unknown stage 'LATE'");
  expect_error(replaced("\"dtype\":\"f32\"", "\"dtype\":\"f99\""), "unknown dtype 'f99'");
  expect_error(replaced("\"debug_handle\":4", "\"debug_handle\":\"4\""),
               "graph json: node %mul debug_handle: expected an integer");
}

}  // namespace
}  // namespace ptec::ir
