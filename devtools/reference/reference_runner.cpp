#include "devtools/reference/reference_runner.h"

#include <cstring>
#include <exception>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "emit/emitted_program.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "kernels/portable/register.h"
#include "kernels/prim_ops/prim_ops.h"
#include "kernels/quantized/register.h"
#include "program/edge_program_manager.h"
#include "program/to_edge.h"
#include "runtime/core/event_tracer.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::devtools {
namespace {

namespace fb = executorch_flatbuffer;

constexpr const char* kMethod = "forward";

bool is_delegate_call(const ir::Node& node) {
  return node.is_call() && node.op() != nullptr && node.op()->ns.empty() &&
         node.op()->name == "executorch_call_delegate";
}

bool is_getitem(const ir::Node& node) {
  return node.is_call() && node.op() != nullptr && node.op()->ns.empty() &&
         node.op()->name == "getitem";
}

/// The kernels a reference run may use: portable, quantized_decomposed and prim ops.
std::map<std::string, const runtime::Kernel*> reference_kernels() {
  std::map<std::string, const runtime::Kernel*> out;
  for (Span<const runtime::Kernel> table :
       {kernels::portable_kernels(), kernels::quantized_kernels(), kernels::prim_op_kernels()}) {
    for (const runtime::Kernel& k : table) out.emplace(k.name, &k);
  }
  return out;
}

void check_runtime(Error error, const std::string& what) {
  PTEC_ENFORCE(error == Error::Ok, InvalidState, "{}: {}", what, ptec::to_string(error));
}

/// Registers the reference kernels that nothing registered yet: the libraries' own calls when the
/// registry is empty of them (so later calls of those stay idempotent), else one by one.
void ensure_reference_kernels_registered() {
  if (!runtime::has_op_function("aten::add.out")) (void)kernels::register_portable_kernels();
  if (!runtime::has_op_function("quantized_decomposed::quantize_per_tensor.out")) {
    (void)kernels::register_quantized_kernels();
  }
  if (!runtime::has_op_function("aten::sym_size.int")) (void)kernels::register_prim_ops();
  std::vector<runtime::Kernel> missing;
  for (Span<const runtime::Kernel> table :
       {kernels::portable_kernels(), kernels::quantized_kernels(), kernels::prim_op_kernels()}) {
    for (const runtime::Kernel& k : table) {
      if (!runtime::has_op_function(k.name)) missing.push_back(k);
    }
  }
  if (!missing.empty()) {
    check_runtime(runtime::register_kernels({missing.data(), missing.size()}),
                  "reference runner: registering the portable kernels");
  }
}

/// Puts the reference kernels in place of other kernels registered under their names for its
/// lifetime (while a method loads and resolves its kernels).
class PinnedKernels {
 public:
  explicit PinnedKernels(const std::map<std::string, const runtime::Kernel*>& wanted) {
    for (const auto& [name, kernel] : wanted) {
      const runtime::OpFunction current = runtime::get_op_function(kernel->name);
      if (current == nullptr || current == kernel->fn) continue;
      runtime::OpFunction previous = nullptr;
      if (runtime::replace_kernel(kernel->name, kernel->fn, &previous) == Error::Ok) {
        restore_.emplace_back(kernel->name, previous);
      }
    }
  }
  ~PinnedKernels() {
    for (const auto& [name, fn] : restore_) (void)runtime::replace_kernel(name, fn);
  }
  PinnedKernels(const PinnedKernels&) = delete;
  PinnedKernels& operator=(const PinnedKernels&) = delete;

 private:
  std::vector<std::pair<const char*, runtime::OpFunction>> restore_;
};

ir::TensorData copy_tensor(const runtime::Tensor& t) {
  std::vector<int64_t> sizes;
  sizes.reserve(t.dim());
  for (size_t d = 0; d < t.dim(); ++d) sizes.push_back(t.size(static_cast<int64_t>(d)));
  return ir::TensorData{ir::TensorSpec(t.dtype(), sizes),
                        ir::Buffer::copy_of(t.const_data_ptr(), t.nbytes())};
}

/// A getitem node of the given program observed through the node it selects from.
struct Selection {
  const ir::Node* node;
  size_t index;
};

/// What one instruction's out value is, in terms of the given program.
struct InstructionTargets {
  std::vector<const ir::Node*> nodes;
  std::vector<Selection> selections;
};

}  // namespace

