#include "export/export_session.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/cpu/runtime/cpu_backend_runtime.h"
#include "ir/exception.h"
#include "kernels/optimized/ops/register.h"
#include "kernels/prim_ops/prim_ops.h"
#include "kernels/quantized/register.h"
#include "partition/lowered_module.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string stage_list(const std::vector<StageType>& stages) {
  std::vector<std::string> names;
  for (StageType s : stages) names.emplace_back(to_string(s));
  return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
}

// The default pipeline for programs at `stage`.
std::vector<StageType> default_pipeline(const ExportRecipe& recipe, ir::Stage stage,
                                        const std::string& name) {
  switch (stage) {
    case ir::Stage::Aten: {
      std::vector<StageType> p;
      if (!recipe.quantization.empty()) p.push_back(StageType::Quantize);
      p.push_back(StageType::ToEdgeTransformAndLower);
      p.push_back(StageType::ToExecutorch);
      return p;
    }
    case ir::Stage::Edge: {
      std::vector<StageType> p;
      // Quantizing needs ATEN: let the validation below name the stage.
      if (!recipe.quantization.empty()) p.push_back(StageType::Quantize);
      if (!recipe.lowering.edge_transform_passes.empty()) p.push_back(StageType::EdgeTransform);
      p.push_back(StageType::ToBackend);
      p.push_back(StageType::ToExecutorch);
      return p;
    }
    case ir::Stage::Lowered: {
      std::vector<StageType> p;
      if (!recipe.quantization.empty()) p.push_back(StageType::Quantize);
      p.push_back(StageType::ToExecutorch);
      return p;
    }
    case ir::Stage::Executorch: break;
  }
  raise(Error::InvalidState,
        "{}: the model is already at stage EXECUTORCH; there is no stage left to run", name);
}

// Checks that `pipeline` can start on programs at `stage` and that every transition is declared.
void validate_pipeline(const std::vector<std::shared_ptr<const ExportStage>>& pipeline,
                       ir::Stage stage, const std::string& name) {
  PTEC_ENFORCE(!pipeline.empty(), InvalidArgument, "{}: the pipeline has no stages", name);
  const ExportStage& first = *pipeline.front();
  PTEC_ENFORCE(first.can_start(), InvalidArgument, "{}: stage {} cannot start a pipeline", name,
               to_string(first.type()));
  const std::vector<ir::Stage> accepted = first.start_program_stages();
  if (std::find(accepted.begin(), accepted.end(), stage) == accepted.end()) {
    std::vector<std::string> names;
    for (ir::Stage s : accepted) names.emplace_back(ir::to_string(s));
    raise(Error::InvalidState,
          "{}: stage {} cannot run on a program at stage {} (it needs a program at stage {})", name,
          to_string(first.type()), ir::to_string(stage), fmt::join(names, " or "));
  }
  for (size_t i = 1; i < pipeline.size(); ++i) {
    const StageType prev = pipeline[i - 1]->type();
    const StageType cur = pipeline[i]->type();
    const std::vector<StageType> preds = pipeline[i]->valid_predecessors();
    if (std::find(preds.begin(), preds.end(), prev) == preds.end()) {
      raise(Error::InvalidArgument, "{}: invalid transition {} -> {} ({} {})", name,
            to_string(prev), to_string(cur), to_string(cur),
            preds.empty() ? std::string("may only start a pipeline")
                          : "may only follow " + stage_list(preds));
    }
  }
}

runtime::OwnedTensor to_owned(const ir::TensorData& t, size_t index, const std::string& method) {
  PTEC_ENFORCE(t.spec.is_static(), InvalidArgument, "method {}: input {} has a symbolic shape {}",
               method, index, t.spec.to_string());
  std::vector<int32_t> sizes;
  for (int64_t s : t.spec.upper_bound_sizes()) sizes.push_back(static_cast<int32_t>(s));
  runtime::OwnedTensor owned(t.spec.dtype, sizes);
  const size_t n = owned.tensor().nbytes();
  PTEC_ENFORCE(t.data != nullptr && t.data->size() == n, InvalidArgument,
               "method {}: input {} ({}) holds {} bytes, expected {}", method, index,
               t.spec.to_string(), t.data ? t.data->size() : 0, n);
  if (n > 0) std::memcpy(owned.tensor().mutable_data_ptr(), t.data->data(), n);
  return owned;
}

