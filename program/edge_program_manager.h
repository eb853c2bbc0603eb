#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "devtools/etrecord/etrecord.h"
#include "emit/constant_value.h"
#include "ir/exported_program.h"
#include "partition/partitioner.h"
#include "passes/pass.h"
#include "program/edge_compile_config.h"
#include "program/executorch_backend_config.h"
#include "program/executorch_program_manager.h"

namespace ptec::program {

/// A method's program, shared between managers that did not change it.
using ProgramPtr = std::shared_ptr<const ir::ExportedProgram>;
/// Passes run in order (PassManager, verifying after each in debug builds). A pass object may be
/// run on several methods.
using PassList = std::vector<std::shared_ptr<passes::Pass>>;
using MethodPasses = std::map<std::string, PassList>;
/// Partitioners applied in order; one instance may serve several methods (it is told the
/// method name).
using PartitionerList = std::vector<std::shared_ptr<const partition::Partitioner>>;
using MethodPartitioners = std::map<std::string, PartitionerList>;

/// Methods at stage EDGE or LOWERED, plus constant methods (ExecuTorch's EdgeProgramManager).
///
/// A value: no operation changes the manager it is called on; each returns a new manager in
/// which the methods the operation did not touch are the same shared programs (pointer-equal,
/// payloads shared). When an operation throws, nothing has changed.
class EdgeProgramManager {
 public:
  /// Checks every program is at stage EDGE or LOWERED (InvalidState naming the method and both
  /// stages), that there is at least one method, and that constant method names are
  /// identifiers that are not method names (InvalidArgument). `etrecord` is the record export
  /// took with generate_etrecord (null without it).
  EdgeProgramManager(std::map<std::string, ProgramPtr> methods,
                     std::map<std::string, emit::ConstantValue> constant_methods = {},
                     EdgeCompileConfig compile_config = {},
                     std::shared_ptr<const devtools::ETRecord> etrecord = nullptr);

  /// Method names, sorted.
  std::vector<std::string> methods() const;
  /// Constant method names, sorted.
  std::vector<std::string> config_methods() const;
  const std::map<std::string, emit::ConstantValue>& constant_methods() const {
    return constant_methods_;
  }
  const EdgeCompileConfig& compile_config() const { return compile_config_; }

  /// The program of method `name`; NotFound listing the methods otherwise.
  const ir::ExportedProgram& exported_program(const std::string& name = "forward") const;
  /// The shared pointer behind exported_program(name).
  ProgramPtr exported_program_ptr(const std::string& name = "forward") const;

  /// Runs `passes` on a copy of every method.
  EdgeProgramManager transform(const PassList& passes) const;
  /// Runs each method's passes on a copy of it; methods not in the map (or with an empty list)
  /// are shared. An empty map means "no passes". NotFound for an unknown method name.
  EdgeProgramManager transform(const MethodPasses& passes) const;
  EdgeProgramManager transform(
      std::initializer_list<std::pair<const std::string, PassList>> passes) const {
    return transform(MethodPasses(passes));
  }

  /// Lowers every method with `partitioners` (partition::to_backend, in order).
  EdgeProgramManager to_backend(const PartitionerList& partitioners) const;
  /// Lowers only the methods in the map; the others are shared. NotFound for an unknown method.
  EdgeProgramManager to_backend(const MethodPartitioners& partitioners) const;
  EdgeProgramManager to_backend(
      std::initializer_list<std::pair<const std::string, PartitionerList>> partitioners) const {
    return to_backend(MethodPartitioners(partitioners));
  }

  /// Memory-plans and emits every method and constant method (stage EXECUTORCH). With a record,
  /// the result gets its own copy of it plus the executorch maps of every method.
  ExecutorchProgramManager to_executorch(const ExecutorchBackendConfig& config = {}) const;

  /// The record taken by export with generate_etrecord (ATEN programs, Edge programs before
  /// partitioning and after the transform passes). transform and to_backend carry it unchanged.
  /// InvalidState naming the flag when export ran without it.
  const devtools::ETRecord& get_etrecord() const;
  bool has_etrecord() const { return etrecord_ != nullptr; }
  /// The same manager holding `etrecord` (shared; null drops the record).
  EdgeProgramManager with_etrecord(std::shared_ptr<const devtools::ETRecord> etrecord) const;

 private:
  std::map<std::string, ProgramPtr> methods_;
  std::map<std::string, emit::ConstantValue> constant_methods_;
  EdgeCompileConfig compile_config_;
  std::shared_ptr<const devtools::ETRecord> etrecord_;
};

/// Options of to_edge for several methods (ExecuTorch's to_edge keyword arguments).
struct ToEdgeOptions {
  /// name → value of the constant methods ("prim getters"); names must be identifiers and must
  /// not be method names.
  std::map<std::string, emit::ConstantValue> constant_methods;
  EdgeCompileConfig compile_config;
  /// Record an ETRecord (DESIGN.md §10): a structure snapshot of every ATEN program (payloads
  /// shared) and the Edge programs; get_etrecord() of the result and of what to_executorch makes
  /// of it. Off: nothing is recorded or copied.
  bool generate_etrecord = false;
};

/// Lowers every ATEN program to EDGE (see the single-program to_edge) and returns the manager.
/// Errors: those of to_edge (InvalidState for a program past ATEN, naming the method and both
/// stages) and of EdgeProgramManager's constructor.
EdgeProgramManager to_edge(const std::map<std::string, ir::ExportedProgram>& programs,
                           const ToEdgeOptions& options);
/// One program, as method "forward".
EdgeProgramManager to_edge(const ir::ExportedProgram& program, const ToEdgeOptions& options);

/// Records a structure snapshot of `program` (payloads shared) as the ATEN program of `method`,
/// and its example inputs, when they all have bytes, as the method's representative inputs. The
/// export calls use it with generate_etrecord.
void record_aten_program(devtools::ETRecord& record, const std::string& method,
                         const ir::ExportedProgram& program);

}  // namespace ptec::program
