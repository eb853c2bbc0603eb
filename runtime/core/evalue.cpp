#include "runtime/core/evalue.h"

namespace ptec::runtime {

const char* EValue::tag_name(Tag tag) {
  switch (tag) {
    case Tag::None: return "None";
    case Tag::Int: return "Int";
    case Tag::Double: return "Double";
    case Tag::Bool: return "Bool";
    case Tag::String: return "String";
    case Tag::Tensor: return "Tensor";
    case Tag::IntList: return "IntList";
    case Tag::DoubleList: return "DoubleList";
    case Tag::BoolList: return "BoolList";
    case Tag::TensorList: return "TensorList";
    case Tag::OptionalTensorList: return "OptionalTensorList";
  }
  return "Unknown";
}

}  // namespace ptec::runtime
