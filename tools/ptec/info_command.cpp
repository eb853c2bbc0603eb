// `ptec info`: methods, inputs and outputs, instructions by operator, delegates, constants and the
// memory plan of a .pte file, read straight from its flatbuffer (verified first).

#include <flatbuffers/flatbuffers.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/dtype.h"
#include "ir/buffer.h"
#include "ir/exception.h"
#include "schema/extended_header.h"
#include "schema/program_generated.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/dynamic_dims.h"

namespace ptec::cli {
namespace {

namespace fb = executorch_flatbuffer;
using nlohmann::ordered_json;

std::string dtype_name(fb::ScalarType t) {
  const auto v = static_cast<int64_t>(t);
  return is_valid_dtype(v) ? to_string(static_cast<DType>(v)) : fmt::format("dtype{}", v);
}

ordered_json describe_value(const fb::ExecutionPlan& plan, int32_t index) {
  ordered_json v;
  if (plan.values() == nullptr || index < 0 ||
      static_cast<uint32_t>(index) >= plan.values()->size()) {
    v["kind"] = "invalid";
    return v;
  }
  const fb::EValue* value = plan.values()->Get(static_cast<uint32_t>(index));
  switch (value->val_type()) {
    case fb::KernelTypes::Tensor: {
      const fb::Tensor* t = value->val_as_Tensor();
      v["kind"] = "tensor";
      v["dtype"] = dtype_name(t->scalar_type());
      ordered_json sizes = ordered_json::array();
      if (t->sizes() != nullptr) {
        for (int32_t s : *t->sizes()) sizes.push_back(s);
      }
      v["shape"] = sizes;
      if (t->shape_dynamism() != fb::TensorShapeDynamism::STATIC) v["dynamic"] = true;
      break;
    }
    case fb::KernelTypes::Int:
      v = {{"kind", "int"}, {"value", value->val_as_Int()->int_val()}};
      break;
    case fb::KernelTypes::Double:
      v = {{"kind", "double"}, {"value", value->val_as_Double()->double_val()}};
      break;
    case fb::KernelTypes::Bool:
      v = {{"kind", "bool"}, {"value", value->val_as_Bool()->bool_val()}};
      break;
    case fb::KernelTypes::String: {
      const auto* s = value->val_as_String()->string_val();
      v = {{"kind", "string"}, {"value", s == nullptr ? "" : s->str()}};
      break;
    }
    default: v["kind"] = fb::EnumNameKernelTypes(value->val_type());
  }
  return v;
}

std::string value_text(const ordered_json& v) {
  if (v["kind"] == "tensor") {
    std::string shape;
    for (const auto& s : v["shape"]) shape += (shape.empty() ? "" : ", ") + s.dump();
    return fmt::format("{}[{}]{}", v["dtype"].get<std::string>(), shape,
                       v.contains("dynamic") ? " (dynamic, upper bounds)" : "");
  }
  if (v.contains("value"))
    return fmt::format("{} {}", v["kind"].get<std::string>(), v["value"].dump());
  return v["kind"].get<std::string>();
}

}  // namespace

int run_info(const InfoArgs& args) {
  const ir::BufferPtr file = ir::Buffer::map_file(args.program);
  const uint8_t* data = file->data();
  const size_t size = file->size();
  PTEC_ENFORCE(size >= 8, InvalidProgram, "{}: file of {} bytes is too small for a program",
               args.program, size);

  size_t program_size = size;
  uint64_t segment_base = 0;
  uint64_t segment_data_size = 0;
  auto header = schema::ExtendedHeader::parse(data, size);
  if (header.ok()) {
    program_size = header->program_size;
    segment_base = header->segment_base_offset;
    segment_data_size = header->segment_data_size;
    PTEC_ENFORCE(program_size <= size, InvalidProgram,
                 "{}: header says the program has {} bytes but the file has {}", args.program,
                 program_size, size);
  } else {
    PTEC_ENFORCE(header.error() == Error::NotFound, InvalidProgram, "{}: malformed extended header",
                 args.program);
  }
  PTEC_ENFORCE(fb::ProgramBufferHasIdentifier(data), InvalidProgram,
               "{}: not an ExecuTorch program (identifier ET12 missing)", args.program);
  flatbuffers::Verifier verifier(data, program_size);
  PTEC_ENFORCE(fb::VerifyProgramBuffer(verifier), InvalidProgram,
               "{}: the program flatbuffer is malformed", args.program);
  const fb::Program* program = fb::GetProgram(data);

  ordered_json out;
  out["file"] = args.program;
  out["file_size"] = size;
  out["program_size"] = program_size;
  out["extended_header"] = header.ok();
  out["segment_base_offset"] = segment_base;
  out["segment_data_size"] = segment_data_size;

  uint64_t constant_bytes = 0;
  size_t num_constants = 0;
  if (program->constant_segment() != nullptr && program->constant_segment()->offsets() != nullptr &&
      program->constant_segment()->offsets()->size() > 0) {
    num_constants = program->constant_segment()->offsets()->size() - 1;  // [0] is a placeholder
    const uint32_t seg = program->constant_segment()->segment_index();
    if (num_constants > 0 && program->segments() != nullptr && seg < program->segments()->size()) {
      constant_bytes = program->segments()->Get(seg)->size();
    }
  }
  out["constants"] = {{"count", num_constants}, {"segment_bytes", constant_bytes}};
  // Named data: blobs backends read at init (e.g. PtecCpuBackend's weights), each in a segment
  // (keys with the same bytes share one: counted once).
  size_t num_named = 0;
  uint64_t named_bytes = 0;
  if (program->named_data() != nullptr) {
    std::set<uint32_t> segments;
    for (const fb::NamedData* nd : *program->named_data()) {
      ++num_named;
      if (program->segments() != nullptr && nd->segment_index() < program->segments()->size() &&
          segments.insert(nd->segment_index()).second) {
        named_bytes += program->segments()->Get(nd->segment_index())->size();
      }
    }
  }
  out["named_data"] = {{"count", num_named}, {"bytes", named_bytes}};
  const size_t legacy_constants =
      program->constant_buffer() == nullptr ? 0 : program->constant_buffer()->size();
  if (legacy_constants > 0) out["deprecated_constant_buffer"] = legacy_constants;

  ordered_json methods = ordered_json::array();
  if (program->execution_plan() != nullptr) {
    for (const fb::ExecutionPlan* plan : *program->execution_plan()) {
      ordered_json m;
      m["name"] = plan->name() == nullptr ? "" : plan->name()->str();
      ordered_json inputs = ordered_json::array();
      ordered_json outputs = ordered_json::array();
      if (plan->inputs() != nullptr) {
        for (int32_t i : *plan->inputs()) inputs.push_back(describe_value(*plan, i));
      }
      if (plan->outputs() != nullptr) {
        for (int32_t i : *plan->outputs()) outputs.push_back(describe_value(*plan, i));
      }
      m["inputs"] = inputs;
      m["outputs"] = outputs;

      std::map<std::string, int> by_operator;
      size_t instructions = 0;
      size_t delegate_calls = 0;
      if (plan->chains() != nullptr) {
        for (const fb::Chain* chain : *plan->chains()) {
          if (chain->instructions() == nullptr) continue;
          for (const fb::Instruction* ins : *chain->instructions()) {
            ++instructions;
            if (ins->instr_args_type() == fb::InstructionArguments::KernelCall) {
              const auto op_index = ins->instr_args_as_KernelCall()->op_index();
              std::string name = "<invalid operator>";
              if (plan->operators() != nullptr && op_index >= 0 &&
                  static_cast<uint32_t>(op_index) < plan->operators()->size()) {
                const fb::Operator* op = plan->operators()->Get(static_cast<uint32_t>(op_index));
                name = op->name() == nullptr ? "" : op->name()->str();
                if (op->overload() != nullptr && op->overload()->size() > 0) {
                  name += "." + op->overload()->str();
                }
              }
              ++by_operator[name];
            } else if (ins->instr_args_type() == fb::InstructionArguments::DelegateCall) {
              ++delegate_calls;
            } else {
              ++by_operator[fb::EnumNameInstructionArguments(ins->instr_args_type())];
            }
          }
        }
      }
      m["instructions"] = instructions;
      m["operators"] = by_operator;
      ordered_json delegates = ordered_json::array();
      if (plan->delegates() != nullptr) {
        for (const fb::BackendDelegate* d : *plan->delegates()) {
          ordered_json dj;
          dj["backend_id"] = d->id() == nullptr ? "" : d->id()->str();
          if (d->processed() != nullptr) {
            const bool is_inline = d->processed()->location() == fb::DataLocation::INLINE;
            const uint32_t index = d->processed()->index();
            dj["location"] = is_inline ? "inline" : "segment";
            dj["index"] = index;
            // Size of the blob (from the inline table or the segment table).
            if (is_inline && program->backend_delegate_data() != nullptr &&
                index < program->backend_delegate_data()->size() &&
                program->backend_delegate_data()->Get(index)->data() != nullptr) {
              dj["size"] = program->backend_delegate_data()->Get(index)->data()->size();
            } else if (!is_inline && program->segments() != nullptr &&
                       index < program->segments()->size()) {
              dj["size"] = program->segments()->Get(index)->size();
            }
          }
          if (d->compile_specs() != nullptr) dj["compile_specs"] = d->compile_specs()->size();
          delegates.push_back(dj);
        }
      }
      m["delegate_calls"] = delegate_calls;
      m["delegates"] = delegates;
      ordered_json arenas = ordered_json::array();
      if (plan->non_const_buffer_sizes() != nullptr) {
        for (uint32_t i = 1; i < plan->non_const_buffer_sizes()->size(); ++i) {
          arenas.push_back({{"memory_id", i}, {"bytes", plan->non_const_buffer_sizes()->Get(i)}});
        }
      }
      m["planned_memory"] = arenas;
      methods.push_back(m);
    }
  }
  // The dynamic-dim records that `ptec export` stores as a constant method: attach each to its
  // method's input.
  for (const auto& m : methods) {
    if (m["name"] != kDynamicDimsMethod || m["outputs"].size() != 1) continue;
    const ordered_json& o = m["outputs"][0];
    if (o.value("kind", "") != "string") continue;
    for (const DynamicDimRecord& r : decode_dynamic_dims(o["value"].get<std::string>())) {
      for (auto& target : methods) {
        if (target["name"] != r.method || r.input_index >= target["inputs"].size()) continue;
        target["inputs"][r.input_index]["name"] = r.input;
        ordered_json dim{{"axis", r.axis}, {"symbol", r.symbol}, {"min", r.min}, {"max", r.max}};
        if (r.multiple > 1) dim["multiple"] = r.multiple;
        target["inputs"][r.input_index]["dynamic_dims"].push_back(std::move(dim));
      }
    }
  }
  out["methods"] = methods;

  if (args.json) {
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%s: %zu bytes, %zu method(s), %zu constant(s) in %llu bytes\n", args.program.c_str(),
              size, methods.size(), num_constants, static_cast<unsigned long long>(constant_bytes));
  if (num_named > 0) {
    std::printf("named data (read by backends at load): %zu entries in %llu bytes\n", num_named,
                static_cast<unsigned long long>(named_bytes));
  }
  if (legacy_constants > 0) {
    std::printf(
        "note: %zu constant(s) in the deprecated inline constant_buffer, which ExecuTorch's "
        "and ptec's runtimes refuse\n",
        legacy_constants);
  }
  for (const auto& m : methods) {
    std::printf("method %s\n", m["name"].get<std::string>().c_str());
    for (size_t i = 0; i < m["inputs"].size(); ++i) {
      const ordered_json& in = m["inputs"][i];
      const std::string name =
          in.contains("name") ? fmt::format(" '{}'", in["name"].get<std::string>()) : "";
      std::printf("  input %zu%s: %s\n", i, name.c_str(), value_text(in).c_str());
      if (in.contains("dynamic_dims")) {
        for (const auto& d : in["dynamic_dims"]) {
          const std::string multiple =
              d.contains("multiple")
                  ? fmt::format(", a multiple of {}", d["multiple"].get<int64_t>())
                  : std::string();
          std::printf("    dynamic axis %d: '%s' in [%lld, %lld]%s\n", d["axis"].get<int>(),
                      d["symbol"].get<std::string>().c_str(),
                      static_cast<long long>(d["min"].get<int64_t>()),
                      static_cast<long long>(d["max"].get<int64_t>()), multiple.c_str());
        }
      }
    }
    for (size_t i = 0; i < m["outputs"].size(); ++i) {
      std::printf("  output %zu: %s\n", i, value_text(m["outputs"][i]).c_str());
    }
    std::printf("  instructions: %zu\n", m["instructions"].get<size_t>());
    for (const auto& [name, count] : m["operators"].items()) {
      std::printf("    %5d  %s\n", count.get<int>(), name.c_str());
    }
    for (const auto& d : m["delegates"]) {
      std::printf("  delegate %s (%s, %llu bytes)\n", d["backend_id"].get<std::string>().c_str(),
                  d.value("location", "?").c_str(),
                  static_cast<unsigned long long>(d.value("size", uint64_t{0})));
    }
    for (const auto& a : m["planned_memory"]) {
      std::printf("  planned memory %d: %llu bytes\n", a["memory_id"].get<int>(),
                  static_cast<unsigned long long>(a["bytes"].get<int64_t>()));
    }
  }
  return 0;
}

}  // namespace ptec::cli
