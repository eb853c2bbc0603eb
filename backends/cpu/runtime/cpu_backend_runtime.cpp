#include "backends/cpu/runtime/cpu_backend_runtime.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_delegate_generated.h"
#include "backends/cpu/runtime/arena_plan.h"
#include "backends/cpu/runtime/huge_pages.h"
#include "core/log.h"
#include "kernels/optimized/activation.h"
#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/conv2d_winograd.h"
#include "kernels/optimized/conv_transpose2d.h"
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/group_norm.h"
#include "kernels/optimized/layer_norm.h"
#include "kernels/optimized/max_pool2d.h"
#include "kernels/optimized/qconv2d.h"
#include "kernels/optimized/qgemm.h"
#include "kernels/optimized/quantized_elementwise.h"
#include "kernels/optimized/row_sum.h"
#include "kernels/optimized/threadpool.h"
#include "runtime/core/tensor.h"

namespace ptec::backends::cpu {
namespace {

namespace fb = ptec_cpu_fb;
namespace opt = kernels::optimized;
using runtime::EValue;
using runtime::FreeableBuffer;
using runtime::MemoryAllocator;

constexpr uint32_t kAbsent = 0xFFFFFFFFu;
constexpr uint32_t kMinBlobVersion = 1;
constexpr uint32_t kBlobVersion = 11;  // kCpuBlobVersion of backends/cpu/aot
constexpr int64_t kMaxRank = 8;
constexpr size_t kAlign = 64;

// One tensor of the subgraph.
struct TensorSlot {
  float* data = nullptr;  // bound at init (constants, intermediates) or execute (I/O); the bytes
                          // of a quantized tensor (read through bytes())
  const int64_t* sizes = nullptr;
  int64_t rank = 0;
  int64_t numel = 0;
  fb::TensorType dtype = fb::TensorType::F32;
  // A tensor of rows whose count each run gives (Tensor.dynamic_dim, -1: none): `sizes` is then
  // `run_sizes`, whose dim `dynamic_dim` execute() sets, up to `bound`; numel = per_row * that.
  int64_t dynamic_dim = -1;
  int64_t bound = 0;
  int64_t per_row = 0;
  int64_t* run_sizes = nullptr;

