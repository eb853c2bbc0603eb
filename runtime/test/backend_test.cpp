// Delegates: the upstream demo backend's semantics on the hand-built fixtures, and a test backend
// on hand-built programs (inline and segment blobs, compile specs, named data, failures).

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/backend/interface.h"
#include "runtime/executor/program.h"
#include "runtime/extension/owned_tensor.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::AlignedBytes;
using testing::FixtureProgram;
using testing::LogCapture;
using testing::TestMemory;

// The semantics of ExecuTorch's BackendWithCompilerDemo (runtime/executor/test/
// test_backend_compiler_lib.cpp), reimplemented with bounds checks: the blob is
// "<count>version:0#op:<name>, numel:<n>, dtype:<dtype><debug_handle><h>#...", the compile spec
// max_value (int32) must be <= 4, and demo::aten.sin.default computes x - x^3 / 6.
class DemoBackend final : public BackendInterface {
 public:
  struct Op {
    bool is_sin = false;
    long numel = 0;
  };
  struct Handle {
    Op* ops;
    size_t n_ops;
  };

  bool is_available() const override { return true; }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               Span<const CompileSpec> specs) const override {
    PTEC_CHECK_OR_RETURN_ERROR(specs.size() >= 1 && specs[0].value.nbytes == 4, InvalidArgument,
                               "demo backend needs the max_value compile spec");
    int32_t max_value = 0;
    std::memcpy(&max_value, specs[0].value.buffer, 4);
    PTEC_CHECK_OR_RETURN_ERROR(max_value <= 4, InvalidArgument,
                               "The input number is %d and it's larger than the max number 4",
                               max_value);
    const std::string_view blob(
        static_cast<const char*>(processed->data()),
        strnlen(static_cast<const char*>(processed->data()), processed->size()));
    const size_t version_at = blob.find("version:");
    PTEC_CHECK_OR_RETURN_ERROR(
        version_at != std::string_view::npos && blob.substr(version_at + 8, 1) == "0",
        DelegateInvalidCompatibility, "unsupported blob version");
    const long count = std::atol(std::string(blob.substr(0, version_at)).c_str());
    PTEC_CHECK_OR_RETURN_ERROR(count >= 0 && count < 64, InvalidArgument, "bad op count");
    auto* handle = static_cast<Handle*>(
        context.get_runtime_allocator()->allocate(sizeof(Handle), alignof(Handle)));
    Op* ops = context.get_runtime_allocator()->allocate_list<Op>(static_cast<size_t>(count));
    PTEC_CHECK_OR_RETURN_ERROR(handle != nullptr && ops != nullptr, MemoryAllocationFailed,
                               "out of memory");
    size_t pos = blob.find('#');
    for (long i = 0; i < count; ++i) {
      const size_t op_at = blob.find("op:", pos);
      const size_t numel_at = blob.find("numel:", pos);
      PTEC_CHECK_OR_RETURN_ERROR(
          op_at != std::string_view::npos && numel_at != std::string_view::npos, InvalidArgument,
          "malformed blob");
      ops[i].is_sin = blob.substr(op_at + 3, 22) == "demo::aten.sin.default";
      ops[i].numel = std::atol(std::string(blob.substr(numel_at + 6, 8)).c_str());
      pos = blob.find('#', numel_at);
    }
    *handle = {ops, static_cast<size_t>(count)};
    ++inits;
    return static_cast<DelegateHandle*>(handle);
  }

  Error execute(BackendExecutionContext&, DelegateHandle* handle,
                Span<EValue*> args) const override {
    const auto* h = static_cast<const Handle*>(handle);
    PTEC_CHECK_OR_RETURN_ERROR(args.size() == 2 && args[0]->is_tensor() && args[1]->is_tensor(),
                               InvalidArgument, "demo backend expects (input, output)");
    const Tensor& x = args[0]->to_tensor();
    Tensor& y = args[1]->to_tensor();
    for (size_t i = 0; i < h->n_ops; ++i) {
      if (!h->ops[i].is_sin) continue;
      const size_t n = static_cast<size_t>(h->ops[i].numel);
      PTEC_CHECK_OR_RETURN_ERROR(n <= x.numel() && n <= y.numel(), InvalidArgument,
                                 "numel too large");
      for (size_t j = 0; j < n; ++j) {
        const float v = x.const_data_ptr<float>()[j];
        y.mutable_data_ptr<float>()[j] = v - v * v * v / 6.0f;
      }
    }
    return Error::Ok;
  }

  void destroy(DelegateHandle*) const override { ++destroys; }

  mutable int inits = 0;
  mutable int destroys = 0;
};

