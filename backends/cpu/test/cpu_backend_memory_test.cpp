// Where PtecCpuBackend takes its memory: packed weights and intermediates from the method
// allocator at init, per-node scratch (packing, im2col, padded planes) from the method's temp
// allocator at execute. Built without RTTI, like the runtime whose MemoryAllocator it subclasses.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backends/cpu/test/cpu_test_util.h"
#include "frontends/builder/graph_builder.h"
#include "kernels/optimized/conv2d.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"

namespace ptec::backends::cpu {
namespace {

using builder::Value;

// A bump allocator over a caller's pool that remembers the largest request it was asked for.
class RecordingAllocator final : public runtime::MemoryAllocator {
 public:
  RecordingAllocator(void* base, size_t size) : MemoryAllocator(base, size) {}
  void* allocate(size_t size, size_t alignment) override {
    largest = std::max(largest, size);
    ++requests;
    return MemoryAllocator::allocate(size, alignment);
  }
  size_t largest = 0;
  size_t requests = 0;
};

// The memory-planned buffers of method "forward" of a program, allocated.
class PlannedBuffers {
 public:
  explicit PlannedBuffers(const runtime::Program& program) {
    Result<runtime::MethodMeta> meta = program.method_meta("forward");
    EXPECT_TRUE(meta.ok());
    for (size_t i = 0; meta.ok() && i < meta->num_memory_planned_buffers(); ++i) {
      bytes_.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(i).get()));
    }
    for (auto& b : bytes_) spans_.emplace_back(b.data(), b.size());
  }
  runtime::HierarchicalAllocator allocator() {
    return runtime::HierarchicalAllocator{Span<Span<uint8_t>>(spans_.data(), spans_.size())};
  }

 private:
  std::vector<std::vector<uint8_t>> bytes_;
  std::vector<Span<uint8_t>> spans_;
};

class CpuBackendMemory : public cpu_test::CpuBackendTest {
 protected:
  // A 3x3 convolution large enough to need scratch.
  static ir::ExportedProgram conv() {
    builder::GraphBuilder b("conv");
    Value x = b.input("x", DType::Float, {1, 8, 12, 12});
    Value w = b.parameter("w", cpu_test::tensor({16, 8, 3, 3}, 1));
    const std::vector<int64_t> one = {1, 1};
    b.output({b.call("aten::convolution",
                     {x, w, nullptr, one, one, one, false, std::vector<int64_t>{0, 0}, 1})});
    return b.build();
  }

  struct Run {
    Error status;
    size_t largest_temp_request;
  };

  // Loads "forward" with a `temp_bytes` temp pool and runs it once.
  static Run run_with_temp(size_t temp_bytes) {
    static std::vector<uint8_t> bytes = export_pte(conv(), true);
    runtime::BufferDataLoader loader(bytes.data(), bytes.size());
    Result<runtime::Program> program = runtime::Program::load(&loader);
    EXPECT_TRUE(program.ok());
    if (!program.ok()) return {program.error(), 0};
    PlannedBuffers buffers(*program);
    std::vector<uint8_t> method_pool(1 << 22), temp_pool(std::max<size_t>(temp_bytes, 1));
    runtime::MemoryAllocator method_allocator(method_pool.data(), method_pool.size());
    RecordingAllocator temp(temp_pool.data(), temp_bytes);
    runtime::HierarchicalAllocator planned = buffers.allocator();
    runtime::MemoryManager memory{&method_allocator, &planned, &temp};
    Result<runtime::Method> method = program->load_method("forward", &memory);
    EXPECT_TRUE(method.ok());
    if (!method.ok()) return {method.error(), 0};
    std::vector<float> input(8 * 12 * 12, 0.5f);
    EXPECT_EQ(method->set_input_pointer(0, input.data(), input.size() * sizeof(float)), Error::Ok);
    const Error e = method->execute();
    return {e, temp.largest};
  }
};

// Intermediates in one arena, sharing bytes once dead (runtime/arena_plan.h).
class CpuBackendArena : public cpu_test::CpuBackendTest {
 protected:
  // A chain of `depth` 1x1 convolutions over 16 x 32 x 32 (64 KiB per intermediate), with the
  // first one's output added back after the last (a skip connection over the whole chain).
  static ir::ExportedProgram conv_chain(int depth) {
    builder::GraphBuilder b("chain");
    Value x = b.input("x", DType::Float, {1, 16, 32, 32});
    const std::vector<int64_t> one = {1, 1}, zero = {0, 0};
    Value first;
    Value y = x;
    for (int i = 0; i < depth; ++i) {
      Value w = b.parameter("w" + std::to_string(i),
                            cpu_test::tensor({16, 16, 1, 1}, static_cast<uint32_t>(i + 1)));
      y = b.call("aten::convolution", {y, w, nullptr, one, zero, one, false, zero, 1});
      if (i == 0) first = y;
    }
    b.output({b.call("aten::add.Tensor", {y, first})});
    return b.build();
  }