  bool quantized() const { return dtype != fb::TensorType::F32; }
  size_t element_size() const { return quantized() ? 1 : sizeof(float); }
  uint8_t* bytes() const { return reinterpret_cast<uint8_t*>(data); }
};

// A BatchMatMul operand read in place (blob version 6): matrix b of the batch starts at
// offset + b * batch_stride; element (r, c) is at r * ld + c, or c * ld + r when transposed.
struct MatrixView {
  int64_t offset = 0, batch_stride = 0, ld = 0;
  bool trans = false;
};

// The largest element index `v` reads for `batch` matrices of rows x cols, or -1 when it
// overflows int64_t (0 elements read: 0).
int64_t last_index(const MatrixView& v, int64_t batch, int64_t rows, int64_t cols) {
  if (batch == 0 || rows == 0 || cols == 0) return 0;
  const int64_t row_step = v.trans ? 1 : v.ld, col_step = v.trans ? v.ld : 1;
  int64_t last = v.offset, term = 0;
  for (auto [count, step] :
       {std::pair{batch, v.batch_stride}, std::pair{rows, row_step}, std::pair{cols, col_step}}) {
    if (__builtin_mul_overflow(count - 1, step, &term) ||
        __builtin_add_overflow(last, term, &last)) {
      return -1;
    }
  }
  return last;
}

// The subgraph's inputs (none when the blob leaves the vector out).
uint32_t num_inputs(const fb::Graph* graph) {
  return graph->inputs() != nullptr ? graph->inputs()->size() : 0;
}

// Per-node state prepared at init.
struct NodeState {
  const fb::Node* node = nullptr;
  const float* packed = nullptr;    // packed weights (Conv2d, Linear)
  opt::PackedMatrix packed_b;       // Linear
  opt::Conv2dShape conv;            // Conv2d
  opt::ConvTranspose2dShape tconv;  // ConvTranspose2d (packed: its weights)
  bool winograd = false;            // Conv2d: Winograd (packed: its weights)
  opt::WinogradVariant variant = opt::WinogradVariant::F2x2;  // Conv2d with winograd: which
  int64_t block = 0;    // Conv2d: the algorithm's blocking (0: default)
  int64_t workers = 1;  // Conv2d with winograd: the threads its passes are split among (scratch)
  opt::ConvLayouts layouts;  // Conv2d: input / output kept in channel blocks (plan_blocked_layouts)
  opt::DepthwisePath depthwise_path = opt::DepthwisePath::Auto;  // Conv2d, depthwise
  opt::ConvRows rows = opt::ConvRows::Auto;                      // Conv2d, not depthwise
  // Conv2d with dead taps (conv2d_without_dead_taps): `conv` is the reduced convolution,
  // `full` the node's, and its weights are packed from the live taps.
  bool sliced = false;
  opt::Conv2dShape full;
  opt::ConvTaps taps;
  int64_t m = 0, n = 0, k = 0;  // Linear, BatchMatMul
  int64_t batch = 0;            // BatchMatMul
  // BatchMatMul: operand i's matrix b at data + offset + b * batch_stride, leading dimension ld
  MatrixView operand[2];
  bool skip = false;                      // a Copy whose output aliases its input
  int64_t outer = 0, len = 0, inner = 0;  // Softmax
  const void* qpacked = nullptr;          // QConv2d / QLinear: packed int8 weights
  opt::QPackedA qpacked_a;                // QLinear
  opt::QEpilogue qe;                      // QConv2d / QLinear requantization
  int32_t qlo = 0, qhi = 0;               // output bounds (quantized range and activation)
};

struct Handle {
  const fb::Graph* graph = nullptr;
  TensorSlot* tensors = nullptr;
  size_t num_tensors = 0;
  FreeableBuffer* constants = nullptr;  // one per tensor (empty for non-constants)
  NodeState* nodes = nullptr;
  size_t num_nodes = 0;
  // Scratch of the largest node (packing, im2col): asked of the temp allocator per execute.
  size_t scratch_bytes = 0;
  void* scratch = nullptr;
  opt::GemmIsa isa = opt::GemmIsa::Generic;
  opt::QGemmIsa qisa = opt::QGemmIsa::Generic;
  bool dynamic = false;  // some tensor has a dynamic_dim
};

opt::Activation activation_of(fb::Activation a) {
  return static_cast<opt::Activation>(static_cast<uint8_t>(a));
}

// Element count of `sizes` (false on a negative size or overflow).
bool count(const flatbuffers::Vector<int64_t>* sizes, int64_t* numel) {
  int64_t n = 1;
  for (int64_t s : *sizes) {
    if (s < 0 || (s > 0 && n > std::numeric_limits<int64_t>::max() / 4 / s)) return false;
    n *= s;
  }
  *numel = n;
  return true;
}

#define CPU_CHECK(cond, error, ...) \
  do {                              \
    if (!(cond)) {                  \
      PTEC_LOG(Error, __VA_ARGS__); \
      return error;                 \
    }                               \
  } while (false)

// Input `i` of a node, kAbsent when not given.
uint32_t input(const fb::Node* n, uint32_t i) {
  return n->inputs() != nullptr && i < n->inputs()->size() ? n->inputs()->Get(i) : kAbsent;
}

// The stored bounds of a quantized output: its quantization range narrowed by the node's ReLU
// or clamp (real bounds mapped through the output's scale: rounding is monotonic, so clamping the
// quantized value equals quantizing the clamped real value).
void output_bounds(const fb::Node* n, const fb::QParam& q, int32_t* lo, int32_t* hi) {
  *lo = q.qmin();
  *hi = q.qmax();
  auto bound = [&](float r) {
    const double v = std::nearbyint(static_cast<double>(r) / q.scale()) + q.zero_point();
    return static_cast<int32_t>(std::clamp(v, -1e6, 1e6));
  };
  if (n->activation() == fb::Activation::Relu) {
    *lo = std::max(*lo, q.zero_point());
  } else if (n->activation() == fb::Activation::Clamp) {
    if (std::isfinite(n->clamp_min())) *lo = std::max(*lo, bound(n->clamp_min()));
    if (std::isfinite(n->clamp_max())) *hi = std::min(*hi, bound(n->clamp_max()));
    if (*hi < *lo) *hi = *lo;
  }
}

template <typename T>
T* allocate_array(MemoryAllocator& alloc, size_t n) {
  return static_cast<T*>(alloc.allocate(std::max<size_t>(n, 1) * sizeof(T), alignof(T)));
}

// Memory for `bytes` of packed weights, on transparent huge pages where whole ones fit inside
// (huge_pages.h): the GEMMs stream large weights from memory on every run.
void* allocate_packed(MemoryAllocator& alloc, size_t bytes) {
  void* p = alloc.allocate(bytes, kAlign);
  if (p != nullptr) advise_huge_pages(p, bytes);
  return p;
}

// The per-output-channel requantization of a QConv2d / QLinear with `channels` outputs.
Error prepare_requant(const fb::Node* n, int64_t channels, MemoryAllocator& alloc, NodeState& st) {
  const fb::QParam& qx = *n->qin()->Get(0);
  const fb::QParam& qy = *n->qout();
  const auto* ws = n->wscales();
  const auto* wz = n->wzero_points();
  const auto* bias = n->bias();
  const int64_t nw = ws != nullptr ? static_cast<int64_t>(ws->size()) : 0;
  CPU_CHECK((nw == 1 || nw == channels) && wz != nullptr &&
                static_cast<int64_t>(wz->size()) == nw &&
                (bias == nullptr || bias->size() == 0 ||
                 static_cast<int64_t>(bias->size()) == channels) &&
                qx.scale() > 0.0f && qy.scale() > 0.0f,
            Error::InvalidProgram, "PtecCpuBackend: quantized node '%s' has malformed parameters",
            n->name() != nullptr ? n->name()->c_str() : "?");
  auto* scale = allocate_array<float>(alloc, static_cast<size_t>(channels));
  auto* b = allocate_array<float>(alloc, static_cast<size_t>(channels));
  auto* zps = allocate_array<int32_t>(alloc, static_cast<size_t>(channels));
  CPU_CHECK(scale != nullptr && b != nullptr && zps != nullptr, Error::MemoryAllocationFailed,
            "PtecCpuBackend: out of memory");
  bool any_zp = false;
  for (int64_t c = 0; c < channels; ++c) {
    const auto i = static_cast<flatbuffers::uoffset_t>(nw == 1 ? 0 : c);
    scale[c] = qx.scale() * ws->Get(i) / qy.scale();
    zps[c] = wz->Get(i);
    any_zp |= zps[c] != 0;
    b[c] = bias != nullptr && bias->size() > 0
               ? bias->Get(static_cast<flatbuffers::uoffset_t>(c)) / qy.scale()
               : 0.0f;
  }
  opt::QEpilogue& e = st.qe;
  e.b_zero_point = qx.zero_point();
  e.a_zero_points = any_zp ? zps : nullptr;
  e.scale = scale;
  e.scale_per_row = true;
  e.bias = b;
  e.out_zero_point = qy.zero_point();
  output_bounds(n, qy, &e.out_min, &e.out_max);
  return Error::Ok;
}

Error prepare_quantized(Handle& h, NodeState& st, MemoryAllocator& alloc, size_t* scratch) {
  const fb::Node* n = st.node;
  const char* name = n->name() != nullptr ? n->name()->c_str() : "?";
  const TensorSlot& out = h.tensors[n->outputs()->Get(0)];
  const uint32_t num_inputs = n->inputs()->size();
  auto tensor = [&](uint32_t i) -> const TensorSlot* {
    const uint32_t id = input(n, i);
    return id == kAbsent ? nullptr : &h.tensors[id];
  };
  auto ints = [&](size_t want) { return n->ints() != nullptr && n->ints()->size() == want; };
  // Every input is given; quantized inputs have a QParam each, a quantized output one.
  size_t quantized_inputs = 0;
  for (uint32_t i = 0; i < num_inputs; ++i) {
    CPU_CHECK(tensor(i) != nullptr, Error::InvalidProgram,
              "PtecCpuBackend: quantized node '%s' misses input %u", name, i);
    if (tensor(i)->quantized() && !(n->kind() == fb::NodeKind::QConv2d && i == 1) &&
        !(n->kind() == fb::NodeKind::QLinear && i == 1)) {
      ++quantized_inputs;
    }
  }
  const bool q_out = n->kind() != fb::NodeKind::Dequantize;
  CPU_CHECK(
      num_inputs >= 1 && (n->qin() == nullptr ? 0 : n->qin()->size()) == quantized_inputs &&
          (!q_out || (out.quantized() && n->qout() != nullptr && n->qout()->scale() > 0.0f)) &&
          (q_out || !out.quantized()),
      Error::InvalidProgram,
      "PtecCpuBackend: quantized node '%s' has inputs or outputs of the wrong type", name);
  if (q_out) output_bounds(n, *n->qout(), &st.qlo, &st.qhi);
  const TensorSlot& x = *tensor(0);
  switch (n->kind()) {
    case fb::NodeKind::Quantize:
      CPU_CHECK(!x.quantized() && x.numel == out.numel && ints(1), Error::InvalidProgram,
                "PtecCpuBackend: malformed Quantize node '%s'", name);
      return Error::Ok;
    case fb::NodeKind::Dequantize:
    case fb::NodeKind::Requantize:
      CPU_CHECK(x.quantized() && x.numel == out.numel && num_inputs == 1, Error::InvalidProgram,
                "PtecCpuBackend: malformed (De/Re)quantize node '%s'", name);
      return Error::Ok;
    case fb::NodeKind::QConv2d: {
      const TensorSlot& w = *tensor(1);
      CPU_CHECK(num_inputs == 2 && x.quantized() && w.dtype == fb::TensorType::S8 && ints(7) &&
                    x.rank == 4 && w.rank == 4 && out.rank == 4 &&
                    h.constants[input(n, 1)].data() != nullptr,
                Error::InvalidProgram, "PtecCpuBackend: malformed QConv2d node '%s'", name);
      opt::Conv2dShape& s = st.conv;
      s.n = x.sizes[0];
      s.c = x.sizes[1];
      s.h = x.sizes[2];
      s.w = x.sizes[3];
      s.oc = w.sizes[0];
      s.kh = w.sizes[2];
      s.kw = w.sizes[3];
      s.sh = n->ints()->Get(0);
      s.sw = n->ints()->Get(1);
      s.ph = n->ints()->Get(2);
      s.pw = n->ints()->Get(3);
      s.dh = n->ints()->Get(4);
      s.dw = n->ints()->Get(5);
      s.groups = n->ints()->Get(6);
      CPU_CHECK(s.valid() && w.sizes[1] == s.c_per_group() && out.sizes[0] == s.n &&
                    out.sizes[1] == s.oc && out.sizes[2] == s.oh() && out.sizes[3] == s.ow(),
                Error::InvalidProgram, "PtecCpuBackend: QConv2d '%s' shapes do not match", name);
      CPU_CHECK(s.k() <= opt::kQGemmMaxK, Error::NotSupported,
                "PtecCpuBackend: QConv2d '%s' sums %lld products, more than the int8 GEMM's %lld",
                name, static_cast<long long>(s.k()), static_cast<long long>(opt::kQGemmMaxK));
      const Error e = prepare_requant(n, s.oc, alloc, st);
      if (e != Error::Ok) return e;
      const size_t bytes = opt::qconv2d_packed_weights_bytes(s);
      if (bytes > 0) {
        void* packed = allocate_packed(alloc, bytes);
        CPU_CHECK(packed != nullptr, Error::MemoryAllocationFailed,
                  "PtecCpuBackend: no memory for %zu bytes of packed weights", bytes);
        opt::qconv2d_pack_weights(s, reinterpret_cast<const int8_t*>(w.data), packed);
        st.qpacked = packed;
      }
      // A depthwise layer's channels go to the threads with scratch each: the thread setting at
      // init (a node's own lower setting where it has one).
      st.workers =
          n->threads() > 0 ? std::min<int64_t>(n->threads(), num_threads()) : num_threads();
      *scratch = std::max(*scratch, opt::qconv2d_scratch_bytes(s, st.workers));
      return Error::Ok;
    }
    case fb::NodeKind::QLinear: {
      const TensorSlot& w = *tensor(1);
      CPU_CHECK(num_inputs == 2 && x.quantized() && w.dtype == fb::TensorType::S8 && ints(1) &&
                    x.rank >= 1 && w.rank == 2 && out.rank >= 1 &&
                    h.constants[input(n, 1)].data() != nullptr,
                Error::InvalidProgram, "PtecCpuBackend: malformed QLinear node '%s'", name);
      // x is read as [M, K] rows: the lowering may take it from before a view ([N, K, 1, 1]
      // flattened), so K comes from the weight.
      const bool transposed = n->ints()->Get(0) != 0;
      st.k = transposed ? w.sizes[1] : w.sizes[0];
      st.n = transposed ? w.sizes[0] : w.sizes[1];
      st.m = st.k == 0 ? 0 : x.numel / st.k;
      CPU_CHECK(st.k <= opt::kQGemmMaxK, Error::NotSupported,
                "PtecCpuBackend: QLinear '%s' sums %lld products, more than the int8 GEMM's %lld",
                name, static_cast<long long>(st.k), static_cast<long long>(opt::kQGemmMaxK));
      CPU_CHECK(st.k > 0 && x.numel % st.k == 0 && out.sizes[out.rank - 1] == st.n &&
                    out.numel == st.m * st.n,
                Error::InvalidProgram, "PtecCpuBackend: QLinear '%s' shapes do not match", name);
      const Error e = prepare_requant(n, st.n, alloc, st);
      if (e != Error::Ok) return e;
      const size_t bytes = opt::qpacked_a_bytes(st.n, st.k);
      void* packed = allocate_packed(alloc, bytes);
      CPU_CHECK(packed != nullptr, Error::MemoryAllocationFailed,
                "PtecCpuBackend: no memory for %zu bytes of packed weights", bytes);
      st.qpacked_a = opt::qpack_a(st.n, st.k, reinterpret_cast<const int8_t*>(w.data),
                                  transposed ? st.k : st.n, packed, !transposed);
      *scratch = std::max(*scratch, opt::qgemm_scratch_bytes(st.m, st.k));
      return Error::Ok;
    }
    case fb::NodeKind::QMaxPool2d: {
      CPU_CHECK(num_inputs == 1 && x.quantized() && x.dtype == out.dtype && ints(8) &&
                    x.rank == 4 && out.rank == 4 && out.sizes[0] == x.sizes[0] &&
                    out.sizes[1] == x.sizes[1],
                Error::InvalidProgram, "PtecCpuBackend: malformed QMaxPool2d node '%s'", name);
      for (size_t i = 0; i < 8; ++i) {
        CPU_CHECK(
            n->ints()->Get(static_cast<flatbuffers::uoffset_t>(i)) >= (i >= 4 && i < 6 ? 0 : 1),
            Error::InvalidProgram, "PtecCpuBackend: QMaxPool2d parameter %zu", i);
      }
      return Error::Ok;
    }
    case fb::NodeKind::QAdd:
      CPU_CHECK(num_inputs == 2 && x.quantized() && tensor(1)->quantized() &&
                    x.numel == out.numel && tensor(1)->numel == out.numel,
                Error::InvalidProgram, "PtecCpuBackend: malformed QAdd node '%s'", name);
      return Error::Ok;
    case fb::NodeKind::QGlobalAvgPool:
      CPU_CHECK(
          num_inputs == 1 && x.quantized() && x.rank == 4 && out.numel == x.sizes[0] * x.sizes[1],
          Error::InvalidProgram, "PtecCpuBackend: malformed QGlobalAvgPool node '%s'", name);
      return Error::Ok;
    case fb::NodeKind::QCat: {
      CPU_CHECK(ints(1) && n->ints()->Get(0) >= 0 && n->ints()->Get(0) < out.rank,
                Error::InvalidProgram, "PtecCpuBackend: malformed QCat node '%s'", name);
      const int64_t dim = n->ints()->Get(0);
      int64_t total = 0;
      for (uint32_t i = 0; i < num_inputs; ++i) {
        const TensorSlot* t = tensor(i);
        CPU_CHECK(t->quantized() && t->rank == out.rank, Error::InvalidProgram,
                  "PtecCpuBackend: QCat input rank");
        for (int64_t d = 0; d < out.rank; ++d) {
          CPU_CHECK(d == dim || t->sizes[d] == out.sizes[d], Error::InvalidProgram,
                    "PtecCpuBackend: QCat input sizes");
        }
        total += t->sizes[dim];
      }
      CPU_CHECK(total == out.sizes[dim], Error::InvalidProgram, "PtecCpuBackend: QCat sizes");
      return Error::Ok;
    }
    default: break;
  }
  return Error::InvalidProgram;
}

Error prepare_node(Handle& h, NodeState& st, MemoryAllocator& alloc, size_t* scratch) {
  const fb::Node* n = st.node;
  const uint32_t num = static_cast<uint32_t>(h.num_tensors);
  CPU_CHECK(n->inputs() != nullptr && n->outputs() != nullptr && n->outputs()->size() == 1,
            Error::InvalidProgram, "PtecCpuBackend: node '%s' needs inputs and one output",
            n->name() != nullptr ? n->name()->c_str() : "?");
  for (uint32_t id : *n->inputs()) {
    CPU_CHECK(id == kAbsent || id < num, Error::InvalidProgram,
              "PtecCpuBackend: node reads tensor %u of %u", id, num);
  }
  CPU_CHECK(n->outputs()->Get(0) < num, Error::InvalidProgram,
            "PtecCpuBackend: node writes tensor %u of %u", n->outputs()->Get(0), num);
  const TensorSlot& out = h.tensors[n->outputs()->Get(0)];
  auto ints = [&](size_t want) { return n->ints() != nullptr && n->ints()->size() == want; };
  auto tensor = [&](uint32_t i) -> const TensorSlot* {
    const uint32_t id = input(n, i);
    return id == kAbsent ? nullptr : &h.tensors[id];
  };
  switch (n->kind()) {
    case fb::NodeKind::Conv2d: {
      const TensorSlot* x = tensor(0);
      const TensorSlot* w = tensor(1);
      CPU_CHECK(x != nullptr && w != nullptr && ints(7) && x->rank == 4 && w->rank == 4 &&
                    out.rank == 4 && h.constants[input(n, 1)].data() != nullptr,
                Error::InvalidProgram, "PtecCpuBackend: malformed Conv2d node");
      opt::Conv2dShape& s = st.conv;
      s.n = x->sizes[0];
      s.c = x->sizes[1];
      s.h = x->sizes[2];
      s.w = x->sizes[3];
      s.oc = w->sizes[0];
      s.kh = w->sizes[2];
      s.kw = w->sizes[3];
      s.sh = n->ints()->Get(0);
      s.sw = n->ints()->Get(1);
      s.ph = n->ints()->Get(2);
      s.pw = n->ints()->Get(3);
      s.dh = n->ints()->Get(4);
      s.dw = n->ints()->Get(5);
      s.groups = n->ints()->Get(6);
      CPU_CHECK(s.valid() && w->sizes[1] == s.c_per_group() && out.sizes[0] == s.n &&
                    out.sizes[1] == s.oc && out.sizes[2] == s.oh() && out.sizes[3] == s.ow(),
                Error::InvalidProgram, "PtecCpuBackend: Conv2d shapes do not match");
      const TensorSlot* bias = tensor(2);
      const TensorSlot* residual = tensor(3);
      const TensorSlot* scale = tensor(4);
      CPU_CHECK((bias == nullptr || bias->numel == s.oc) &&
                    (residual == nullptr || residual->numel == out.numel),
                Error::InvalidProgram, "PtecCpuBackend: Conv2d bias or residual size");
      CPU_CHECK(scale == nullptr || (scale->numel == s.n * s.c && !s.depthwise() &&
                                     scale->dtype == fb::TensorType::F32),
                Error::InvalidProgram,
                "PtecCpuBackend: Conv2d input scale must hold N x C floats (and the convolution "
                "must not be depthwise)");
      const fb::ConvAlgorithm algorithm = n->algorithm();
      const char* name = n->name() != nullptr ? n->name()->c_str() : "";
      CPU_CHECK(algorithm <= fb::ConvAlgorithm::MAX && n->block() >= 0, Error::InvalidProgram,
                "PtecCpuBackend: Conv2d '%s' has an unknown algorithm", name);
      // Taps that read only padding are left out (an algorithm an engine chose is for the
      // node's own shape: kept as it is).
      if (algorithm == fb::ConvAlgorithm::Auto) {
        opt::Conv2dShape reduced;
        if (opt::conv2d_without_dead_taps(s, &reduced, &st.taps)) {
          st.full = s;
          st.sliced = true;
          s = reduced;
        }
      }
      const bool winograd_choice =
          algorithm == fb::ConvAlgorithm::Winograd || algorithm == fb::ConvAlgorithm::Winograd4x4;
      CPU_CHECK(!winograd_choice || opt::winograd_applies(s), Error::InvalidProgram,
                "PtecCpuBackend: Conv2d '%s' asks for Winograd, which computes 3x3 stride-1 "
                "undilated ungrouped convolutions only",
                name);
      CPU_CHECK(algorithm != fb::ConvAlgorithm::GemmPixels || opt::conv2d_pixels_applies(s),
                Error::InvalidProgram,
                "PtecCpuBackend: Conv2d '%s' asks for output pixels as the GEMM's rows, which "
                "computes convolutions of one group (not depthwise) only",
                name);
      st.rows = algorithm == fb::ConvAlgorithm::Gemm         ? opt::ConvRows::Channels
                : algorithm == fb::ConvAlgorithm::GemmPixels ? opt::ConvRows::Pixels
                                                             : opt::ConvRows::Auto;
      const bool depthwise_choice = algorithm == fb::ConvAlgorithm::DepthwiseRows ||
                                    algorithm == fb::ConvAlgorithm::DepthwiseFlat ||
                                    algorithm == fb::ConvAlgorithm::DepthwiseChannels;
      CPU_CHECK(!depthwise_choice || s.depthwise(), Error::InvalidProgram,
                "PtecCpuBackend: Conv2d '%s' asks for a depthwise path but is not depthwise", name);
      CPU_CHECK(algorithm != fb::ConvAlgorithm::DepthwiseFlat || opt::depthwise_flat_applies(s),
                Error::InvalidProgram,
                "PtecCpuBackend: Conv2d '%s' asks for the flat depthwise path, which computes "
                "stride-1 and stride-2 3x3 and 5x5 planes of at most 16 KiB padded only",
                name);
      CPU_CHECK(
          algorithm != fb::ConvAlgorithm::DepthwiseChannels || opt::depthwise_channels_applies(s),
          Error::InvalidProgram,
          "PtecCpuBackend: Conv2d '%s' asks for the channel-interleaved depthwise path, "
          "which computes kernels of at most 64 taps whose padded input rows for one "
          "output row fit 32 KiB for 16 channels only",
          name);
      st.depthwise_path = algorithm == fb::ConvAlgorithm::DepthwiseRows   ? opt::DepthwisePath::Rows
                          : algorithm == fb::ConvAlgorithm::DepthwiseFlat ? opt::DepthwisePath::Flat
                          : algorithm == fb::ConvAlgorithm::DepthwiseChannels
                              ? opt::DepthwisePath::Channels
                              : opt::DepthwisePath::Auto;
      st.winograd = winograd_choice || (algorithm == fb::ConvAlgorithm::Auto &&
                                        opt::winograd_preferred(s, &st.variant));
      if (winograd_choice) {
        st.variant = algorithm == fb::ConvAlgorithm::Winograd4x4 ? opt::WinogradVariant::F4x4
                                                                 : opt::WinogradVariant::F2x2;
      }
      st.block = n->block();
      // Winograd's scratch holds a pass per worker, and a grouped convolution's whose groups go
      // to the threads whole a group per worker: the thread setting at init (a node's own lower
      // setting where it has one); more threads at run time leave the extra ones idle.
      st.workers =
          n->threads() > 0 ? std::min<int64_t>(n->threads(), num_threads()) : num_threads();
      // The weights are packed by pack_conv_weights, once plan_blocked_layouts has settled
      // `rows`.
      return Error::Ok;
    }
    case fb::NodeKind::ConvTranspose2d: {
      const TensorSlot* x = tensor(0);
      const TensorSlot* w = tensor(1);
      CPU_CHECK(x != nullptr && w != nullptr && ints(9) && x->rank == 4 && w->rank == 4 &&
                    out.rank == 4 && h.constants[input(n, 1)].data() != nullptr,
                Error::InvalidProgram, "PtecCpuBackend: malformed ConvTranspose2d node");
      opt::ConvTranspose2dShape& s = st.tconv;
      const auto* a = n->ints();
      s.n = x->sizes[0];
      s.c = x->sizes[1];
      s.h = x->sizes[2];
      s.w = x->sizes[3];
      s.kh = w->sizes[2];
      s.kw = w->sizes[3];
      s.sh = a->Get(0);
      s.sw = a->Get(1);
      s.ph = a->Get(2);
      s.pw = a->Get(3);
      s.dh = a->Get(4);
      s.dw = a->Get(5);
      s.oph = a->Get(6);
      s.opw = a->Get(7);
      s.groups = a->Get(8);
      s.oc = w->sizes[1] * s.groups;
      CPU_CHECK(s.valid() && w->sizes[0] == s.c && out.sizes[0] == s.n && out.sizes[1] == s.oc &&
                    out.sizes[2] == s.oh() && out.sizes[3] == s.ow(),
                Error::InvalidProgram, "PtecCpuBackend: ConvTranspose2d shapes do not match");
      const TensorSlot* bias = tensor(2);
      CPU_CHECK(bias == nullptr || bias->numel == s.oc, Error::InvalidProgram,
                "PtecCpuBackend: ConvTranspose2d bias size");
      const size_t bytes = opt::conv_transpose2d_packed_weights_bytes(s);
      auto* packed = static_cast<float*>(allocate_packed(alloc, bytes));
      CPU_CHECK(packed != nullptr, Error::MemoryAllocationFailed,
                "PtecCpuBackend: no memory for %zu bytes of packed weights", bytes);
      opt::conv_transpose2d_pack_weights(s, w->data, packed);
      st.packed = packed;
      *scratch = std::max(*scratch, opt::conv_transpose2d_scratch_bytes(s, true));
      return Error::Ok;
    }
    case fb::NodeKind::Linear: {
      const TensorSlot* x = tensor(0);
      const TensorSlot* w = tensor(1);
      CPU_CHECK(x != nullptr && w != nullptr && ints(1) && x->rank >= 1 && w->rank == 2 &&
                    out.rank >= 1 && h.constants[input(n, 1)].data() != nullptr,
                Error::InvalidProgram, "PtecCpuBackend: malformed Linear node");
      const bool transposed = n->ints()->Get(0) != 0;
      st.k = x->sizes[x->rank - 1];
      st.n = transposed ? w->sizes[0] : w->sizes[1];
      const int64_t wk = transposed ? w->sizes[1] : w->sizes[0];
      st.m = st.k == 0 ? 0 : x->numel / st.k;
      CPU_CHECK(wk == st.k && out.sizes[out.rank - 1] == st.n && out.numel == st.m * st.n,
                Error::InvalidProgram, "PtecCpuBackend: Linear shapes do not match");
      const TensorSlot* bias = tensor(2);
      const TensorSlot* residual = tensor(3);
      CPU_CHECK((bias == nullptr || bias->numel == st.n) &&
                    (residual == nullptr || residual->numel == out.numel),
                Error::InvalidProgram, "PtecCpuBackend: Linear bias or residual size");
      // Linear nodes of one weight (a recurrent cell's R at every time step) share its packing.
      const NodeState* same = nullptr;
      for (const NodeState* o = h.nodes; o != &st && same == nullptr; ++o) {
        if (o->node->kind() == fb::NodeKind::Linear && input(o->node, 1) == input(n, 1) &&
            o->node->ints()->Get(0) == n->ints()->Get(0)) {
          same = o;
        }
      }
      if (same != nullptr) {
        st.packed_b = same->packed_b;
      } else {
        const size_t bytes = opt::packed_weights_bytes(st.k, st.n);
        auto* packed = static_cast<float*>(allocate_packed(alloc, bytes));
        CPU_CHECK(packed != nullptr, Error::MemoryAllocationFailed,
                  "PtecCpuBackend: no memory for %zu bytes of packed weights", bytes);
        st.packed_b =
            opt::pack_weights(st.k, st.n, w->data, transposed ? st.k : st.n, transposed, packed);
      }
      *scratch = std::max(*scratch, opt::gemm_scratch_bytes(st.m, st.n, st.k, false, true));
      return Error::Ok;
    }
    case fb::NodeKind::MaxPool2d: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && ints(8) && x->rank == 4 && out.rank == 4 &&
                    out.sizes[0] == x->sizes[0] && out.sizes[1] == x->sizes[1],
                Error::InvalidProgram, "PtecCpuBackend: malformed MaxPool2d node");
      for (size_t i = 0; i < 8; ++i) {
        CPU_CHECK(
            n->ints()->Get(static_cast<flatbuffers::uoffset_t>(i)) >= (i >= 4 && i < 6 ? 0 : 1),
            Error::InvalidProgram, "PtecCpuBackend: MaxPool2d parameter %zu", i);
      }
      return Error::Ok;
    }
    case fb::NodeKind::AvgPool2d: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && ints(8) && x->rank == 4 && out.rank == 4 &&
                    out.sizes[0] == x->sizes[0] && out.sizes[1] == x->sizes[1],
                Error::InvalidProgram, "PtecCpuBackend: malformed AvgPool2d node");
      const auto* p = n->ints();
      CPU_CHECK(p->Get(0) >= 1 && p->Get(1) >= 1 && p->Get(2) >= 1 && p->Get(3) >= 1 &&
                    p->Get(4) >= 0 && p->Get(5) >= 0 && (p->Get(6) == 0 || p->Get(6) == 1),
                Error::InvalidProgram,
                "PtecCpuBackend: AvgPool2d kernel, stride, padding or count_include_pad out of "
                "range");
      return Error::Ok;
    }
    case fb::NodeKind::BatchNorm: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && x->rank >= 2 && x->rank == out.rank && x->numel == out.numel &&
                    n->inputs()->size() == 5,
                Error::InvalidProgram, "PtecCpuBackend: malformed BatchNorm node");
      for (uint32_t i = 1; i < 5; ++i) {
        const TensorSlot* p = tensor(i);
        CPU_CHECK((p == nullptr && i < 3) || (p != nullptr && p->numel == x->sizes[1]),
                  Error::InvalidProgram,
                  "PtecCpuBackend: BatchNorm parameter %u must hold one value per channel", i);
      }
      return Error::Ok;
    }
    case fb::NodeKind::GroupNorm: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && x->rank >= 2 && x->rank == out.rank && x->numel == out.numel &&
                    n->inputs()->size() == 3 && n->ints() != nullptr && n->ints()->size() == 1,
                Error::InvalidProgram, "PtecCpuBackend: malformed GroupNorm node");
      const int64_t groups = n->ints()->Get(0);
      CPU_CHECK(groups > 0 && x->sizes[1] % groups == 0, Error::InvalidProgram,
                "PtecCpuBackend: GroupNorm groups %lld do not divide %lld channels",
                static_cast<long long>(groups), static_cast<long long>(x->sizes[1]));
      for (uint32_t i = 1; i < 3; ++i) {
        const TensorSlot* p = tensor(i);
        CPU_CHECK(p == nullptr || p->numel == x->sizes[1], Error::InvalidProgram,
                  "PtecCpuBackend: GroupNorm parameter %u must hold one value per channel", i);
      }
      return Error::Ok;
    }
    case fb::NodeKind::GlobalAvgPool: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && x->rank == 4 && out.numel == x->sizes[0] * x->sizes[1],
                Error::InvalidProgram, "PtecCpuBackend: malformed GlobalAvgPool node");
      return Error::Ok;
    }
    case fb::NodeKind::Unary:
    case fb::NodeKind::Copy: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && x->numel == out.numel, Error::InvalidProgram,
                "PtecCpuBackend: unary/copy node sizes differ");
      return Error::Ok;
    }
    case fb::NodeKind::Binary: {
      const TensorSlot* a = tensor(0);
      const TensorSlot* b = tensor(1);
      CPU_CHECK(a != nullptr && b != nullptr && out.rank <= kMaxRank && a->rank <= out.rank &&
                    b->rank <= out.rank,
                Error::InvalidProgram, "PtecCpuBackend: malformed Binary node");
      for (const TensorSlot* t : {a, b}) {
        for (int64_t d = 0; d < t->rank; ++d) {
          const int64_t od = out.sizes[out.rank - t->rank + d];
          CPU_CHECK(t->sizes[d] == od || t->sizes[d] == 1, Error::InvalidProgram,
                    "PtecCpuBackend: Binary operand does not broadcast to the output");
        }
      }
      return Error::Ok;
    }
    case fb::NodeKind::Cat: {
      CPU_CHECK(ints(1) && n->ints()->Get(0) >= 0 && n->ints()->Get(0) < out.rank,
                Error::InvalidProgram, "PtecCpuBackend: malformed Cat node");
      const int64_t dim = n->ints()->Get(0);
      int64_t total = 0;
      for (uint32_t i = 0; i < n->inputs()->size(); ++i) {
        const TensorSlot* t = tensor(i);
        CPU_CHECK(t != nullptr && t->rank == out.rank, Error::InvalidProgram,
                  "PtecCpuBackend: Cat input rank");
        for (int64_t d = 0; d < out.rank; ++d) {
          CPU_CHECK(d == dim || t->sizes[d] == out.sizes[d], Error::InvalidProgram,
                    "PtecCpuBackend: Cat input sizes");
        }
        total += t->sizes[dim];
      }
      CPU_CHECK(total == out.sizes[dim], Error::InvalidProgram, "PtecCpuBackend: Cat sizes");
      return Error::Ok;
    }
    case fb::NodeKind::BatchMatMul: {
      const TensorSlot* a = tensor(0);
      const TensorSlot* b = tensor(1);
      // (Operands read in place may be of any rank, a vector viewed as a matrix included: their
      // layout is in the node, and every element read is checked to lie inside them below.)
      CPU_CHECK(a != nullptr && b != nullptr && out.rank >= 2, Error::InvalidProgram,
                "PtecCpuBackend: malformed BatchMatMul node");
      const char* name = n->name() != nullptr ? n->name()->c_str() : "?";
      const size_t num_ints = n->ints() != nullptr ? n->ints()->size() : 0;
      st.m = out.sizes[out.rank - 2];
      st.n = out.sizes[out.rank - 1];
      st.batch = 1;
      for (int64_t d = 0; d + 2 < out.rank; ++d) st.batch *= out.sizes[d];
      if (num_ints == 10) {
        // [0, K, then per operand: offset, batch stride, leading dimension, transposed]: the
        // operands are read in place from the tensors of permutes and slices (version 6).
        CPU_CHECK(h.graph->version() >= 6, Error::InvalidProgram,
                  "PtecCpuBackend: BatchMatMul '%s' reads its operands in place, which needs blob "
                  "version 6",
                  name);
        st.k = n->ints()->Get(1);
        for (int i = 0; i < 2; ++i) {
          MatrixView& v = st.operand[i];
          const flatbuffers::uoffset_t at = 2 + 4 * static_cast<flatbuffers::uoffset_t>(i);
          v.offset = n->ints()->Get(at);
          v.batch_stride = n->ints()->Get(at + 1);
          v.ld = n->ints()->Get(at + 2);
          v.trans = n->ints()->Get(at + 3) != 0;
          CPU_CHECK(v.offset >= 0 && v.batch_stride >= 0 && v.ld >= 0 &&
                        n->ints()->Get(at + 3) >= 0 && n->ints()->Get(at + 3) <= 1,
                    Error::InvalidProgram,
                    "PtecCpuBackend: BatchMatMul '%s' has a malformed operand layout", name);
        }
      } else {
        // Versions 2 to 5: [b transposed?], both operands contiguous.
        CPU_CHECK(num_ints <= 1 && a->rank >= 2 && b->rank >= 2, Error::InvalidProgram,
                  "PtecCpuBackend: malformed BatchMatMul node");
        const bool trans_b = num_ints == 1 && n->ints()->Get(0) != 0;
        st.k = a->sizes[a->rank - 1];
        CPU_CHECK(a->sizes[a->rank - 2] == st.m && b->sizes[b->rank - (trans_b ? 2 : 1)] == st.n &&
                      b->sizes[b->rank - (trans_b ? 1 : 2)] == st.k &&
                      a->numel == st.batch * st.m * st.k && b->numel == st.batch * st.k * st.n,
                  Error::InvalidProgram, "PtecCpuBackend: BatchMatMul shapes do not match");
        st.operand[0] = MatrixView{0, st.m * st.k, st.k, false};
        st.operand[1] = MatrixView{0, st.k * st.n, trans_b ? st.k : st.n, trans_b};
      }
      // Every element either operand reads lies inside its tensor.
      const int64_t last_a = last_index(st.operand[0], st.batch, st.m, st.k);
      const int64_t last_b = last_index(st.operand[1], st.batch, st.k, st.n);
      CPU_CHECK(st.k >= 0 && last_a >= 0 && last_a < std::max<int64_t>(a->numel, 1) &&
                    last_b >= 0 && last_b < std::max<int64_t>(b->numel, 1) &&
                    (st.batch * st.m * st.k == 0 || a->numel > 0) &&
                    (st.batch * st.k * st.n == 0 || b->numel > 0),
                Error::InvalidProgram,
                "PtecCpuBackend: BatchMatMul '%s' reads past its operands (shapes or layouts do "
                "not match)",
                name);
      *scratch = std::max(*scratch, opt::gemm_scratch_bytes(st.m, st.n, st.k, false, false));
      return Error::Ok;
    }
    case fb::NodeKind::Softmax: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && ints(1) && x->numel == out.numel && x->rank == out.rank &&
                    n->ints()->Get(0) >= 0 && n->ints()->Get(0) < std::max<int64_t>(out.rank, 1),
                Error::InvalidProgram, "PtecCpuBackend: malformed Softmax node");
      const int64_t dim = n->ints()->Get(0);
      CPU_CHECK(n->scalar() == 0.0f || n->scalar() == 1.0f || dim == out.rank - 1,
                Error::InvalidProgram,
                "PtecCpuBackend: a scaled Softmax must be over the last dim");
      st.outer = 1;
      st.len = out.rank == 0 ? 1 : out.sizes[dim];
      st.inner = 1;
      for (int64_t d = 0; d < dim; ++d) st.outer *= out.sizes[d];
      for (int64_t d = dim + 1; d < out.rank; ++d) st.inner *= out.sizes[d];
      return Error::Ok;
    }
    case fb::NodeKind::LayerNorm: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && x->rank >= 1 && x->numel == out.numel && x->sizes[x->rank - 1] > 0,
                Error::InvalidProgram, "PtecCpuBackend: malformed LayerNorm node");
      const int64_t c = x->sizes[x->rank - 1];
      for (uint32_t i : {1u, 2u}) {
        CPU_CHECK(tensor(i) == nullptr || tensor(i)->numel == c, Error::InvalidProgram,
                  "PtecCpuBackend: LayerNorm weight or bias size");
      }
      return Error::Ok;
    }
    case fb::NodeKind::StridedCopy: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && n->ints() != nullptr &&
                    static_cast<int64_t>(n->ints()->size()) == out.rank + 1,
                Error::InvalidProgram, "PtecCpuBackend: malformed StridedCopy node");
      // Every element read lies inside x.
      int64_t last = n->ints()->Get(0);
      bool ok = last >= 0;
      for (int64_t d = 0; d < out.rank && ok; ++d) {
        const int64_t stride = n->ints()->Get(static_cast<flatbuffers::uoffset_t>(d + 1));
        ok = stride >= 0 && (out.sizes[d] == 0 || stride <= x->numel);
        if (ok && out.sizes[d] > 0) last += (out.sizes[d] - 1) * stride;
      }
      CPU_CHECK(ok && (out.numel == 0 || last < x->numel), Error::InvalidProgram,
                "PtecCpuBackend: StridedCopy reads outside its input");
      return Error::Ok;
    }
    case fb::NodeKind::ScalarBinary:
    case fb::NodeKind::Math: {
      const TensorSlot* x = tensor(0);
      CPU_CHECK(x != nullptr && x->numel == out.numel, Error::InvalidProgram,
                "PtecCpuBackend: element-wise node sizes differ");
      return Error::Ok;
    }
    case fb::NodeKind::MeanInner: {
      // ints (version 10): [inner, sum] — the reduced elements are `inner` apart, and summed
      // instead of averaged; none: the last dim's mean.
      const TensorSlot* x = tensor(0);
      const size_t num_ints = n->ints() != nullptr ? n->ints()->size() : 0;
      CPU_CHECK(x != nullptr && (out.numel == 0 ? x->numel == 0 : x->numel % out.numel == 0) &&
                    (num_ints == 0 || (num_ints == 2 && n->ints()->Get(0) >= 1 &&
                                       out.numel % n->ints()->Get(0) == 0 &&
                                       n->ints()->Get(1) >= 0 && n->ints()->Get(1) <= 1)),
                Error::InvalidProgram, "PtecCpuBackend: malformed MeanInner node");
      return Error::Ok;
    }
    case fb::NodeKind::Quantize:
    case fb::NodeKind::Dequantize:
    case fb::NodeKind::Requantize:
    case fb::NodeKind::QConv2d:
    case fb::NodeKind::QLinear:
    case fb::NodeKind::QMaxPool2d:
    case fb::NodeKind::QAdd:
    case fb::NodeKind::QGlobalAvgPool:
    case fb::NodeKind::QCat: return prepare_quantized(h, st, alloc, scratch);
  }
  PTEC_LOG(Error, "PtecCpuBackend: unknown node kind %d", static_cast<int>(n->kind()));
  return Error::InvalidProgram;
}