/// Receives each kernel's out value and hands it to the visitor as the given program's nodes.
class ReferenceTracer final : public runtime::EventTracer {
 public:
  const std::map<int64_t, InstructionTargets>* targets = nullptr;
  const ObserveFn* visitor = nullptr;
  std::exception_ptr error;

  Error log_evalue(const runtime::EValue& value, runtime::LoggedEValueType type,
                   runtime::ChainID chain_id, runtime::InstructionID instruction_id) override {
    if (type != runtime::LoggedEValueType::IntermediateOutput || chain_id != 0 ||
        visitor == nullptr || !*visitor || error) {
      return Error::Ok;
    }
    auto it = targets->find(instruction_id);
    if (it == targets->end()) return Error::Ok;
    // The runtime is built without exceptions: nothing may unwind through it.
    try {
      std::vector<ir::TensorData> outputs;
      if (value.is_tensor()) {
        outputs.push_back(copy_tensor(value.to_tensor()));
      } else if (value.is_tensor_list()) {
        for (const runtime::Tensor& t : value.to_tensor_list()) outputs.push_back(copy_tensor(t));
      } else {
        return Error::Ok;  // no tensor (prim ops)
      }
      for (const ir::Node* node : it->second.nodes) {
        (*visitor)(ObservedOutput{node, node->name(), node->debug_handle(), outputs});
      }
      for (const Selection& s : it->second.selections) {
        if (s.index >= outputs.size()) continue;
        (*visitor)(
            ObservedOutput{s.node, s.node->name(), s.node->debug_handle(), {outputs[s.index]}});
      }
    } catch (...) {
      error = std::current_exception();
    }
    return Error::Ok;
  }
};

struct ReferenceRunner::Impl {
  const ir::ExportedProgram& program;
  std::string name;
  std::vector<uint8_t> pte;
  std::unique_ptr<uint8_t[]> aligned_storage;
  const uint8_t* data = nullptr;
  std::vector<ir::TensorSpec> input_specs;
  std::vector<std::string> input_names;
  std::map<int64_t, InstructionTargets> targets;
  std::vector<const ir::Node*> observed;
  ReferenceTracer tracer;
  std::unique_ptr<runtime::Module> module;

  Impl(const ir::ExportedProgram& p, const ReferenceRunOptions& options) : program(p) {
    name = options.name.empty() ? fmt::format("program {}", p.uuid()) : options.name;
  }
};

