// Errors: one NotSupported error listing every unsupported op; malformed, truncated, empty and
// non-ONNX files give one-line InvalidProgram errors and never crash; bad attributes name the
// node and op.

#include <filesystem>
#include <fstream>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/test/test_util.h"

namespace ptec::onnx_import::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string temp_path(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(PTEC_BINARY_DIR) / "onnx_test_models";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

ModelBuilder small_model() {
  ModelBuilder b;
  b.input("x", {1, 3, 4, 4}).output("y");
  std::vector<float> w(3 * 3 * 3 * 3, 0.5f);
  b.init_float("w", {3, 3, 3, 3}, w);
  auto& n = b.node("Conv", {"x", "w"}, {"c"}, "conv");
  set_attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  return b;
}

TEST(OnnxImportErrors, OneErrorListsEveryUnsupportedOperator) {
  ModelBuilder b;
  b.input("x", {2, 3}).input("m", {2, 2, 2});
  b.output("y").output("z").output("d");
  b.node("Det", {"m"}, {"d1"}, "hm1");
  b.node("Det", {"m"}, {"d2"}, "hm2");
  b.node("Add", {"d1", "d2"}, {"d"}, "add");
  b.node("Unique", {"x"}, {"z"}, "uq");
  b.node("Relu", {"x"}, {"y"}, "relu");
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_STREQ(e.what(),
               "test.onnx: 2 unsupported operators: Det (opset 13) at nodes [hm1, hm2]; "
               "Unique (opset 13) at nodes [uq]");
}

TEST(OnnxImportErrors, UnsupportedOpsetAndCustomDomainAreNamed) {
  ModelBuilder b(13);
  auto* o = b.model().add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  b.input("x", {2, 3}).output("y").output("z");
  auto& custom = b.node("FancyOp", {"x"}, {"y"});
  custom.set_domain("com.example");
  b.node("HardSwish", {"x"}, {"z"}, "hs");  // HardSwish exists from opset 14 only
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::InvalidProgram) << e.what();  // the checker rejects HardSwish@13
  ModelBuilder c(13);
  c.model().add_opset_import()->CopyFrom(*o);
  c.input("x", {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  auto& custom2 = c.node("FancyOp", {"x"}, {"y"});
  custom2.set_domain("com.example");
  const Exception e2 = expect_error([&] { import(c); });
  EXPECT_EQ(e2.code(), Error::NotSupported);
  EXPECT_STREQ(e2.what(),
               "test.onnx: 1 unsupported operator: com.example::FancyOp (opset 1) at nodes "
               "[FancyOp_0]");
}

TEST(OnnxImportErrors, EmptyFile) {
  const std::string path = temp_path("empty.onnx");
  write_file(path, "");
  const Exception e = expect_error([&] { import_onnx(path); });
  EXPECT_EQ(e.code(), Error::InvalidProgram);
  EXPECT_EQ(std::string(e.what()), path + ": empty file (not an ONNX model)");
}

TEST(OnnxImportErrors, NotAnOnnxFile) {
  const std::string path = temp_path("text.onnx");
  write_file(path, "hello, this is not a model\n");
  const Exception e = expect_error([&] { import_onnx(path); });
  EXPECT_EQ(e.code(), Error::InvalidProgram);
  EXPECT_THAT(e.what(), StartsWith(path + ": not a valid ONNX model"));
  EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("\n")));
}

TEST(OnnxImportErrors, TruncatedFile) {
  ModelBuilder model = small_model();
  const std::string bytes = model.serialize();
  const std::string path = temp_path("truncated.onnx");
  write_file(path, bytes.substr(0, bytes.size() / 2));
  const Exception e = expect_error([&] { import_onnx(path); });
  EXPECT_EQ(e.code(), Error::InvalidProgram);
  EXPECT_EQ(std::string(e.what()), path + ": truncated file (protobuf parse failed)");
}