// A graph with dynamic rows (Tensor.dynamic_dim) reads and writes them only in nodes that keep
// the rows apart, so that the bounds' shape checks (prepare_node) hold at every row count: row by
// row (Linear, element-wise, LayerNorm, MeanInner, Copy), images whose batch is the count
// (Conv2d, pooling, BatchNorm, GroupNorm: rows in dim 0), Cat and Softmax along another dim. Each
// node's output and computed inputs have the rows (a Binary may also broadcast a static operand,
// of size 1 there, along them), in the same dim (counted from the last for element-wise nodes;
// any for the row-by-row ones, which only count elements), and a graph input gives the count.
Error check_rows(const Handle& h) {
  auto dynamic = [&](uint32_t id) { return id < h.num_tensors && h.tensors[id].dynamic_dim >= 0; };
  bool input_rows = false;
  for (uint32_t i = 0; i < num_inputs(h.graph); ++i) {
    input_rows |= dynamic(h.graph->inputs()->Get(i));
  }
  CPU_CHECK(input_rows, Error::InvalidProgram,
            "PtecCpuBackend: a graph with dynamic rows has no input that gives their count");
  for (const fb::Node* n : *h.graph->nodes()) {
    bool any = false;
    for (const auto* ids : {n->inputs(), n->outputs()}) {
      if (ids == nullptr) continue;
      for (uint32_t id : *ids) any |= dynamic(id);
    }
    if (!any) continue;
    const char* name = n->name() != nullptr ? n->name()->c_str() : "?";
    const fb::NodeKind kind = n->kind();
    const bool row_by_row = kind == fb::NodeKind::Linear || kind == fb::NodeKind::Copy ||
                            kind == fb::NodeKind::MeanInner || kind == fb::NodeKind::LayerNorm;
    const bool elementwise = kind == fb::NodeKind::Unary || kind == fb::NodeKind::Binary ||
                             kind == fb::NodeKind::ScalarBinary || kind == fb::NodeKind::Math;
    const bool image = kind == fb::NodeKind::Conv2d || kind == fb::NodeKind::MaxPool2d ||
                       kind == fb::NodeKind::AvgPool2d || kind == fb::NodeKind::GlobalAvgPool ||
                       kind == fb::NodeKind::BatchNorm || kind == fb::NodeKind::GroupNorm;
    const bool along = kind == fb::NodeKind::Cat || kind == fb::NodeKind::Softmax;
    CPU_CHECK(row_by_row || elementwise || image || along, Error::InvalidProgram,
              "PtecCpuBackend: node '%s' (kind %d) cannot run on dynamic rows", name,
              static_cast<int>(kind));
    CPU_CHECK(n->outputs() != nullptr && n->outputs()->size() == 1 && dynamic(n->outputs()->Get(0)),
              Error::InvalidProgram,
              "PtecCpuBackend: node '%s' reads dynamic rows into a static output", name);
    const TensorSlot& out = h.tensors[n->outputs()->Get(0)];
    const int64_t dd = out.dynamic_dim;
    CPU_CHECK(!image || dd == 0, Error::InvalidProgram,
              "PtecCpuBackend: node '%s' runs on images whose batch is not the dynamic dim", name);
    // Cat and Softmax: their dim lies after the rows (Cat: any other dim).
    const int64_t dim =
        along && n->ints() != nullptr && n->ints()->size() >= 1 ? n->ints()->Get(0) : -1;
    CPU_CHECK(!along || (kind == fb::NodeKind::Cat ? dim >= 0 && dim != dd : dim > dd),
              Error::InvalidProgram, "PtecCpuBackend: node '%s' works along its dynamic dim %lld",
              name, static_cast<long long>(dd));
    for (uint32_t i = 0; n->inputs() != nullptr && i < n->inputs()->size(); ++i) {
      const uint32_t id = n->inputs()->Get(i);
      if (id >= h.num_tensors || h.constants[id].data() != nullptr) continue;
      const TensorSlot& t = h.tensors[id];
      // The dim of t that lines up with the output's rows (element-wise nodes broadcast from
      // the last dim).
      const int64_t at = elementwise ? dd - (out.rank - t.rank) : dd;
      if (t.dynamic_dim >= 0) {
        CPU_CHECK(row_by_row || t.dynamic_dim == at, Error::InvalidProgram,
                  "PtecCpuBackend: node '%s' has operands with rows in other dims", name);
        continue;
      }
      CPU_CHECK(kind == fb::NodeKind::Binary && (at < 0 || t.sizes[at] == 1), Error::InvalidProgram,
                "PtecCpuBackend: node '%s' mixes dynamic rows with a static operand", name);
    }
  }
  return Error::Ok;
}

