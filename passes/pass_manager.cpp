#include "passes/pass_manager.h"

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/op_schema.h"

#include "ir/printer.h"
#include "ir/verifier.h"

namespace ptec::passes {

std::string print_program(const ir::ExportedProgram& program) { return ir::print(program); }

void verify_program(const ir::ExportedProgram& program) { ir::verify_or_throw(program); }

PassManager& PassManager::add(std::unique_ptr<Pass> pass) {
  PTEC_ENFORCE(pass != nullptr, InvalidArgument, "PassManager::add: null pass");
  passes_.push_back(std::move(pass));
  return *this;
}

std::vector<std::string> PassManager::pass_names() const {
  std::vector<std::string> names;
  for (const auto& p : passes_) names.push_back(p->name());
  return names;
}

PassResult PassManager::run(ir::ExportedProgram& program) const {
  PassResult total;
  for (const auto& pass : passes_) {
    const std::string name = pass->name();
    std::string before;
    if (options_.print_ir != nullptr) before = print_program(program);
    PassResult result;
    try {
      result = pass->run(program);
    } catch (const Exception& e) {
      throw Exception(e.code(), fmt::format("pass {}: {}", name, e.what()));
    }
    total.modified |= result.modified;
    if (options_.print_ir != nullptr && (result.modified || !options_.print_only_modified)) {
      *options_.print_ir << "// ----- before " << name << " -----\n"
                         << before << "// ----- after " << name
                         << (result.modified ? "" : " (unchanged)") << " -----\n"
                         << print_program(program);
    }
    if (options_.verify_each) {
      try {
        verify_program(program);
      } catch (const Exception& e) {
        raise(Error::InvalidProgram, "the program is invalid after pass {}: {}", name, e.what());
      }
    }
  }
  return total;
}

}  // namespace ptec::passes
