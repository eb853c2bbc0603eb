#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "emit/constant_segment.h"
#include "emit/constant_value.h"
#include "emit/emit_config.h"
#include "emit/emitted_program.h"
#include "emit/program_tables.h"
#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "schema/program_generated.h"

namespace ptec::emit {

/// Emits one method (an EDGE program) as an ExecutionPlan (FORMAT.md §2, §3):
/// - one Tensor value per tensor: planned (allocation_info, memory_id 1) for user inputs and
///   call outputs, constant (data_buffer_idx into the constant segment) for parameters, buffers
///   and lifted constants;
/// - one KernelCall per call: the out variant's arguments in its schema order (taken by name from
///   the node, defaults filled), the out tensor(s), then one return slot (the out tensor, or a
///   TensorList of the outs); getitem emits nothing;
/// - non-tensor arguments as fresh Int/Double/Bool/String/Null values; int[] as IntList of Int
///   value indices; Tensor[] as TensorList; Tensor?[] as OptionalTensorList (-1 = None).
/// Errors (ptec::Exception) name the method, the node and the op.
class MethodEmitter {
 public:
  /// `constants` (and `tables`, when given) are shared by every method of the program; they must
  /// outlive emit(). Without `tables`, delegate calls and external constants cannot be emitted.
  MethodEmitter(std::string name, const ir::ExportedProgram& program, const EmitConfig& config,
                ConstantSegmentBuilder& constants, ProgramTables* tables = nullptr);

  /// Emits the method; `record` receives the debug-handle map and the memory plan.
  std::unique_ptr<executorch_flatbuffer::ExecutionPlanT> emit(EmittedMethod& record);

 private:
  using ValueKey = std::pair<const ir::Node*, size_t>;

  int add_value(executorch_flatbuffer::KernelTypesUnion value);
  int add_int(int64_t v);
  int add_double(double v);
  int add_bool(bool v);
  int add_null();
  int add_string(const std::string& v);
  int add_tensor(const ir::TensorSpec& spec, const memory::Allocation* allocation,
                 uint32_t data_buffer_idx);
  int add_tensor_list(const std::vector<int32_t>& items);
  int add_empty_tensor();

  /// The value index of the tensor (or symbolic value) `node` stands for.
  int value_of(const ir::Node* node, const ir::Node& user);
  /// Emits `arg` as schema type `type`; `what` names it in errors.
  int emit_argument(const ir::Argument& arg, const ir::TypeRef& type, const ir::Node& node,
                    const std::string& arg_name);
  int emit_list(const ir::Argument& arg, const ir::TypeRef& type, const ir::Node& node,
                const std::string& arg_name);
  int operator_index(const std::string& name, const std::string& overload);

  void emit_placeholder(const ir::Node& node);
  void emit_out_variant_call(const ir::Node& node);
  void emit_functional_call(const ir::Node& node);
  void emit_output(const ir::Node& node);
  /// A DelegateCall (FORMAT.md §4): args = the inputs, then the outputs (no return slot).
  void emit_delegate_call(const ir::Node& node);
  /// The index in the method's delegates table of lowered module `module` (added once).
  int delegate_index(const ir::Node& node, const std::string& module);

  [[noreturn]] void bad_argument(const ir::Node& node, const std::string& arg_name,
                                 const ir::TypeRef& type, const char* got) const;
  [[noreturn]] void fail(Error code, const ir::Node& node, const std::string& message) const;

  std::string name_;
  const ir::ExportedProgram& program_;
  const EmitConfig& config_;
  ConstantSegmentBuilder& constants_;
  ProgramTables* tables_;
  memory::MemoryPlan plan_;
  std::map<std::string, int> delegates_;
  std::map<int64_t, DelegateCallRecord> delegate_calls_;

  std::unique_ptr<executorch_flatbuffer::ExecutionPlanT> plan_out_;
  std::map<ValueKey, int> node_values_;
  std::map<std::pair<std::string, std::string>, int> operators_;
  std::map<int64_t, int64_t> debug_handles_;
};

/// Emits a constant method: an ExecutionPlan with no instructions whose outputs are the values
/// of `value` (a list is flattened into several outputs). Tensor data goes to `constants`.
std::unique_ptr<executorch_flatbuffer::ExecutionPlanT> emit_constant_method(
    const std::string& name, const ConstantValue& value, ConstantSegmentBuilder& constants);

}  // namespace ptec::emit