// softmax(scale * x) along the node's dim; `scale` 0 (blobs before it existed) or 1: none. A
// scale is only given for the last dim: each row is scaled into the output (in cache) and
// normalized there.
void softmax(const NodeState& st, const float* x, float scale, float* out, int64_t numel) {
  const int64_t len = st.len, inner = st.inner;
  // Rows of this run: the dims before the softmax's, dynamic ones included (at most st.outer).
  const int64_t outer = len * inner > 0 ? numel / (len * inner) : st.outer;
  const bool scaled = scale != 0.0f && scale != 1.0f;
  opt::for_rows(outer, outer * len * inner, [&](int64_t o) {
    if (inner == 1) {  // contiguous rows (the last dimension): vectorized
      const float* row = x + o * len;
      if (scaled) {
        float* y = out + o * len;
        for (int64_t j = 0; j < len; ++j) y[j] = row[j] * scale;
        row = y;
      }
      opt::softmax_row(row, out + o * len, len);
      return;
    }
    for (int64_t i = 0; i < inner; ++i) {
      const float* in = x + o * len * inner + i;
      float* y = out + o * len * inner + i;
      float mx = -std::numeric_limits<float>::infinity();
      for (int64_t j = 0; j < len; ++j) mx = std::max(mx, in[j * inner]);
      float sum = 0.0f;
      for (int64_t j = 0; j < len; ++j) {
        const float e = std::exp(in[j * inner] - mx);
        y[j * inner] = e;
        sum += e;
      }
      const float normalize = 1.0f / sum;
      for (int64_t j = 0; j < len; ++j) y[j * inner] *= normalize;
    }
  });
}

void layer_norm(const TensorSlot& x, const float* weight, const float* bias, float eps,
                const TensorSlot& out) {
  const int64_t c = x.sizes[x.rank - 1];
  opt::for_rows(x.numel / c, x.numel, [&](int64_t row) {
    opt::layer_norm_row(x.data + row * c, out.data + row * c, c, weight, bias, eps);
  });
}

void strided_copy(const TensorSlot& x, const TensorSlot& out,
                  const flatbuffers::Vector<int64_t>& p) {
  if (out.numel == 0) return;
  const int64_t rank = out.rank;
  const float* base = x.data + p.Get(0);
  if (rank == 0) {
    out.data[0] = base[0];
    return;
  }
  int64_t stride[kMaxRank] = {};
  for (int64_t d = 0; d < rank; ++d) stride[d] = p.Get(static_cast<flatbuffers::uoffset_t>(d + 1));
  const int64_t inner = out.sizes[rank - 1], is = stride[rank - 1];
  int64_t index[kMaxRank] = {};
  int64_t offset = 0;
  for (int64_t o = 0; o < out.numel; o += inner) {
    float* y = out.data + o;
    const float* in = base + offset;
    if (is == 1) {
      std::memcpy(y, in, static_cast<size_t>(inner) * sizeof(float));
    } else {
      for (int64_t j = 0; j < inner; ++j) y[j] = in[j * is];
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      offset += stride[d];
      if (++index[d] < out.sizes[d]) break;
      offset -= stride[d] * out.sizes[d];
      index[d] = 0;
    }
  }
}

float math(fb::UnaryOp op, float v) {
  switch (op) {
    case fb::UnaryOp::Sqrt: return std::sqrt(v);
    case fb::UnaryOp::Rsqrt: return 1.0f / std::sqrt(v);
    case fb::UnaryOp::Erf: return std::erf(v);
    case fb::UnaryOp::Exp: return std::exp(v);
    case fb::UnaryOp::Log: return std::log(v);
    case fb::UnaryOp::Neg: return -v;
    case fb::UnaryOp::Abs: return std::fabs(v);
    case fb::UnaryOp::Reciprocal: return 1.0f / v;
  }
  return v;
}

// A max pooling node's shape: x's and out's planes, the window from its ints (kh, kw, sh, sw, ph,
// pw, dh, dw).
opt::MaxPool2dShape max_pool_shape(const TensorSlot& x, const TensorSlot& out,
                                   const flatbuffers::Vector<int64_t>& p) {
  opt::MaxPool2dShape s;
  s.planes = x.sizes[0] * x.sizes[1];
  s.h = x.sizes[2];
  s.w = x.sizes[3];
  s.oh = out.sizes[2];
  s.ow = out.sizes[3];
  s.kh = p.Get(0);
  s.kw = p.Get(1);
  s.sh = p.Get(2);
  s.sw = p.Get(3);
  s.ph = p.Get(4);
  s.pw = p.Get(5);
  s.dh = p.Get(6);
  s.dw = p.Get(7);
  return s;
}

void max_pool(const TensorSlot& x, const TensorSlot& out, const flatbuffers::Vector<int64_t>& p) {
  opt::max_pool2d(max_pool_shape(x, out, p), x.data, out.data);  // prepare checked the parameters
}

