// ptec::engine::export (export_engine_program) and ptec::engine::save on engine-bearing programs
// built by hand: ptec::execute_engine calls whose engines are test OpaqueObjects.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/engine/aot/engine_export.h"
#include "backends/engine/engine_blob.h"
#include "backends/engine/engine_ids.h"
#include "core/log.h"
#include "devtools/etrecord/etrecord.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "ir/printer.h"
#include "partition/backend.h"
#include "partition/lowered_module.h"
#include "passes/pass.h"

namespace ptec::engine {
namespace {

namespace fs = std::filesystem;
using ir::Argument;
using ir::ArgumentList;
using ir::BufferPtr;
using ir::ExportedProgram;
using ir::Node;
using ir::TensorSpec;

TensorSpec f32(std::vector<int64_t> sizes) { return TensorSpec(DType::Float, sizes); }

/// A test engine: serialize() builds a fresh engine blob with `inputs` input and `outputs`
/// output bindings, counts its calls and remembers the last blob weakly; it throws when `fail`.
class CountingEngine final : public ir::OpaqueObject {
 public:
  CountingEngine(size_t inputs, size_t outputs, uint8_t fill = 0xab) : fill_(fill) {
    for (size_t i = 0; i < inputs + outputs; ++i) {
      EngineBinding b;
      b.name = (i < inputs ? "in" : "out") + std::to_string(i);
      b.input = i < inputs;
      b.shape = {{2, 2, ""}, {3, 3, ""}};
      meta_.io_bindings.push_back(b);
    }
    meta_.builder_version = "engine_export_test";
  }
  BufferPtr serialize() const override {
    ++serialized;
    if (fail) raise(Error::Internal, "the test engine refuses to serialize");
    const std::vector<uint8_t> engine(64, fill_);
    BufferPtr blob =
        ir::Buffer::from_vector(write_engine_blob(meta_, engine.data(), engine.size()));
    last = blob;
    return blob;
  }
  /// The blob bytes serialize() produces.
  std::vector<uint8_t> bytes() const {
    const std::vector<uint8_t> engine(64, fill_);
    return write_engine_blob(meta_, engine.data(), engine.size());
  }

  mutable int serialized = 0;
  mutable std::weak_ptr<const ir::Buffer> last;
  bool fail = false;

 private:
  EngineMetadata meta_;
  uint8_t fill_;
};

/// Builds engine-bearing programs with the Graph API.
struct EngineProgram {
  ExportedProgram program;

  EngineProgram() { program.provenance().push_back({"engine_compile", "target=cpu"}); }