void check_runtime(Error error, const std::string& what) {
  PTEC_ENFORCE(error == Error::Ok, InvalidState, "{}: {}", what, ptec::to_string(error));
}

}  // namespace

// run_method's runtime: the .pte in aligned memory (or files, for external data) and a Module.
struct ExportSession::Runner {
  std::unique_ptr<uint8_t[]> storage;
  uint8_t* aligned = nullptr;
  size_t size = 0;
  std::string dir;  // temporary files of a program with external data
  std::unique_ptr<runtime::Module> module;

  ~Runner() {
    module.reset();
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }
};

ExportSession::ExportSession(Model model, ExampleInputs example_inputs, ExportRecipe recipe,
                             ExportOptions options)
    : model_(std::move(model)),
      example_inputs_(std::move(example_inputs)),
      recipe_(std::move(recipe)),
      options_(std::move(options)) {}

ExportSession::~ExportSession() = default;
ExportSession::ExportSession(ExportSession&&) noexcept = default;
ExportSession& ExportSession::operator=(ExportSession&&) noexcept = default;

void ExportSession::clear() {
  pipeline_.clear();
  resolved_inputs_.clear();
  aten_.clear();
  start_stage_.reset();
  edge_.reset();
  executorch_.reset();
  timings_.clear();
  failed_stage_.clear();
  runner_.reset();
}