// aten::avg_pool2d: the window clipped to the padded input counts toward the divisor with
// count_include_pad, only its part inside the input without; divisor_override replaces both.
// aten::avg_pool2d, a row of outputs at a time: each input row of the window and each kernel
// column adds a shifted input row to the output row (a loop over contiguous outputs the compiler
// vectorizes), in the order a window-by-window sum would add them; then each output is divided
// by its window's divisor.
void avg_pool(const TensorSlot& x, const TensorSlot& out, const flatbuffers::Vector<int64_t>& p) {
  const int64_t kh = p.Get(0), kw = p.Get(1), sh = p.Get(2), sw = p.Get(3);
  const int64_t ph = p.Get(4), pw = p.Get(5);
  const bool include_pad = p.Get(6) != 0;
  const int64_t divisor_override = p.Get(7);
  const int64_t h = x.sizes[2], w = x.sizes[3], oh = out.sizes[2], ow = out.sizes[3];
  const int64_t planes = x.sizes[0] * x.sizes[1];
  // Outputs ox whose kernel column kx reads inside the row: 0 <= ox * sw - pw + kx < w.
  auto first_ox = [&](int64_t kx) {
    const int64_t need = pw - kx;  // ox * sw >= need
    return need <= 0 ? int64_t{0} : (need + sw - 1) / sw;
  };
  auto end_ox = [&](int64_t kx) {  // ox * sw <= w - 1 + pw - kx
    const int64_t top = w - 1 + pw - kx;
    return top < 0 ? int64_t{0} : std::min(ow, top / sw + 1);
  };
  opt::parallel_for(planes, [&](int64_t plane) {
    const float* in = x.data + plane * h * w;
    float* o = out.data + plane * oh * ow;
    for (int64_t oy = 0; oy < oh; ++oy, o += ow) {
      const int64_t ys = oy * sh - ph;
      const int64_t ye = std::min(ys + kh, h + ph);
      const int64_t y0 = std::max<int64_t>(ys, 0), y1 = std::min(ye, h);
      std::fill(o, o + ow, 0.0f);
      if (y0 >= y1) continue;
      for (int64_t y = y0; y < y1; ++y) {
        const float* row = in + y * w;
        for (int64_t kx = 0; kx < kw; ++kx) {
          const int64_t lo = first_ox(kx), hi = end_ox(kx),
                        shift = kx - pw;  // column ox sw + shift
          if (sw == 1) {
            for (int64_t ox = lo; ox < hi; ++ox) o[ox] += row[ox + shift];
          } else {
            for (int64_t ox = lo; ox < hi; ++ox) o[ox] += row[ox * sw + shift];
          }
        }
      }
      // Windows inside the row horizontally share one divisor (a loop that vectorizes); those at
      // the edges get their own.
      const int64_t rows = include_pad ? ye - ys : y1 - y0;
      const int64_t inner_lo = std::min(first_ox(0), ow);
      const int64_t inner_hi = std::max(inner_lo, end_ox(kw - 1));
      const auto inner = static_cast<float>(divisor_override != 0 ? divisor_override : rows * kw);
      for (int64_t ox = inner_lo; ox < inner_hi; ++ox) o[ox] /= inner;
      auto edge = [&](int64_t ox) {
        const int64_t xs = ox * sw - pw;
        const int64_t xe = std::min(xs + kw, w + pw);
        const int64_t x0 = std::max<int64_t>(xs, 0), x1 = std::min(xe, w);
        if (x0 >= x1) {
          o[ox] = 0.0f;
          return;
        }
        const int64_t divisor = divisor_override != 0 ? divisor_override
                                : include_pad         ? rows * (xe - xs)
                                                      : rows * (x1 - x0);
        o[ox] /= static_cast<float>(divisor);
      };
      for (int64_t ox = 0; ox < inner_lo; ++ox) edge(ox);
      for (int64_t ox = inner_hi; ox < ow; ++ox) edge(ox);
    }
  });
}

// Inference batch norm with the activation after it, a plane (one image's channel) at a time:
// y = act((x - mean) * (weight / sqrt(var + eps)) + bias).
void batch_norm(const TensorSlot& x, const TensorSlot* weight, const TensorSlot* bias,
                const TensorSlot& mean, const TensorSlot& var, float eps, opt::Activation act,
                float lo, float hi, const TensorSlot& out) {
  const int64_t channels = x.sizes[1], planes = x.sizes[0] * channels;
  const int64_t inner = planes == 0 ? 0 : x.numel / planes;
  const bool clamp = opt::is_clamp(act);
  const opt::ClampBounds bounds = opt::clamp_bounds(clamp ? act : opt::Activation::None, lo, hi);
  opt::parallel_for(planes, [&](int64_t plane) {
    const int64_t c = plane % channels;
    const float scale = (weight != nullptr ? weight->data[c] : 1.0f) / std::sqrt(var.data[c] + eps);
    const float shift = bias != nullptr ? bias->data[c] : 0.0f;
    const float m = mean.data[c];
    const float* in = x.data + plane * inner;
    float* o = out.data + plane * inner;
    if (bounds.relu) {
      for (int64_t i = 0; i < inner; ++i) {
        const float v = (in[i] - m) * scale + shift;
        o[i] = v > 0.0f ? v : 0.0f;
      }
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        o[i] = std::min(std::max((in[i] - m) * scale + shift, bounds.lo), bounds.hi);
      }
    }
    if (!clamp) opt::activate_in_place(o, inner, act, lo, hi);
  });
}

// out[o][i] = sum (or mean) over j < len of x[o][j][i], i < inner: each reduced row added into
// the output row, which stays in cache.
__attribute__((target_clones("avx512f", "avx2", "default"))) void reduce_strided(
    const float* x, int64_t outer, int64_t len, int64_t inner, bool sum, float* out) {
  for (int64_t o = 0; o < outer; ++o) {
    float* y = out + o * inner;
    std::fill(y, y + inner, 0.0f);
    for (int64_t j = 0; j < len; ++j) {
      const float* row = x + (o * len + j) * inner;
      for (int64_t i = 0; i < inner; ++i) y[i] += row[i];
    }
    if (!sum) {
      const float scale =
          len > 0 ? 1.0f / static_cast<float>(len) : std::numeric_limits<float>::quiet_NaN();
      for (int64_t i = 0; i < inner; ++i) y[i] *= scale;
    }
  }
}

// out[i] = x[i] op s, one loop per op so that each vectorizes (the attention's scale runs over
// a heads x tokens x tokens score tensor).
__attribute__((target_clones("avx512f", "avx2", "default"))) void scalar_binary(fb::BinaryOp op,
                                                                                const float* x,
                                                                                float s, int64_t n,
                                                                                float* out) {
  switch (op) {
    case fb::BinaryOp::Add:
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] + s;
      return;
    case fb::BinaryOp::Sub:
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] - s;
      return;
    case fb::BinaryOp::Mul:
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] * s;
      return;
    case fb::BinaryOp::Div:
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] / s;
      return;
    case fb::BinaryOp::Pow:
      if (s == 2.0f) {
        for (int64_t i = 0; i < n; ++i) out[i] = x[i] * x[i];
      } else {
        for (int64_t i = 0; i < n; ++i) out[i] = std::pow(x[i], s);
      }
      return;
  }
}

// out = a op b with NumPy broadcasting; `f` is the op, so that the loops compile per op.
template <typename F>
void broadcast_apply(F f, const TensorSlot& a, const TensorSlot& b, const TensorSlot& out) {
  if (a.numel == out.numel && b.numel == out.numel) {
    for (int64_t i = 0; i < out.numel; ++i) out.data[i] = f(a.data[i], b.data[i]);
    return;
  }
  // Strides of a and b over the output's dims (0 where broadcast).
  const int64_t rank = out.rank;
  int64_t sa[kMaxRank] = {}, sb[kMaxRank] = {};
  for (const auto& [t, s] : {std::pair<const TensorSlot*, int64_t*>{&a, sa}, {&b, sb}}) {
    int64_t stride = 1;
    for (int64_t d = t->rank - 1; d >= 0; --d) {
      s[rank - t->rank + d] = t->sizes[d] == 1 ? 0 : stride;
      stride *= t->sizes[d];
    }
  }
  // The innermost dim runs as a loop (contiguous or one broadcast value per operand); the others
  // as a counter.
  const int64_t inner = rank > 0 ? out.sizes[rank - 1] : 1;
  const int64_t ia = rank > 0 ? sa[rank - 1] : 0, ib = rank > 0 ? sb[rank - 1] : 0;
  int64_t index[kMaxRank] = {};
  int64_t oa = 0, ob = 0;
  for (int64_t base = 0; base < out.numel; base += inner) {
    float* o = out.data + base;
    const float* pa = a.data + oa;
    const float* pb = b.data + ob;
    if (ia == 1 && ib == 1) {
      for (int64_t j = 0; j < inner; ++j) o[j] = f(pa[j], pb[j]);
    } else if (ia == 1 && ib == 0) {
      const float bv = *pb;
      for (int64_t j = 0; j < inner; ++j) o[j] = f(pa[j], bv);
    } else if (ia == 0 && ib == 1) {
      const float av = *pa;
      for (int64_t j = 0; j < inner; ++j) o[j] = f(av, pb[j]);
    } else {
      for (int64_t j = 0; j < inner; ++j) o[j] = f(pa[j * ia], pb[j * ib]);
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      oa += sa[d];
      ob += sb[d];
      if (++index[d] < out.sizes[d]) break;
      oa -= sa[d] * out.sizes[d];
      ob -= sb[d] * out.sizes[d];
      index[d] = 0;
    }
  }
}

void broadcast_binary(fb::BinaryOp op, const TensorSlot& a, const TensorSlot& b,
                      const TensorSlot& out) {
  switch (op) {
    case fb::BinaryOp::Add: return broadcast_apply(std::plus<float>(), a, b, out);
    case fb::BinaryOp::Sub: return broadcast_apply(std::minus<float>(), a, b, out);
    case fb::BinaryOp::Mul: return broadcast_apply(std::multiplies<float>(), a, b, out);
    case fb::BinaryOp::Div: return broadcast_apply(std::divides<float>(), a, b, out);
    case fb::BinaryOp::Pow:
      return broadcast_apply([](float x, float y) { return std::pow(x, y); }, a, b, out);
  }
}

// Stored value `i` of a quantized tensor.
inline int32_t qload(const TensorSlot& t, int64_t i) {
  return t.dtype == fb::TensorType::S8 ? static_cast<int32_t>(static_cast<int8_t>(t.bytes()[i]))
                                       : static_cast<int32_t>(t.bytes()[i]);
}

// clamp(round_half_even(v) + zero_point, lo, hi) stored at `i`.
inline void qstore(const TensorSlot& t, int64_t i, float v, int32_t zp, int32_t lo, int32_t hi) {
  v = std::fmin(std::fmax(v, -1e9f), 1e9f);  // also maps NaN into range before the conversion
  const int32_t q = std::clamp(static_cast<int32_t>(std::nearbyint(v)) + zp, lo, hi);
  t.bytes()[i] = static_cast<uint8_t>(q);
}

opt::QuantParams quant_params(const fb::QParam& q) { return {q.scale(), q.zero_point()}; }

// Where a quantized node's results go: its output parameters and bounds (st.qlo, st.qhi).
opt::QuantOutput quant_output(const fb::QParam& q, const NodeState& st, const TensorSlot& out) {
  opt::QuantOutput o;
  o.q = quant_params(q);
  o.lo = st.qlo;
  o.hi = st.qhi;
  o.is_signed = out.dtype == fb::TensorType::S8;
  return o;
}

Error run_quantized(Handle& h, const NodeState& st) {
  const fb::Node* n = st.node;
  const TensorSlot& out = h.tensors[n->outputs()->Get(0)];
  auto slot = [&](uint32_t i) -> const TensorSlot& { return h.tensors[input(n, i)]; };
  const TensorSlot& x = slot(0);
  switch (n->kind()) {
    case fb::NodeKind::Quantize:
      opt::quantize(x.data, out.numel, n->ints()->Get(0) != 0, quant_output(*n->qout(), st, out),
                    out.data);
      return Error::Ok;
    case fb::NodeKind::Dequantize:
      opt::dequantize(x.data, x.dtype == fb::TensorType::S8, out.numel,
                      quant_params(*n->qin()->Get(0)), out.data);
      return Error::Ok;
    case fb::NodeKind::Requantize:
      opt::requantize(x.data, x.dtype == fb::TensorType::S8, out.numel,
                      quant_params(*n->qin()->Get(0)), quant_output(*n->qout(), st, out), out.data);
      return Error::Ok;
    case fb::NodeKind::QConv2d:
      return opt::qconv2d(st.conv, x.data, x.dtype == fb::TensorType::S8,
                          n->qin()->Get(0)->zero_point(),
                          reinterpret_cast<const int8_t*>(slot(1).data), st.qpacked, st.qe,
                          out.data, h.scratch, std::min<int64_t>(st.workers, num_threads()))
                 ? Error::Ok
                 : Error::Internal;
    case fb::NodeKind::QLinear: {
      opt::QEpilogue e = st.qe;
      e.out_signed = out.dtype == fb::TensorType::S8;
      return opt::qgemm(st.n, st.m, st.k, st.qpacked_a, x.data, st.k, true,
                        x.dtype == fb::TensorType::S8, e, out.data, st.n, true, h.scratch)
                 ? Error::Ok
                 : Error::Internal;
    }
    case fb::NodeKind::QMaxPool2d:
      return opt::quantized_max_pool2d(max_pool_shape(x, out, *n->ints()), x.data,
                                       x.dtype == fb::TensorType::S8, out.data)
                 ? Error::Ok
                 : Error::Internal;
    case fb::NodeKind::QAdd: {
      const TensorSlot& b = slot(1);
      opt::quantized_add(x.data, x.dtype == fb::TensorType::S8, quant_params(*n->qin()->Get(0)),
                         b.data, b.dtype == fb::TensorType::S8, quant_params(*n->qin()->Get(1)),
                         out.numel, quant_output(*n->qout(), st, out), out.data);
      return Error::Ok;
    }
    case fb::NodeKind::QGlobalAvgPool: {
      const fb::QParam& qi = *n->qin()->Get(0);
      const fb::QParam& qo = *n->qout();
      const int64_t plane = x.sizes[2] * x.sizes[3];
      for (int64_t p = 0; p < out.numel; ++p) {
        int64_t sum = 0;
        for (int64_t i = 0; i < plane; ++i) sum += qload(x, p * plane + i) - qi.zero_point();
        const float mean =
            plane > 0 ? static_cast<float>(sum) / static_cast<float>(plane) * qi.scale() : 0.0f;
        qstore(out, p, mean / qo.scale(), qo.zero_point(), st.qlo, st.qhi);
      }
      return Error::Ok;
    }
    case fb::NodeKind::QCat: {
      const int64_t dim = n->ints()->Get(0);
      const fb::QParam& qo = *n->qout();
      int64_t outer = 1;
      for (int64_t d = 0; d < dim; ++d) outer *= out.sizes[d];
      int64_t out_inner = 1;
      for (int64_t d = dim; d < out.rank; ++d) out_inner *= out.sizes[d];
      int64_t offset = 0;
      for (uint32_t i = 0; i < n->inputs()->size(); ++i) {
        const TensorSlot& t = slot(i);
        const fb::QParam& qi = *n->qin()->Get(i);
        const bool same = qi.scale() == qo.scale() && qi.zero_point() == qo.zero_point() &&
                          t.dtype == out.dtype && qi.qmin() >= st.qlo && qi.qmax() <= st.qhi;
        const int64_t inner = outer == 0 ? 0 : t.numel / outer;
        for (int64_t o = 0; o < outer; ++o) {
          if (same) {
            std::memcpy(out.bytes() + o * out_inner + offset, t.bytes() + o * inner,
                        static_cast<size_t>(inner));
            continue;
          }
          for (int64_t j = 0; j < inner; ++j) {
            const float v =
                static_cast<float>(qload(t, o * inner + j) - qi.zero_point()) * qi.scale();
            qstore(out, o * out_inner + offset + j, v / qo.scale(), qo.zero_point(), st.qlo,
                   st.qhi);
          }
        }
        offset += inner;
      }
      return Error::Ok;
    }
    default: break;
  }
  return Error::Internal;
}