  // Bytes the method allocator gave out while loading the lowered chain.
  static size_t method_bytes(int depth) { return loaded_bytes(conv_chain(depth)); }

  // Bytes the method allocator gave out while loading `program`, lowered.
  static size_t loaded_bytes(const ir::ExportedProgram& lowered) {
    const std::vector<uint8_t> bytes = export_pte(lowered, true);
    runtime::BufferDataLoader loader(bytes.data(), bytes.size());
    Result<runtime::Program> program = runtime::Program::load(&loader);
    EXPECT_TRUE(program.ok());
    if (!program.ok()) return 0;
    PlannedBuffers buffers(*program);
    std::vector<uint8_t> method_pool(16 << 20), temp_pool(1 << 20);
    runtime::MemoryAllocator method_allocator(method_pool.data(), method_pool.size());
    runtime::MemoryAllocator temp(temp_pool.data(), temp_pool.size());
    runtime::HierarchicalAllocator planned = buffers.allocator();
    runtime::MemoryManager memory{&method_allocator, &planned, &temp};
    Result<runtime::Method> method = program->load_method("forward", &memory);
    EXPECT_TRUE(method.ok());
    return method.ok() ? method_allocator.used() : 0;
  }
};

// A recurrent cell unrolled over `steps` time steps: h = tanh(x_t + h R^T) (x_t a slice of the
// input), every step's product reading the same R.
ir::ExportedProgram recurrent_chain(int steps) {
  builder::GraphBuilder b("recurrent");
  Value x = b.input("x", DType::Float, {steps, 1, 128});
  Value r = b.parameter("r", cpu_test::tensor({128, 128}, 3));
  Value rt = b.call("aten::permute_copy", {r, std::vector<int64_t>{1, 0}});
  Value h = b.call("aten::select_copy.int", {x, 0, 0});
  for (int t = 1; t < steps; ++t) {
    Value xt = b.call("aten::select_copy.int", {x, 0, t});
    h = b.call("aten::tanh", {b.call("aten::addmm", {xt, h, rt})});
  }
  b.output({h});
  return b.build();
}

TEST_F(CpuBackendArena, LinearNodesOfOneWeightShareItsPacking) {
  // Ten more steps are ten more Linear nodes of R (64 KiB packed each if packed apart).
  const size_t short_chain = loaded_bytes(recurrent_chain(3));
  const size_t long_chain = loaded_bytes(recurrent_chain(13));
  ASSERT_GT(short_chain, 64u * 1024);
  EXPECT_LT(long_chain - short_chain, 64u * 1024)
      << "3 steps " << short_chain << ", 13 steps " << long_chain;
  EXPECT_EQ(expect_same([] { return recurrent_chain(6); }, {{6, 1, 128}}), 1u);
}

TEST_F(CpuBackendArena, IntermediatesShareBytesOnceTheyAreDead) {
  // Twelve more convolutions add twelve 64 KiB intermediates, but only three are ever live at
  // once (the skip connection's, the last one read, the one being written): the arena does not
  // grow with the depth, only the packed weights and per-node state do.
  const size_t shallow = method_bytes(4);
  const size_t deep = method_bytes(16);
  ASSERT_GT(shallow, 3u * 64 * 1024);
  EXPECT_LT(deep - shallow, 64u * 1024) << "shallow " << shallow << ", deep " << deep;
}

TEST_F(CpuBackendArena, SharedIntermediatesKeepEveryValueWhileItIsRead) {
  // The skip connection's tensor must survive the whole chain while the others reuse bytes.
  EXPECT_EQ(expect_same([] { return conv_chain(6); }, {{1, 16, 32, 32}}), 1u);
}

TEST_F(CpuBackendMemory, ScratchComesFromTheTempAllocator) {
  const Run run = run_with_temp(1 << 20);
  ASSERT_EQ(run.status, Error::Ok);
  // What the kernel asks for a 8-channel 3x3 convolution over 12x12 (the direct convolution's
  // padded planes, 8 x 14 x 14 floats, its row pointers and flat result).
  const kernels::optimized::Conv2dShape shape{1, 8, 12, 12, 16, 3, 3};
  EXPECT_GE(run.largest_temp_request, kernels::optimized::conv2d_scratch_bytes(shape, true));
  EXPECT_GE(run.largest_temp_request, size_t{8 * 14 * 14 * sizeof(float)});
}

TEST_F(CpuBackendMemory, TooSmallTempAllocatorFailsCleanly) {
  EXPECT_EQ(run_with_temp(64).status, Error::MemoryAllocationFailed);
}

}  // namespace
}  // namespace ptec::backends::cpu
