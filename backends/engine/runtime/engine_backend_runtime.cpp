#include "backends/engine/runtime/engine_backend_runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>

#include "backends/cpu/cpu_delegate_generated.h"
#include "backends/cpu/runtime/cpu_backend_runtime.h"
#include "backends/engine/cpu_engine_format.h"
#include "backends/engine/engine_blob.h"
#include "backends/engine/engine_ids.h"
#include "core/log.h"
#include "runtime/core/tensor.h"

namespace ptec::engine {
namespace {

namespace fb = ptec_cpu_fb;
using runtime::EValue;

#define ENGINE_CHECK(cond, error, ...) \
  do {                                 \
    if (!(cond)) {                     \
      PTEC_LOG(Error, __VA_ARGS__);    \
      return error;                    \
    }                                  \
  } while (false)

// The engine's weights, served to the CPU backend's runtime as named data (views into the
// blob, which lives as long as the method).
class EngineDataMap final : public runtime::NamedDataMap {
 public:
  explicit EngineDataMap(const CpuEngineView* engine) : engine_(engine) {}
  Result<runtime::TensorLayout> get_tensor_layout(std::string_view) const override {
    return Error::NotImplemented;
  }
  Result<runtime::FreeableBuffer> get_data(std::string_view key) const override {
    for (uint32_t i = 0; i < engine_->num_weights(); ++i) {
      if (engine_->weight_key(i) == key) {
        return runtime::FreeableBuffer(engine_->weight_data(i), engine_->weight_size(i), nullptr);
      }
    }
    return Error::NotFound;
  }
  Error load_data_into(std::string_view key, void* buffer, size_t size) const override {
    Result<runtime::FreeableBuffer> data = get_data(key);
    if (!data.ok()) return data.error();
    if (data->size() != size) return Error::InvalidArgument;
    std::memcpy(buffer, data->data(), size);
    return Error::Ok;
  }
  Result<uint32_t> get_num_keys() const override { return engine_->num_weights(); }
  Result<const char*> get_key(uint32_t) const override { return Error::NotImplemented; }