// Whether a pointwise convolution may take output pixels as its GEMM's rows for blocks: its
// output channels rounded up to the panel width are at most 4/3 of them rounded up to the panel
// height (24 channels: 32 against 24; not 16: 32 against 16, where pixel rows took 0.21 ms
// against 0.12 for 32 -> 16 channels at 112x112).
bool pixel_rows_pay(const opt::Conv2dShape& s) {
  const opt::GemmTile t = opt::gemm_tile(opt::active_gemm_isa());
  const int64_t wide = (s.oc + t.nr - 1) / t.nr * t.nr, tall = (s.oc + t.mr - 1) / t.mr * t.mr;
  return s.pointwise() && 3 * wide <= 4 * tall;
}

// Keeps an intermediate in channel blocks (opt::ConvLayouts) where one convolution writes it and
// exactly one other convolution reads it, and both take blocks there: in MobileNet-style blocks,
// a pointwise layer with output pixels as its rows feeding the channel-interleaved depthwise
// layer, and that one feeding the next pointwise layer. Neither side then transposes the tensor.
// Never a delegate input or output, nor one another node (a view, a Cat) also reads. Without
// memory for its counts it plans nothing (the planar layouts are always correct). Runs before the
// weights are packed: it may choose the rows of a pointwise layer and the path of a depthwise one.
template <typename IsIo>
void plan_blocked_layouts(Handle& h, MemoryAllocator& alloc, IsIo is_io) {
  uint32_t* readers = allocate_array<uint32_t>(alloc, h.num_tensors);  // reads of each tensor
  uint32_t* reader = allocate_array<uint32_t>(alloc, h.num_tensors);   // the last node reading it
  if (readers == nullptr || reader == nullptr) return;
  std::fill(readers, readers + h.num_tensors, 0u);
  std::fill(reader, reader + h.num_tensors, kAbsent);
  for (uint32_t i = 0; i < h.num_nodes; ++i) {
    const fb::Node* n = h.nodes[i].node;
    if (n->inputs() == nullptr) continue;
    for (uint32_t id : *n->inputs()) {
      if (id == kAbsent || id >= h.num_tensors) continue;
      ++readers[id];
      reader[id] = i;
    }
  }
  auto convolution = [&](const NodeState& st) {
    return st.node->kind() == fb::NodeKind::Conv2d && !st.skip && !st.winograd;
  };
  for (uint32_t i = 0; i < h.num_nodes; ++i) {
    NodeState& producer = h.nodes[i];
    if (!convolution(producer) || producer.node->outputs() == nullptr ||
        producer.node->outputs()->size() != 1 || input(producer.node, 3) != kAbsent) {
      continue;  // (a residual would have to be blocked too)
    }
    const uint32_t id = producer.node->outputs()->Get(0);
    if (id >= h.num_tensors || is_io(id) || readers[id] != 1) continue;
    NodeState& consumer = h.nodes[reader[id]];
    if (!convolution(consumer) || input(consumer.node, 0) != id ||
        input(consumer.node, 4) != kAbsent) {
      continue;
    }
    // The ends' choices with blocks between them. Where a layer is left to choose: a depthwise
    // layer takes the channel-interleaved path, and a pointwise layer that meets a depthwise one
    // takes output pixels as its rows unless that computes over a third more (its channels
    // rounded up to the panel width against the panel height). Blocks then save more than the
    // planar choices gain: the depthwise layer reads and writes them in place, with no transposes,
    // and the pointwise layer's pixel rows neither transpose tiles nor copy planes. One thread,
    // ms: 24 -> 144 channels at 56x56 and its 3x3 depthwise layer of stride 2 0.18 + 0.088 ->
    // 0.19 + 0.052; the depthwise layer of stride 1 there 0.23 planar, 0.13 blocked both sides;
    // its 144 -> 24 projection 0.21 -> 0.19.
    opt::DepthwisePath p_path = producer.depthwise_path, c_path = consumer.depthwise_path;
    opt::ConvRows p_rows = producer.rows, c_rows = consumer.rows;
    if (producer.conv.depthwise() && p_path == opt::DepthwisePath::Auto &&
        opt::depthwise_channels_applies(producer.conv)) {
      p_path = opt::DepthwisePath::Channels;
    }
    if (consumer.conv.depthwise() && c_path == opt::DepthwisePath::Auto &&
        opt::depthwise_channels_applies(consumer.conv)) {
      c_path = opt::DepthwisePath::Channels;
    }
    if (!opt::conv2d_writes_blocked(producer.conv, p_path, p_rows) &&
        p_rows == opt::ConvRows::Auto && consumer.conv.depthwise() &&
        pixel_rows_pay(producer.conv)) {
      p_rows = opt::ConvRows::Pixels;
    }
    if (!opt::conv2d_reads_blocked(consumer.conv, c_path, c_rows) &&
        c_rows == opt::ConvRows::Auto && producer.conv.depthwise() &&
        pixel_rows_pay(consumer.conv)) {
      c_rows = opt::ConvRows::Pixels;
    }
    if (opt::conv2d_writes_blocked(producer.conv, p_path, p_rows) &&
        opt::conv2d_reads_blocked(consumer.conv, c_path, c_rows)) {
      producer.depthwise_path = p_path;
      producer.rows = p_rows;
      producer.layouts.output_blocked = true;
      consumer.depthwise_path = c_path;
      consumer.rows = c_rows;
      consumer.layouts.input_blocked = true;
    }
  }
}

// A convolution's packed weights (for its Winograd variant or its GEMM rows) and its scratch.
Error pack_conv_weights(Handle& h, NodeState& st, MemoryAllocator& alloc, size_t* scratch) {
  const opt::Conv2dShape& s = st.conv;
  const float* weights = h.tensors[input(st.node, 1)].data;
  std::vector<float> live;  // the live taps' weights, while they are packed
  if (st.sliced) {
    live.resize(static_cast<size_t>(s.oc * s.c_per_group() * s.kh * s.kw));
    opt::conv2d_slice_taps(st.full, st.taps, weights, live.data());
    weights = live.data();
  }
  const size_t bytes = st.winograd ? opt::winograd_packed_weights_bytes(s, st.variant)
                                   : opt::conv2d_packed_weights_bytes(s, st.rows);
  if (bytes > 0) {
    auto* packed = static_cast<float*>(allocate_packed(alloc, bytes));
    CPU_CHECK(packed != nullptr, Error::MemoryAllocationFailed,
              "PtecCpuBackend: no memory for %zu bytes of packed weights", bytes);
    if (st.winograd) {
      opt::winograd_pack_weights(s, st.variant, weights, packed);
    } else {
      opt::conv2d_pack_weights(s, weights, packed, st.rows);
    }
    st.packed = packed;
  }
  *scratch = std::max(*scratch,
                      st.winograd ? opt::winograd_scratch_bytes(s, st.variant, st.block, st.workers)
                                  : opt::conv2d_scratch_bytes(s, true, st.rows, st.workers));
  return Error::Ok;
}

Error run_node(Handle& h, const NodeState& st, runtime::BackendExecutionContext& context) {
  const fb::Node* n = st.node;
  const TensorSlot& out = h.tensors[n->outputs()->Get(0)];
  auto slot = [&](uint32_t i) -> const TensorSlot* {
    const uint32_t id = input(n, i);
    return id == kAbsent ? nullptr : &h.tensors[id];
  };
  (void)context;
  switch (n->kind()) {
    case fb::NodeKind::Conv2d: {
      opt::GemmEpilogue e;
      e.bias = slot(2) != nullptr ? slot(2)->data : nullptr;
      e.residual = slot(3) != nullptr ? slot(3)->data : nullptr;
      e.activation = activation_of(n->activation());
      e.clamp_min = n->clamp_min();
      e.clamp_max = n->clamp_max();
      const float* scale = slot(4) != nullptr ? slot(4)->data : nullptr;
      opt::Conv2dShape s = st.conv;
      s.n = slot(0)->sizes[0];  // the images of this run (dynamic rows: at most the bound)
      const bool ok =
          st.winograd
              ? opt::conv2d_winograd(s, st.variant, slot(0)->data, st.packed, e, out.data, st.block,
                                     h.scratch, scale, st.workers)
              : opt::conv2d(s, slot(0)->data, st.sliced ? nullptr : slot(1)->data, st.packed, e,
                            out.data, h.scratch, scale, st.depthwise_path, st.rows, st.layouts,
                            std::min<int64_t>(st.workers, num_threads()));
      return ok ? Error::Ok : Error::Internal;
    }
    case fb::NodeKind::ConvTranspose2d:
      return opt::conv_transpose2d(st.tconv, slot(0)->data, slot(1)->data, st.packed,
                                   slot(2) != nullptr ? slot(2)->data : nullptr,
                                   activation_of(n->activation()), n->clamp_min(), n->clamp_max(),
                                   out.data, h.scratch)
                 ? Error::Ok
                 : Error::Internal;
    case fb::NodeKind::Linear: {
      opt::GemmEpilogue e;
      e.bias = slot(2) != nullptr ? slot(2)->data : nullptr;
      e.residual = slot(3) != nullptr ? slot(3)->data : nullptr;
      e.ldr = st.n;
      e.activation = activation_of(n->activation());
      e.clamp_min = n->clamp_min();
      e.clamp_max = n->clamp_max();
      const int64_t m = st.k > 0 ? slot(0)->numel / st.k : st.m;  // rows of this run
      return opt::gemm(m, st.n, st.k, opt::GemmOperand::matrix(slot(0)->data, st.k),
                       opt::GemmOperand::prepacked(st.packed_b), out.data, st.n, e, h.scratch)
                 ? Error::Ok
                 : Error::Internal;
    }
    case fb::NodeKind::MaxPool2d: max_pool(*slot(0), out, *n->ints()); return Error::Ok;
    case fb::NodeKind::AvgPool2d: avg_pool(*slot(0), out, *n->ints()); return Error::Ok;
    case fb::NodeKind::BatchNorm:
      batch_norm(*slot(0), slot(1), slot(2), *slot(3), *slot(4), n->scalar(),
                 activation_of(n->activation()), n->clamp_min(), n->clamp_max(), out);
      return Error::Ok;
    case fb::NodeKind::GroupNorm: {
      const TensorSlot& x = *slot(0);
      const int64_t images = x.sizes[0], channels = x.sizes[1];
      const int64_t hxw = images * channels == 0 ? 0 : x.numel / (images * channels);
      opt::group_norm(x.data, slot(1) != nullptr ? slot(1)->data : nullptr,
                      slot(2) != nullptr ? slot(2)->data : nullptr, images, channels, hxw,
                      n->ints()->Get(0), n->scalar(), out.data, nullptr, nullptr,
                      activation_of(n->activation()), n->clamp_min(), n->clamp_max());
      return Error::Ok;
    }
    case fb::NodeKind::GlobalAvgPool: {
      const TensorSlot& x = *slot(0);
      const int64_t plane = x.sizes[2] * x.sizes[3];
      for (int64_t p = 0; p < out.numel; ++p) {
        out.data[p] = plane > 0
                          ? opt::row_sum(x.data + p * plane, plane) / static_cast<float>(plane)
                          : std::numeric_limits<float>::quiet_NaN();
      }
      return Error::Ok;
    }
    case fb::NodeKind::Unary:
      if (out.data != slot(0)->data) {
        std::memcpy(out.data, slot(0)->data, static_cast<size_t>(out.numel) * sizeof(float));
      }
      opt::activate_in_place(out.data, out.numel, activation_of(n->activation()), n->clamp_min(),
                             n->clamp_max());
      return Error::Ok;
    case fb::NodeKind::Copy:
      if (out.data != slot(0)->data) {
        std::memcpy(out.data, slot(0)->data, static_cast<size_t>(out.numel) * out.element_size());
      }
      return Error::Ok;
    case fb::NodeKind::Binary:
      broadcast_binary(n->binary(), *slot(0), *slot(1), out);
      return Error::Ok;
    case fb::NodeKind::Cat: {
      const int64_t dim = n->ints()->Get(0);
      int64_t outer = 1;
      for (int64_t d = 0; d < dim; ++d) outer *= out.sizes[d];
      int64_t out_inner = 1;
      for (int64_t d = dim; d < out.rank; ++d) out_inner *= out.sizes[d];
      int64_t offset = 0;
      for (uint32_t i = 0; i < n->inputs()->size(); ++i) {
        const TensorSlot& t = *slot(i);
        const int64_t inner = outer == 0 ? 0 : t.numel / outer;
        for (int64_t o = 0; o < outer; ++o) {
          std::memcpy(out.data + o * out_inner + offset, t.data + o * inner,
                      static_cast<size_t>(inner) * sizeof(float));
        }
        offset += inner;
      }
      return Error::Ok;
    }
    case fb::NodeKind::BatchMatMul: {
      const float* a = slot(0)->data;
      const float* b = slot(1)->data;
      if (st.k == 0) {
        std::memset(out.data, 0, static_cast<size_t>(out.numel) * sizeof(float));
        return Error::Ok;
      }
      const MatrixView& va = st.operand[0];
      const MatrixView& vb = st.operand[1];
      for (int64_t i = 0; i < st.batch; ++i) {
        if (!opt::gemm(
                st.m, st.n, st.k,
                opt::GemmOperand::matrix(a + va.offset + i * va.batch_stride, va.ld, va.trans),
                opt::GemmOperand::matrix(b + vb.offset + i * vb.batch_stride, vb.ld, vb.trans),
                out.data + i * st.m * st.n, st.n, opt::GemmEpilogue{}, h.scratch)) {
          return Error::Internal;
        }
      }
      return Error::Ok;
    }
    case fb::NodeKind::Softmax:
      softmax(st, slot(0)->data, n->scalar(), out.data, out.numel);
      return Error::Ok;
    case fb::NodeKind::LayerNorm:
      layer_norm(*slot(0), slot(1) != nullptr ? slot(1)->data : nullptr,
                 slot(2) != nullptr ? slot(2)->data : nullptr, n->scalar(), out);
      return Error::Ok;
    case fb::NodeKind::StridedCopy: strided_copy(*slot(0), out, *n->ints()); return Error::Ok;
    case fb::NodeKind::ScalarBinary:
      scalar_binary(n->binary(), slot(0)->data, n->scalar(), out.numel, out.data);
      return Error::Ok;
    case fb::NodeKind::Math: {
      const float* x = slot(0)->data;
      const fb::UnaryOp op = n->unary();
      for (int64_t i = 0; i < out.numel; ++i) out.data[i] = math(op, x[i]);
      return Error::Ok;
    }
    case fb::NodeKind::MeanInner: {
      const TensorSlot& x = *slot(0);
      const int64_t r = out.numel == 0 ? 0 : x.numel / out.numel;
      const bool strided = n->ints() != nullptr && n->ints()->size() == 2;
      const int64_t inner = strided ? n->ints()->Get(0) : 1;
      const bool sum = strided && n->ints()->Get(1) == 1;
      if (inner == 1) {
        for (int64_t p = 0; p < out.numel; ++p) {
          out.data[p] = sum     ? opt::row_sum(x.data + p * r, r)
                        : r > 0 ? opt::row_sum(x.data + p * r, r) / static_cast<float>(r)
                                : std::numeric_limits<float>::quiet_NaN();
        }
        return Error::Ok;
      }
      reduce_strided(x.data, out.numel / inner, r, inner, sum, out.data);
      return Error::Ok;
    }
    case fb::NodeKind::Quantize:
    case fb::NodeKind::Dequantize:
    case fb::NodeKind::Requantize:
    case fb::NodeKind::QConv2d:
    case fb::NodeKind::QLinear:
    case fb::NodeKind::QMaxPool2d:
    case fb::NodeKind::QAdd:
    case fb::NodeKind::QGlobalAvgPool:
    case fb::NodeKind::QCat: return run_quantized(h, st);
  }
  return Error::Internal;
}

}  // namespace

