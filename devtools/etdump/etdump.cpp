// ETDump serialization (FlatBufferBuilder, size-prefixed "ED00") and verified parsing.

#include "devtools/etdump/etdump.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "devtools/etdump/etdump_schema_generated.h"
#include "ir/exception.h"

namespace ptec::devtools {

namespace fb = ::etdump;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

size_t ETDumpTensor::numel() const {
  size_t n = 1;
  for (int64_t s : sizes) {
    // Saturates: sizes from a file may be anything.
    if (__builtin_mul_overflow(n, s < 0 ? size_t{0} : static_cast<size_t>(s), &n)) {
      return std::numeric_limits<size_t>::max();
    }
  }
  return n;
}

size_t ETDumpTensor::nbytes() const {
  size_t n = 0;
  if (__builtin_mul_overflow(numel(), element_size(dtype), &n)) {
    return std::numeric_limits<size_t>::max();
  }
  return n;
}

namespace {

// ---- Writing ----

Offset<fb::Tensor> write_tensor(FlatBufferBuilder& b, const ETDumpTensor& t) {
  auto sizes = b.CreateVector(t.sizes);
  auto strides = b.CreateVector(t.strides);
  return fb::CreateTensor(b, static_cast<executorch_flatbuffer::ScalarType>(t.dtype), sizes,
                          strides, t.offset);
}

Offset<fb::Value> write_value(FlatBufferBuilder& b, const ETDumpValue& v) {
  using Kind = ETDumpValue::Kind;
  Offset<fb::Tensor> tensor;
  Offset<fb::TensorList> tensor_list;
  Offset<fb::Int> int_value;
  Offset<fb::Float> float_value;
  Offset<fb::Double> double_value;
  Offset<fb::Bool> bool_value;
  fb::ValueType type = fb::ValueType::Null;
  switch (v.kind) {
    case Kind::Null: break;
    case Kind::Int:
      type = fb::ValueType::Int;
      int_value = fb::CreateInt(b, v.int_value);
      break;
    case Kind::Bool:
      type = fb::ValueType::Bool;
      bool_value = fb::CreateBool(b, v.bool_value);
      break;
    case Kind::Float:
      type = fb::ValueType::Float;
      float_value = fb::CreateFloat(b, static_cast<float>(v.double_value));
      break;
    case Kind::Double:
      type = fb::ValueType::Double;
      double_value = fb::CreateDouble(b, v.double_value);
      break;
    case Kind::Tensor:
      type = fb::ValueType::Tensor;
      tensor = write_tensor(b, v.tensor);
      break;
    case Kind::TensorList: {
      type = fb::ValueType::TensorList;
      std::vector<Offset<fb::Tensor>> items;
      for (const ETDumpTensor& t : v.tensors) items.push_back(write_tensor(b, t));
      tensor_list = fb::CreateTensorListDirect(b, &items);
      break;
    }
    case Kind::String:
      // The layout has a String table but no Value field for it: strings are not storable.
      raise(Error::NotSupported, "ETDump values cannot hold strings");
  }
  auto output = fb::CreateBool(b, v.output);
  return fb::CreateValue(b, type, tensor, tensor_list, int_value, float_value, double_value,
                         bool_value, output);
}

Offset<fb::Event> write_event(FlatBufferBuilder& b, const ETDumpEvent& e) {
  if (const ProfileEvent* p = e.profile()) {
    auto ev = fb::CreateProfileEventDirect(
        b, p->name.c_str(), p->chain_index, p->instruction_id, p->delegate_debug_id_int,
        p->delegate_debug_id_str.empty() ? nullptr : p->delegate_debug_id_str.c_str(),
        p->delegate_debug_metadata.empty() ? nullptr : &p->delegate_debug_metadata, p->start_time,
        p->end_time);
    return fb::CreateEvent(b, ev, 0, 0);
  }
  if (const AllocationEvent* a = e.allocation()) {
    return fb::CreateEvent(b, 0, fb::CreateAllocationEvent(b, a->allocator_id, a->allocation_size),
                           0);
  }
  const DebugEvent* d = e.debug();
  auto value = write_value(b, d->debug_entry);
  auto ev = fb::CreateDebugEventDirect(
      b, d->chain_index, d->instruction_id, value, d->delegate_debug_id_int,
      d->delegate_debug_id_str.empty() ? nullptr : d->delegate_debug_id_str.c_str(),
      d->name.empty() ? nullptr : d->name.c_str());
  return fb::CreateEvent(b, 0, 0, ev);
}

// ---- Reading ----

[[noreturn]] void malformed(const std::string& source, const std::string& what) {
  raise(Error::InvalidProgram, "{}: malformed etdump: {}", source, what);
}

std::string str(const flatbuffers::String* s) { return s == nullptr ? "" : s->str(); }

// The verifier checks only 4-byte alignment for vectors, so a malformed file can hold a [long]
// that is not 8-byte aligned: copy the bytes instead of reading them in place.
std::vector<int64_t> read_longs(const flatbuffers::Vector<int64_t>* v) {
  std::vector<int64_t> out;
  if (v == nullptr) return out;
  out.resize(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(int64_t));
  return out;
}

ETDumpTensor read_tensor(const fb::Tensor* t, const std::string& where, const std::string& source) {
  if (t == nullptr) malformed(source, where + ": missing tensor");
  ETDumpTensor out;
  const auto type = static_cast<int64_t>(t->scalar_type());
  if (!is_valid_dtype(type))
    malformed(source, fmt::format("{}: unknown scalar type {}", where, type));
  out.dtype = static_cast<DType>(type);
  out.sizes = read_longs(t->sizes());
  out.strides = read_longs(t->strides());
  for (int64_t s : out.sizes) {
    if (s < 0) malformed(source, fmt::format("{}: negative size {}", where, s));
  }
  out.offset = t->offset();
  return out;
}

[[noreturn]] void missing_field(const std::string& source, const std::string& where,
                                const fb::Value* v, const char* field) {
  malformed(source, fmt::format("{}: value of type {} has no {}", where,
                                fb::EnumNameValueType(v->val()), field));
}

ETDumpValue read_value(const fb::Value* v, const std::string& where, const std::string& source) {
  ETDumpValue out;
  if (v == nullptr) return out;  // no entry: Null
  out.output = v->output() != nullptr && v->output()->bool_val();
  using Kind = ETDumpValue::Kind;
  switch (v->val()) {
    case fb::ValueType::Null: out.kind = Kind::Null; break;
    case fb::ValueType::Int:
      if (v->int_value() == nullptr) missing_field(source, where, v, "int_value");
      out.kind = Kind::Int;
      out.int_value = v->int_value()->int_val();
      break;
    case fb::ValueType::Bool:
      if (v->bool_value() == nullptr) missing_field(source, where, v, "bool_value");
      out.kind = Kind::Bool;
      out.bool_value = v->bool_value()->bool_val();
      break;
    case fb::ValueType::Float:
      if (v->float_value() == nullptr) missing_field(source, where, v, "float_value");
      out.kind = Kind::Float;
      out.double_value = v->float_value()->float_val();
      break;
    case fb::ValueType::Double:
      if (v->double_value() == nullptr) missing_field(source, where, v, "double_value");
      out.kind = Kind::Double;
      out.double_value = v->double_value()->double_val();
      break;
    case fb::ValueType::Tensor:
      out.kind = Kind::Tensor;
      out.tensor = read_tensor(v->tensor(), where, source);
      break;
    case fb::ValueType::TensorList: {
      if (v->tensor_list() == nullptr) missing_field(source, where, v, "tensor_list");
      out.kind = Kind::TensorList;
      const auto* items = v->tensor_list()->tensors();
      for (flatbuffers::uoffset_t i = 0; items != nullptr && i < items->size(); ++i) {
        out.tensors.push_back(
            read_tensor(items->Get(i), fmt::format("{} tensor {}", where, i), source));
      }
      break;
    }
    case fb::ValueType::String:
      missing_field(source, where, v, "string field (the layout has none)");
    default:
      malformed(source,
                fmt::format("{}: unknown value type {}", where, static_cast<int>(v->val())));
  }
  return out;
}

ETDumpEvent read_event(const fb::Event* e, const std::string& where, const std::string& source) {
  if (e == nullptr) malformed(source, where + ": null event");
  const int set = (e->profile_event() != nullptr) + (e->allocation_event() != nullptr) +
                  (e->debug_event() != nullptr);
  if (set != 1) {
    malformed(source, fmt::format("{}: {} of profile_event, allocation_event and debug_event are "
                                  "set (exactly one must be)",
                                  where, set));
  }
  ETDumpEvent out;
  if (const fb::ProfileEvent* p = e->profile_event()) {
    ProfileEvent ev;
    ev.name = str(p->name());
    ev.chain_index = p->chain_index();
    ev.instruction_id = p->instruction_id();
    ev.delegate_debug_id_int = p->delegate_debug_id_int();
    ev.delegate_debug_id_str = str(p->delegate_debug_id_str());
    if (p->delegate_debug_metadata() != nullptr) {
      ev.delegate_debug_metadata.assign(p->delegate_debug_metadata()->begin(),
                                        p->delegate_debug_metadata()->end());
    }
    ev.start_time = p->start_time();
    ev.end_time = p->end_time();
    out.event = std::move(ev);
  } else if (const fb::AllocationEvent* a = e->allocation_event()) {
    out.event = AllocationEvent{a->allocator_id(), a->allocation_size()};
  } else {
    const fb::DebugEvent* d = e->debug_event();
    DebugEvent ev;
    ev.chain_index = d->chain_index();
    ev.instruction_id = d->instruction_id();
    ev.debug_entry = read_value(d->debug_entry(), where, source);
    ev.delegate_debug_id_int = d->delegate_debug_id_int();
    ev.delegate_debug_id_str = str(d->delegate_debug_id_str());
    ev.name = str(d->name());
    out.event = std::move(ev);
  }
  return out;
}

}  // namespace

std::vector<uint8_t> ETDump::serialize() const {
  FlatBufferBuilder b(1024);
  std::vector<Offset<fb::RunData>> blocks;
  for (const RunData& run : run_data) {
    std::vector<Offset<fb::Allocator>> allocators;
    for (const std::string& name : run.allocators) {
      allocators.push_back(fb::CreateAllocatorDirect(b, name.c_str()));
    }
    std::vector<Offset<fb::Event>> events;
    for (const ETDumpEvent& e : run.events) events.push_back(write_event(b, e));
    blocks.push_back(fb::CreateRunDataDirect(
        b, run.name.c_str(), run.bundled_input_index, allocators.empty() ? nullptr : &allocators,
        &events, run.method_name.empty() ? nullptr : run.method_name.c_str()));
  }
  auto root = fb::CreateETDumpDirect(b, version, &blocks);
  fb::FinishSizePrefixedETDumpBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

ETDump ETDump::parse(std::span<const uint8_t> data, const std::string& source) {
  // Flatbuffer accessors read scalars in place: work on a copy when the bytes are misaligned.
  std::vector<uint8_t> aligned_copy;
  if (reinterpret_cast<uintptr_t>(data.data()) % alignof(uint64_t) != 0) {
    aligned_copy.assign(data.begin(), data.end());
    data = aligned_copy;
  }
  const uint8_t* bytes = data.data();
  const size_t size = data.size();
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    malformed(source, fmt::format("{} bytes is larger than a flatbuffer can be", size));
  }
  if (size < 8) {
    malformed(source, fmt::format("{} bytes is too short for a flatbuffer", size));
  }
  const bool size_prefixed =
      size >= 12 && flatbuffers::BufferHasIdentifier(bytes, fb::ETDumpIdentifier(), true);
  if (!size_prefixed && !fb::ETDumpBufferHasIdentifier(bytes)) {
    raise(Error::InvalidProgram, "{}: not an etdump (identifier \"{}\" missing)", source,
          fb::ETDumpIdentifier());
  }
  // Tables take at least 4 bytes each, so this bound never rejects a valid file.
  flatbuffers::Verifier::Options options;
  options.max_depth = 64;
  options.max_tables = size / 4 + 16;
  flatbuffers::Verifier verifier(bytes, size, options);
  const fb::ETDump* root = nullptr;
  if (size_prefixed) {
    const uint32_t prefix = flatbuffers::ReadScalar<uint32_t>(bytes);
    if (prefix != size - sizeof(uint32_t)) {
      malformed(source, fmt::format("size prefix {} does not match the {} bytes that follow it "
                                    "(truncated or padded file)",
                                    prefix, size - sizeof(uint32_t)));
    }
    if (!fb::VerifySizePrefixedETDumpBuffer(verifier)) {
      malformed(source, "the flatbuffer verifier rejected it");
    }
    root = fb::GetSizePrefixedETDump(bytes);
  } else {
    if (!fb::VerifyETDumpBuffer(verifier)) malformed(source, "the flatbuffer verifier rejected it");
    root = fb::GetETDump(bytes);
  }

  ETDump out;
  out.version = root->version();
  const auto* runs = root->run_data();
  for (flatbuffers::uoffset_t r = 0; runs != nullptr && r < runs->size(); ++r) {
    const fb::RunData* run = runs->Get(r);
    if (run == nullptr) malformed(source, fmt::format("run_data {} is null", r));
    RunData block;
    block.name = str(run->name());
    block.method_name = str(run->method_name());
    block.bundled_input_index = run->bundled_input_index();
    if (run->allocators() != nullptr) {
      for (const fb::Allocator* a : *run->allocators()) {
        block.allocators.push_back(a == nullptr ? "" : str(a->name()));
      }
    }
    const auto* events = run->events();
    for (flatbuffers::uoffset_t i = 0; events != nullptr && i < events->size(); ++i) {
      block.events.push_back(
          read_event(events->Get(i), fmt::format("run_data {} event {}", r, i), source));
    }
    out.run_data.push_back(std::move(block));
  }
  return out;
}

std::vector<uint8_t> read_binary_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  PTEC_ENFORCE(in.good(), NotFound, "{}: cannot open file", path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  PTEC_ENFORCE(!in.bad(), AccessFailed, "{}: read error", path);
  return bytes;
}

ETDump ETDump::load(const std::string& path) { return parse(read_binary_file(path), path); }

std::span<const uint8_t> tensor_data(const ETDumpTensor& tensor,
                                     std::span<const uint8_t> debug_buffer) {
  PTEC_ENFORCE(tensor.offset >= 0, InvalidArgument,
               "the logged tensor has no data in the debug buffer (offset {})", tensor.offset);
  const size_t nbytes = tensor.nbytes();
  const auto offset = static_cast<uint64_t>(tensor.offset);
  PTEC_ENFORCE(offset <= debug_buffer.size() && nbytes <= debug_buffer.size() - offset,
               InvalidArgument,
               "the logged tensor's {} bytes at offset {} lie outside the {}-byte debug buffer",
               nbytes, offset, debug_buffer.size());
  return debug_buffer.subspan(offset, nbytes);
}

}  // namespace ptec::devtools
