#include "frontends/onnx/newer_opsets.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>

#include "frontends/onnx/op_versions.h"

namespace ptec::onnx_import {
namespace {

// Inputs and outputs a permissive schema takes (ONNX operators have at most 8 of either).
constexpr int kMaxArity = 16;

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

class NewerOpsetRegistry final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override {
    const onnx::OpSchema* own = onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, domain);
    if (!is_default_domain(domain) || max_inclusive_version <= libonnx_newest_opset()) return own;
    const int version = schema_version(key, max_inclusive_version);
    if (own != nullptr && version >= 0 && version <= libonnx_newest_opset()) return own;
    return permissive(key, version >= 0 ? version : max_inclusive_version);
  }

 private:
  // Any inputs and outputs, each optional and of any tensor type, and any attributes.
  const onnx::OpSchema* permissive(const std::string& op, int version) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<onnx::OpSchema>& slot = permissive_[{op, version}];
    if (slot == nullptr) {
      auto s = std::make_unique<onnx::OpSchema>(op, __FILE__, __LINE__);
      s->SetDomain(onnx::ONNX_DOMAIN);
      s->SinceVersion(version);
      for (int i = 0; i < kMaxArity; ++i) {
        const std::string in = fmt::format("T{}", i), out = fmt::format("U{}", i);
        s->Input(i, fmt::format("input{}", i), "", in, onnx::OpSchema::Optional);
        s->TypeConstraint(in, onnx::OpSchema::all_tensor_types_with_bfloat(), "");
        s->Output(i, fmt::format("output{}", i), "", out, onnx::OpSchema::Optional);
        s->TypeConstraint(out, onnx::OpSchema::all_tensor_types_with_bfloat(), "");
      }
      s->AllowUncheckedAttributes();
      s->Finalize();
      slot = std::move(s);
    }
    return slot.get();
  }

  mutable std::mutex mutex_;
  mutable std::map<std::pair<std::string, int>, std::unique_ptr<onnx::OpSchema>> permissive_;
};

}  // namespace

int libonnx_newest_opset() {
  static const int newest = [] {
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    const auto it = ranges.find(onnx::ONNX_DOMAIN);
    return it == ranges.end() ? 0 : it->second.second;
  }();
  return newest;
}

bool newer_than_libonnx(const onnx::ModelProto& model) {
  if (model.ir_version() > onnx::IR_VERSION) return true;
  return std::any_of(model.opset_import().begin(), model.opset_import().end(),
                     [](const onnx::OperatorSetIdProto& o) {
                       return is_default_domain(o.domain()) && o.version() > libonnx_newest_opset();
                     });
}

const onnx::ISchemaRegistry& newer_opset_registry() {
  static const NewerOpsetRegistry registry;
  return registry;
}

void check_newer_model(const onnx::ModelProto& model) {
  onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(std::min<int64_t>(model.ir_version(), onnx::IR_VERSION)));
  std::unordered_map<std::string, int> imports;
  for (const onnx::OperatorSetIdProto& o : model.opset_import()) {
    imports[is_default_domain(o.domain()) ? onnx::ONNX_DOMAIN : o.domain()] =
        static_cast<int>(o.version());
  }
  ctx.set_opset_imports(imports);
  ctx.set_schema_registry(&newer_opset_registry());
  const onnx::checker::LexicalScopeContext lex;
  onnx::checker::check_graph(model.graph(), ctx, lex);
  if (model.functions_size() > 0) onnx::checker::check_model_local_functions(model, ctx, lex);
}

}  // namespace ptec::onnx_import