 private:
  const CpuEngineView* engine_;
};

struct PlanState {
  const fb::Graph* graph = nullptr;
  runtime::DelegateHandle* handle = nullptr;
};

struct Handle {
  EngineBlobView view;
  EngineBindingView* bindings = nullptr;
  size_t num_inputs = 0;
  CpuEngineView engine;
  EngineDataMap data{&engine};
  PlanState* plans = nullptr;
  uint32_t num_plans = 0;
};

backends::cpu::CpuBackendRuntime& cpu_runtime() {
  static backends::cpu::CpuBackendRuntime runtime;
  return runtime;
}

bool same_symbol(const EngineDimView& a, const EngineDimView& b) {
  return a.symbol != nullptr && b.symbol != nullptr && a.symbol_size == b.symbol_size &&
         std::memcmp(a.symbol, b.symbol, a.symbol_size) == 0;
}

}  // namespace

Result<runtime::DelegateHandle*> EngineBackendRuntime::init(
    runtime::BackendInitContext& context, runtime::FreeableBuffer* processed,
    Span<const runtime::CompileSpec> compile_specs) const {
  (void)compile_specs;
  runtime::MemoryAllocator* alloc = context.get_runtime_allocator();
  ENGINE_CHECK(alloc != nullptr && processed != nullptr, Error::InvalidArgument,
               "PtecEngineBackend: no method allocator or blob");
  Result<EngineBlobView> view = parse_engine_blob(processed->data(), processed->size());
  if (!view.ok()) return view.error();
  auto* h = alloc->allocate_list<Handle>(1);
  ENGINE_CHECK(h != nullptr, Error::MemoryAllocationFailed, "PtecEngineBackend: out of memory");
  new (h) Handle();
  h->view = *view;
  h->bindings = alloc->allocate_list<EngineBindingView>(h->view.num_bindings);
  ENGINE_CHECK(h->bindings != nullptr, Error::MemoryAllocationFailed,
               "PtecEngineBackend: out of memory");
  for (size_t i = 0; i < h->view.num_bindings; ++i) new (&h->bindings[i]) EngineBindingView();
  const Error parsed = parse_engine_bindings(h->view, h->bindings, h->view.num_bindings);
  if (parsed != Error::Ok) return parsed;
  bool outputs_seen = false;
  for (size_t i = 0; i < h->view.num_bindings; ++i) {
    ENGINE_CHECK(!(h->bindings[i].input && outputs_seen), Error::InvalidProgram,
                 "PtecEngineBackend: io_bindings list an input after an output");
    outputs_seen |= !h->bindings[i].input;
    h->num_inputs += h->bindings[i].input ? 1 : 0;
  }
  const Error engine = h->engine.parse(h->view.engine, h->view.engine_size);
  ENGINE_CHECK(engine == Error::Ok, Error::InvalidProgram,
               "PtecEngineBackend: the engine bytes are not a cpu engine this runtime reads");
  ENGINE_CHECK(h->engine.num_plans() > 0, Error::InvalidProgram,
               "PtecEngineBackend: the engine has no plan");
  h->plans = alloc->allocate_list<PlanState>(h->engine.num_plans());
  ENGINE_CHECK(h->plans != nullptr, Error::MemoryAllocationFailed,
               "PtecEngineBackend: out of memory");
  runtime::BackendInitContext plan_context(alloc, context.event_tracer(), context.get_method_name(),
                                           &h->data);
  for (uint32_t p = 0; p < h->engine.num_plans(); ++p) {
    new (&h->plans[p]) PlanState();
    // The plan's bytes stay in the blob (never freed: they live as long as the method).
    runtime::FreeableBuffer bytes(h->engine.plan_data(p), h->engine.plan_size(p), nullptr);
    Result<runtime::DelegateHandle*> plan = cpu_runtime().init(plan_context, &bytes, {});
    if (!plan.ok()) {
      PTEC_LOG(Error, "PtecEngineBackend: plan %u of the engine could not be loaded", p);
      destroy(h);
      return plan.error();
    }
    h->plans[p].handle = *plan;
    h->plans[p].graph = fb::GetGraph(h->engine.plan_data(p));
    h->num_plans = p + 1;
    const fb::Graph* g = h->plans[p].graph;
    if (g->inputs()->size() != h->num_inputs ||
        g->outputs()->size() != h->view.num_bindings - h->num_inputs) {
      PTEC_LOG(Error,
               "PtecEngineBackend: plan %u has %u inputs and %u outputs, the bindings %zu "
               "and %zu",
               p, g->inputs()->size(), g->outputs()->size(), h->num_inputs,
               h->view.num_bindings - h->num_inputs);
      destroy(h);
      return Error::InvalidProgram;
    }
  }
  return h;
}

Error EngineBackendRuntime::execute(runtime::BackendExecutionContext& context,
                                    runtime::DelegateHandle* handle,
                                    Span<runtime::EValue*> args) const {
  auto* h = static_cast<Handle*>(handle);
  ENGINE_CHECK(h != nullptr, Error::DelegateInvalidHandle, "PtecEngineBackend: no handle");
  ENGINE_CHECK(args.size() == h->view.num_bindings, Error::InvalidArgument,
               "PtecEngineBackend: %zu arguments, the engine has %zu bindings", args.size(),
               h->view.num_bindings);
  // Every input within its profile.
  for (size_t i = 0; i < h->num_inputs; ++i) {
    const EngineBindingView& b = h->bindings[i];
    const int name_len = static_cast<int>(b.name_size);
    ENGINE_CHECK(args[i] != nullptr && args[i]->is_tensor(), Error::InvalidArgument,
                 "PtecEngineBackend: input '%.*s' is not a tensor", name_len, b.name);
    const runtime::Tensor& t = args[i]->to_tensor();
    ENGINE_CHECK(t.dtype() == b.dtype, Error::InvalidArgument,
                 "PtecEngineBackend: input '%.*s' is %s, the engine takes %s", name_len, b.name,
                 to_string(t.dtype()), to_string(b.dtype));
    ENGINE_CHECK(t.dim() == b.rank, Error::InvalidArgument,
                 "PtecEngineBackend: input '%.*s' has %zu dims, the engine takes %zu", name_len,
                 b.name, t.dim(), b.rank);
    for (size_t d = 0; d < b.rank; ++d) {
      const int64_t size = t.size(static_cast<int64_t>(d));
      ENGINE_CHECK(size >= b.dims[d].min && size <= b.dims[d].max, Error::InvalidArgument,
                   "PtecEngineBackend: input '%.*s' dim %zu is %lld, outside the engine's profile "
                   "[%lld, %lld]",
                   name_len, b.name, d, static_cast<long long>(size),
                   static_cast<long long>(b.dims[d].min), static_cast<long long>(b.dims[d].max));
      // Dims of one symbol are equal (across inputs too).
      for (size_t j = 0; j <= i; ++j) {
        const EngineBindingView& o = h->bindings[j];
        const runtime::Tensor& ot = args[j]->to_tensor();
        for (size_t e = 0; e < o.rank && e < ot.dim(); ++e) {
          if ((j == i && e >= d) || !same_symbol(b.dims[d], o.dims[e])) continue;
          const int64_t other = ot.size(static_cast<int64_t>(e));
          ENGINE_CHECK(other == size, Error::InvalidArgument,
                       "PtecEngineBackend: input '%.*s' dim %zu is %lld but input '%.*s' dim %zu "
                       "is %lld; both are symbol '%.*s'",
                       name_len, b.name, d, static_cast<long long>(size),
                       static_cast<int>(o.name_size), o.name, e, static_cast<long long>(other),
                       static_cast<int>(b.dims[d].symbol_size), b.dims[d].symbol);
        }
      }
    }
  }
  // The plan built for these sizes.
  for (uint32_t p = 0; p < h->num_plans; ++p) {
    const fb::Graph* g = h->plans[p].graph;
    bool match = true;
    for (size_t i = 0; match && i < h->num_inputs; ++i) {
      const auto* sizes =
          g->tensors()->Get(g->inputs()->Get(static_cast<flatbuffers::uoffset_t>(i)))->sizes();
      const runtime::Tensor& t = args[i]->to_tensor();
      match = sizes != nullptr && sizes->size() == t.dim();
      for (size_t d = 0; match && d < t.dim(); ++d) {
        match =
            sizes->Get(static_cast<flatbuffers::uoffset_t>(d)) == t.size(static_cast<int64_t>(d));
      }
    }
    if (match) return cpu_runtime().execute(context, h->plans[p].handle, args);
  }
  // "input 'image' [1, 3, 96, 40]" for every input, cut short where the buffer ends.
  char sizes[256] = "";
  size_t used = 0;
  auto advance = [&](int n) {
    if (n > 0) used = std::min(sizeof(sizes) - 1, used + static_cast<size_t>(n));
  };
  for (size_t i = 0; i < h->num_inputs; ++i) {
    const runtime::Tensor& t = args[i]->to_tensor();
    advance(std::snprintf(sizes + used, sizeof(sizes) - used, "%sinput '%.*s' [",
                          i == 0 ? "" : ", ", static_cast<int>(h->bindings[i].name_size),
                          h->bindings[i].name));
    for (size_t d = 0; d < t.dim(); ++d) {
      advance(std::snprintf(sizes + used, sizeof(sizes) - used, "%s%lld", d == 0 ? "" : ", ",
                            static_cast<long long>(t.size(static_cast<int64_t>(d)))));
    }
    advance(std::snprintf(sizes + used, sizeof(sizes) - used, "]"));
  }
  PTEC_LOG(Error,
           "PtecEngineBackend: no plan for these sizes (%s): the engine holds %u plans, built at "
           "its profiles' points; compile it with these sizes among them (ptec compile --points "
           "SYMBOL=V1,V2,...)",
           sizes, h->num_plans);
  return Error::NotSupported;
}

void EngineBackendRuntime::destroy(runtime::DelegateHandle* handle) const {
  auto* h = static_cast<Handle*>(handle);
  if (h == nullptr) return;
  for (uint32_t p = 0; p < h->num_plans; ++p) cpu_runtime().destroy(h->plans[p].handle);
  h->num_plans = 0;
}

Error register_engine_backend_runtime() {
  static EngineBackendRuntime backend;
  static const Error result = runtime::register_backend(runtime::Backend{kBackendId, &backend});
  return result;
}

}  // namespace ptec::engine