  Node* input(const std::string& name) {
    Node* n = program.graph().add_placeholder(name, f32({2, 3}));
    program.signature().inputs.push_back({ir::InputKind::UserInput, n->name(), ""});
    return n;
  }
  /// A CUSTOM_OBJ placeholder `name` for engine object `object_name`.
  Node* engine(const std::string& name, const std::string& object_name,
               std::shared_ptr<const ir::OpaqueObject> object, BufferPtr payload = nullptr) {
    Node* n = program.graph().add_placeholder(name, f32({1}));
    n->meta().val.clear();
    program.signature().inputs.push_back({ir::InputKind::CustomObj, n->name(), object_name});
    program.custom_objects()[object_name] =
        ir::CustomObject{kEngineObjectType, std::move(payload), {}, std::move(object)};
    return n;
  }
  /// execute_engine(inputs, engine) with `outputs` outputs; returns one getitem per output.
  std::vector<Node*> run(const std::vector<Node*>& inputs, Node* engine, size_t outputs = 1,
                         const std::string& name = "execute_engine") {
    ArgumentList list;
    for (Node* in : inputs) list.emplace_back(in);
    Node* call = program.graph().add_call(ir::get_op(kExecuteEngineOp),
                                          {Argument(std::move(list)), Argument(engine)}, name);
    for (size_t k = 0; k < outputs; ++k) call->meta().val.push_back(f32({2, 3}));
    std::vector<Node*> items;
    for (size_t k = 0; k < outputs; ++k) {
      Node* item = program.graph().add_call(
          ir::get_op("getitem"), {Argument(call), Argument(static_cast<int64_t>(k))}, "getitem");
      item->meta().val = {f32({2, 3})};
      items.push_back(item);
    }
    return items;
  }
  Node* op(const std::string& op, ArgumentList args, const std::string& name) {
    Node* n = program.graph().add_call(ir::get_op(op), std::move(args), name);
    n->meta().val = {f32({2, 3})};
    return n;
  }
  Node* relu(Node* x, const std::string& name = "relu") {
    return op("aten::relu", {Argument(x)}, name);
  }
  Node* add(Node* a, Node* b, const std::string& name = "add") {
    return op("aten::add.Tensor", {Argument(a), Argument(b), Argument(int64_t{1})}, name);
  }
  Node* weight(const std::string& fqn, BufferPtr data) {
    Node* n = program.graph().add_placeholder(fqn, f32({2, 3}));
    program.signature().inputs.push_back({ir::InputKind::Parameter, n->name(), fqn});
    program.state_dict()[fqn] = ir::TensorData{f32({2, 3}), std::move(data)};
    return n;
  }
  void output(const std::vector<Node*>& nodes) {
    program.graph().set_output(nodes);
    for (Node* n : nodes) {
      program.signature().outputs.push_back({ir::OutputKind::UserOutput, n->name(), ""});
    }
  }
};

BufferPtr floats(float v) {
  std::vector<float> values(6, v);
  return ir::Buffer::copy_of(values.data(), values.size() * sizeof(float));
}

/// x → engine → relu → output: the smallest engine-bearing program.
ExportedProgram simple(std::shared_ptr<const ir::OpaqueObject> engine) {
  EngineProgram p;
  Node* x = p.input("x");
  Node* e = p.engine("engine", "engine0", std::move(engine));
  Node* y = p.run({x}, e)[0];
  p.output({p.relu(y, "relu_out")});
  return std::move(p.program);
}

/// Delegate calls of a lowered program: (backend id, lowered module) in graph order.
std::vector<partition::LoweredModule> delegates(const ExportedProgram& p) {
  std::vector<partition::LoweredModule> out;
  for (const Node* n : p.graph().nodes()) {
    if (n->is_call() && n->target() == "executorch_call_delegate") {
      out.push_back(partition::load_lowered_module(p, n->arg(0).as_node()->target()));
    }
  }
  return out;
}

size_t count_calls(const ExportedProgram& p, const std::string& target) {
  return static_cast<size_t>(std::count_if(p.graph().nodes().begin(), p.graph().nodes().end(),
                                           [&](const Node* n) { return n->target() == target; }));
}

/// Expects `f` to throw a ptec::Exception with `code` whose message contains `needle`.
void expect_error(const std::function<void()>& f, Error code, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << needle << "'";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// ---- a user backend and partitioner (claims aten::relu) ----

constexpr const char* kUserBackend = "EngineExportTestBackend";

class UserBackend final : public partition::Backend {
 public:
  std::string id() const override { return kUserBackend; }
  partition::PreprocessResult preprocess(
      const ExportedProgram&, const std::vector<partition::CompileSpec>&) const override {
    return {ir::Buffer::copy_of("user", 4), {}, {}};
  }
};

void register_user_backend() {
  static const bool once = [] {
    partition::register_backend(std::make_shared<UserBackend>());
    return true;
  }();
  (void)once;
}

class UserPartitioner final : public partition::Partitioner {
 public:
  std::function<void(const ExportedProgram&, const std::string&)> on_partition;
  std::vector<partition::CompileSpec> specs;
  bool fail = false;

  UserPartitioner() { register_user_backend(); }
  std::string name() const override { return "UserPartitioner"; }
  partition::PartitionResult partition(const ExportedProgram& p,
                                       const partition::PartitionContext& context) const override {
    if (on_partition) on_partition(p, context.method_name);
    if (fail) raise(Error::Internal, "the user partitioner fails on purpose");
    partition::PartitionResult r;
    size_t k = 0;
    for (const Node* n : p.graph().nodes()) {
      if (!n->is_op("aten::relu")) continue;
      const std::string tag = "user_" + std::to_string(k++);
      r.node_tags[n->name()] = tag;
      r.partition_tags[tag] = {kUserBackend, specs};
    }
    return r;
  }
};

/// Counts the methods it ran on.
class CountingPass final : public passes::Pass {
 public:
  std::string name() const override { return "CountingPass"; }
  passes::PassResult run(ExportedProgram&) override {
    ++runs;
    if (fail) raise(Error::Internal, "the pass fails on purpose");
    return {false};
  }
  int runs = 0;
  bool fail = false;
};

/// What must not change in a caller's program.
struct Fingerprint {
  std::string text;
  std::vector<const void*> objects;
  std::vector<const void*> payloads;
  explicit Fingerprint(const ExportedProgram& p) : text(ir::print(p)) {
    for (const auto& [name, o] : p.custom_objects()) {
      objects.push_back(o.object.get());
      payloads.push_back(o.payload.get());
    }
    for (const auto& [name, t] : p.state_dict()) payloads.push_back(t.data.get());
  }
  bool operator==(const Fingerprint&) const = default;
};

// ======================= validation =======================

TEST(EngineExportValidation, EmptyMapIsAnError) {
  expect_error([] { export_engine_program(EngineSources{}); }, Error::InvalidArgument,
               "ptec::engine::export: the source has no methods");
}

TEST(EngineExportValidation, MethodNamesMustBeIdentifiers) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram p = simple(engine);
  expect_error(
      [&] {
        export_engine_program(EngineSources{{"", &p}});
      },
      Error::InvalidArgument, "empty");
  expect_error(
      [&] {
        export_engine_program(EngineSources{{"1st", &p}});
      },
      Error::InvalidArgument, "'1st' is not a valid identifier");
  expect_error(
      [&] {
        export_engine_program(EngineSources{{"pre-fill", &p}});
      },
      Error::InvalidArgument, "'pre-fill' is not a valid identifier");
  EXPECT_EQ(engine->serialized, 0);
}

TEST(EngineExportValidation, SameProgramObjectUnderTwoNamesIsAnError) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram p = simple(engine);
  expect_error(
      [&] {
        export_engine_program(EngineSources{{"decode", &p}, {"prefill", &p}});
      },
      Error::InvalidArgument, "'decode' and 'prefill' are the same program object");
  // Two copies of one program are two programs.
  const ExportedProgram copy = p;
  EXPECT_NO_THROW(export_engine_program(EngineSources{{"decode", &p}, {"prefill", &copy}}));
}

TEST(EngineExportValidation, SourceNeverEngineCompiledIsAnError) {
  EngineProgram plain;
  Node* x = plain.input("x");
  plain.output({plain.relu(x)});
  plain.program.provenance().clear();
  expect_error([&] { export_engine_program(plain.program); }, Error::InvalidArgument,
               "compile it first with ptec::engine::compile");
  // A compile that found no region (no engine, but the compile step) is accepted.
  plain.program.provenance().push_back({"engine_compile", "regions=0"});
  EXPECT_NO_THROW(export_engine_program(plain.program));
}

TEST(EngineExportValidation, InvalidConstantMethodNameIsAnErrorBeforeAnySerialization) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram p = simple(engine);
  EngineExportOptions bad_name;
  bad_name.constant_methods["max-len"] = int64_t{128};
  expect_error([&] { export_engine_program(p, bad_name); }, Error::InvalidArgument,
               "constant method name 'max-len' is not a valid identifier");
  EngineExportOptions clash;
  clash.constant_methods["forward"] = int64_t{1};
  expect_error([&] { export_engine_program(p, clash); }, Error::InvalidArgument,
               "constant method 'forward' has the name of a method");
  // Validation comes before any staging: the engine was never serialized.
  EXPECT_EQ(engine->serialized, 0);
  EngineExportOptions good;
  good.constant_methods["max_len"] = int64_t{128};
  EXPECT_EQ(export_engine_program(p, good).config_methods(), std::vector<std::string>{"max_len"});
}

