#include "backends/engine/aot/engine_compile.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "backends/cpu/aot/cpu_backend.h"
#include "backends/cpu/aot/cpu_partitioner.h"
#include "backends/cpu/cpu_delegate_generated.h"
#include "backends/cpu/runtime/cpu_backend_runtime.h"
#include "backends/engine/aot/engine.h"
#include "backends/engine/cpu_engine_format.h"
#include "backends/engine/engine_blob.h"
#include "backends/engine/engine_ids.h"
#include "ir/exception.h"
#include "ir/op_table.h"
#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/conv2d_winograd.h"
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/threadpool.h"
#include "partition/backend.h"
#include "partition/lowered_module.h"
#include "partition/to_backend.h"
#include "passes/duplicate_shared_constants.h"
#include "program/to_edge.h"
#include "runtime/backend/interface.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::engine {
namespace {

using json = nlohmann::json;
namespace fb = ptec_cpu_fb;

/// The ahead-of-time backend id under which the builder lowers regions (never in a .pte).
constexpr const char* kBuilderId = "PtecEngineBuilder";
constexpr const char* kOptionsSpec = "engine_options";
constexpr const char* kBuilderVersion = "ptec-cpu-engine 1";

// ---- Shapes ----

ir::TensorSpec substitute(const ir::TensorSpec& spec,
                          const std::map<std::string, int64_t>& values) {
  ir::TensorSpec out = spec;
  for (ir::SymInt& d : out.shape) {
    if (!d.is_symbolic()) continue;
    // A symbol of its own, or a product or window count of those (an upsampled skip
    // connection's "h/2_x2" at a region's edge, where no shape function reruns).
    if (std::optional<int64_t> v = ir::evaluate(d, values)) d = ir::SymInt(*v);
  }
  return out;
}

// The names of the symbols of their own that `s` is a function of (itself, a product's roots, a
// window count's base).
void own_symbols(const ir::Symbol& s, std::set<std::string>& names) {
  if (s.of != nullptr) {
    own_symbols(*s.of, names);
  } else if (!s.roots.empty()) {
    for (const ir::SymbolPtr& root : s.roots) own_symbols(*root, names);
  } else {
    names.insert(s.name);
  }
}

// ---- Runtime helpers for timing candidates on this machine ----

// Named data served from the builder's buffers.
class BufferDataMap final : public runtime::NamedDataMap {
 public:
  explicit BufferDataMap(const std::map<std::string, ir::BufferPtr>& data) : data_(data) {}
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

// Records each node's time (the CPU backend reports one delegate event per node).
class NodeTimer final : public runtime::EventTracer {
 public:
  explicit NodeTimer(size_t nodes)
      : best(nodes, std::numeric_limits<double>::infinity()), start_(nodes) {}
  runtime::EventTracerEntry start_profiling_delegate(const char*, int64_t id) override {
    runtime::EventTracerEntry e;
    e.delegate_debug_id = id;
    if (id >= 0 && static_cast<size_t>(id) < start_.size()) {
      start_[static_cast<size_t>(id)] = std::chrono::steady_clock::now();
    }
    return e;
  }
  void end_profiling_delegate(runtime::EventTracerEntry e, const void*, size_t) override {
    const auto id = static_cast<size_t>(e.delegate_debug_id);
    if (e.delegate_debug_id < 0 || id >= start_.size()) return;
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_[id]).count();
    if (record) best[id] = std::min(best[id], s);
  }
  std::vector<double> best;
  bool record = false;

 private:
  std::vector<std::chrono::steady_clock::time_point> start_;
};

// One plan: the CPU backend's description at one shape point.
struct Plan {
  std::map<std::string, int64_t> point;
  std::vector<uint8_t> graph;  // PCB1
  std::map<int64_t, std::vector<int64_t>> debug_handle_map;
};

// How one node runs: its thread cap (0: the runtime's setting) and, for Conv2d, the algorithm and
// its blocking (Auto / 0: the runtime's default).
struct NodeSetting {
  int threads = 0;
  fb::ConvAlgorithm algorithm = fb::ConvAlgorithm::Auto;
  int64_t block = 0;
  bool operator==(const NodeSetting&) const = default;
};

// Copy of a PCB1 graph with each node set to `setting(node index)`.
template <typename F>
std::vector<uint8_t> with_settings(const std::vector<uint8_t>& graph, F setting) {
  std::unique_ptr<fb::GraphT> g = fb::UnPackGraph(graph.data());
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const NodeSetting s = setting(i);
    g->nodes[i]->threads = s.threads;
    g->nodes[i]->algorithm = s.algorithm;
    g->nodes[i]->block = s.block;
  }
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::Graph::Pack(builder, g.get()), fb::GraphIdentifier());
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