void ExportSession::run() {
  clear();
  const std::string& name = options_.name;

  // The methods, imported or copied (structure only).
  std::map<std::string, MethodModel> methods;
  if (const auto* path = std::get_if<std::string>(&model_)) {
    methods.emplace("forward", *path);
  } else if (const auto* program = std::get_if<ir::ExportedProgram>(&model_)) {
    methods.emplace("forward", *program);
  } else {
    methods = std::get<std::map<std::string, MethodModel>>(model_);
  }
  PTEC_ENFORCE(!methods.empty(), InvalidArgument, "{}: the model has no methods", name);
  for (const auto& [method, dims] : options_.dynamic_shapes) {
    auto it = methods.find(method);
    PTEC_ENFORCE(it != methods.end(), InvalidArgument,
                 "{}: dynamic_shapes names method '{}', which the model does not have", name,
                 method);
    PTEC_ENFORCE(std::holds_alternative<std::string>(it->second) || dims.empty(), InvalidArgument,
                 "{}: dynamic_shapes for method '{}' apply to ONNX models only (a program's "
                 "shapes are already fixed)",
                 name, method);
  }

  std::map<std::string, ir::ExportedProgram> programs;
  bool imported = false;
  const auto import_start = Clock::now();
  for (auto& [method, source] : methods) {
    if (const auto* path = std::get_if<std::string>(&source)) {
      onnx_import::OnnxImportOptions o;
      if (auto it = options_.dynamic_shapes.find(method); it != options_.dynamic_shapes.end()) {
        o.dynamic_dims = it->second;
      }
      programs.emplace(method, onnx_import::import_onnx(*path, o));
      imported = true;
    } else {
      programs.emplace(method, std::get<ir::ExportedProgram>(std::move(source)));
    }
  }
  if (imported) timings_.push_back({"IMPORT", ms_since(import_start)});

  // Every method at one stage.
  const ir::Stage stage = programs.begin()->second.stage();
  for (const auto& [method, program] : programs) {
    if (program.stage() != stage) {
      std::vector<std::string> stages;
      for (const auto& [m, p] : programs) {
        stages.push_back(fmt::format("{}: {}", m, ir::to_string(p.stage())));
      }
      raise(Error::InvalidArgument, "{}: every method must be at the same stage ({})", name,
            fmt::join(stages, ", "));
    }
  }
  start_stage_ = stage;

  // Example inputs: the caller's, or the program's own.
  for (const auto& [method, sets] : example_inputs_.by_method) {
    PTEC_ENFORCE(programs.count(method), InvalidArgument,
                 "{}: example inputs for method '{}', which the model does not have", name, method);
  }
  for (const auto& [method, sets] : options_.calibration_inputs) {
    PTEC_ENFORCE(programs.count(method), InvalidArgument,
                 "{}: calibration inputs for method '{}', which the model does not have", name,
                 method);
  }
  for (const auto& [method, program] : programs) {
    auto it = example_inputs_.by_method.find(method);
    if (it != example_inputs_.by_method.end() && !it->second.empty()) {
      resolved_inputs_[method] = it->second;
    } else if (!program.example_inputs().empty()) {
      resolved_inputs_[method] = {program.example_inputs()};
    }
  }

  // The pipeline.
  pipeline_ = recipe_.pipeline_stages.empty() ? default_pipeline(recipe_, stage, name)
                                              : recipe_.pipeline_stages;
  // Each stage's implementation: the user's (ExportOptions::stages), else the recipe's
  // (ExportRecipe::stages), else the built-in one.
  for (size_t i = 0; i < recipe_.stages.size(); ++i) {
    PTEC_ENFORCE(recipe_.stages[i] != nullptr, InvalidArgument,
                 "{}: recipe '{}' holds a null stage", name, recipe_.name);
    for (size_t j = 0; j < i; ++j) {
      PTEC_ENFORCE(recipe_.stages[j]->type() != recipe_.stages[i]->type(), InvalidArgument,
                   "{}: recipe '{}' has two implementations of stage {}", name, recipe_.name,
                   to_string(recipe_.stages[i]->type()));
    }
  }
  std::vector<std::shared_ptr<const ExportStage>> stages;
  for (StageType type : pipeline_) {
    std::shared_ptr<const ExportStage> chosen;
    for (const auto& s : recipe_.stages) {
      if (s->type() == type) chosen = s;
    }
    for (const auto& s : options_.stages) {
      PTEC_ENFORCE(s != nullptr, InvalidArgument, "{}: ExportOptions::stages holds a null stage",
                   name);
      if (s->type() == type) chosen = s;
    }
    if (!chosen) {
      try {
        chosen = builtin_stage(type);
      } catch (const Exception& e) {
        throw Exception(e.code(), fmt::format("{}: {}", name, e.what()));
      }
    }
    stages.push_back(std::move(chosen));
  }
  validate_pipeline(stages, stage, name);
  PTEC_ENFORCE(!options_.generate_etrecord || stage == ir::Stage::Aten, NotSupported,
               "{}: generate_etrecord needs a model at stage ATEN (the record holds the ATEN "
               "programs); this one is at stage {}",
               name, ir::to_string(stage));

  PipelineArtifact artifact;
  if (stage == ir::Stage::Aten) {
    aten_ = programs;
    artifact.aten = std::move(programs);
  } else {
    std::map<std::string, program::ProgramPtr> ptrs;
    for (auto& [method, program] : programs) {
      ptrs.emplace(method, std::make_shared<const ir::ExportedProgram>(std::move(program)));
    }
    edge_.emplace(std::move(ptrs), options_.constant_methods, recipe_.lowering.edge_compile_config);
    artifact.edge = edge_;
  }

  const StageContext context{recipe_, options_, resolved_inputs_};
  for (const auto& stage_ptr : stages) {
    const StageType type = stage_ptr->type();
    const auto start = Clock::now();
    try {
      artifact = stage_ptr->run(artifact, context);
    } catch (const Exception& e) {
      failed_stage_ = to_string(type);
      throw Exception(e.code(), fmt::format("{}: stage {}: {}", name, to_string(type), e.what()));
    }
    timings_.push_back({to_string(type), ms_since(start)});
    // A stage that stays at ATEN (QUANTIZE, ENGINE_COMPILE) gives the programs
    // get_exported_program returns.
    if (!artifact.edge && !artifact.executorch && !artifact.aten.empty()) aten_ = artifact.aten;
    if (artifact.edge) edge_ = artifact.edge;
    if (artifact.executorch) executorch_ = artifact.executorch;
  }

  if (!options_.artifact_dir.empty() && executorch_) {
    const std::filesystem::path dir(options_.artifact_dir);
    std::filesystem::create_directories(dir);
    (void)save_pte_file((dir / (name + ".pte")).string());
    if (executorch_->has_etrecord()) {
      executorch_->get_etrecord().save((dir / (name + ".etrecord")).string());
    }
  }
}

std::string ExportSession::missing(const char* what, const std::string& stages) const {
  std::string why =
      fmt::format("{}: {} is not available: stage {} has not run", options_.name, what, stages);
  if (!failed_stage_.empty())
    why += fmt::format(" (the last run failed at stage {})", failed_stage_);
  else if (!start_stage_)
    why += " (call run() or export_model first)";
  return why;
}

