// Models exported by torch.onnx (gen_models.py, run at build time): what real exporters write —
// Shape/Gather/Concat chains, Constant nodes, unnamed initializers, symbolic batch dims.

#include <filesystem>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/test/test_util.h"

namespace ptec::onnx_import::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

std::string model_path(const std::string& name) {
  return (std::filesystem::path(ONNX_TEST_MODEL_DIR) / name).string();
}

#define SKIP_WITHOUT_MODEL(name)                                                      \
  if (!std::filesystem::exists(model_path(name))) {                                   \
    GTEST_SKIP() << name << " was not generated (Debian's python3-torch is missing)"; \
  }

std::set<std::string> op_set(const ir::ExportedProgram& p) {
  const std::vector<std::string> c = calls(p);
  return {c.begin(), c.end()};
}

TEST(OnnxExportedModels, CnnWithViewOfSizeChain) {
  SKIP_WITHOUT_MODEL("cnn.onnx");
  OnnxImportOptions options;
  options.input_shapes["x"] = {2, 3, 16, 16};
  const ir::ExportedProgram p = import_onnx(model_path("cnn.onnx"), options);
  expect_valid(p);
  EXPECT_EQ(op_set(p), (std::set<std::string>{
                           "aten::convolution", "aten::relu", "aten::max_pool2d_with_indices",
                           "getitem", "aten::mul.Scalar", "aten::add.Scalar", "aten::clamp",
                           "aten::mul.Tensor", "aten::slice_copy.Tensor", "aten::mean.dim",
                           "aten::view_copy", "aten::addmm", "aten::_log_softmax"}));
  // x.view(x.size(0), -1) became one view_copy with the specialized batch size.
  const ir::Node* view = first_call(p, "aten::view_copy");
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->arg("size").to_int_vector(), (std::vector<int64_t>{2, 8}));
  EXPECT_TRUE(p.constants().empty());
  EXPECT_EQ(out_sizes(p), (std::vector<int64_t>{2, 10}));
  EXPECT_EQ(p.state_dict().count("fc.weight.T"), 1u);
  // torch exports eval-mode Conv+BN folded; the relu6 → Clip became clamp(0, 6).
  EXPECT_EQ(p.provenance().at(1).detail, "input 'x' dim 0 ('batch') = 2 (input_shapes)");
}

TEST(OnnxExportedModels, SymbolicDimsTakeSizesByName) {
  SKIP_WITHOUT_MODEL("cnn.onnx");
  OnnxImportOptions options;
  options.symbol_values["batch"] = 3;
  const ir::ExportedProgram p = import_onnx(model_path("cnn.onnx"), options);
  expect_valid(p);
  EXPECT_EQ(first_call(p, "aten::view_copy")->arg("size").to_int_vector(),
            (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(out_sizes(p), (std::vector<int64_t>{3, 10}));
  EXPECT_EQ(p.provenance().at(1).detail, "input 'x' dim 0 ('batch') = 3 (symbol_values)");
  // input_shapes, where it gives the input, comes first.
  options.input_shapes["x"] = {5, 3, 16, 16};
  EXPECT_EQ(out_sizes(import_onnx(model_path("cnn.onnx"), options)), (std::vector<int64_t>{5, 10}));
  // A name no input dim carries is an error that lists the model's symbolic dims.
  OnnxImportOptions typo;
  typo.symbol_values["btach"] = 3;
  try {
    import_onnx(model_path("cnn.onnx"), typo);
    ADD_FAILURE() << "an unknown symbolic dim name was accepted";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("the symbolic dim 'btach', which no input dim carries "
                                    "(symbolic dims: batch)"));
  }
}

TEST(OnnxExportedModels, AttentionBlockAtOpset17) {
  SKIP_WITHOUT_MODEL("attention.onnx");
  const ir::ExportedProgram p = import_onnx(model_path("attention.onnx"));
  expect_valid(p);
  const std::set<std::string> ops = op_set(p);
  for (const char* op :
       {"aten::native_layer_norm", "aten::mm", "aten::bmm", "aten::split_with_sizes_copy",
        "aten::permute_copy", "aten::_softmax", "aten::erf", "aten::div.Scalar"}) {
    EXPECT_THAT(ops, Contains(op));
  }
  // The 1/sqrt(head_dim) scale (Pow of two Constants) was evaluated at import.
  EXPECT_THAT(ops, Not(Contains("aten::pow.Tensor_Tensor")));
  EXPECT_TRUE(p.constants().empty());
  EXPECT_EQ(out_sizes(p), (std::vector<int64_t>{2, 5, 16}));
}

}  // namespace
}  // namespace ptec::onnx_import::testing