// The convolution a Conv2d node of `g` computes.
kernels::optimized::Conv2dShape conv_shape(const fb::Graph* g, const fb::Node* n) {
  kernels::optimized::Conv2dShape s;
  const auto* x = g->tensors()->Get(n->inputs()->Get(0))->sizes();
  const auto* w = g->tensors()->Get(n->inputs()->Get(1))->sizes();
  const auto* ints = n->ints();
  if (x == nullptr || w == nullptr || ints == nullptr || x->size() != 4 || w->size() != 4 ||
      ints->size() != 7) {
    return s;  // invalid: no candidates besides the default
  }
  s.n = x->Get(0);
  s.c = x->Get(1);
  s.h = x->Get(2);
  s.w = x->Get(3);
  s.oc = w->Get(0);
  s.kh = w->Get(2);
  s.kw = w->Get(3);
  s.sh = ints->Get(0);
  s.sw = ints->Get(1);
  s.ph = ints->Get(2);
  s.pw = ints->Get(3);
  s.dh = ints->Get(4);
  s.dw = ints->Get(5);
  s.groups = ints->Get(6);
  return s;
}

// The implementations worth timing for node `n`: for a convolution, the GEMM with output channels
// and (one group) with output pixels as its rows, and where Winograd computes it each variant at
// its default pass size, half of it and twice it; a depthwise one's paths; else only the default.
// The first is what the runtime would choose by itself (Auto), which the others must beat.
std::vector<NodeSetting> candidate_algorithms(const fb::Graph* g, const fb::Node* n) {
  namespace opt = kernels::optimized;
  if (n->kind() != fb::NodeKind::Conv2d) return {NodeSetting{}};
  const opt::Conv2dShape s = conv_shape(g, n);
  if (s.depthwise()) {  // its own paths, the runtime's default (Auto) first
    const NodeSetting rows{0, fb::ConvAlgorithm::DepthwiseRows, 0};
    const NodeSetting flat{0, fb::ConvAlgorithm::DepthwiseFlat, 0};
    const NodeSetting channels{0, fb::ConvAlgorithm::DepthwiseChannels, 0};
    const NodeSetting first = opt::depthwise_channels_preferred(s) ? channels
                              : opt::depthwise_flat_preferred(s)   ? flat
                                                                   : rows;
    std::vector<NodeSetting> paths{first};
    for (const NodeSetting& other : {channels, flat, rows}) {
      const bool applies = other.algorithm == fb::ConvAlgorithm::DepthwiseRows ||
                           (other.algorithm == fb::ConvAlgorithm::DepthwiseFlat
                                ? opt::depthwise_flat_applies(s)
                                : opt::depthwise_channels_applies(s));
      if (applies && other.algorithm != first.algorithm) paths.push_back(other);
    }
    return paths;
  }
  // The GEMM with output channels or (one group) output pixels as its rows, Auto's pick first.
  const NodeSetting gemm{0, fb::ConvAlgorithm::Gemm, 0};
  const NodeSetting pixels{0, fb::ConvAlgorithm::GemmPixels, 0};
  std::vector<NodeSetting> gemms{gemm};
  if (opt::conv2d_pixels_preferred(s)) {
    gemms = {pixels, gemm};
  } else if (opt::conv2d_pixels_applies(s)) {
    gemms = {gemm, pixels};
  }
  if (!opt::winograd_applies(s)) return gemms;
  const int64_t unit = std::max<int64_t>(opt::gemm_tile(opt::active_gemm_isa()).nr, 16);
  // Variant v at its default pass size, half of it and twice it (at most all of its tiles).
  auto passes = [&](opt::WinogradVariant v) {
    const fb::ConvAlgorithm algorithm = v == opt::WinogradVariant::F4x4
                                            ? fb::ConvAlgorithm::Winograd4x4
                                            : fb::ConvAlgorithm::Winograd;
    const int64_t t = v == opt::WinogradVariant::F4x4 ? 4 : 2;
    const int64_t chunk = opt::winograd_default_chunk(s, v);
    const int64_t all = ((s.oh() + t - 1) / t * ((s.ow() + t - 1) / t) + unit - 1) / unit * unit;
    return std::vector<NodeSetting>{
        NodeSetting{0, algorithm, chunk},
        NodeSetting{0, algorithm, std::max(unit, chunk / 2 / unit * unit)},
        NodeSetting{0, algorithm, std::min(all, 2 * chunk)}};
  };
  const auto f2 = passes(opt::WinogradVariant::F2x2);
  const auto f4 = passes(opt::WinogradVariant::F4x4);
  opt::WinogradVariant preferred{};
  std::vector<NodeSetting> out;
  if (!opt::winograd_preferred(s, &preferred)) {
    out.push_back(gemms[0]);
  } else {
    out.push_back(preferred == opt::WinogradVariant::F4x4 ? f4[0] : f2[0]);
  }
  std::vector<NodeSetting> all = gemms;
  all.insert(all.end(), f2.begin(), f2.end());
  all.insert(all.end(), f4.begin(), f4.end());
  for (const NodeSetting& c : all) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string describe(fb::NodeKind kind, const NodeSetting& s, bool autotune) {
  std::string out = fb::EnumNameNodeKind(kind);
  if (kind == fb::NodeKind::Conv2d && s.algorithm != fb::ConvAlgorithm::Auto) {
    const char* names[] = {"auto",           "gemm",        "winograd",           "depthwise_rows",
                           "depthwise_flat", "winograd4x4", "depthwise_channels", "gemm_pixels"};
    out += fmt::format("; algorithm={}", names[static_cast<int>(s.algorithm)]);
    if (s.block > 0) out += fmt::format("; block={}", s.block);
  }
  return out + fmt::format("; threads={}", autotune ? s.threads : 0);
}

// Runs `graph` `iterations` times (after a warm-up run) on random inputs of its input sizes and
// returns each node's fastest time.
std::vector<double> time_nodes(const std::vector<uint8_t>& graph,
                               const std::map<std::string, ir::BufferPtr>& weights,
                               int iterations) {
  const fb::Graph* g = fb::GetGraph(graph.data());
  // The method memory: every tensor (intermediates, packed weights) at most three times over,
  // plus alignment slack and scratch.
  size_t bytes = size_t{16} << 20;
  for (const fb::Tensor* t : *g->tensors()) {
    size_t n = sizeof(float);
    for (int64_t s : *t->sizes()) n *= static_cast<size_t>(s);
    bytes += 3 * n + 256;
  }
  bytes += 256 * g->nodes()->size();
  // Candidates may pack weights larger than that (Winograd F(4x4) keeps 36 values per 3x3
  // filter, 4x its weights, in every 3x3 layer of a run at once): grow the method memory until
  // the plan initializes.
  std::vector<uint8_t> arena;
  std::optional<runtime::MemoryAllocator> alloc;
  BufferDataMap data(weights);
  runtime::FreeableBuffer processed(graph.data(), graph.size(), nullptr);
  backends::cpu::CpuBackendRuntime cpu;
  runtime::DelegateHandle* handle = nullptr;
  Error init_error = Error::MemoryAllocationFailed;
  for (int attempt = 0; attempt < 4 && init_error == Error::MemoryAllocationFailed;
       ++attempt, bytes *= 2) {
    arena.assign(bytes, 0);
    alloc.emplace(arena.data(), arena.size());
    runtime::BackendInitContext init(&*alloc, nullptr, "engine_build", &data);
    Result<runtime::DelegateHandle*> r = cpu.init(init, &processed, {});
    init_error = r.error();
    if (r.ok()) {
      handle = *r;
      break;
    }
  }
  PTEC_ENFORCE(handle != nullptr, Internal,
               "engine builder: the CPU backend refused a plan ({}, method memory {} bytes)",
               to_string(init_error), arena.size());
  std::vector<runtime::OwnedTensor> tensors;
  const size_t n_in = g->inputs()->size(), n_out = g->outputs()->size();
  tensors.reserve(n_in + n_out);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (size_t i = 0; i < n_in + n_out; ++i) {
    const uint32_t id = i < n_in ? g->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i))
                                 : g->outputs()->Get(static_cast<flatbuffers::uoffset_t>(i - n_in));
    std::vector<int32_t> sizes;
    size_t numel = 1;
    for (int64_t s : *g->tensors()->Get(id)->sizes()) {
      sizes.push_back(static_cast<int32_t>(s));
      numel *= static_cast<size_t>(s);
    }
    std::vector<float> values(numel);
    for (float& v : values) v = dist(rng);
    tensors.push_back(runtime::OwnedTensor::from(DType::Float, sizes, values));
  }
  std::vector<runtime::EValue> values;
  values.reserve(tensors.size());
  for (runtime::OwnedTensor& t : tensors) values.push_back(t.evalue());
  std::vector<runtime::EValue*> args;
  for (runtime::EValue& v : values) args.push_back(&v);
  NodeTimer timer(g->nodes()->size());
  // Scratch (the CPU backend takes it from the method's temp allocator on each run).
  std::vector<uint8_t> temp_arena(std::max(bytes, size_t{64} << 20));
  runtime::MemoryAllocator temp(temp_arena.data(), temp_arena.size());
  runtime::BackendExecutionContext exec(&timer, &temp, "engine_build");
  Error status = Error::Ok;
  for (int it = 0; it <= iterations && status == Error::Ok; ++it) {
    timer.record = it > 0;
    temp.reset();
    status = cpu.execute(exec, handle, {args.data(), args.size()});
  }
  cpu.destroy(handle);
  PTEC_ENFORCE(status == Error::Ok, Internal, "engine builder: a timing run failed ({})",
               to_string(status));
  return timer.best;
}