// out = in * scale + bias, where scale is the compile spec "scale" (int32), the blob must read
// "ptec-test-blob", and bias comes from the named data key "bias" when the program has it.
class ScaleBackend final : public BackendInterface {
 public:
  bool is_available() const override { return available; }

  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                               Span<const CompileSpec> specs) const override {
    PTEC_CHECK_OR_RETURN_ERROR(
        processed->size() >= 14 && std::memcmp(processed->data(), "ptec-test-blob", 14) == 0,
        InvalidArgument, "ScaleBackend: unexpected blob");
    processed->free();  // a backend may release its blob once it has read it
    auto* state = static_cast<float*>(
        context.get_runtime_allocator()->allocate(3 * sizeof(float), alignof(float)));
    PTEC_CHECK_OR_RETURN_ERROR(state != nullptr, MemoryAllocationFailed, "out of memory");
    int32_t scale = 1;
    for (const CompileSpec& spec : specs) {
      if (std::strcmp(spec.key, "scale") == 0 && spec.value.nbytes == 4) {
        std::memcpy(&scale, spec.value.buffer, 4);
      }
    }
    PTEC_CHECK_OR_RETURN_ERROR(scale != 0, InvalidArgument, "ScaleBackend: scale must not be 0");
    state[0] = static_cast<float>(scale);
    state[1] = state[2] = 0.0f;
    const NamedDataMap* named = context.get_named_data_map();
    if (named != nullptr) {
      Result<FreeableBuffer> bias = named->get_data("bias");
      if (bias.ok() && bias->size() == 2 * sizeof(float)) {
        std::memcpy(state + 1, bias->data(), 2 * sizeof(float));
      }
    }
    method_name = context.get_method_name();
    return static_cast<DelegateHandle*>(state);
  }

  Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                Span<EValue*> args) const override {
    const float* state = static_cast<const float*>(handle);
    PTEC_CHECK_OR_RETURN_ERROR(context.allocate(16) != nullptr, MemoryAllocationFailed,
                               "no temp memory");
    const Tensor& x = args[0]->to_tensor();
    Tensor& y = args[1]->to_tensor();
    for (size_t j = 0; j < 2; ++j) {
      y.mutable_data_ptr<float>()[j] = x.const_data_ptr<float>()[j] * state[0] + state[1 + j];
    }
    return Error::Ok;
  }

  void destroy(DelegateHandle*) const override { ++destroys; }

  bool available = true;
  mutable int destroys = 0;
  mutable const char* method_name = nullptr;
};

DemoBackend g_demo;
ScaleBackend g_scale;

class BackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(register_backend({"BackendWithCompilerDemo", &g_demo}), Error::Ok);
    ASSERT_EQ(register_backend({"PtecTestBackend", &g_scale}), Error::Ok);
  }
};

std::vector<float> run_two_floats(const Program& program, float a, float b, Error* error,
                                  int* destroys_seen = nullptr) {
  Result<MethodMeta> meta = program.method_meta("forward");
  if (!meta.ok()) {
    *error = meta.error();
    return {};
  }
  TestMemory memory(meta.get());
  Result<Method> method = program.load_method("forward", memory.manager());
  if (!method.ok()) {
    *error = method.error();
    return {};
  }
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {a, b});
  *error = method->set_input(x.evalue(), 0);
  if (*error == Error::Ok) *error = method->execute();
  if (*error != Error::Ok) return {};
  std::vector<float> out = tensor_values<float>(method->get_output(0)->to_tensor());
  if (destroys_seen != nullptr) *destroys_seen = g_scale.destroys;
  return out;
}

TEST_F(BackendTest, RegistryRejectsDuplicatesAndNulls) {
  LogCapture log;
  EXPECT_EQ(register_backend({"PtecTestBackend", &g_scale}), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("'PtecTestBackend' is already registered")) << log.all();
  EXPECT_EQ(register_backend({nullptr, &g_scale}), Error::InvalidArgument);
  EXPECT_EQ(register_backend({"X", nullptr}), Error::InvalidArgument);
  EXPECT_EQ(get_backend_class("PtecTestBackend"), &g_scale);
  EXPECT_EQ(get_backend_class("Nope"), nullptr);
  bool found = false;
  for (size_t i = 0; i < get_num_registered_backends(); ++i) {
    found = found || std::string(get_registered_backend_name(i)) == "BackendWithCompilerDemo";
  }
  EXPECT_TRUE(found);
}

TEST_F(BackendTest, DemoBackendRunsInlineAndSegmentFixtures) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  for (const char* file : {"handmade/deleg_inline.pte", "handmade/deleg_segment.pte"}) {
    FixtureProgram program(file);
    ASSERT_EQ(program.error(), Error::Ok) << file;
    const int destroys_before = g_demo.destroys;
    Error error = Error::Ok;
    std::vector<float> out = run_two_floats(*program.get(), 1.0f, 1.0f, &error);
    ASSERT_EQ(error, Error::Ok) << file;
    ASSERT_EQ(out.size(), 2u);
    EXPECT_NEAR(out[0], 0.833333f, 1e-6) << file;
    EXPECT_NEAR(out[1], 0.833333f, 1e-6) << file;
    EXPECT_EQ(g_demo.destroys, destroys_before + 1) << "destroy() runs with ~Method";
  }
}