TEST(EngineExportValidation, EveryMethodIsValidatedBeforeAnyIsRewritten) {
  auto a = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram pa = simple(a);
  // Method "b" passes a non-engine custom object as its engine.
  ExportedProgram pb = simple(std::make_shared<CountingEngine>(1, 1));
  pb.custom_objects().at("engine0").type = "not.an.engine";
  expect_error(
      [&] {
        export_engine_program(EngineSources{{"a", &pa}, {"b", &pb}});
      },
      Error::InvalidProgram, "'not.an.engine'");
  EXPECT_EQ(a->serialized, 0);
  // A per-method map naming an unknown method.
  EngineExportOptions options;
  options.transform_passes = program::MethodPasses{{"c", {}}};
  expect_error(
      [&] {
        export_engine_program(EngineSources{{"a", &pa}}, options);
      },
      Error::NotFound, "unknown method 'c'");
  EXPECT_EQ(a->serialized, 0);
}

// ======================= staging =======================

TEST(EngineExportStaging, SharesPayloadsAndEnginesAndKeepsNodeNames) {
  auto engine = std::make_shared<CountingEngine>(2, 1);
  EngineProgram p;
  Node* x = p.input("x");
  Node* w = p.weight("layer.weight", floats(0.5f));
  Node* e = p.engine("engine", "engine0", engine);
  Node* y = p.run({x, w}, e)[0];
  p.output({p.add(p.relu(y, "my_relu"), w, "my_add")});
  const BufferPtr weight = p.program.state_dict().at("layer.weight").data;

  EngineExportOptions options;
  options.generate_etrecord = true;
  const auto manager = export_engine_program(p.program, options);
  const ExportedProgram& out = manager.exported_program();
  // The engine blob is the delegate's processed bytes, pointer-equal to what serialize made.
  const auto mods = delegates(out);
  ASSERT_EQ(mods.size(), 1u);
  EXPECT_EQ(mods[0].processed.get(), engine->last.lock().get());
  // The weight stays shared, node names are kept.
  EXPECT_EQ(out.state_dict().at("layer.weight").data.get(), weight.get());
  EXPECT_NE(out.graph().find("my_relu"), nullptr);
  EXPECT_NE(out.graph().find("my_add"), nullptr);
  EXPECT_NE(out.graph().find("x"), nullptr);
  // The staged ATEN program kept every node name (the engine placeholder included) and the UUID.
  const auto aten = manager.get_etrecord().aten_program("forward");
  for (const Node* n : p.program.graph().nodes()) {
    EXPECT_NE(aten->graph().find(n->name()), nullptr) << n->name();
  }
  EXPECT_EQ(aten->uuid(), p.program.uuid());
  EXPECT_EQ(aten->state_dict().at("layer.weight").data.get(), weight.get());
}

