// Indexing ops (ops/scatter_gather.cpp): ScatterElements/Scatter, ScatterND, GatherND, TopK,
// OneHot, Compress, and the inverse hyperbolic functions: the ATen calls they become and their
// errors. The conformance runner checks their numbers (node/test_scatter*, test_gathernd*, ...).

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
constexpr int32_t kInt64 = onnx::TensorProto::INT64;
constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

std::string import_error(ModelBuilder& b, Error expected) {
  try {
    import(b);
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

void init_bool(ModelBuilder& b, const std::string& name, const std::vector<bool>& values) {
  onnx::TensorProto* t = b.graph().add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (bool v : values) t->add_int32_data(v ? 1 : 0);
}

TEST(OnnxImportScatterGather, ScatterElementsWrapsRunTimeIndicesAndMapsReductions) {
  ModelBuilder b(18);
  b.input("data", {3, 5}).input("idx", {2, 5}, kInt64).input("upd", {2, 5});
  b.output("none").output("add").output("max");
  auto& none = b.node("ScatterElements", {"data", "idx", "upd"}, {"none"});
  set_attr(none, "axis", int64_t{-2});
  auto& add = b.node("ScatterElements", {"data", "idx", "upd"}, {"add"});
  set_attr(add, "reduction", std::string("add"));
  auto& max = b.node("ScatterElements", {"data", "idx", "upd"}, {"max"});
  set_attr(max, "reduction", std::string("max"));
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), Contains("aten::scatter.src"));
  EXPECT_THAT(calls(p), Contains("aten::scatter_add"));
  EXPECT_THAT(calls(p), Contains("aten::where.self"));  // negative indices wrap at run time
  const ir::Node* s = first_call(p, "aten::scatter.src");
  EXPECT_EQ(s->arg("dim").as_int(), 0);
  const ir::Node* r = first_call(p, "aten::scatter_reduce.two");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->arg("reduce").as_string(), "amax");
  EXPECT_EQ(out_sizes(p, 2), (V{3, 5}));
}

// Indices that cannot be negative (ArgMax's, through a Reshape and an Expand, as torchvision
// scatters its per-level RoI features) skip the run-time wrap; a graph input's are wrapped.
TEST(OnnxImportScatterGather, IndicesKnownNonNegativeAreNotWrapped) {
  ModelBuilder b(13);
  b.input("data", {3, 5}).input("scores", {2, 5}).input("upd", {2, 5});
  b.output("y");
  set_attr(b.node("ArgMax", {"scores"}, {"best"}), "axis", int64_t{1});  // keepdims: [2, 1]
  b.init_int64("shape", {2}, {2, 5});
  b.node("Expand", {"best", "shape"}, {"idx"});
  b.node("ScatterElements", {"data", "idx", "upd"}, {"y"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), Contains("aten::scatter.src"));
  EXPECT_THAT(calls(p), Not(Contains("aten::where.self")));
  EXPECT_THAT(calls(p), Not(Contains("aten::lt.Scalar")));
}