Result<runtime::DelegateHandle*> CpuBackendRuntime::init(
    runtime::BackendInitContext& context, runtime::FreeableBuffer* processed,
    Span<const runtime::CompileSpec> compile_specs) const {
  (void)compile_specs;
  MemoryAllocator* alloc = context.get_runtime_allocator();
  CPU_CHECK(alloc != nullptr, Error::InvalidArgument, "PtecCpuBackend: no method allocator");
  flatbuffers::Verifier verifier(static_cast<const uint8_t*>(processed->data()), processed->size());
  CPU_CHECK(fb::GraphBufferHasIdentifier(processed->data()) && fb::VerifyGraphBuffer(verifier),
            Error::InvalidProgram, "PtecCpuBackend: the delegate blob is not a valid PCB1 graph");
  const fb::Graph* graph = fb::GetGraph(processed->data());
  CPU_CHECK(graph->version() >= kMinBlobVersion && graph->version() <= kBlobVersion,
            Error::NotSupported,
            "PtecCpuBackend: blob version %u is not supported (this runtime reads %u to %u)",
            graph->version(), kMinBlobVersion, kBlobVersion);
  for (const fb::Node* n : *graph->nodes()) {
    CPU_CHECK(graph->version() >= 2 || n->kind() <= fb::NodeKind::Cat, Error::InvalidProgram,
              "PtecCpuBackend: node kind %d needs blob version 2", static_cast<int>(n->kind()));
    CPU_CHECK(graph->version() >= 3 || n->kind() < fb::NodeKind::Quantize, Error::InvalidProgram,
              "PtecCpuBackend: node kind %d needs blob version 3", static_cast<int>(n->kind()));
    CPU_CHECK(graph->version() >= 4 || n->kind() < fb::NodeKind::AvgPool2d, Error::InvalidProgram,
              "PtecCpuBackend: node kind %d needs blob version 4", static_cast<int>(n->kind()));
    CPU_CHECK(graph->version() >= 7 || n->kind() < fb::NodeKind::BatchNorm, Error::InvalidProgram,
              "PtecCpuBackend: node kind %d needs blob version 7", static_cast<int>(n->kind()));
    CPU_CHECK(graph->version() >= 9 || n->kind() < fb::NodeKind::GroupNorm, Error::InvalidProgram,
              "PtecCpuBackend: node kind %d needs blob version 9", static_cast<int>(n->kind()));
    // Version 10: a Softmax's scale (its scalar) and a MeanInner's [inner, sum].
    CPU_CHECK(
        graph->version() >= 10 || !((n->kind() == fb::NodeKind::Softmax && n->scalar() != 0.0f) ||
                                    (n->kind() == fb::NodeKind::MeanInner && n->ints() != nullptr &&
                                     n->ints()->size() != 0)),
        Error::InvalidProgram,
        "PtecCpuBackend: a scaled Softmax or a strided MeanInner needs blob version 10");
    CPU_CHECK(n->activation() <= fb::Activation::MAX &&
                  (graph->version() >= 8 || n->activation() != fb::Activation::LeakyRelu),
              Error::InvalidProgram, "PtecCpuBackend: unknown activation %d for blob version %u",
              static_cast<int>(n->activation()), graph->version());
    CPU_CHECK(graph->version() >= 5 || n->kind() != fb::NodeKind::Conv2d ||
                  n->inputs() == nullptr || n->inputs()->size() <= 4,
              Error::InvalidProgram, "PtecCpuBackend: a Conv2d input scale needs blob version 5");
  }
  // No inputs is valid: a subgraph may compute from constants only (flatbuffers leaves an empty
  // vector out).
  CPU_CHECK(graph->tensors() != nullptr && graph->nodes() != nullptr && graph->outputs() != nullptr,
            Error::InvalidProgram, "PtecCpuBackend: the blob has no tensors, nodes or outputs");

  auto* h = alloc->allocate_list<Handle>(1);
  CPU_CHECK(h != nullptr, Error::MemoryAllocationFailed, "PtecCpuBackend: out of memory");
  new (h) Handle();
  h->graph = graph;
  h->num_tensors = graph->tensors()->size();
  h->num_nodes = graph->nodes()->size();
  h->isa = opt::active_gemm_isa();
  h->qisa = opt::active_qgemm_isa();
  h->tensors = alloc->allocate_list<TensorSlot>(h->num_tensors);
  h->constants = alloc->allocate_list<FreeableBuffer>(h->num_tensors);
  h->nodes = alloc->allocate_list<NodeState>(h->num_nodes);
  CPU_CHECK(h->tensors != nullptr && h->constants != nullptr && h->nodes != nullptr,
            Error::MemoryAllocationFailed, "PtecCpuBackend: out of memory");
  for (size_t i = 0; i < h->num_tensors; ++i) {
    new (&h->tensors[i]) TensorSlot();
    new (&h->constants[i]) FreeableBuffer();
  }
  for (size_t i = 0; i < h->num_nodes; ++i) new (&h->nodes[i]) NodeState();

  // Tensors: constants from the named data, intermediates from the method allocator; inputs
  // and outputs are bound by execute().
  auto is_io = [&](uint32_t id) {
    for (uint32_t i = 0; i < num_inputs(graph); ++i) {
      if (graph->inputs()->Get(i) == id) return true;
    }
    for (uint32_t x : *graph->outputs()) {
      if (x == id) return true;
    }
    return false;
  };
  for (uint32_t i = 0; i < num_inputs(graph); ++i) {
    const uint32_t id = graph->inputs()->Get(i);
    CPU_CHECK(id < h->num_tensors, Error::InvalidProgram, "PtecCpuBackend: input id %u", id);
  }
  for (uint32_t id : *graph->outputs()) {
    CPU_CHECK(id < h->num_tensors, Error::InvalidProgram, "PtecCpuBackend: output id %u", id);
  }
  // A Copy between two intermediates (view, squeeze, clone) needs no bytes of its own: its
  // output aliases its input (every tensor is written once, by its producer).
  auto* alias = alloc->allocate_list<uint32_t>(h->num_tensors);
  CPU_CHECK(alias != nullptr, Error::MemoryAllocationFailed, "PtecCpuBackend: out of memory");
  for (size_t i = 0; i < h->num_tensors; ++i) alias[i] = kAbsent;
  for (const fb::Node* n : *graph->nodes()) {
    if (n->kind() != fb::NodeKind::Copy || n->inputs() == nullptr || n->outputs() == nullptr ||
        n->inputs()->size() != 1 || n->outputs()->size() != 1) {
      continue;
    }
    const uint32_t in = n->inputs()->Get(0), out = n->outputs()->Get(0);
    if (in < h->num_tensors && out < h->num_tensors && in != out && !is_io(in) && !is_io(out) &&
        alias[out] == kAbsent) {
      alias[out] = in;
    }
  }
  // A Cat along a dim with only size-1 dims before it lays its inputs out one after another:
  // inputs that are fp32 intermediates of this graph (not already views, not in another Cat,
  // not Cat outputs themselves) are computed straight into their slice of the output, and the
  // Cat has nothing left to do. cat_of[input] = the Cat's output.
  auto* cat_of = alloc->allocate_list<uint32_t>(h->num_tensors);
  auto* cat_output = alloc->allocate_list<bool>(h->num_tensors);
  auto* cat_placed = alloc->allocate_list<bool>(h->num_nodes);
  CPU_CHECK(cat_of != nullptr && cat_output != nullptr && cat_placed != nullptr,
            Error::MemoryAllocationFailed, "PtecCpuBackend: out of memory");
  for (size_t i = 0; i < h->num_tensors; ++i) {
    cat_of[i] = kAbsent;
    cat_output[i] = false;
  }
  for (const fb::Node* n : *graph->nodes()) {
    if (n->kind() == fb::NodeKind::Cat && n->outputs() != nullptr) {
      for (uint32_t id : *n->outputs()) {
        if (id < h->num_tensors) cat_output[id] = true;
      }
    }
  }
  auto plain_intermediate = [&](uint32_t id) {
    if (id >= h->num_tensors || is_io(id) || alias[id] != kAbsent || cat_of[id] != kAbsent ||
        cat_output[id]) {
      return false;
    }
    const fb::Tensor* t = graph->tensors()->Get(id);
    return (t->constant() == nullptr || t->constant()->size() == 0) &&
           t->dtype() == fb::TensorType::F32;
  };
  for (uint32_t i = 0; i < h->num_nodes; ++i) {
    const fb::Node* n = graph->nodes()->Get(i);
    cat_placed[i] = false;
    if (n->kind() != fb::NodeKind::Cat || n->inputs() == nullptr || n->outputs() == nullptr ||
        n->outputs()->size() != 1 || n->ints() == nullptr || n->ints()->size() != 1) {
      continue;
    }
    const uint32_t out = n->outputs()->Get(0);
    if (out >= h->num_tensors || is_io(out) || alias[out] != kAbsent || cat_of[out] != kAbsent) {
      continue;
    }
    const auto* sizes = graph->tensors()->Get(out)->sizes();
    const int64_t dim = n->ints()->Get(0);
    bool placed = sizes != nullptr && dim >= 0 && dim < static_cast<int64_t>(sizes->size()) &&
                  graph->tensors()->Get(out)->dtype() == fb::TensorType::F32;
    for (int64_t d = 0; placed && d < dim; ++d) {
      placed = sizes->Get(static_cast<flatbuffers::uoffset_t>(d)) == 1;
    }
    for (uint32_t k = 0; placed && k < n->inputs()->size(); ++k) {
      const uint32_t in = n->inputs()->Get(k);
      placed = in != out && plain_intermediate(in);
      for (uint32_t j = 0; placed && j < k; ++j) placed = n->inputs()->Get(j) != in;
    }
    if (!placed) continue;
    for (uint32_t in : *n->inputs()) cat_of[in] = out;
    cat_placed[i] = true;
  }
  // Intermediates with bytes of their own (not constants, inputs, outputs, aliases or Cat
  // slices) are placed in one arena, sharing bytes where their lifetimes allow (arena_plan.h).
  auto* arena = alloc->allocate_list<ArenaTensor>(h->num_tensors);
  auto* arena_index = alloc->allocate_list<uint32_t>(h->num_tensors);
  CPU_CHECK(arena != nullptr && arena_index != nullptr, Error::MemoryAllocationFailed,
            "PtecCpuBackend: out of memory");
  uint32_t arena_count = 0;
  for (uint32_t i = 0; i < h->num_tensors; ++i) arena_index[i] = kAbsent;
  Error status = Error::Ok;
  for (uint32_t i = 0; i < h->num_tensors && status == Error::Ok; ++i) {
    const fb::Tensor* t = graph->tensors()->Get(i);
    TensorSlot& slot = h->tensors[i];
    // A rank-0 tensor's empty sizes vector may be left out of the flatbuffer.
    static constexpr int64_t kNoSizes[1] = {0};
    const auto* sizes = t->sizes();
    CPU_CHECK(sizes == nullptr || (sizes->size() <= kMaxRank && count(sizes, &slot.numel)),
              Error::InvalidProgram, "PtecCpuBackend: tensor %u has invalid sizes", i);
    if (sizes == nullptr) slot.numel = 1;
    slot.sizes = sizes != nullptr ? sizes->data() : kNoSizes;
    slot.rank = sizes != nullptr ? sizes->size() : 0;
    CPU_CHECK(t->dtype() <= fb::TensorType::S8 && (graph->version() >= 3 || !slot.quantized()),
              Error::InvalidProgram, "PtecCpuBackend: tensor %u has an unknown type", i);
    slot.dtype = t->dtype();
    if (t->dynamic_dim() != -1) {
      const int64_t d = t->dynamic_dim();
      CPU_CHECK(graph->version() >= 11 && d >= 0 && d < slot.rank &&
                    slot.dtype == fb::TensorType::F32 &&
                    (t->constant() == nullptr || t->constant()->size() == 0) && slot.sizes[d] > 0,
                Error::InvalidProgram,
                "PtecCpuBackend: tensor %u has a malformed dynamic dim (blob version 11: an fp32 "
                "non-constant tensor's dim, of bound > 0)",
                i);
      slot.dynamic_dim = d;
      slot.bound = slot.sizes[d];
      slot.per_row = slot.numel / slot.bound;
      slot.run_sizes = allocate_array<int64_t>(*alloc, static_cast<size_t>(slot.rank));
      CPU_CHECK(slot.run_sizes != nullptr, Error::MemoryAllocationFailed,
                "PtecCpuBackend: out of memory");
      std::copy(slot.sizes, slot.sizes + slot.rank, slot.run_sizes);
      slot.sizes = slot.run_sizes;
      h->dynamic = true;
    }
    const size_t nbytes = static_cast<size_t>(slot.numel) * slot.element_size();
    if (t->constant() != nullptr && t->constant()->size() > 0) {
      const runtime::NamedDataMap* map = context.get_named_data_map();
      CPU_CHECK(map != nullptr, Error::NotFound,
                "PtecCpuBackend: constant '%s' needs the program's named data",
                t->constant()->c_str());
      auto data = map->get_data(t->constant()->string_view());
      CPU_CHECK(data.ok(), data.error(), "PtecCpuBackend: constant '%s' not found",
                t->constant()->c_str());
      CPU_CHECK(data->size() == nbytes, Error::InvalidProgram,
                "PtecCpuBackend: constant '%s' has %zu bytes, expected %zu", t->constant()->c_str(),
                data->size(), nbytes);
      CPU_CHECK(slot.quantized() || reinterpret_cast<uintptr_t>(data->data()) % alignof(float) == 0,
                Error::InvalidProgram, "PtecCpuBackend: constant '%s' is misaligned",
                t->constant()->c_str());
      h->constants[i] = std::move(*data);
      slot.data = const_cast<float*>(static_cast<const float*>(h->constants[i].data()));
    } else if (!is_io(i) && alias[i] == kAbsent && cat_of[i] == kAbsent) {
      arena_index[i] = arena_count;
      // No lifetime yet (first > last): the nodes below give it one, or it keeps its bytes.
      arena[arena_count++] = ArenaTensor{nbytes, static_cast<uint32_t>(h->num_nodes), 0, 0};
    }
  }
  // The tensor whose bytes `id` uses: through Copy aliases and placed Cats (kAbsent in a cycle,
  // which the alias pass below reports).
  auto owner = [&](uint32_t id) {
    for (uint32_t step = 0; step <= h->num_tensors; ++step) {
      if (alias[id] != kAbsent) {
        id = alias[id];
      } else if (cat_of[id] != kAbsent) {
        id = cat_of[id];
      } else {
        return id;
      }
    }
    return kAbsent;
  };
  for (uint32_t i = 0; i < h->num_nodes; ++i) {
    const fb::Node* n = graph->nodes()->Get(i);
    for (const auto* ids : {n->inputs(), n->outputs()}) {
      if (ids == nullptr) continue;
      for (uint32_t id : *ids) {
        const uint32_t o = id < h->num_tensors ? owner(id) : kAbsent;
        if (o == kAbsent || arena_index[o] == kAbsent) continue;
        ArenaTensor& t = arena[arena_index[o]];
        t.first = std::min(t.first, i);
        t.last = std::max(t.last, i);
      }
    }
  }
  for (uint32_t j = 0; j < arena_count; ++j) {
    if (arena[j].first > arena[j].last) {
      arena[j] = ArenaTensor{arena[j].bytes, 0, static_cast<uint32_t>(h->num_nodes), 0};
    }
  }
  auto* plan_scratch = alloc->allocate_list<uint32_t>(2 * static_cast<size_t>(arena_count) + 1);
  const size_t arena_bytes =
      plan_scratch != nullptr ? plan_arena(arena, arena_count, kAlign, plan_scratch) : 0;
  auto* arena_base = plan_scratch != nullptr && arena_count > 0
                         ? static_cast<unsigned char*>(alloc->allocate(arena_bytes, kAlign))
                         : nullptr;
  if (plan_scratch == nullptr || (arena_count > 0 && arena_base == nullptr)) {
    destroy(h);
    PTEC_LOG(Error, "PtecCpuBackend: no memory for %zu bytes of intermediates", arena_bytes);
    return Error::MemoryAllocationFailed;
  }
  for (uint32_t i = 0; i < h->num_tensors; ++i) {
    if (arena_index[i] == kAbsent) continue;
    h->tensors[i].data = reinterpret_cast<float*>(arena_base + arena[arena_index[i]].offset);
  }
  for (uint32_t i = 0; i < h->num_nodes; ++i) {
    if (!cat_placed[i]) continue;
    const fb::Node* n = graph->nodes()->Get(i);
    const TensorSlot& o = h->tensors[n->outputs()->Get(0)];
    int64_t offset = 0;
    for (uint32_t in : *n->inputs()) {
      TensorSlot& slice = h->tensors[in];
      if (offset + slice.numel > o.numel) break;
      slice.data = o.data + offset;
      offset += slice.numel;
    }
    if (offset != o.numel || o.data == nullptr) {
      destroy(h);
      PTEC_LOG(Error, "PtecCpuBackend: Cat node %u's inputs do not fill its output", i);
      return Error::InvalidProgram;
    }
    h->nodes[i].skip = true;
  }
  for (uint32_t i = 0; i < h->num_nodes; ++i) {
    const fb::Node* n = graph->nodes()->Get(i);
    if (n->kind() != fb::NodeKind::Copy || n->outputs() == nullptr || n->outputs()->size() != 1 ||
        n->outputs()->Get(0) >= h->num_tensors || alias[n->outputs()->Get(0)] == kAbsent) {
      continue;
    }
    const uint32_t out = n->outputs()->Get(0);
    TensorSlot& o = h->tensors[out];
    const TensorSlot& src = h->tensors[alias[out]];
    if (src.data == nullptr || src.numel != o.numel || h->constants[out].data() != nullptr) {
      destroy(h);
      PTEC_LOG(Error, "PtecCpuBackend: copy node %u reads a tensor not yet computed", i);
      return Error::InvalidProgram;
    }
    o.data = src.data;
    h->nodes[i].skip = true;
  }
  if (h->dynamic) {
    const Error e = check_rows(*h);
    if (e != Error::Ok) {
      destroy(h);
      return e;
    }
  }
  size_t scratch = 0;
  for (uint32_t i = 0; i < h->num_nodes; ++i) {
    h->nodes[i].node = graph->nodes()->Get(i);
    const Error e = prepare_node(*h, h->nodes[i], *alloc, &scratch);
    if (e != Error::Ok) {
      destroy(h);
      return e;
    }
  }
  plan_blocked_layouts(*h, *alloc, is_io);
  for (uint32_t i = 0; i < h->num_nodes; ++i) {
    NodeState& st = h->nodes[i];
    if (st.node->kind() != fb::NodeKind::Conv2d || st.skip) continue;
    const Error e = pack_conv_weights(*h, st, *alloc, &scratch);
    if (e != Error::Ok) {
      destroy(h);
      return e;
    }
  }
  h->scratch_bytes = scratch;
  return h;
}