TEST(EngineExportStaging, AnEnginePayloadIsTheDelegateBlobWithoutSerializing) {
  CountingEngine maker(1, 1);
  const BufferPtr payload = ir::Buffer::from_vector(maker.bytes());
  EngineProgram p;
  Node* x = p.input("x");
  Node* e = p.engine("engine", "engine0", nullptr, payload);
  p.output({p.relu(p.run({x}, e)[0])});
  const auto manager = export_engine_program(p.program);
  EXPECT_EQ(delegates(manager.exported_program())[0].processed.get(), payload.get());
}

TEST(EngineExportStaging, CallerProgramsAreUnchangedAfterSuccess) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram p = simple(engine);
  const Fingerprint before(p);
  const auto manager = export_engine_program(p);
  EXPECT_EQ(Fingerprint(p), before);
  EXPECT_EQ(p.stage(), ir::Stage::Aten);
  EXPECT_TRUE(p.state_dict().empty());  // no engine buffer name leaked into the source
  EXPECT_EQ(count_calls(p, kExecuteEngineOp), 1u);
  EXPECT_EQ(engine.use_count(), 2);  // this test and the source: the result holds no engine
}

TEST(EngineExportStaging, CallerProgramsAreUnchangedAfterAFailedRewrite) {
  auto a = std::make_shared<CountingEngine>(1, 1);
  auto b = std::make_shared<CountingEngine>(1, 1);
  b->fail = true;
  const ExportedProgram pa = simple(a);
  const ExportedProgram pb = simple(b);
  const Fingerprint fa(pa), fb(pb);
  expect_error(
      [&] {
        export_engine_program(EngineSources{{"a", &pa}, {"b", &pb}});
      },
      Error::Internal, "method 'b'");
  EXPECT_EQ(a->serialized, 1);  // "a" was rewritten and lowered before "b" failed
  EXPECT_EQ(Fingerprint(pa), fa);
  EXPECT_EQ(Fingerprint(pb), fb);
  EXPECT_EQ(a.use_count(), 2);
  EXPECT_EQ(b.use_count(), 2);
}

TEST(EngineExportStaging, CallerProgramsAreUnchangedAfterAFailedLowering) {
  auto a = std::make_shared<CountingEngine>(1, 1);
  auto b = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram pa = simple(a);
  const ExportedProgram pb = simple(b);
  const Fingerprint fa(pa), fb(pb);
  auto partitioner = std::make_shared<UserPartitioner>();
  partitioner->fail = true;
  EngineExportOptions options;
  options.partitioners = program::MethodPartitioners{{"b", {partitioner}}};
  expect_error(
      [&] {
        export_engine_program(EngineSources{{"a", &pa}, {"b", &pb}}, options);
      },
      Error::Internal, "fails on purpose");
  EXPECT_EQ(Fingerprint(pa), fa);
  EXPECT_EQ(Fingerprint(pb), fb);
  EXPECT_EQ(a.use_count(), 2);
  EXPECT_EQ(b.use_count(), 2);
}

// ======================= partitioning =======================

TEST(EngineExportPartition, EnginePartitionerFirstThenUsersThenPortable) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  EngineProgram p;
  Node* x = p.input("x");
  Node* e = p.engine("engine", "engine0", engine);
  Node* y = p.run({x}, e)[0];
  p.output({p.add(p.relu(y), x)});
  auto user = std::make_shared<UserPartitioner>();
  size_t engine_calls_seen = 99;
  user->on_partition = [&](const ExportedProgram& program, const std::string&) {
    engine_calls_seen = count_calls(program, kExecuteEngineOp);
  };
  EngineExportOptions options;
  options.partitioners = program::PartitionerList{user};
  const auto manager = export_engine_program(p.program, options);
  EXPECT_EQ(engine_calls_seen, 0u);  // the engine partitioner ran first and claimed the call
  const ExportedProgram& out = manager.exported_program();
  const auto mods = delegates(out);
  ASSERT_EQ(mods.size(), 2u);
  EXPECT_EQ(mods[0].backend_id, kBackendId);
  EXPECT_EQ(mods[1].backend_id, kUserBackend);
  EXPECT_EQ(count_calls(out, "aten::add.Tensor"), 1u);  // unclaimed: portable kernels
  EXPECT_EQ(count_calls(out, kExecuteEngineOp), 0u);
  EXPECT_EQ(out.stage(), ir::Stage::Lowered);
}

TEST(EngineExportPartition, MethodsWithoutEnginesAreAllowed) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram with = simple(engine);
  EngineProgram without;
  Node* x = without.input("x");
  without.output({without.relu(x)});
  without.program.provenance().clear();
  const auto manager =
      export_engine_program(EngineSources{{"forward", &with}, {"helper", &without.program}});
  EXPECT_EQ(delegates(manager.exported_program("forward")).size(), 1u);
  EXPECT_TRUE(delegates(manager.exported_program("helper")).empty());
  EXPECT_EQ(count_calls(manager.exported_program("helper"), "aten::relu"), 1u);
}

