#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontends/onnx/model_import.h"
#include "frontends/onnx/test/model_builder.h"
#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace ptec::onnx_import::testing {

/// Checks what every imported program must satisfy: ir::verify finds no problem, and the text
/// format round-trips (print(parse(print(p))) == print(p)).
inline void expect_valid(const ir::ExportedProgram& p) {
  const std::vector<std::string> problems = ir::verify(p);
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems) << "\n" << ir::print(p);
  const std::string text = ir::print(p);
  EXPECT_EQ(ir::print(ir::parse(text)), text);
}

/// Imports the builder's model as "test.onnx" and checks the result with expect_valid.
inline ir::ExportedProgram import(ModelBuilder& b, const OnnxImportOptions& options = {}) {
  b.infer_output_shapes();
  ir::ExportedProgram p = import_model(b.model(), "test.onnx", options);
  expect_valid(p);
  return p;
}

/// Targets of the call nodes, in graph order.
inline std::vector<std::string> calls(const ir::ExportedProgram& p) {
  std::vector<std::string> out;
  for (const ir::Node* n : p.graph().nodes()) {
    if (n->is_call()) out.push_back(n->target());
  }
  return out;
}

/// The first call of `target` (fails the test when there is none).
inline const ir::Node* first_call(const ir::ExportedProgram& p, const std::string& target) {
  for (const ir::Node* n : p.graph().nodes()) {
    if (n->is_call() && n->target() == target) return n;
  }
  return nullptr;
}

/// Runs `fn`, expecting a ptec::Exception; returns it.
template <typename Fn>
Exception expect_error(Fn&& fn) {
  try {
    fn();
  } catch (const Exception& e) {
    return e;
  }
  ADD_FAILURE() << "no ptec::Exception";
  return Exception(Error::Ok, "");
}

inline std::vector<int64_t> out_sizes(const ir::ExportedProgram& p, size_t i = 0) {
  return p.graph().outputs().at(i)->spec().upper_bound_sizes();
}

}  // namespace ptec::onnx_import::testing