Error CpuBackendRuntime::execute(runtime::BackendExecutionContext& context,
                                 runtime::DelegateHandle* handle,
                                 Span<runtime::EValue*> args) const {
  auto* h = static_cast<Handle*>(handle);
  const auto* inputs = h->graph->inputs();
  const auto* outputs = h->graph->outputs();
  const uint32_t num_in = num_inputs(h->graph);
  CPU_CHECK(args.size() == num_in + outputs->size(), Error::InvalidArgument,
            "PtecCpuBackend: %zu arguments, expected %u", args.size(), num_in + outputs->size());
  CPU_CHECK(opt::active_gemm_isa() == h->isa && opt::active_qgemm_isa() == h->qisa,
            Error::InvalidState, "PtecCpuBackend: weights were packed for another GEMM ISA");
  if (h->dynamic) {
    // This run's row count, from the inputs with dynamic rows: it sizes every such tensor.
    int64_t rows = -1;
    for (uint32_t i = 0; i < num_in && i < args.size(); ++i) {
      const TensorSlot& slot = h->tensors[inputs->Get(i)];
      if (slot.dynamic_dim < 0 || args[i] == nullptr || !args[i]->is_tensor()) continue;
      const runtime::Tensor& t = args[i]->to_tensor();
      const int64_t d = slot.dynamic_dim;
      CPU_CHECK(static_cast<int64_t>(t.dim()) == slot.rank && t.size(d) >= 0 &&
                    t.size(d) <= slot.bound && (rows < 0 || t.size(d) == rows),
                Error::InvalidArgument,
                "PtecCpuBackend: argument %u has %lld rows in dim %lld, expected at most %lld "
                "(and as many as the other inputs)",
                i, static_cast<long long>(static_cast<int64_t>(t.dim()) > d ? t.size(d) : -1),
                static_cast<long long>(d), static_cast<long long>(slot.bound));
      rows = t.size(d);
    }
    CPU_CHECK(rows >= 0, Error::InvalidArgument,
              "PtecCpuBackend: no input gives the row count of this run");
    for (size_t i = 0; i < h->num_tensors; ++i) {
      TensorSlot& slot = h->tensors[i];
      if (slot.dynamic_dim < 0) continue;
      slot.run_sizes[slot.dynamic_dim] = rows;
      slot.numel = slot.per_row * rows;
    }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const uint32_t id = i < num_in ? inputs->Get(static_cast<flatbuffers::uoffset_t>(i))
                                   : outputs->Get(static_cast<flatbuffers::uoffset_t>(i - num_in));
    TensorSlot& slot = h->tensors[id];
    CPU_CHECK(args[i] != nullptr && args[i]->is_tensor(), Error::InvalidArgument,
              "PtecCpuBackend: argument %zu is not a tensor", i);
    runtime::Tensor& t = args[i]->to_tensor();
    const DType want = slot.dtype == fb::TensorType::U8   ? DType::Byte
                       : slot.dtype == fb::TensorType::S8 ? DType::Char
                                                          : DType::Float;
    CPU_CHECK(t.dtype() == want, Error::InvalidArgument,
              "PtecCpuBackend: argument %zu is %s, expected %s", i, to_string(t.dtype()),
              to_string(want));
    bool same = static_cast<int64_t>(t.dim()) == slot.rank;
    for (int64_t d = 0; same && d < slot.rank; ++d) same = t.size(d) == slot.sizes[d];
    if (!same && i >= num_in) {  // an output may need resizing to this run's sizes
      runtime::SizesType sizes[kMaxRank];
      for (int64_t d = 0; d < slot.rank; ++d)
        sizes[d] = static_cast<runtime::SizesType>(slot.sizes[d]);
      same = static_cast<int64_t>(t.dim()) == slot.rank &&
             runtime::resize_tensor(t, {sizes, static_cast<size_t>(slot.rank)}) == Error::Ok;
    }
    CPU_CHECK(same, Error::InvalidArgument,
              "PtecCpuBackend: argument %zu has other sizes than the delegate was built for", i);
    slot.data = static_cast<float*>(t.mutable_data_ptr());
  }
  h->scratch = nullptr;
  if (h->scratch_bytes > 0) {
    h->scratch = context.allocate(h->scratch_bytes, kAlign);
    CPU_CHECK(h->scratch != nullptr, Error::MemoryAllocationFailed,
              "PtecCpuBackend: the method's temp allocator has no %zu bytes of scratch for "
              "method '%s' (give the method a temp allocator of at least that size)",
              h->scratch_bytes,
              context.get_method_name() != nullptr ? context.get_method_name() : "");
  }
  runtime::EventTracer* tracer = context.event_tracer();
  for (size_t i = 0; i < h->num_nodes; ++i) {
    const NodeState& st = h->nodes[i];
    if (st.skip) continue;
    runtime::EventTracerEntry entry;
    if (tracer != nullptr) {
      entry = tracer->start_profiling_delegate(nullptr, static_cast<int64_t>(i));
    }
    // A node tuned for fewer threads than the setting runs with that many.
    const int setting = st.node->threads() > 0 ? num_threads() : 0;
    if (st.node->threads() > 0 && st.node->threads() < setting) {
      set_num_threads(st.node->threads());
    }
    const Error e = run_node(*h, st, context);
    if (setting > 0 && num_threads() != setting) set_num_threads(setting);
    if (tracer != nullptr) tracer->end_profiling_delegate(entry);
    if (e != Error::Ok) {
      PTEC_LOG(Error, "PtecCpuBackend: node %zu ('%s') failed", i,
               st.node->name() != nullptr ? st.node->name()->c_str() : "?");
      return e;
    }
  }
  return Error::Ok;
}

void CpuBackendRuntime::destroy(runtime::DelegateHandle* handle) const {
  auto* h = static_cast<Handle*>(handle);
  if (h == nullptr) return;
  // Memory comes from the method allocator; only the constants' buffers need releasing.
  for (size_t i = 0; i < h->num_tensors; ++i) h->constants[i].~FreeableBuffer();
  h->num_tensors = 0;
}

Error register_cpu_backend_runtime() {
  static CpuBackendRuntime backend;
  static const Error result =
      runtime::register_backend(runtime::Backend{"PtecCpuBackend", &backend});
  return result;
}

}  // namespace ptec::backends::cpu