TEST(EngineExportPartition, CompileSpecsNamingAnotherMethodAreRejected) {
  auto a = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram pa = simple(a);
  const ExportedProgram pb = simple(std::make_shared<CountingEngine>(1, 1));
  const EngineSources sources{{"a", &pa}, {"b", &pb}};
  // The engine delegates' compile specs: checked before anything is staged.
  EngineExportOptions engine_specs;
  engine_specs.compile_specs = MethodCompileSpecs{
      {"a", {partition::CompileSpec::from_string(partition::kMethodNameCompileSpec, "b")}}};
  expect_error([&] { export_engine_program(sources, engine_specs); }, Error::InvalidArgument,
               "method_name='b'");
  EXPECT_EQ(a->serialized, 0);
  // One list for all methods that names one of them.
  engine_specs.compile_specs =
      CompileSpecList{partition::CompileSpec::from_string(partition::kMethodNameCompileSpec, "a")};
  expect_error([&] { export_engine_program(sources, engine_specs); }, Error::InvalidArgument,
               "method_name='a'");
  // A user partitioner's specs.
  auto user = std::make_shared<UserPartitioner>();
  user->specs = {partition::CompileSpec::from_string(partition::kMethodNameCompileSpec, "a")};
  EngineExportOptions user_specs;
  user_specs.partitioners = program::PartitionerList{user};
  const Fingerprint fb(pb);
  expect_error([&] { export_engine_program(sources, user_specs); }, Error::InvalidArgument,
               "compile spec method_name='a' but it is partitioning method 'b'");
  EXPECT_EQ(Fingerprint(pb), fb);
  // Specs naming their own method are fine and reach the delegates.
  engine_specs.compile_specs = MethodCompileSpecs{
      {"a", {partition::CompileSpec::from_string(partition::kMethodNameCompileSpec, "a")}},
      {"b", {partition::CompileSpec::from_string(partition::kMethodNameCompileSpec, "b")}}};
  const auto manager = export_engine_program(sources, engine_specs);
  EXPECT_EQ(delegates(manager.exported_program("b"))[0].compile_specs,
            engine_specs.compile_specs.index() == 1
                ? std::get<MethodCompileSpecs>(engine_specs.compile_specs).at("b")
                : CompileSpecList{});
}

// ======================= delegates =======================

TEST(EngineExportDelegates, EachEngineCallIsOneDelegateWithTheEnginesExactInputsAndOutputs) {
  auto engine = std::make_shared<CountingEngine>(2, 2);
  EngineProgram p;
  Node* x = p.input("x");
  Node* e = p.engine("engine", "engine0", engine);
  // The same tensor twice, and only the second output used.
  const auto outs = p.run({x, x}, e, 2);
  p.output({p.relu(outs[1])});
  const auto manager = export_engine_program(p.program);
  const ExportedProgram& out = manager.exported_program();
  const Node* call = nullptr;
  for (const Node* n : out.graph().nodes()) {
    if (n->target() == "executorch_call_delegate") call = n;
  }
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->args().size(), 3u);  // module, x, x
  EXPECT_EQ(call->meta().val.size(), 2u);
  const auto mods = delegates(out);
  ASSERT_EQ(mods.size(), 1u);
  EXPECT_EQ(mods[0].backend_id, kBackendId);
  const std::vector<uint8_t> expected = engine->bytes();
  ASSERT_EQ(mods[0].processed->size(), expected.size());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), mods[0].processed->data()));
  EXPECT_TRUE(out.state_dict().empty());  // the engine buffer left with the call
  EXPECT_TRUE(out.custom_objects().count("engine0") == 0);

  // Up to the .pte bytes: the blob is stored there, once.
  const auto et = manager.to_executorch();
  const std::vector<uint8_t> pte = et.buffer();
  auto found = std::search(pte.begin(), pte.end(), expected.begin(), expected.end());
  ASSERT_NE(found, pte.end());
  EXPECT_EQ(std::search(found + 1, pte.end(), expected.begin(), expected.end()), pte.end());
}

TEST(EngineExportDelegates, EngineBindingsMustMatchTheCall) {
  auto engine = std::make_shared<CountingEngine>(2, 1);  // two inputs, the call passes one
  const ExportedProgram p = simple(engine);
  expect_error([&] { export_engine_program(p); }, Error::InvalidProgram,
               "has 2 input and 1 output bindings but call %execute_engine passes 1 inputs");
}

