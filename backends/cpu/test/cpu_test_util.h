// Shared by the CPU backend's tests: random data, exporting a builder program with or without
// the CpuPartitioner, running a .pte through ptec's runtime, and comparing the lowered run with
// the portable one (tolerance 1e-4 x max(1, |ref|): both compute in fp32, in different orders).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/aot/cpu_backend.h"
#include "backends/cpu/aot/cpu_partitioner.h"
#include "backends/cpu/cpu_delegate_generated.h"
#include "backends/cpu/runtime/cpu_backend_runtime.h"
#include "kernels/optimized/ops/register.h"
#include "program/to_edge_transform_and_lower.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::backends::cpu::cpu_test {

inline std::vector<float> random_vector(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

inline ir::TensorData tensor(const std::vector<int64_t>& sizes, uint32_t seed, float scale = 0.5f) {
  size_t n = 1;
  for (int64_t s : sizes) n *= static_cast<size_t>(s);
  const std::vector<float> v = random_vector(n, seed, scale);
  return ir::TensorData{ir::TensorSpec(DType::Float, sizes),
                        ir::Buffer::copy_of(v.data(), v.size() * sizeof(float))};
}

// The node kinds of the blob preprocess writes for the whole of `program`.
inline std::vector<ptec_cpu_fb::NodeKind> blob_kinds(const ir::ExportedProgram& program) {
  const partition::PreprocessResult r = CpuBackend().preprocess(program, {});
  const auto* graph = ptec_cpu_fb::GetGraph(r.processed_bytes->data());
  EXPECT_EQ(graph->version(), kCpuBlobVersion);
  std::vector<ptec_cpu_fb::NodeKind> kinds;
  for (const auto* n : *graph->nodes()) kinds.push_back(n->kind());
  return kinds;
}

// The preprocessed weights of a blob, served to init as the program's named data would be.
class WeightMap final : public runtime::NamedDataMap {
 public:
  explicit WeightMap(const std::map<std::string, ir::BufferPtr>& data) : data_(data) {}
  Result<runtime::TensorLayout> get_tensor_layout(std::string_view) const override {
    return Error::NotImplemented;
  }
  Result<runtime::FreeableBuffer> get_data(std::string_view key) const override {
    auto it = data_.find(std::string(key));
    if (it == data_.end()) return Error::NotFound;
    return runtime::FreeableBuffer(it->second->data(), it->second->size(), nullptr);
  }
  Error load_data_into(std::string_view, void*, size_t) const override {
    return Error::NotImplemented;
  }
  Result<uint32_t> get_num_keys() const override { return static_cast<uint32_t>(data_.size()); }
  Result<const char*> get_key(uint32_t) const override { return Error::NotImplemented; }

 private:
  const std::map<std::string, ir::BufferPtr>& data_;
};

// CpuBackendRuntime::init on the blob of `r` after `edit` changed its unpacked graph (the
// weights served from r's named data): Ok, or init's error.
template <typename F>
Error init_edited_blob(const partition::PreprocessResult& r, F edit) {
  std::unique_ptr<ptec_cpu_fb::GraphT> g = ptec_cpu_fb::UnPackGraph(r.processed_bytes->data());
  edit(*g);
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(ptec_cpu_fb::Graph::Pack(builder, g.get()), ptec_cpu_fb::GraphIdentifier());
  runtime::FreeableBuffer processed(builder.GetBufferPointer(), builder.GetSize(), nullptr);
  std::vector<uint8_t> arena(size_t{8} << 20);
  runtime::MemoryAllocator alloc(arena.data(), arena.size());
  WeightMap weights(r.named_data);
  runtime::BackendInitContext context(&alloc, nullptr, "forward", &weights);
  CpuBackendRuntime backend;
  auto handle = backend.init(context, &processed, {});
  if (!handle.ok()) return handle.error();
  backend.destroy(*handle);
  return Error::Ok;
}

class CpuBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_cpu_backend_aot();
    ASSERT_EQ(register_cpu_backend_runtime(), Error::Ok);
    ASSERT_EQ(kernels::register_optimized_kernels(), Error::Ok);
  }

  // The .pte of `program`, lowered to the CPU backend or not.
  static std::vector<uint8_t> export_pte(const ir::ExportedProgram& program, bool lower) {
    program::TransformAndLowerOptions options;
    if (lower) {
      options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
    }
    return program::to_edge_transform_and_lower(program, options).to_executorch().buffer();
  }

  // The first output of method "forward" of the .pte `bytes` on `inputs`.
  static std::vector<float> run(const std::vector<uint8_t>& bytes,
                                const std::vector<runtime::OwnedTensor*>& inputs) {
    std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[bytes.size()]);
    std::memcpy(aligned.get(), bytes.data(), bytes.size());
    std::vector<float> values;
    {
      runtime::Module module(aligned.get(), bytes.size());
      std::vector<runtime::EValue> args;
      for (runtime::OwnedTensor* t : inputs) args.push_back(t->evalue());
      auto out = module.execute("forward", args);
      EXPECT_TRUE(out.ok()) << to_string(out.error());
      if (out.ok()) {
        const runtime::Tensor& t = (*out)[0].to_tensor();
        values.assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
      }
    }
    ::operator delete[](aligned.release(), std::align_val_t(64));
    return values;
  }

  static size_t count_delegates(const ir::ExportedProgram& program) {
    program::TransformAndLowerOptions options;
    options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
    const auto edge = program::to_edge_transform_and_lower(program, options);
    size_t n = 0;
    for (const ir::Node* node : edge.exported_program("forward").graph().nodes()) {
      n += node->is_op("executorch_call_delegate");
    }
    return n;
  }

  // Lowered and portable runs of `build()`'s program agree within `tolerance` x max(1, |ref|)
  // per element; returns the number of delegates.
  static size_t expect_same(const std::function<ir::ExportedProgram()>& build,
                            const std::vector<std::vector<int64_t>>& input_sizes,
                            double tolerance = 1e-4) {
    std::vector<runtime::OwnedTensor> owned;
    owned.reserve(input_sizes.size());
    std::vector<runtime::OwnedTensor*> inputs;
    uint32_t seed = 100;
    for (const auto& sizes : input_sizes) {
      size_t n = 1;
      for (int64_t s : sizes) n *= static_cast<size_t>(s);
      owned.push_back(runtime::OwnedTensor::from(DType::Float,
                                                 std::vector<int32_t>(sizes.begin(), sizes.end()),
                                                 random_vector(n, seed++)));
      inputs.push_back(&owned.back());
    }
    const std::vector<float> ref = run(export_pte(build(), false), inputs);
    const std::vector<float> got = run(export_pte(build(), true), inputs);
    EXPECT_EQ(got.size(), ref.size());
    EXPECT_FALSE(ref.empty());
    for (size_t i = 0; i < std::min(got.size(), ref.size()); ++i) {
      const double tol = tolerance * std::max(1.0f, std::fabs(ref[i]));
      EXPECT_NEAR(got[i], ref[i], tol) << "at " << i;
      if (std::fabs(got[i] - ref[i]) > tol) break;
    }
    return count_delegates(build());
  }
};

}  // namespace ptec::backends::cpu::cpu_test
