// Module: owns the loader, the program, the .ptd and each method's memory.

#include "runtime/extension/module.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/portable/register.h"
#include "runtime/extension/owned_tensor.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::fixtures_dir;
using testing::LogCapture;

class ModuleTest : public ::testing::TestWithParam<Module::LoadMode> {
 protected:
  void SetUp() override {
    PTEC_SKIP_WITHOUT_FIXTURES();
    ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok);
  }
  std::string fixture(const char* rel) const { return (fixtures_dir() / rel).string(); }
};

TEST_P(ModuleTest, ForwardOnAddModel) {
  Module module(fixture("executorch/AddModel.pte"), "", GetParam());
  EXPECT_FALSE(module.is_loaded());
  Result<std::vector<std::string>> names = module.method_names();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names.get(), std::vector<std::string>({"forward"}));
  OwnedTensor x = OwnedTensor::full(DType::Float, {3}, 1.0);
  Result<std::vector<EValue>> out = module.forward({x.evalue()});
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(tensor_values<float>(out.get()[0].to_tensor()), std::vector<float>({2, 2, 2}));
  EXPECT_TRUE(module.is_method_loaded("forward"));
  // Again, with other inputs: the method is reused.
  OwnedTensor y = OwnedTensor::from<float>(DType::Float, {3}, {1, 2, 3});
  Result<std::vector<EValue>> again = module.execute("forward", {y.evalue()});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(tensor_values<float>(again.get()[0].to_tensor()), std::vector<float>({2, 3, 4}));
  LogCapture log;
  EXPECT_EQ(module.execute("forward", {}).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("takes 1 inputs, 0 given")) << log.all();
}

TEST_P(ModuleTest, HandmadeWithDataFile) {
  Module module(fixture("handmade/handmade.pte"), fixture("handmade/handmade.ptd"), GetParam());
  OwnedTensor x = OwnedTensor::full(DType::Float, {2, 3}, 1.0);
  Result<std::vector<EValue>> out = module.forward({x.evalue()});
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ(tensor_values<float>(out.get()[0].to_tensor()), std::vector<float>({17, 29, 41}));
  EXPECT_EQ(tensor_values<int64_t>(out.get()[2].to_tensor()), std::vector<int64_t>({2, 2}));
}

TEST_P(ModuleTest, ConstantMethodsAndErrors) {
  Module module(fixture("executorch/stories260k_hybrid_llama_qnn.pte"), "", GetParam());
  Result<std::vector<EValue>> vocab = module.execute("get_vocab_size");
  ASSERT_TRUE(vocab.ok());
  EXPECT_EQ(vocab.get()[0].to_int(), 512);
  LogCapture log;
  EXPECT_EQ(module.execute("kv_forward").error(), Error::NotFound);
  EXPECT_TRUE(log.contains("Backend QnnBackend is not registered.")) << log.all();
  EXPECT_EQ(module.load_method("nope"), Error::NotFound);

  Module missing("/nonexistent.pte", "", GetParam());
  EXPECT_EQ(missing.load(), Error::AccessFailed);
  EXPECT_EQ(missing.program(), nullptr);
  Module bad_data(fixture("handmade/handmade.pte"), fixture("executorch/add.pte"), GetParam());
  EXPECT_EQ(bad_data.load(), Error::InvalidExternalData);
}

INSTANTIATE_TEST_SUITE_P(LoadModes, ModuleTest,
                         ::testing::Values(Module::LoadMode::File, Module::LoadMode::Mmap),
                         [](const auto& param_info) {
                           return param_info.param == Module::LoadMode::File ? "File" : "Mmap";
                         });

}  // namespace
}  // namespace ptec::runtime