TEST(OnnxImportScatterGather, ScatterOpset10AndConstantIndicesAreCheckedAtImport) {
  ModelBuilder b(10);
  b.input("data", {3, 3}).input("upd", {1, 2}).output("y");
  b.init_int64("idx", {1, 2}, {-1, 2});
  auto& n = b.node("Scatter", {"data", "idx", "upd"}, {"y"});
  set_attr(n, "axis", int64_t{1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::scatter.src"));  // -1 wrapped at import

  ModelBuilder bad(16);
  bad.input("data", {3, 3}).input("upd", {1, 2}).output("y");
  bad.init_int64("idx", {1, 2}, {0, 3});
  bad.node("ScatterElements", {"data", "idx", "upd"}, {"y"}, "se");
  EXPECT_THAT(import_error(bad, Error::InvalidArgument),
              HasSubstr("node 'se' (ScatterElements, opset 16): index 3 is out of range"));
}

TEST(OnnxImportScatterGather, ScatterNDUsesIndexPutOrAFlattenedScatterReduce) {
  ModelBuilder b(16);
  b.input("data", {4, 3, 2}).input("idx", {5, 2}, kInt64).input("upd", {5, 2});
  b.output("set").output("add").output("mul");
  b.node("ScatterND", {"data", "idx", "upd"}, {"set"});
  auto& add = b.node("ScatterND", {"data", "idx", "upd"}, {"add"});
  set_attr(add, "reduction", std::string("add"));
  auto& mul = b.node("ScatterND", {"data", "idx", "upd"}, {"mul"});
  set_attr(mul, "reduction", std::string("mul"));
  const ir::ExportedProgram p = import(b);
  const ir::Node* put = first_call(p, "aten::index_put");
  ASSERT_NE(put, nullptr);
  EXPECT_EQ(put->arg("indices").as_list().size(), 2u);  // one index tensor per tuple component
  EXPECT_FALSE(put->arg("accumulate").as_bool());
  EXPECT_THAT(calls(p), Contains("aten::select_copy.int"));  // components split at run time
  const ir::Node* r = first_call(p, "aten::scatter_reduce.two");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->arg("reduce").as_string(), "prod");
  EXPECT_EQ(r->arg("index").as_node()->spec().upper_bound_sizes(), (V{5, 2}));
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(out_sizes(p, i), (V{4, 3, 2}));
}

TEST(OnnxImportScatterGather, ScatterNDChecksUpdatesShape) {
  ModelBuilder b(16);
  b.input("data", {4, 3}).input("idx", {2, 1}, kInt64).input("upd", {2, 4}).output("y");
  b.node("ScatterND", {"data", "idx", "upd"}, {"y"}, "snd");
  EXPECT_THAT(import_error(b, Error::InvalidArgument),
              HasSubstr("updates [2, 4] must have shape [2, 3]"));
}

TEST(OnnxImportScatterGather, GatherNDWithBatchDimsIndexesWithAnArangePerBatchDim) {
  ModelBuilder b(13);
  b.input("data", {2, 3, 4, 5}).output("y");
  b.init_int64("idx", {2, 1, 2}, {0, -1, 2, 3});
  auto& n = b.node("GatherND", {"data", "idx"}, {"y"});
  set_attr(n, "batch_dims", int64_t{1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::index.Tensor"));
  EXPECT_EQ(first_call(p, "aten::index.Tensor")->arg("indices").as_list().size(), 3u);
  EXPECT_EQ(out_sizes(p), (V{2, 1, 5}));

  ModelBuilder bad(13);
  bad.input("data", {2, 3}).input("idx", {2, 1}, kInt64).output("y", kFloat, {2});
  auto& m = bad.node("GatherND", {"data", "idx"}, {"y"}, "g");
  set_attr(m, "batch_dims", int64_t{2});
  EXPECT_THAT(import_error(bad, Error::InvalidArgument), HasSubstr("batch_dims 2"));
}

TEST(OnnxImportScatterGather, TopKTakesKFromTheInputOrTheAttribute) {
  ModelBuilder b(11);
  b.input("x", {3, 6}).output("v").output("i", kInt64);
  b.init_int64("k", {1}, {2});
  auto& n = b.node("TopK", {"x", "k"}, {"v", "i"});
  set_attr(n, "largest", int64_t{0});
  const ir::ExportedProgram p = import(b);
  const ir::Node* t = first_call(p, "aten::topk");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->arg("k").as_int(), 2);
  EXPECT_EQ(t->arg("dim").as_int(), 1);
  EXPECT_FALSE(t->arg("largest").as_bool());
  EXPECT_EQ(out_sizes(p, 0), (V{3, 2}));
  EXPECT_EQ(p.graph().outputs().at(1)->spec().dtype, DType::Long);

  ModelBuilder old(1);
  old.input("x", {3, 6}).output("v").output("i", kInt64);
  auto& o = old.node("TopK", {"x"}, {"v", "i"});
  set_attr(o, "k", int64_t{4});
  set_attr(o, "axis", int64_t{0});
  EXPECT_THAT(import_error(old, Error::InvalidArgument), HasSubstr("k = 4 is out of range"));
}

TEST(OnnxImportScatterGather, OneHotComparesWithAnArangeAndSelectsOnOrOff) {
  ModelBuilder b(11);
  b.input("idx", {2, 3}, kInt64).input("values", {2}).output("y");
  b.init_int64("depth", {}, {4});
  auto& n = b.node("OneHot", {"idx", "depth", "values"}, {"y"});
  set_attr(n, "axis", int64_t{1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), Contains("aten::eq.Tensor"));
  EXPECT_THAT(calls(p), Contains("aten::where.self"));
  EXPECT_EQ(out_sizes(p), (V{2, 4, 3}));
}

TEST(OnnxImportScatterGather, CompressWithAKnownConditionIsAConstantIndex) {
  ModelBuilder b(11);
  b.input("x", {3, 2}).output("y", kFloat, {2, 2}).output("flat", kFloat, {2});
  init_bool(b, "cond", {true, false, true});
  auto& n = b.node("Compress", {"x", "cond"}, {"y"});
  set_attr(n, "axis", int64_t{0});
  b.node("Compress", {"x", "cond"}, {"flat"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), Not(Contains("aten::where.self")));
  EXPECT_EQ(out_sizes(p, 0), (V{2, 2}));
  EXPECT_EQ(out_sizes(p, 1), (V{2}));

  // A run-time condition selects through aten::nonzero (a data-dependent row count); one
  // longer than the axis is refused.
  ModelBuilder run_time(11);
  run_time.input("x", {3, 2}).input("cond", {3}, onnx::TensorProto::BOOL);
  run_time.output("y", kFloat, {std::string("n"), 2});
  auto& r = run_time.node("Compress", {"x", "cond"}, {"y"}, "c");
  set_attr(r, "axis", int64_t{0});
  const ir::ExportedProgram q = import(run_time);
  EXPECT_THAT(calls(q), Contains("aten::nonzero"));
  EXPECT_TRUE(first_call(q, "aten::index_select")->spec().shape[0].is_symbolic());
  ModelBuilder run_time_long(11);
  run_time_long.input("x", {3, 2}).input("cond", {4}, onnx::TensorProto::BOOL);
  run_time_long.output("y", kFloat, {std::string("n"), 2});
  set_attr(run_time_long.node("Compress", {"x", "cond"}, {"y"}, "c"), "axis", int64_t{0});
  EXPECT_THAT(import_error(run_time_long, Error::InvalidArgument),
              HasSubstr("condition of 4 values for an axis of size 3"));

  ModelBuilder too_long(11);
  too_long.input("x", {3, 2}).output("y", kFloat, {1, 2});
  init_bool(too_long, "cond", {false, false, false, true});
  auto& t = too_long.node("Compress", {"x", "cond"}, {"y"});
  set_attr(t, "axis", int64_t{0});
  EXPECT_THAT(import_error(too_long, Error::InvalidArgument),
              HasSubstr("selects position 3 of an axis of size 3"));
}

TEST(OnnxImportScatterGather, InverseHyperbolicFunctions) {
  ModelBuilder b(9);
  b.input("x", {4}).output("a").output("b").output("c");
  b.node("Asinh", {"x"}, {"a"});
  b.node("Acosh", {"x"}, {"b"});
  b.node("Atanh", {"x"}, {"c"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::asinh", "aten::acosh", "aten::atanh"));
}

}  // namespace
}  // namespace ptec::onnx_import::testing