const ir::ExportedProgram& ExportSession::get_exported_program(const std::string& method) const {
  if (aten_.empty()) {
    if (start_stage_ && *start_stage_ != ir::Stage::Aten) {
      raise(Error::InvalidState,
            "{}: no ATEN program: the model came in at stage {} (use get_edge_program_manager)",
            options_.name, ir::to_string(*start_stage_));
    }
    raise(Error::InvalidState, "{}", missing("the ATEN program", "IMPORT"));
  }
  auto it = aten_.find(method);
  if (it == aten_.end()) {
    std::vector<std::string> names;
    for (const auto& [m, p] : aten_) names.push_back(m);
    raise(Error::NotFound, "{}: no method '{}' (methods: {})", options_.name, method,
          fmt::join(names, ", "));
  }
  return it->second;
}

const program::EdgeProgramManager& ExportSession::get_edge_program_manager() const {
  if (!edge_) {
    raise(Error::InvalidState, "{}",
          missing("the Edge program manager", "TO_EDGE (or TO_EDGE_TRANSFORM_AND_LOWER)"));
  }
  return *edge_;
}

const program::ExecutorchProgramManager& ExportSession::get_executorch_program_manager() const {
  if (!executorch_) {
    raise(Error::InvalidState, "{}", missing("the ExecuTorch program manager", "TO_EXECUTORCH"));
  }
  return *executorch_;
}

std::vector<uint8_t> ExportSession::get_pte_buffer() const {
  if (!executorch_) raise(Error::InvalidState, "{}", missing("the .pte buffer", "TO_EXECUTORCH"));
  return executorch_->buffer();
}

const devtools::ETRecord& ExportSession::get_etrecord() const {
  if (!executorch_) raise(Error::InvalidState, "{}", missing("the ETRecord", "TO_EXECUTORCH"));
  PTEC_ENFORCE(executorch_->has_etrecord(), InvalidState,
               "{}: there is no ETRecord: export ran without ExportOptions::generate_etrecord",
               options_.name);
  return executorch_->get_etrecord();
}

std::string ExportSession::save_pte_file(const std::string& path) const {
  if (!executorch_) raise(Error::InvalidState, "{}", missing("the .pte", "TO_EXECUTORCH"));
  std::filesystem::path p(path);
  if (p.extension() != ".pte") p += ".pte";
  // write_to_file writes the .ptd of the same stem beside it when there is external data.
  executorch_->write_to_file(p.string());
  return p.string();
}