ReferenceRunner::ReferenceRunner(const ir::ExportedProgram& program,
                                 const ReferenceRunOptions& options)
    : impl_(std::make_unique<Impl>(program, options)) {
  Impl& m = *impl_;
  PTEC_ENFORCE(program.stage() == ir::Stage::Aten || program.stage() == ir::Stage::Edge,
               InvalidArgument,
               "reference run of {}: the program is at stage {}; give its ATEN or EDGE program "
               "(before partitioning)",
               m.name, ir::to_string(program.stage()));
  for (const ir::Node* node : program.graph().nodes()) {
    PTEC_ENFORCE(!is_delegate_call(*node), InvalidArgument,
                 "reference run of {}: node %{} calls a delegate; give the program before "
                 "partitioning",
                 m.name, node->name());
  }

  // The pipeline: a structure copy (to_edge copies too), to_executorch on the portable path.
  auto edge = std::make_shared<const ir::ExportedProgram>(program.stage() == ir::Stage::Aten
                                                              ? program::to_edge(program)
                                                              : ir::ExportedProgram(program));
  program::EdgeProgramManager manager({{kMethod, edge}});
  program::ExecutorchProgramManager et = manager.to_executorch();
  const ir::ExportedProgram& lowered = et.exported_program(kMethod);

  // Nodes of the lowered program → the given program's nodes whose value they compute.
  std::map<const ir::Node*, std::vector<const ir::Node*>> origin;
  std::map<const ir::Node*, const ir::Node*> decomposed;  // given node → last node computing it
  std::set<const ir::Node*> kept;
  for (const ir::Node* node : lowered.graph().nodes()) {
    if (!node->is_call()) continue;
    const ir::Node* same = program.graph().find(node->name());
    if (same != nullptr && same->is_call() && same->debug_handle() == node->debug_handle()) {
      origin[node].push_back(same);
      kept.insert(same);
      continue;
    }
    auto from = node->meta().extra.find("from_node");
    if (from == node->meta().extra.end()) continue;
    const ir::Node* source = program.graph().find(from->second);
    if (source != nullptr && source->is_call()) decomposed[source] = node;
  }
  for (const auto& [source, node] : decomposed) {
    if (!kept.contains(source)) origin[node].push_back(source);
  }
  std::map<int64_t, const ir::Node*> by_handle;
  for (const ir::Node* node : lowered.graph().nodes()) by_handle[node->debug_handle()] = node;

  const emit::EmittedMethod& method = et.emitted().method(kMethod);
  std::set<const ir::Node*> observed;
  for (const auto& [instruction, handle] : method.debug_handle_map) {
    auto node = by_handle.find(handle);
    if (node == by_handle.end()) continue;
    auto given = origin.find(node->second);
    if (given == origin.end()) continue;
    InstructionTargets& t = m.targets[instruction];
    for (const ir::Node* n : given->second) {
      if (n->meta().val.empty()) continue;  // produces no tensor
      t.nodes.push_back(n);
      observed.insert(n);
      for (const ir::Node* user : n->users()) {
        if (is_getitem(*user) && user->args().size() >= 2 && user->arg(0).is_node() &&
            user->arg(0).as_node() == n && user->arg(1).is_int() && user->arg(1).as_int() >= 0) {
          t.selections.push_back({user, static_cast<size_t>(user->arg(1).as_int())});
          observed.insert(user);
        }
      }
    }
  }
  for (const ir::Node* node : program.graph().nodes()) {
    if (observed.contains(node)) m.observed.push_back(node);
  }

  // Every kernel must be a reference kernel.
  const auto wanted = reference_kernels();
  const fb::ProgramT& fbp = *et.emitted().program;
  for (const auto& plan : fbp.execution_plan) {
    if (plan->name != kMethod) continue;
    for (size_t i = 0; i < plan->chains.at(0)->instructions.size(); ++i) {
      const fb::KernelCallT* call = plan->chains[0]->instructions[i]->instr_args.AsKernelCall();
      if (call == nullptr) continue;
      const fb::OperatorT& op = *plan->operators.at(static_cast<size_t>(call->op_index));
      const std::string kernel = op.overload.empty() ? op.name : op.name + "." + op.overload;
      if (wanted.contains(kernel)) continue;
      std::string node_name = "?";
      std::string op_name = op.name;
      if (auto h = method.debug_handle_map.find(static_cast<int64_t>(i));
          h != method.debug_handle_map.end()) {
        if (auto n = by_handle.find(h->second); n != by_handle.end()) {
          auto given = origin.find(n->second);
          const ir::Node* shown = given != origin.end() ? given->second.front() : n->second;
          node_name = shown->name();
          op_name = shown->target();
        }
      }
      raise(Error::NotSupported,
            "reference run of {}: node %{} ({}) has no portable kernel ({} is not a portable, "
            "quantized_decomposed or prim-op kernel)",
            m.name, node_name, op_name, kernel);
    }
  }

  // User inputs, for checking what run() gets.
  const std::vector<std::string> user_inputs = lowered.signature().user_inputs();
  for (const std::string& input : user_inputs) {
    const ir::Node& node = lowered.graph().get(input);
    m.input_names.push_back(input);
    m.input_specs.push_back(node.meta().val.empty() ? ir::TensorSpec() : node.spec());
  }

  // The .pte in memory (the one copy of the weights), loaded with the reference kernels.
  m.pte = et.buffer();
  m.data = m.pte.data();
  const size_t size = m.pte.size();
  if (reinterpret_cast<uintptr_t>(m.data) % 16 != 0) {  // operator new aligns to 16 in practice
    m.aligned_storage.reset(new uint8_t[size + 16]);
    const auto addr = reinterpret_cast<uintptr_t>(m.aligned_storage.get());
    uint8_t* aligned = m.aligned_storage.get() + ((16 - addr % 16) % 16);
    std::memcpy(aligned, m.pte.data(), size);
    m.pte = {};
    m.data = aligned;
  }
  m.tracer.targets = &m.targets;
  ensure_reference_kernels_registered();
  m.module = std::make_unique<runtime::Module>(m.data, size, &m.tracer);
  check_runtime(m.module->load(), fmt::format("reference run of {}: loading the program", m.name));
  PinnedKernels pinned(wanted);
  check_runtime(m.module->load_method(kMethod),
                fmt::format("reference run of {}: loading the method", m.name));
}

