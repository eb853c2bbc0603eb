#include "devtools/etrecord/generate_etrecord.h"

namespace ptec::devtools {

ETRecord make_etrecord(const program::EdgeProgramManager& edge,
                       const program::ExecutorchProgramManager& executorch,
                       const ir::ExportedProgram* exported_program) {
  ETRecord record;
  if (edge.has_etrecord()) {
    record = edge.get_etrecord();
  } else {
    for (const std::string& method : edge.methods()) {
      record.set_edge_program(method, edge.exported_program_ptr(method));
    }
  }
  if (exported_program != nullptr) record.set_aten_program("forward", snapshot(*exported_program));
  record_executorch_maps(record, executorch.emitted());
  return record;
}

void generate_etrecord(const std::string& path, const program::EdgeProgramManager& edge,
                       const program::ExecutorchProgramManager& executorch,
                       const ir::ExportedProgram* exported_program,
                       const ETRecordSaveOptions& options) {
  make_etrecord(edge, executorch, exported_program).save(path, options);
}

}  // namespace ptec::devtools
