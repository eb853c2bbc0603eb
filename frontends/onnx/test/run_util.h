#pragma once

// Import -> to_edge -> emit -> run with the portable kernels, for importer tests that check
// what a graph computes (link ptec_program, ptec_emit, ptec_runtime_extension,
// ptec_kernels_portable and ptec_prim_ops).

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "emit/export_pte.h"
#include "frontends/onnx/test/test_util.h"
#include "kernels/portable/register.h"
#include "kernels/prim_ops/prim_ops.h"
#include "program/to_edge.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::onnx_import::testing {

/// `b` imported with `options`, emitted once to a temporary .pte (named after the running test)
/// and loaded; run() may be called with inputs of several sizes (dynamic dims).
class PortableProgram {
 public:
  explicit PortableProgram(ModelBuilder& b, const OnnxImportOptions& options = {}) {
    const ir::ExportedProgram edge = program::to_edge(import(b, options));
    path_ =
        (std::filesystem::path(::testing::TempDir()) /
         (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".pte"))
            .string();
    emit::export_pte({{"forward", edge}}, emit::EmitConfig{}, path_);
    EXPECT_EQ(kernels::register_portable_kernels(), Error::Ok);
    EXPECT_EQ(kernels::register_prim_ops(), Error::Ok);
    module_ = std::make_unique<runtime::Module>(path_);
  }
  ~PortableProgram() { std::filesystem::remove(path_); }
  PortableProgram(const PortableProgram&) = delete;
  PortableProgram& operator=(const PortableProgram&) = delete;

  /// One output: its sizes and its values converted to float (float and int64 outputs).
  struct Output {
    std::vector<int32_t> sizes;
    std::vector<float> values;
  };
  std::vector<Output> run(std::vector<runtime::OwnedTensor>& inputs) {
    std::vector<runtime::EValue> args;
    for (runtime::OwnedTensor& t : inputs) args.push_back(t.evalue());
    Result<std::vector<runtime::EValue>> out = module_->forward(args);
    EXPECT_TRUE(out.ok());
    std::vector<Output> result;
    if (!out.ok()) return result;
    for (const runtime::EValue& v : *out) {
      const runtime::Tensor& t = v.to_tensor();
      Output o{{t.sizes().begin(), t.sizes().end()}, {}};
      for (size_t i = 0; i < t.numel(); ++i) {
        switch (t.scalar_type()) {
          case DType::Float: o.values.push_back(t.const_data_ptr<float>()[i]); break;
          case DType::Long:
            o.values.push_back(static_cast<float>(t.const_data_ptr<int64_t>()[i]));
            break;
          default: ADD_FAILURE() << "unexpected output dtype";
        }
      }
      result.push_back(std::move(o));
    }
    return result;
  }

 private:
  std::string path_;
  std::unique_ptr<runtime::Module> module_;
};

/// Input x = f32[2, 3] and `out` = x[x > 0] as torch exports it: NonZero -> Transpose ->
/// GatherND, a count only the data decides.
inline void positives_of_x(ModelBuilder& b, const std::string& out) {
  b.input("x", {2, 3});
  b.init_float("zero", {}, {0.0f});
  b.node("Greater", {"x", "zero"}, {"mask"});
  b.node("NonZero", {"mask"}, {"nz"});
  set_attr(b.node("Transpose", {"nz"}, {"coords"}), "perm", std::vector<int64_t>{1, 0});
  b.node("GatherND", {"x", "coords"}, {out});
}

/// The message of the exception importing `b` throws ("no error" when it imports).
inline std::string import_error(ModelBuilder& b, const OnnxImportOptions& options = {}) {
  try {
    import(b, options);
  } catch (const Exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace ptec::onnx_import::testing