ReferenceRunner::~ReferenceRunner() = default;

std::vector<const ir::Node*> ReferenceRunner::observed_nodes() const { return impl_->observed; }

const std::string& ReferenceRunner::name() const { return impl_->name; }

std::vector<ir::TensorData> ReferenceRunner::run(const std::vector<ir::TensorData>& inputs,
                                                 const ObserveFn& on_node_output) {
  Impl& m = *impl_;
  PTEC_ENFORCE(inputs.size() == m.input_specs.size(), InvalidArgument,
               "reference run of {}: {} inputs given, the program takes {}", m.name, inputs.size(),
               m.input_specs.size());
  std::vector<runtime::OwnedTensor> owned;
  owned.reserve(inputs.size());
  std::vector<runtime::EValue> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::TensorData& t = inputs[i];
    const ir::TensorSpec& want = m.input_specs[i];
    PTEC_ENFORCE(t.spec.is_static(), InvalidArgument,
                 "reference run of {}: input {} ({}) has a symbolic shape {}", m.name, i,
                 m.input_names[i], t.spec.to_string());
    PTEC_ENFORCE(t.spec.dtype == want.dtype && t.spec.shape.size() == want.shape.size(),
                 InvalidArgument, "reference run of {}: input {} ({}) is {}, the program takes {}",
                 m.name, i, m.input_names[i], t.spec.to_string(), want.to_string());
    std::vector<int32_t> sizes;
    for (int64_t s : t.spec.upper_bound_sizes()) sizes.push_back(static_cast<int32_t>(s));
    owned.emplace_back(t.spec.dtype, sizes);
    const size_t n = owned.back().tensor().nbytes();
    PTEC_ENFORCE(t.data != nullptr && t.data->size() == n, InvalidArgument,
                 "reference run of {}: input {} ({}) holds {} bytes, {} expected", m.name, i,
                 m.input_names[i], t.data ? t.data->size() : 0, n);
    if (n > 0) std::memcpy(owned.back().tensor().mutable_data_ptr(), t.data->data(), n);
  }
  for (runtime::OwnedTensor& o : owned) args.push_back(o.evalue());

  m.tracer.visitor = &on_node_output;
  m.tracer.error = nullptr;
  m.tracer.set_event_tracer_debug_level(on_node_output
                                            ? runtime::EventTracerDebugLogLevel::IntermediateOutputs
                                            : runtime::EventTracerDebugLogLevel::NoLogging);
  auto result = m.module->execute(kMethod, args);
  m.tracer.visitor = nullptr;
  if (m.tracer.error) std::rethrow_exception(m.tracer.error);
  check_runtime(result.error(), fmt::format("reference run of {}: executing the program", m.name));

  std::vector<ir::TensorData> outputs;
  for (size_t i = 0; i < result->size(); ++i) {
    const runtime::EValue& v = (*result)[i];
    PTEC_ENFORCE(v.is_tensor(), NotSupported,
                 "reference run of {}: output {} is not a tensor (the runner returns tensors)",
                 m.name, i);
    outputs.push_back(copy_tensor(v.to_tensor()));
  }
  return outputs;
}

std::vector<ir::TensorData> run_reference(const ir::ExportedProgram& program,
                                          const std::vector<ir::TensorData>& inputs,
                                          const ObserveFn& on_node_output,
                                          const ReferenceRunOptions& options) {
  ReferenceRunner runner(program, options);
  return runner.run(inputs, on_node_output);
}

}  // namespace ptec::devtools
