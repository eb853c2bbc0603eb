#include "passes/pass_manager.h"

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/op_schema.h"

#if __has_include("ir/verifier.h")
#include "ir/verifier.h"
#define PTEC_HAVE_IR_VERIFIER 1
#endif
#if __has_include("ir/printer.h")
#include "ir/printer.h"
#define PTEC_HAVE_IR_PRINTER 1
#endif

namespace ptec::passes {

std::string print_program(const ir::ExportedProgram& program) {
#ifdef PTEC_HAVE_IR_PRINTER
  return ir::print(program);
#else
  std::string out;
  for (const ir::Node* n : program.graph().nodes()) {
    out += fmt::format("%{} = {} {}\n", n->name(), ir::to_string(n->kind()), n->target());
  }
  return out;
#endif
}

void verify_program(const ir::ExportedProgram& program) {
#ifdef PTEC_HAVE_IR_VERIFIER
  ir::verify(program);
#else
  (void)program;
#endif
}

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