TEST(EngineExportDelegates, AnEngineSharedByCallsAndMethodsIsSerializedOnce) {
  auto shared = std::make_shared<CountingEngine>(1, 1);
  EngineProgram a;
  {
    Node* x = a.input("x");
    Node* e = a.engine("engine", "engine0", shared);
    Node* y = a.run({x}, e, 1, "first")[0];
    Node* z = a.run({y}, e, 1, "second")[0];
    a.output({z});
  }
  EngineProgram b;
  {
    Node* x = b.input("x");
    // Another object name holding the same live engine.
    Node* e = b.engine("eng", "decode_engine", shared);
    b.output({b.run({x}, e)[0]});
  }
  const auto manager = export_engine_program(EngineSources{{"a", &a.program}, {"b", &b.program}});
  EXPECT_EQ(shared->serialized, 1);
  const auto da = delegates(manager.exported_program("a"));
  const auto db = delegates(manager.exported_program("b"));
  ASSERT_EQ(da.size(), 2u);
  ASSERT_EQ(db.size(), 1u);
  EXPECT_EQ(da[0].processed.get(), da[1].processed.get());
  EXPECT_EQ(da[0].processed.get(), db[0].processed.get());
  // The .pte stores the blob once.
  const std::vector<uint8_t> pte = manager.to_executorch().buffer();
  const std::vector<uint8_t> blob = shared->bytes();
  auto found = std::search(pte.begin(), pte.end(), blob.begin(), blob.end());
  ASSERT_NE(found, pte.end());
  EXPECT_EQ(std::search(found + 1, pte.end(), blob.begin(), blob.end()), pte.end());
}

TEST(EngineExportDelegates, AMethodsEnginesAreReleasedOnceItIsRewritten) {
  auto a = std::make_shared<CountingEngine>(1, 1, 0x11);
  auto b = std::make_shared<CountingEngine>(1, 1, 0x22);
  const std::weak_ptr<const ir::OpaqueObject> weak_a = a, weak_b = b;
  const ExportedProgram pa = simple(a);
  const ExportedProgram pb = simple(b);
  a.reset();
  b.reset();
  // Only the sources hold the engines now.
  ASSERT_EQ(weak_a.use_count(), 1);
  auto user = std::make_shared<UserPartitioner>();
  std::vector<std::string> seen;
  std::weak_ptr<const ir::Buffer> blob_a;
  user->on_partition = [&](const ExportedProgram&, const std::string& method) {
    seen.push_back(method);
    if (method == "a") {
      // "a" is rewritten: nothing but its source holds its engine; its blob lives only in its
      // delegate.
      EXPECT_EQ(weak_a.use_count(), 1);
      const auto& engine = static_cast<const CountingEngine&>(*weak_a.lock());
      blob_a = engine.last;
      EXPECT_EQ(blob_a.use_count(), 1);
    } else {
      // While "b" is lowered, nothing from "a" but its lowered program remains.
      EXPECT_EQ(weak_a.use_count(), 1);
      EXPECT_EQ(weak_b.use_count(), 1);
      EXPECT_EQ(blob_a.use_count(), 1);
    }
  };
  EngineExportOptions options;
  options.partitioners = program::PartitionerList{user};
  {
    const auto manager = export_engine_program(EngineSources{{"a", &pa}, {"b", &pb}}, options);
    EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(blob_a.use_count(), 1);
  }
  EXPECT_TRUE(blob_a.expired());  // nothing kept a copy behind the manager's back
}

TEST(EngineExportDelegates, EngineBufferNamesAreUniqueAndExistingEntriesUntouched) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  EngineProgram p;
  Node* x = p.input("x");
  // A parameter, a constant and a module attribute already use the first candidate names (the
  // last two used by no placeholder).
  const BufferPtr w = floats(2.0f);
  Node* taken = p.weight("engine0_blob", w);
  const BufferPtr cdata = floats(3.0f);
  p.program.constants()["engine0_blob_1"] = ir::TensorData{f32({2, 3}), cdata};
  p.program.custom_objects()["engine0_blob_2"] =
      ir::CustomObject{"test.other", ir::Buffer::copy_of("o", 1), {}, nullptr};
  Node* e = p.engine("engine", "engine0", engine);
  Node* y = p.run({x}, e)[0];
  p.output({p.add(y, taken, "add_w")});
  EngineExportOptions options;
  options.generate_etrecord = true;
  const auto manager = export_engine_program(p.program, options);
  const auto aten = manager.get_etrecord().aten_program();
  ASSERT_EQ(aten->state_dict().count("engine0_blob_3"), 1u);
  EXPECT_EQ(aten->state_dict().at("engine0_blob_3").data.get(), engine->last.lock().get());
  EXPECT_EQ(aten->state_dict().at("engine0_blob").data.get(), w.get());
  EXPECT_EQ(aten->constants().at("engine0_blob_1").data.get(), cdata.get());
  EXPECT_EQ(aten->custom_objects().at("engine0_blob_2").type, "test.other");
  EXPECT_EQ(aten->signature().find_input("engine")->target, "engine0_blob_3");
  // The lowered program still has the user's entries, unchanged.
  const ExportedProgram& out = manager.exported_program();
  EXPECT_EQ(out.state_dict().at("engine0_blob").data.get(), w.get());
  EXPECT_EQ(out.constants().at("engine0_blob_1").data.get(), cdata.get());
  EXPECT_EQ(out.state_dict().count("engine0_blob_3"), 0u);
}