TEST(OnnxImportErrors, MissingFile) {
  const Exception e = expect_error([&] { import_onnx(temp_path("does_not_exist.onnx")); });
  EXPECT_EQ(e.code(), Error::AccessFailed);
  EXPECT_THAT(e.what(), HasSubstr("does_not_exist.onnx"));
}

TEST(OnnxImportErrors, ImportFromFileWorks) {
  const std::string path = temp_path("small.onnx");
  ModelBuilder model = small_model();
  model.save(path);
  const ir::ExportedProgram p = import_onnx(path);
  EXPECT_EQ(calls(p), (std::vector<std::string>{"aten::convolution", "aten::relu"}));
  EXPECT_EQ(p.provenance().at(0).detail.find("onnx: " + path), 0u);
}

TEST(OnnxImportErrors, CheckerFailureIsOneLine) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y");
  b.node("Relu", {"undefined_value"}, {"y"}, "relu");
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::InvalidProgram);
  EXPECT_THAT(e.what(), StartsWith("test.onnx: checker: "));
  EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("\n")));
}

TEST(OnnxImportErrors, BadAttributeNamesNodeAndOp) {
  ModelBuilder b;
  b.input("x", {1, 3, 4, 4}).output("y", onnx::TensorProto::FLOAT, {1, 3, 2, 2});
  b.init_float("w", {3, 3, 3, 3}, std::vector<float>(81, 1.0f));
  auto& n = b.node("Conv", {"x", "w"}, {"y"}, "conv7");
  set_attr(n, "pads", std::vector<int64_t>{1, 1});
  OnnxImportOptions options;
  options.check_inferred_shapes = false;
  const Exception e = expect_error([&] { import(b, options); });
  EXPECT_EQ(e.code(), Error::InvalidArgument);
  EXPECT_STREQ(e.what(),
               "test.onnx: node 'conv7' (Conv, opset 13): pads has 2 values; 2 spatial "
               "dims need 4");
}

TEST(OnnxImportErrors, ReshapeToARuntimeShapeIsNotSupportedYet) {
  ModelBuilder b;
  b.input("x", {2, 3}).input("shape", {2}, onnx::TensorProto::INT64);
  b.output("y", onnx::TensorProto::FLOAT, {std::string("a"), std::string("b")});
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_THAT(e.what(), StartsWith("test.onnx: node 'reshape' (Reshape, opset 13): input "
                                   "'shape' ('shape') is computed at run time"));
}

TEST(OnnxImportErrors, TrainingDropoutWithANonZeroRatioIsRefused) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  b.init_float("ratio", {}, {0.25f});
  b.init_int64("one", {}, {1});
  auto& cast = b.node("Cast", {"one"}, {"training"});
  set_attr(cast, "to", int64_t{onnx::TensorProto::BOOL});
  b.node("Dropout", {"x", "ratio", "training"}, {"y"}, "drop");
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_STREQ(e.what(),
               "test.onnx: node 'drop' (Dropout, opset 13): training_mode=true is supported only "
               "with ratio 0 (inference only); ratio is 0.25");
}

// Input dims without a size become 1; an error that follows (here a 3x3 convolution without
// padding over a 1x1 plane) says so, and how to give them.
TEST(OnnxImportErrors, ErrorsAfterDefaultedDimsNameThem) {
  auto model = [] {
    ModelBuilder b;
    b.input("x", {1, 3, "h", "w"}).output("y");
    b.init_float("w", {2, 3, 3, 3}, std::vector<float>(54, 0.5f));
    b.node("Conv", {"x", "w"}, {"y"}, "conv");
    b.model()
        .mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(3)
        ->clear_value();  // neither a value nor a name
    return b;
  };
  ModelBuilder b = model();
  const Exception e = expect_error([&] { import(b); });
  EXPECT_THAT(e.what(), HasSubstr("node 'conv'"));
  EXPECT_THAT(e.what(), HasSubstr("(input dims without a size were set to 1: 'x' dim 2 ('h'), "
                                  "'x' dim 3; give them with input_shapes or symbol_values"));
  // Given sizes, the same model imports.
  ModelBuilder c = model();
  OnnxImportOptions options;
  options.input_shapes["x"] = {1, 3, 5, 5};
  EXPECT_EQ(out_sizes(import(c, options)), (std::vector<int64_t>{1, 2, 3, 3}));
}