std::string scale_program_json(const std::string& location, int index, int scale,
                               bool with_named_data) {
  using testing::tensor_json;
  std::string json = R"({"execution_plan": [{"name": "forward", "values": [)" +
                     tensor_json("FLOAT", {2}, 1, 0) + ", " + tensor_json("FLOAT", {2}, 1, 16) +
                     R"(], "inputs": [0], "outputs": [1],
      "chains": [{"instructions": [{"instr_args_type": "DelegateCall",
                                    "instr_args": {"delegate_index": 0, "args": [0, 1]}}]}],
      "operators": [],
      "delegates": [{"id": "PtecTestBackend",
                     "processed": {"location": ")" +
                     location + R"(", "index": )" + std::to_string(index) + R"(},
                     "compile_specs": [{"key": "scale", "value": [)" +
                     std::to_string(scale) + R"(, 0, 0, 0]}]}],
      "non_const_buffer_sizes": [0, 32]}],
    "backend_delegate_data": [{"data": [112, 116, 101, 99, 45, 116, 101, 115, 116, 45, 98, 108, 111, 98]}],
    "segments": [{"offset": 0, "size": 8}, {"offset": 128, "size": 14}],
    "constant_segment": {"offsets": [0]})";
  if (with_named_data) json += R"(, "named_data": [{"key": "bias", "segment_index": 0}])";
  return json + "}";
}

std::vector<std::vector<uint8_t>> scale_segments() {
  return {
      testing::bytes_of<float>({10.0f, 20.0f}),
      std::vector<uint8_t>{'p', 't', 'e', 'c', '-', 't', 'e', 's', 't', '-', 'b', 'l', 'o', 'b'}};
}

TEST_F(BackendTest, InlineBlobCompileSpecAndPteNamedData) {
  AlignedBytes bytes(
      testing::pte_from_json(scale_program_json("INLINE", 0, 3, true), scale_segments()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  ASSERT_NE(program->get_named_data_map(), nullptr);
  EXPECT_EQ(program->get_named_data_map()->get_tensor_layout("bias").error(),
            Error::NotImplemented);
  EXPECT_EQ(program->get_named_data_map()->get_data("nope").error(), Error::NotFound);
  const int destroys_before = g_scale.destroys;
  Error error = Error::Ok;
  int destroys_during = -1;
  std::vector<float> out = run_two_floats(program.get(), 1.0f, 2.0f, &error, &destroys_during);
  ASSERT_EQ(error, Error::Ok);
  EXPECT_EQ(out, std::vector<float>({13.0f, 26.0f}));
  EXPECT_EQ(destroys_during, destroys_before);
  EXPECT_EQ(g_scale.destroys, destroys_before + 1);
  EXPECT_STREQ(g_scale.method_name, "forward");
}

TEST_F(BackendTest, SegmentBlobWithoutNamedData) {
  AlignedBytes bytes(
      testing::pte_from_json(scale_program_json("SEGMENT", 1, 2, false), scale_segments()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(program->get_named_data_map(), nullptr);
  Error error = Error::Ok;
  std::vector<float> out = run_two_floats(program.get(), 1.0f, 2.0f, &error);
  ASSERT_EQ(error, Error::Ok);
  EXPECT_EQ(out, std::vector<float>({2.0f, 4.0f}));
}

TEST_F(BackendTest, BadBlobReferencesAndInitFailuresAreErrors) {
  struct Case {
    std::string location;
    int index;
    int scale;
    Error expected;
    const char* log;
  };
  const Case cases[] = {
      {"INLINE", 1, 2, Error::InvalidProgram, "inline blob 1 does not exist"},
      {"SEGMENT", 7, 2, Error::InvalidProgram, "segment 7 does not exist"},
      {"INLINE", 0, 0, Error::InvalidArgument, "scale must not be 0"},
  };
  for (const Case& c : cases) {
    AlignedBytes bytes(testing::pte_from_json(
        scale_program_json(c.location, c.index, c.scale, false), scale_segments()));
    BufferDataLoader loader(bytes.data(), bytes.size());
    Result<Program> program = Program::load(&loader);
    ASSERT_TRUE(program.ok());
    LogCapture log;
    Error error = Error::Ok;
    run_two_floats(program.get(), 1.0f, 2.0f, &error);
    EXPECT_EQ(error, c.expected) << c.log;
    EXPECT_TRUE(log.contains(c.log)) << log.all();
  }
}

TEST_F(BackendTest, UnavailableBackendIsNotFound) {
  AlignedBytes bytes(
      testing::pte_from_json(scale_program_json("INLINE", 0, 2, false), scale_segments()));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  g_scale.available = false;
  LogCapture log;
  Error error = Error::Ok;
  run_two_floats(program.get(), 1.0f, 2.0f, &error);
  g_scale.available = true;
  EXPECT_EQ(error, Error::NotFound);
  EXPECT_TRUE(log.contains("Backend PtecTestBackend is not available.")) << log.all();
}

}  // namespace
}  // namespace ptec::runtime