struct LogLines {
  std::vector<std::string> lines;
  LogLines() { set_log_sink(&LogLines::sink, this); }
  ~LogLines() { set_log_sink(nullptr, nullptr); }
  static void sink(LogLevel, const char* message, void* user) {
    static_cast<LogLines*>(user)->lines.emplace_back(message);
  }
  size_t count(const std::string& needle) const {
    return static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [&](const auto& l) {
      return l.find(needle) != std::string::npos;
    }));
  }
};

TEST(EngineExportDelegates, AMethodWithSeveralEngineCallsLogsHowMany) {
  EngineProgram p;
  Node* x = p.input("x");
  Node* v = x;
  for (int k = 0; k < 3; ++k) {
    Node* e = p.engine("engine" + std::to_string(k), "engine" + std::to_string(k),
                       std::make_shared<CountingEngine>(1, 1));
    v = p.run({v}, e)[0];
  }
  p.output({v});
  LogLines log;
  export_engine_program(EngineSources{{"decode", &p.program}});
  EXPECT_EQ(log.count("method 'decode' has 3 engine calls"), 1u);
  log.lines.clear();
  const ExportedProgram one = simple(std::make_shared<CountingEngine>(1, 1));
  export_engine_program(one);
  EXPECT_EQ(log.count("engine calls"), 0u);
}

// ======================= per-method maps =======================

TEST(EngineExportMaps, EmptyPerMethodMapsMeanNothing) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram p = simple(engine);
  EngineExportOptions options;
  options.partitioners = program::MethodPartitioners{};
  options.compile_specs = MethodCompileSpecs{};
  options.transform_passes = program::MethodPasses{};
  options.generate_etrecord = true;
  const auto manager = export_engine_program(p, options);
  const ExportedProgram& out = manager.exported_program();
  const auto mods = delegates(out);
  ASSERT_EQ(mods.size(), 1u);  // only the engine delegate
  EXPECT_TRUE(mods[0].compile_specs.empty());
  EXPECT_EQ(count_calls(out, "aten::relu"), 1u);
  EXPECT_TRUE(manager.get_etrecord().edge_after_transform().empty());
  for (const ir::ProvenanceStep& step : out.provenance()) EXPECT_NE(step.stage, "transform");
}

TEST(EngineExportMaps, MethodsMissingFromAPerMethodMapGetNothingWithoutCopies) {
  const ExportedProgram pa = simple(std::make_shared<CountingEngine>(1, 1));
  const ExportedProgram pb = simple(std::make_shared<CountingEngine>(1, 1));
  auto pass = std::make_shared<CountingPass>();
  auto user = std::make_shared<UserPartitioner>();
  std::vector<std::string> partitioned;
  user->on_partition = [&](const ExportedProgram&, const std::string& m) {
    partitioned.push_back(m);
  };
  const auto spec = partition::CompileSpec::from_string("k", "v");
  EngineExportOptions options;
  options.transform_passes = program::MethodPasses{{"a", {pass}}};
  options.partitioners = program::MethodPartitioners{{"a", {user}}};
  options.compile_specs = MethodCompileSpecs{{"a", {spec}}};
  options.generate_etrecord = true;
  const auto manager = export_engine_program(EngineSources{{"a", &pa}, {"b", &pb}}, options);
  EXPECT_EQ(pass->runs, 1);
  EXPECT_EQ(partitioned, std::vector<std::string>{"a"});
  EXPECT_EQ(delegates(manager.exported_program("a"))[0].compile_specs,
            std::vector<partition::CompileSpec>{spec});
  EXPECT_TRUE(delegates(manager.exported_program("b"))[0].compile_specs.empty());
  EXPECT_EQ(count_calls(manager.exported_program("b"), "aten::relu"), 1u);
  // No transform copy of "b": only "a" has an Edge program after transforms.
  const auto& after = manager.get_etrecord().edge_after_transform();
  EXPECT_EQ(after.size(), 1u);
  EXPECT_EQ(after.count("a"), 1u);
  for (const ir::ProvenanceStep& step : manager.exported_program("b").provenance()) {
    EXPECT_NE(step.stage, "transform");
  }
}

// ======================= config and ETRecord =======================

TEST(EngineExportConfig, DefaultSkipsIrValidityAndACallersConfigIsUsedAsGiven) {
  const ExportedProgram p = simple(std::make_shared<CountingEngine>(1, 1));
  const auto by_default = export_engine_program(p);
  EXPECT_FALSE(by_default.compile_config().check_ir_validity);
  bool found = false;
  for (const ir::ProvenanceStep& step : by_default.exported_program().provenance()) {
    if (step.stage != "to_edge") continue;
    found = true;
    EXPECT_NE(step.detail.find("check_ir_validity=false"), std::string::npos) << step.detail;
  }
  EXPECT_TRUE(found);

  EngineExportOptions options;
  options.compile_config = program::EdgeCompileConfig{};
  options.compile_config->preserve_ops = {"aten::linear"};
  const auto given = export_engine_program(p, options);
  EXPECT_TRUE(given.compile_config().check_ir_validity);
  EXPECT_EQ(given.compile_config().preserve_ops, std::vector<std::string>{"aten::linear"});
  for (const ir::ProvenanceStep& step : given.exported_program().provenance()) {
    if (step.stage == "to_edge") {
      EXPECT_NE(step.detail.find("check_ir_validity=true"), std::string::npos) << step.detail;
    }
  }
}