// "ai.onnx" is the default domain spelled out, in opset imports and on nodes; two imports of the
// default domain at different opsets are refused.
TEST(OnnxImportErrors, DefaultDomainSpelledAiOnnx) {
  auto model = [] {
    ModelBuilder b;
    b.input("x", {1, 3, 4, 4}).output("y", onnx::TensorProto::FLOAT, {1, 3, 4, 4});
    b.node("Relu", {"x"}, {"y"}, "relu");
    return b;
  };
  ModelBuilder b = model();
  b.model().mutable_opset_import(0)->set_domain("ai.onnx");
  b.model().mutable_graph()->mutable_node(0)->set_domain("ai.onnx");
  EXPECT_EQ(calls(import(b)), (std::vector<std::string>{"aten::relu"}));
  ModelBuilder c = model();
  auto* second = c.model().add_opset_import();
  second->set_domain("ai.onnx");
  second->set_version(12);
  const Exception e = expect_error([&] { import(c); });
  EXPECT_EQ(e.code(), Error::InvalidProgram);
  EXPECT_THAT(e.what(), HasSubstr("the default domain is imported at opsets 13 and 12"));
}

TEST(OnnxImportErrors, UnknownInputShapeOptionIsRejected) {
  ModelBuilder b = small_model();
  OnnxImportOptions options;
  options.input_shapes["nope"] = {1};
  const Exception e = expect_error([&] { import(b, options); });
  EXPECT_EQ(e.code(), Error::InvalidArgument);
  EXPECT_THAT(e.what(), HasSubstr("'nope', which is not an input of the model (inputs: x)"));
  ModelBuilder c = small_model();
  options.input_shapes = {{"x", {1, 3, 5, 5}}};
  const Exception e2 = expect_error([&] { import(c, options); });
  EXPECT_THAT(e2.what(), HasSubstr("input 'x' dim 2, which the model fixes to 4"));
}

TEST(OnnxImportErrors, UsedOutputsTheImporterDoesNotProduceAreReported) {
  // An inference BatchNormalization produces Y only; its running_mean output is used here.
  ModelBuilder b(15);
  b.input("x", {1, 2, 4, 4}).output("y", onnx::TensorProto::FLOAT, {1, 2, 4, 4});
  b.output("rm", onnx::TensorProto::FLOAT, {2}).output("rv", onnx::TensorProto::FLOAT, {2});
  for (const char* name : {"scale", "bias", "mean", "var"}) b.init_float(name, {2}, {1.0f, 1.0f});
  b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y", "rm", "rv"}, "bn");
  const Exception e = expect_error([&] { import(b); });
  EXPECT_EQ(e.code(), Error::NotSupported);
  EXPECT_THAT(e.what(),
              HasSubstr("node 'bn' (BatchNormalization, opset 15): output 1 ('rm') is used"));
}

// Every prefix and many single-byte corruptions of a valid model: an error or a program, never a
// crash (run under ASan/UBSan with -DPTEC_SANITIZE=ON).
TEST(OnnxImportErrors, CorruptedBytesNeverCrash) {
  ModelBuilder model = small_model();
  const std::string bytes = model.serialize();
  int errors = 0;
  auto attempt = [&](const std::string& data) {
    try {
      import_onnx_bytes(ir::Buffer::copy_of(data.data(), data.size()), "fuzz.onnx");
    } catch (const Exception& e) {
      ++errors;
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  for (size_t n = 0; n < bytes.size(); n += 7) attempt(bytes.substr(0, n));
  std::mt19937 rng(1234);
  for (int i = 0; i < 300; ++i) {
    std::string corrupted = bytes;
    corrupted[rng() % corrupted.size()] = static_cast<char>(rng() & 0xff);
    attempt(corrupted);
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace ptec::onnx_import::testing
