#pragma once

// Builds small ONNX models in C++ through the protobuf API for the importer's tests.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include <map>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

namespace ptec::onnx_import::testing {

/// A dim: a size or a symbol name.
using Dim = std::variant<int64_t, std::string>;

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13) {
    model_.set_ir_version(8);
    model_.set_producer_name("ptec-test");
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  onnx::ModelProto& model() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }

  ModelBuilder& input(const std::string& name, const std::vector<Dim>& dims,
                      int32_t elem_type = onnx::TensorProto::FLOAT) {
    set_type(graph().add_input(), name, elem_type, &dims);
    return *this;
  }
  /// An output with a dtype and no shape (shape inference fills it in).
  ModelBuilder& output(const std::string& name, int32_t elem_type = onnx::TensorProto::FLOAT) {
    set_type(graph().add_output(), name, elem_type, nullptr);
    return *this;
  }
  /// An output with a declared shape.
  ModelBuilder& output(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims) {
    set_type(graph().add_output(), name, elem_type, &dims);
    return *this;
  }

  onnx::NodeProto& node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    onnx::NodeProto* n = graph().add_node();
    n->set_op_type(op_type);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }

  /// A float initializer stored as raw_data.
  onnx::TensorProto& init_float(const std::string& name, const std::vector<int64_t>& dims,
                                const std::vector<float>& values) {
    onnx::TensorProto* t = graph().add_initializer();
    fill(*t, name, dims, onnx::TensorProto::FLOAT);
    t->set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    return *t;
  }
  /// An int64 initializer stored in int64_data (a typed field).
  onnx::TensorProto& init_int64(const std::string& name, const std::vector<int64_t>& dims,
                                const std::vector<int64_t>& values) {
    onnx::TensorProto* t = graph().add_initializer();
    fill(*t, name, dims, onnx::TensorProto::INT64);
    for (int64_t v : values) t->add_int64_data(v);
    return *t;
  }

  /// Gives graph outputs declared without a shape the shape ONNX shape inference computes (the
  /// checker requires output shapes). Models that do not infer keep their outputs as they are.
  void infer_output_shapes() {
    onnx::ModelProto copy = model_;
    try {
      onnx::shape_inference::InferShapes(copy);
    } catch (const std::exception&) {
      return;
    }
    std::map<std::string, const onnx::TypeProto*> inferred;
    for (const auto& vi : copy.graph().value_info()) inferred[vi.name()] = &vi.type();
    for (const auto& vi : copy.graph().output()) inferred[vi.name()] = &vi.type();
    for (auto& out : *graph().mutable_output()) {
      auto it = inferred.find(out.name());
      if (out.type().tensor_type().has_shape() || it == inferred.end()) continue;
      if (!it->second->tensor_type().has_shape()) continue;
      *out.mutable_type()->mutable_tensor_type()->mutable_shape() =
          it->second->tensor_type().shape();
    }
  }

  std::string serialize() {
    infer_output_shapes();
    return model_.SerializeAsString();
  }
  void save(const std::string& path) {
    std::ofstream out(path, std::ios::binary);
    const std::string bytes = serialize();
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

 private:
  static void fill(onnx::TensorProto& t, const std::string& name, const std::vector<int64_t>& dims,
                   int32_t type) {
    t.set_name(name);
    t.set_data_type(type);
    for (int64_t d : dims) t.add_dims(d);
  }
  static void set_type(onnx::ValueInfoProto* vi, const std::string& name, int32_t elem_type,
                       const std::vector<Dim>* dims) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type);
    if (dims == nullptr) return;
    auto* shape = tt->mutable_shape();
    for (const Dim& d : *dims) {
      auto* dim = shape->add_dim();
      if (std::holds_alternative<int64_t>(d)) {
        dim->set_dim_value(std::get<int64_t>(d));
      } else {
        dim->set_dim_param(std::get<std::string>(d));
      }
    }
  }

  onnx::ModelProto model_;
};

inline void set_attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

}  // namespace ptec::onnx_import::testing