// The cpu engine bytes (cpu_engine_format.h).
std::vector<uint8_t> write_cpu_engine(const std::map<std::string, ir::BufferPtr>& weights,
                                      const std::vector<std::vector<uint8_t>>& plans) {
  auto align = [](size_t v) {
    return (v + kCpuEngineDataAlignment - 1) / kCpuEngineDataAlignment * kCpuEngineDataAlignment;
  };
  size_t at = kCpuEngineHeaderSize + weights.size() * kCpuEngineWeightEntrySize +
              plans.size() * kCpuEnginePlanEntrySize;
  std::vector<size_t> key_at;
  for (const auto& [key, data] : weights) {
    key_at.push_back(at);
    at += key.size();
  }
  std::vector<size_t> data_at;
  for (const auto& [key, data] : weights) {
    at = align(at);
    data_at.push_back(at);
    at += data->size();
  }
  std::vector<size_t> plan_at;
  for (const auto& plan : plans) {
    at = align(at);
    plan_at.push_back(at);
    at += plan.size();
  }
  std::vector<uint8_t> out(at, 0);
  auto put32 = [&](size_t p, uint64_t v) {
    for (int i = 0; i < 4; ++i) out[p + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  auto put64 = [&](size_t p, uint64_t v) {
    for (int i = 0; i < 8; ++i) out[p + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  std::memcpy(out.data(), kCpuEngineMagic, 4);
  put32(4, weights.size());
  put32(8, plans.size());
  size_t entry = kCpuEngineHeaderSize, i = 0;
  for (const auto& [key, data] : weights) {
    put64(entry, data_at[i]);
    put64(entry + 8, data->size());
    put32(entry + 16, key_at[i]);
    put32(entry + 20, key.size());
    std::memcpy(out.data() + key_at[i], key.data(), key.size());
    if (data->size() > 0) std::memcpy(out.data() + data_at[i], data->data(), data->size());
    entry += kCpuEngineWeightEntrySize;
    ++i;
  }
  for (size_t p = 0; p < plans.size(); ++p) {
    put64(entry, plan_at[p]);
    put64(entry + 8, plans[p].size());
    std::memcpy(out.data() + plan_at[p], plans[p].data(), plans[p].size());
    entry += kCpuEnginePlanEntrySize;
  }
  return out;
}

// ---- The builder: a partition::Backend that turns one region into an engine blob ----

class EngineBuilder final : public partition::Backend {
 public:
  std::string id() const override { return kBuilderId; }

  partition::PreprocessResult preprocess(
      const ir::ExportedProgram& sub,
      const std::vector<partition::CompileSpec>& compile_specs) const override {
    json options;
    for (const partition::CompileSpec& spec : compile_specs) {
      if (spec.key == kOptionsSpec) options = json::parse(spec.value.begin(), spec.value.end());
    }
    PTEC_ENFORCE(options.is_object(), InvalidArgument, "engine builder: no {} compile spec",
                 kOptionsSpec);
    const bool autotune = options.at("autotune").get<bool>();
    const int threads = options.at("threads").get<int>();
    const int iterations = options.at("iterations").get<int>();
    const auto profiles = options.at("profiles").get<std::map<std::string, std::vector<int64_t>>>();

    // The symbols this region's inputs use, and the distinct points restricted to them.
    std::set<std::string> used;
    for (const ir::Node* ph : sub.graph().placeholders()) {
      for (const ir::SymInt& d : ph->meta().val.at(0).shape) {
        if (d.is_symbolic()) own_symbols(*d.symbol(), used);
      }
    }
    std::vector<std::map<std::string, int64_t>> points;
    for (const json& p : options.at("points")) {
      std::map<std::string, int64_t> point;
      for (const auto& [name, value] : p.get<std::map<std::string, int64_t>>()) {
        if (used.count(name) != 0) point[name] = value;
      }
      if (std::find(points.begin(), points.end(), point) == points.end()) points.push_back(point);
    }

    backends::cpu::CpuBackend cpu;
    std::map<std::string, ir::BufferPtr> weights;
    std::vector<Plan> plans;
    for (const auto& point : points) {
      const ir::ExportedProgram at = point.empty() ? sub : specialize(sub, point);
      partition::PreprocessResult r = cpu.preprocess(at, {});
      for (auto& [key, data] : r.named_data) weights.emplace(key, data);
      Plan plan;
      plan.point = point;
      plan.graph.assign(r.processed_bytes->data(),
                        r.processed_bytes->data() + r.processed_bytes->size());
      plan.debug_handle_map = std::move(r.debug_handle_map);
      plans.push_back(std::move(plan));
    }
    PTEC_ENFORCE(!plans.empty(), Internal, "engine builder: no plan");

    // Choices, timed on the largest plan: per node the fastest implementation (Conv2d: im2col +
    // GEMM or Winograd at several pass sizes) and thread count (the setting, halves of it, 1).
    // Run k gives every node its k-th candidate implementation (its first when it has fewer).
    EngineMetadata meta;
    meta.device = "cpu";
    meta.target_isa = kernels::optimized::to_string(kernels::optimized::active_gemm_isa());
    meta.builder_version = kBuilderVersion;
    meta.precision = "fp32";
    const int setting = num_threads();
    const int tuned_for = threads > 0 ? threads : setting;
    meta.threads = tuned_for;
    const Plan& largest = plans.back();
    const fb::Graph* g = fb::GetGraph(largest.graph.data());
    const size_t num_nodes = g->nodes()->size();
    std::vector<std::vector<NodeSetting>> candidates(num_nodes);
    size_t runs = 1;
    for (size_t i = 0; i < num_nodes; ++i) {
      candidates[i] =
          candidate_algorithms(g, g->nodes()->Get(static_cast<flatbuffers::uoffset_t>(i)));
      runs = std::max(runs, candidates[i].size());
    }
    std::vector<NodeSetting> chosen(num_nodes);
    if (autotune) {
      std::vector<int> thread_counts;
      for (int t = tuned_for; t >= 1; t /= 2) thread_counts.push_back(t);
      if (thread_counts.back() != 1) thread_counts.push_back(1);
      std::vector<double> best(num_nodes, std::numeric_limits<double>::infinity());
      set_num_threads(tuned_for);
      try {
        for (int t : thread_counts) {
          for (size_t k = 0; k < runs; ++k) {
            auto in_run = [&](size_t i) {
              NodeSetting s = candidates[i][k < candidates[i].size() ? k : 0];
              s.threads = t < tuned_for ? t : 0;
              return s;
            };
            const std::vector<double> times =
                time_nodes(with_settings(largest.graph, in_run), weights, iterations);
            for (size_t i = 0; i < times.size(); ++i) {
              if (k >= candidates[i].size() && k > 0) continue;  // a repeat of its default
              // Fewer threads must win clearly (5%): they leave cores to the rest of the method.
              // Another implementation than the runtime's own choice must win by 5% too: timings
              // of a few runs are noisy, and a near tie is not worth leaving the default for.
              const double margin = (t == tuned_for ? 1.0 : 0.95) * (k == 0 ? 1.0 : 0.95);
              if (times[i] < best[i] * margin) {
                best[i] = times[i];
                chosen[i] = in_run(i);
              }
            }
          }
        }
      } catch (...) {
        set_num_threads(setting);
        throw;
      }
      set_num_threads(setting);
    }
    for (size_t i = 0; i < num_nodes; ++i) {
      const fb::Node* n = g->nodes()->Get(static_cast<flatbuffers::uoffset_t>(i));
      const std::string name = n->name() != nullptr ? n->name()->str() : fmt::format("node{}", i);
      NodeSetting shown = chosen[i];
      if (autotune && shown.threads == 0) shown.threads = tuned_for;
      meta.choices[name] = describe(n->kind(), shown, autotune);
    }
    // Every plan gets the choices (nodes are the same in every plan: one region, other sizes).
    std::vector<std::vector<uint8_t>> plan_bytes;
    for (const Plan& plan : plans) {
      const fb::Graph* pg = fb::GetGraph(plan.graph.data());
      PTEC_ENFORCE(pg->nodes()->size() == num_nodes, Internal,
                   "engine builder: plans of one region differ in their nodes");
      plan_bytes.push_back(with_settings(plan.graph, [&](size_t i) { return chosen[i]; }));
    }

    // Bindings: the region's inputs, then its outputs, with their profiles.
    auto binding = [&](const ir::Node& node, bool input) {
      EngineBinding b;
      b.name = node.name();
      b.input = input;
      const ir::TensorSpec& spec = node.meta().val.at(0);
      b.dtype = spec.dtype;
      for (const ir::SymInt& d : spec.shape) {
        EngineDim dim;
        if (d.is_symbolic()) {
          dim.symbol = d.symbol()->name;
          auto it = profiles.find(dim.symbol);
          dim.min = it != profiles.end() ? it->second.at(0) : d.lower_bound();
          dim.max = it != profiles.end() ? it->second.at(1) : d.upper_bound();
        } else {
          dim.min = dim.max = d.value();
        }
        b.shape.push_back(std::move(dim));
      }
      return b;
    };
    for (const ir::InputSpec& in : sub.signature().inputs) {
      if (in.kind == ir::InputKind::UserInput) {
        meta.io_bindings.push_back(binding(sub.graph().get(in.name), true));
      }
    }
    for (const ir::OutputSpec& out : sub.signature().outputs) {
      meta.io_bindings.push_back(binding(sub.graph().get(out.name), false));
    }

    const std::vector<uint8_t> engine = write_cpu_engine(weights, plan_bytes);
    partition::PreprocessResult result;
    result.processed_bytes =
        ir::Buffer::from_vector(write_engine_blob(meta, engine.data(), engine.size()));
    result.debug_handle_map = largest.debug_handle_map;
    return result;
  }
};

// Hands the CPU partitioner's tags (found on a specialized copy) to to_backend, for the builder.
class RegionPartitioner final : public partition::Partitioner {
 public:
  explicit RegionPartitioner(partition::PartitionResult result) : result_(std::move(result)) {}
  std::string name() const override { return "EngineRegionPartitioner"; }
  partition::PartitionResult partition(const ir::ExportedProgram&,
                                       const partition::PartitionContext&) const override {
    return result_;
  }

 private:
  partition::PartitionResult result_;
};

void register_builder() {
  static std::once_flag once;
  std::call_once(once, [] { partition::register_backend(std::make_shared<EngineBuilder>()); });
}

// Default points of a profile of sizes that are multiples of `multiple` (min and max are): every
// such size of a range of at most 4 of them; else min, max and the powers of two between that
// are multiples.
std::vector<int64_t> default_points(int64_t min, int64_t max, int64_t multiple) {
  std::vector<int64_t> points;
  if ((max - min) / multiple < 4) {
    for (int64_t v = min; v <= max; v += multiple) points.push_back(v);
    return points;
  }
  points.push_back(min);
  for (int64_t p = 1; p < max && p > 0; p *= 2) {
    if (p > min && p % multiple == 0) points.push_back(p);
  }
  points.push_back(max);
  return points;
}

}  // namespace

ir::ExportedProgram specialize(const ir::ExportedProgram& program,
                               const std::map<std::string, int64_t>& values) {
  for (const auto& [name, symbol] : program.range_constraints()) {
    auto it = values.find(name);
    if (it == values.end()) continue;
    PTEC_ENFORCE(it->second >= symbol->min && it->second <= symbol->max, InvalidArgument,
                 "specialize: {}={} is outside the symbol's range [{}, {}]", name, it->second,
                 symbol->min, symbol->max);
  }
  ir::ExportedProgram out = program;
  for (ir::Node* node : out.graph().nodes()) {
    if (node->is_call() && node->op() != nullptr && node->op()->shape_fn != nullptr &&
        !node->op()->opaque_outputs) {
      try {
        node->meta().val = node->op()->shape_fn(*node->op(), node->args());
      } catch (const Exception& e) {
        raise(Error::InvalidArgument, "specialize: node %{} ({}): {}", node->name(), node->target(),
              e.what());
      }
    }
    for (ir::TensorSpec& spec : node->meta().val) spec = substitute(spec, values);
  }
  for (const auto& [name, value] : values) out.range_constraints().erase(name);
  for (ir::TensorData& t : out.example_inputs()) t.spec = substitute(t.spec, values);
  return out;
}

size_t count_engine_calls(const ir::ExportedProgram& program) {
  size_t n = 0;
  for (const ir::Node* node : program.graph().nodes()) n += node->is_op(kExecuteEngineOp);
  return n;
}

ir::ExportedProgram compile(const ir::ExportedProgram& program,
                            const EngineCompileOptions& options) {
  PTEC_ENFORCE(options.target == "cpu", NotSupported,
               "engine compile: no engine builder for target '{}' in this build (targets: cpu)",
               options.target);
  PTEC_ENFORCE(options.precision == "fp32", NotSupported,
               "engine compile: the cpu engine builds precision fp32, not '{}'", options.precision);
  PTEC_ENFORCE(options.autotune_iterations >= 1 && options.threads >= 0, InvalidArgument,
               "engine compile: autotune_iterations must be >= 1 and threads >= 0");
  PTEC_ENFORCE(program.stage() == ir::Stage::Aten || program.stage() == ir::Stage::Edge,
               InvalidState, "engine compile: the program is at stage {}, expected ATEN or EDGE",
               ir::to_string(program.stage()));
  backends::cpu::register_cpu_backend_aot();
  register_builder();

  program::EdgeCompileConfig edge_config;
  edge_config.check_ir_validity = false;
  ir::ExportedProgram edge =
      program.stage() == ir::Stage::Aten ? program::to_edge(program, edge_config) : program;
  // Layers sharing a weight each read a placeholder of their own, as to_backend arranges for
  // partitioners, so that each region owns its constants.
  passes::DuplicateSharedConstants().run(edge);

  // Profiles of the symbols of the user inputs.
  std::map<std::string, ir::SymbolPtr> ranges;
  for (const ir::InputSpec& in : edge.signature().inputs) {
    if (in.kind != ir::InputKind::UserInput) continue;
    for (const ir::SymInt& d : edge.graph().get(in.name).meta().val.at(0).shape) {
      if (d.is_symbolic()) ranges[d.symbol()->name] = d.symbol();
    }
  }
  std::map<std::string, std::vector<int64_t>> profile_points;
  json profiles = json::object();
  for (const auto& [name, symbol] : ranges) {
    int64_t min = symbol->min, max = symbol->max;
    const int64_t multiple = std::max<int64_t>(symbol->multiple, 1);
    std::vector<int64_t> points;
    auto it = options.input_profiles.find(name);
    if (it != options.input_profiles.end()) {
      PTEC_ENFORCE(
          it->second.min >= min && it->second.max <= max && it->second.min <= it->second.max,
          InvalidArgument,
          "engine compile: profile {}=[{}, {}] is not within the symbol's range [{}, {}]", name,
          it->second.min, it->second.max, min, max);
      min = it->second.min;
      max = it->second.max;
      points = it->second.points;
      for (int64_t p : points) {
        PTEC_ENFORCE(p >= min && p <= max, InvalidArgument,
                     "engine compile: point {}={} is outside the profile [{}, {}]", name, p, min,
                     max);
        PTEC_ENFORCE(p % multiple == 0, InvalidArgument,
                     "engine compile: point {}={} is not a multiple of {}, as the symbol was "
                     "declared",
                     name, p, multiple);
      }
    }
    if (points.empty()) {
      PTEC_ENFORCE(min % multiple == 0 && max % multiple == 0, InvalidArgument,
                   "engine compile: profile {}=[{}, {}] does not start and end on multiples of "
                   "{}, as the symbol was declared; list its points",
                   name, min, max, multiple);
      points = default_points(min, max, multiple);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    profile_points[name] = points;
    profiles[name] = {min, max};
  }
  for (const auto& [name, profile] : options.input_profiles) {
    if (ranges.count(name) == 0) {
      std::vector<std::string> known;
      for (const auto& [n, r] : ranges) known.push_back(n);
      raise(Error::InvalidArgument,
            "engine compile: profile for '{}', which is not a symbol of the program's inputs "
            "(symbols: {})",
            name, known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", ")));
    }
  }
  // The cross product of the points, smallest first (the last is the largest).
  std::vector<std::map<std::string, int64_t>> points{{}};
  for (const auto& [name, values] : profile_points) {
    std::vector<std::map<std::string, int64_t>> next;
    for (const auto& p : points) {
      for (int64_t v : values) {
        auto q = p;
        q[name] = v;
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
    PTEC_ENFORCE(points.size() <= options.max_plans, InvalidArgument,
                 "engine compile: the profiles need {} or more plans (max_plans {}); narrow the "
                 "profiles or list fewer points",
                 points.size(), options.max_plans);
  }
  std::map<std::string, int64_t> largest;
  for (const auto& [name, values] : profile_points) largest[name] = values.back();

  // Regions: what the CPU partitioner claims at the largest point.
  const partition::PartitionContext context{options.method_name};
  const ir::ExportedProgram at_largest = largest.empty() ? edge : specialize(edge, largest);
  partition::PartitionResult regions =
      backends::cpu::CpuPartitioner().partition(at_largest, context);
  json engine_options{{"autotune", options.autotune},
                      {"threads", options.threads},
                      {"iterations", options.autotune_iterations},
                      {"profiles", profiles},
                      {"points", points}};
  for (auto& [tag, spec] : regions.partition_tags) {
    spec.backend_id = kBuilderId;
    spec.compile_specs.erase(std::remove_if(spec.compile_specs.begin(), spec.compile_specs.end(),
                                            [](const partition::CompileSpec& s) {
                                              return s.key != partition::kMethodNameCompileSpec;
                                            }),
                             spec.compile_specs.end());
    spec.compile_specs.push_back(
        partition::CompileSpec::from_string(kOptionsSpec, engine_options.dump()));
  }
  ir::ExportedProgram out =
      partition::to_backend(edge, RegionPartitioner(std::move(regions)), context);

  // Each delegate call becomes an engine call on a CUSTOM_OBJ placeholder.
  ir::Graph& graph = out.graph();
  std::vector<ir::Node*> calls;
  for (ir::Node* node : graph.nodes()) {
    if (node->is_op("executorch_call_delegate")) calls.push_back(node);
  }
  size_t next = 0;
  for (ir::Node* call : calls) {
    ir::Node* attr = call->arg(0).as_node();
    const std::string module_name = attr->target();
    const partition::LoweredModule module = partition::load_lowered_module(out, module_name);
    std::string name;
    do {
      name = fmt::format("engine_{}", next++);
    } while (graph.find(name) != nullptr || out.custom_objects().count(name) != 0 ||
             out.state_dict().count(name) != 0 || out.constants().count(name) != 0);
    ir::Node* ph =
        graph.add_placeholder(name, ir::TensorSpec(DType::Byte, std::vector<int64_t>{0}));
    ph->meta().val.clear();  // an opaque object, not a tensor
    out.signature().inputs.push_back({ir::InputKind::CustomObj, ph->name(), name});
    out.custom_objects()[name] = make_engine_object(Engine::from_blob(module.processed));
    ir::ArgumentList inputs;
    for (size_t i = 1; i < call->args().size(); ++i) inputs.push_back(call->arg(i));
    ir::Node* engine_call =
        graph.add_call(ir::get_op(kExecuteEngineOp),
                       {ir::Argument(std::move(inputs)), ir::Argument(ph)}, "execute_engine", call);
    engine_call->meta().val = call->meta().val;
    engine_call->meta().source = call->meta().source;
    graph.replace_all_uses_with(call, engine_call);
    graph.erase(call);
    graph.erase(attr);
    for (auto it = out.custom_objects().begin(); it != out.custom_objects().end();) {
      const bool named_data = it->first.rfind(module_name + ".named_data.", 0) == 0;
      it = it->first == module_name || named_data ? out.custom_objects().erase(it) : std::next(it);
    }
  }
  out.set_stage(ir::Stage::Aten);
  out.provenance().push_back(
      {"engine_compile",
       fmt::format("target={}, precision={}, autotune={}, threads={}, engines={}, plans={}",
                   options.target, options.precision, options.autotune, options.threads,
                   calls.size(), points.size())});
  return out;
}

}  // namespace ptec::engine