TEST(EngineExportEtrecord, GenerateEtrecordRecordsEveryMethodAsToEdgeTransformAndLowerDoes) {
  const ExportedProgram pa = simple(std::make_shared<CountingEngine>(1, 1));
  const ExportedProgram pb = simple(std::make_shared<CountingEngine>(1, 1));
  const EngineSources sources{{"a", &pa}, {"b", &pb}};
  const uint64_t snapshots = devtools::snapshot_count();
  const auto without = export_engine_program(sources);
  EXPECT_FALSE(without.has_etrecord());
  EXPECT_EQ(devtools::snapshot_count(), snapshots);

  EngineExportOptions options;
  options.generate_etrecord = true;
  options.transform_passes = program::MethodPasses{{"b", {std::make_shared<CountingPass>()}}};
  const auto manager = export_engine_program(sources, options);
  const devtools::ETRecord& record = manager.get_etrecord();
  EXPECT_EQ(record.aten_programs().size(), 2u);
  EXPECT_EQ(record.edge_programs().size(), 2u);
  EXPECT_EQ(record.edge_after_transform().count("b"), 1u);
  // The Edge programs are before partitioning: the engine call is still there.
  EXPECT_EQ(count_calls(*record.edge_program("a"), kExecuteEngineOp), 1u);
  const auto et = manager.to_executorch();
  EXPECT_TRUE(et.get_etrecord().has_executorch_maps());
  EXPECT_EQ(et.get_etrecord().delegate_map("a").size(), 1u);
  const fs::path dir = fs::temp_directory_path() / "engine_export_test_etrecord";
  fs::create_directories(dir);
  EXPECT_NO_THROW(et.get_etrecord().save((dir / "r.etrecord").string()));
  fs::remove_all(dir);
}

// ======================= save =======================

class EngineSave : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engine_save_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TEST_F(EngineSave, WritesThePteAndTheEtrecordBesideIt) {
  auto engine = std::make_shared<CountingEngine>(1, 1);
  const ExportedProgram p = simple(engine);
  EngineSaveOptions options;
  options.generate_etrecord = true;
  const SavedEngineProgram saved = save(p, path("model.pte"), options);
  EXPECT_EQ(saved.pte, path("model.pte"));
  EXPECT_EQ(saved.etrecord, path("model.etrecord"));
  EXPECT_TRUE(saved.ptd.empty());
  EXPECT_TRUE(fs::exists(path("model.etrecord")));
  EXPECT_FALSE(fs::exists(path("model.ptd")));
  EXPECT_NO_THROW(devtools::ETRecord::load(saved.etrecord));
  // The same bytes as export_engine_program + to_executorch, blob included.
  const std::vector<uint8_t> pte = read_file(saved.pte);
  EXPECT_EQ(pte, export_engine_program(p).to_executorch().buffer());
  const std::vector<uint8_t> blob = engine->bytes();
  EXPECT_NE(std::search(pte.begin(), pte.end(), blob.begin(), blob.end()), pte.end());
  // Nothing else (no temporary files) is left in the directory.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) files += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 2u);

  const SavedEngineProgram plain = save(p, path("plain.pte"));
  EXPECT_TRUE(plain.etrecord.empty());
  EXPECT_FALSE(fs::exists(path("plain.etrecord")));
}

TEST_F(EngineSave, WritesAPtdOnlyWhenThereIsExternalData) {
  EngineProgram p;
  Node* x = p.input("x");
  Node* w = p.weight("w", floats(1.5f));
  Node* e = p.engine("engine", "engine0", std::make_shared<CountingEngine>(1, 1));
  p.output({p.add(p.run({x}, e)[0], w)});
  EngineSaveOptions options;
  options.backend_config.external_constants = true;
  const SavedEngineProgram saved = save(p.program, path("ext.pte"), options);
  EXPECT_EQ(saved.ptd, path("ext.ptd"));
  EXPECT_TRUE(fs::exists(path("ext.ptd")));
  const SavedEngineProgram inline_data = save(p.program, path("inline.pte"));
  EXPECT_TRUE(inline_data.ptd.empty());
  EXPECT_FALSE(fs::exists(path("inline.ptd")));
}

TEST_F(EngineSave, AFailedWriteLeavesNothingBehind) {
  const ExportedProgram p = simple(std::make_shared<CountingEngine>(1, 1));
  EngineSaveOptions options;
  options.generate_etrecord = true;
  // The .pte path is a directory: the ETRecord is written first, then removed again.
  fs::create_directories(path("model.pte"));
  EXPECT_THROW(save(p, path("model.pte"), options), Exception);
  EXPECT_FALSE(fs::exists(path("model.etrecord")));
  expect_error([&] { save(p, path("missing/model.pte"), options); }, Error::NotFound,
               "does not exist");
}

}  // namespace
}  // namespace ptec::engine
