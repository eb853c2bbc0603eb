#include "emit/export_pte.h"

#include "emit/emitter.h"
#include "emit/pte_writer.h"

namespace ptec::emit {

EmittedProgram export_pte(const std::map<std::string, ir::ExportedProgram>& edge_methods,
                          const EmitConfig& config, const std::string& path,
                          const std::map<std::string, ConstantValue>& constant_methods) {
  EmittedProgram program = emit_program(edge_methods, config, constant_methods);
  write_pte(program, path);
  return program;
}

}  // namespace ptec::emit