std::vector<ir::TensorData> ExportSession::run_method(const std::string& method,
                                                      const std::optional<InputSet>& inputs) {
  if (!executorch_) raise(Error::InvalidState, "{}", missing("run_method", "TO_EXECUTORCH"));
  const std::vector<std::string> names = executorch_->methods();
  PTEC_ENFORCE(std::find(names.begin(), names.end(), method) != names.end(), NotFound,
               "{}: no method '{}' (methods: {})", options_.name, method, fmt::join(names, ", "));
  InputSet given;
  if (inputs) {
    given = *inputs;
  } else {
    auto it = resolved_inputs_.find(method);
    PTEC_ENFORCE(it != resolved_inputs_.end() && !it->second.empty(), InvalidArgument,
                 "{}: method {} has no example inputs; pass the inputs to run_method",
                 options_.name, method);
    given = it->second.front();
  }

  // The optimized kernels (portable ones for the other operators), unless the process already
  // registered a kernel library (e.g. the portable kernels alone): names cannot be registered
  // twice.
  if (!runtime::has_op_function("aten::add.out")) {
    check_runtime(kernels::register_optimized_kernels(), "registering the kernels");
  }
  check_runtime(kernels::register_quantized_kernels(), "registering the quantized kernels");
  check_runtime(kernels::register_prim_ops(), "registering the prim ops");
  check_runtime(backends::cpu::register_cpu_backend_runtime(), "registering PtecCpuBackend");

  if (!runner_) {
    auto runner = std::make_unique<Runner>();
    if (executorch_->has_external_tensor_data()) {
      // The runtime reads external data from a .ptd file: write both to a private directory.
      std::string tmpl = (std::filesystem::temp_directory_path() / "ptec-session-XXXXXX").string();
      PTEC_ENFORCE(mkdtemp(tmpl.data()) != nullptr, AccessFailed,
                   "{}: cannot create a temporary directory for run_method", options_.name);
      runner->dir = tmpl;
      const std::string pte = (std::filesystem::path(tmpl) / "model.pte").string();
      executorch_->write_to_file(pte);
      runner->module = std::make_unique<runtime::Module>(
          pte, (std::filesystem::path(tmpl) / "model.ptd").string());
    } else {
      const std::vector<uint8_t> bytes = executorch_->buffer();
      runner->storage.reset(new uint8_t[bytes.size() + 64]);
      const auto addr = reinterpret_cast<uintptr_t>(runner->storage.get());
      runner->aligned = runner->storage.get() + ((64 - addr % 64) % 64);
      runner->size = bytes.size();
      std::memcpy(runner->aligned, bytes.data(), bytes.size());
      runner->module = std::make_unique<runtime::Module>(runner->aligned, runner->size);
    }
    check_runtime(runner->module->load(), fmt::format("{}: loading the program", options_.name));
    runner_ = std::move(runner);
  }

  std::vector<runtime::OwnedTensor> owned;
  owned.reserve(given.size());
  std::vector<runtime::EValue> args;
  for (size_t i = 0; i < given.size(); ++i) {
    owned.push_back(to_owned(given[i], i, method));
    args.push_back(owned.back().evalue());
  }
  auto result = runner_->module->execute(method, args);
  check_runtime(result.error(), fmt::format("{}: executing method {}", options_.name, method));

  std::vector<ir::TensorData> outputs;
  for (size_t i = 0; i < result->size(); ++i) {
    const runtime::EValue& v = (*result)[i];
    PTEC_ENFORCE(v.is_tensor(), NotSupported,
                 "{}: output {} of method {} is not a tensor (run_method returns tensors only)",
                 options_.name, i, method);
    const runtime::Tensor& t = v.to_tensor();
    std::vector<int64_t> sizes;
    for (size_t d = 0; d < t.dim(); ++d) sizes.push_back(t.size(static_cast<int64_t>(d)));
    outputs.push_back(ir::TensorData{ir::TensorSpec(t.dtype(), sizes),
                                     ir::Buffer::copy_of(t.const_data_ptr(), t.nbytes())});
  }
  return outputs;
}

std::map<std::string, DelegationInfo> ExportSession::delegation_info() const {
  const program::EdgeProgramManager& edge = get_edge_program_manager();
  std::map<std::string, DelegationInfo> out;
  for (const std::string& method : edge.methods()) {
    const ir::ExportedProgram& program = edge.exported_program(method);
    DelegationInfo info;
    for (const auto& [object_name, object] : program.custom_objects()) {
      if (object.type != partition::kLoweredModuleType) continue;
      const partition::LoweredModule module = partition::load_lowered_module(program, object_name);
      info.delegates[module.backend_id] += 1;
      info.delegated_ops[module.backend_id] += module.debug_handles.size();
    }
    for (const ir::Node* node : program.graph().nodes()) {
      if (!node->is_call() || node->is_op("executorch_call_delegate")) continue;
      // Outputs of a delegate are read with getitem; they are not ops of their own.
      if (node->target().find("getitem") != std::string::npos) continue;
      ++info.non_delegated_ops;
    }
    out.emplace(method, std::move(info));
  }
  return out;
}

void ExportSession::print_delegation_info(std::ostream& os) const {
  for (const auto& [method, info] : delegation_info()) {
    os << "method " << method << ":\n";
    for (const auto& [backend, count] : info.delegates) {
      os << fmt::format("  {:<24} {:>4} delegates {:>6} ops\n", backend, count,
                        info.delegated_ops.at(backend));
    }
    os << fmt::format("  {:<24} {:>4}           {:>6} ops\n", "(kernels)", "",
                      info.non_delegated_ops);
  }
}

void ExportSession::print_delegation_info() const { print_delegation_info(std::cout); }

ExportSession export_model(Model model, ExampleInputs example_inputs, ExportRecipe recipe,
                           ExportOptions options) {
  ExportSession session(std::move(model), std::move(example_inputs), std::move(recipe),
                        std::move(options));
  session.run();
  return session;
}

}  // namespace ptec
