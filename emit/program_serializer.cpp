#include "emit/program_serializer.h"

#include "ir/exception.h"

namespace ptec::emit {

namespace fb = executorch_flatbuffer;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

namespace {

template <typename T, typename Fn>
auto table_vector(FlatBufferBuilder& b, const std::vector<std::unique_ptr<T>>& items, Fn&& fn) {
  using R = decltype(fn(b, *items[0]));
  std::vector<R> offsets;
  offsets.reserve(items.size());
  for (const auto& item : items) {
    PTEC_ENFORCE(item != nullptr, Internal, "serialize: null table in a vector");
    offsets.push_back(fn(b, *item));
  }
  return b.CreateVector(offsets);
}

Offset<fb::Tensor> write_tensor(FlatBufferBuilder& b, const fb::TensorT& t) {
  auto sizes = b.CreateVector(t.sizes);
  auto dim_order = b.CreateVector(t.dim_order);
  Offset<fb::AllocationDetails> allocation;
  if (t.allocation_info) {
    allocation = fb::CreateAllocationDetails(b, t.allocation_info->memory_id,
                                             t.allocation_info->memory_offset_low,
                                             t.allocation_info->memory_offset_high);
  }
  Offset<fb::ExtraTensorInfo> extra;
  if (t.extra_tensor_info) {
    const fb::ExtraTensorInfoT& e = *t.extra_tensor_info;
    extra = fb::CreateExtraTensorInfo(
        b, e.mutable_data_segments_idx,
        e.fully_qualified_name.empty() ? 0 : b.CreateString(e.fully_qualified_name), e.location,
        e.device_type, e.device_index);
  }
  return fb::CreateTensor(b, t.scalar_type, t.storage_offset, sizes, dim_order, t.requires_grad,
                          t.data_buffer_idx, allocation, t.layout, t.shape_dynamism, extra);
}

Offset<void> write_kernel_type(FlatBufferBuilder& b, const fb::KernelTypesUnion& u) {
  switch (u.type) {
    case fb::KernelTypes::Null: return fb::CreateNull(b).Union();
    case fb::KernelTypes::Int: return fb::CreateInt(b, u.AsInt()->int_val).Union();
    case fb::KernelTypes::Bool: return fb::CreateBool(b, u.AsBool()->bool_val).Union();
    case fb::KernelTypes::Double: return fb::CreateDouble(b, u.AsDouble()->double_val).Union();
    case fb::KernelTypes::Tensor: return write_tensor(b, *u.AsTensor()).Union();
    case fb::KernelTypes::String:
      return fb::CreateString(b, b.CreateString(u.AsString()->string_val)).Union();
    case fb::KernelTypes::IntList:
      return fb::CreateIntList(b, b.CreateVector(u.AsIntList()->items)).Union();
    case fb::KernelTypes::DoubleList:
      return fb::CreateDoubleList(b, b.CreateVector(u.AsDoubleList()->items)).Union();
    case fb::KernelTypes::BoolList: {
      // std::vector<bool> has no data(): copy into bytes.
      const std::vector<bool>& items = u.AsBoolList()->items;
      std::vector<uint8_t> bytes(items.begin(), items.end());
      return fb::CreateBoolList(b, b.CreateVector(bytes)).Union();
    }
    case fb::KernelTypes::TensorList:
      return fb::CreateTensorList(b, b.CreateVector(u.AsTensorList()->items)).Union();
    case fb::KernelTypes::OptionalTensorList:
      return fb::CreateOptionalTensorList(b, b.CreateVector(u.AsOptionalTensorList()->items))
          .Union();
    case fb::KernelTypes::NONE: break;
  }
  raise(Error::Internal, "serialize: an EValue has no value");
}

Offset<void> write_instruction_args(FlatBufferBuilder& b, const fb::InstructionArgumentsUnion& u) {
  switch (u.type) {
    case fb::InstructionArguments::KernelCall: {
      const auto* k = u.AsKernelCall();
      return fb::CreateKernelCall(b, k->op_index, b.CreateVector(k->args)).Union();
    }
    case fb::InstructionArguments::DelegateCall: {
      const auto* d = u.AsDelegateCall();
      return fb::CreateDelegateCall(b, d->delegate_index, b.CreateVector(d->args)).Union();
    }
    case fb::InstructionArguments::MoveCall: {
      const auto* m = u.AsMoveCall();
      return fb::CreateMoveCall(b, m->move_from, m->move_to).Union();
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const auto* j = u.AsJumpFalseCall();
      return fb::CreateJumpFalseCall(b, j->cond_value_index, j->destination_instruction).Union();
    }
    case fb::InstructionArguments::FreeCall:
      return fb::CreateFreeCall(b, u.AsFreeCall()->value_index).Union();
    case fb::InstructionArguments::NONE: break;
  }
  raise(Error::Internal, "serialize: an instruction has no arguments");
}

Offset<fb::Chain> write_chain(FlatBufferBuilder& b, const fb::ChainT& c) {
  auto inputs = b.CreateVector(c.inputs);
  auto outputs = b.CreateVector(c.outputs);
  auto instructions =
      table_vector(b, c.instructions, [](FlatBufferBuilder& bb, const fb::InstructionT& i) {
        auto args = write_instruction_args(bb, i.instr_args);
        return fb::CreateInstruction(bb, i.instr_args.type, args);
      });
  Offset<flatbuffers::Vector<Offset<fb::FrameList>>> stacktrace;
  if (!c.stacktrace.empty()) {
    stacktrace = table_vector(b, c.stacktrace, [](FlatBufferBuilder& bb, const fb::FrameListT& l) {
      auto frames = table_vector(bb, l.items, [](FlatBufferBuilder& bbb, const fb::FrameT& f) {
        return fb::CreateFrameDirect(bbb, f.filename.c_str(), f.lineno, f.name.c_str(),
                                     f.context.c_str());
      });
      return fb::CreateFrameList(bb, frames);
    });
  }
  return fb::CreateChain(b, inputs, outputs, instructions, stacktrace);
}

Offset<fb::BackendDelegate> write_delegate(FlatBufferBuilder& b, const fb::BackendDelegateT& d) {
  auto id = b.CreateString(d.id);
  Offset<fb::BackendDelegateDataReference> processed;
  if (d.processed) {
    processed =
        fb::CreateBackendDelegateDataReference(b, d.processed->location, d.processed->index);
  }
  auto specs =
      table_vector(b, d.compile_specs, [](FlatBufferBuilder& bb, const fb::CompileSpecT& s) {
        return fb::CreateCompileSpec(bb, bb.CreateString(s.key), bb.CreateVector(s.value));
      });
  return fb::CreateBackendDelegate(b, id, processed, specs);
}

Offset<fb::ExecutionPlan> write_plan(FlatBufferBuilder& b, const fb::ExecutionPlanT& p) {
  auto name = b.CreateString(p.name);
  const std::string empty;
  const fb::ContainerMetadataT* meta = p.container_meta_type.get();
  auto container =
      fb::CreateContainerMetadata(b, b.CreateString(meta ? meta->encoded_inp_str : empty),
                                  b.CreateString(meta ? meta->encoded_out_str : empty));
  auto values = table_vector(b, p.values, [](FlatBufferBuilder& bb, const fb::EValueT& v) {
    auto val = write_kernel_type(bb, v.val);
    return fb::CreateEValue(bb, v.val.type, val);
  });
  auto inputs = b.CreateVector(p.inputs);
  auto outputs = b.CreateVector(p.outputs);
  auto chains = table_vector(b, p.chains, write_chain);
  auto operators = table_vector(b, p.operators, [](FlatBufferBuilder& bb, const fb::OperatorT& o) {
    return fb::CreateOperator(bb, bb.CreateString(o.name), bb.CreateString(o.overload));
  });
  auto delegates = table_vector(b, p.delegates, write_delegate);
  auto buffer_sizes = b.CreateVector(p.non_const_buffer_sizes);
  Offset<flatbuffers::Vector<Offset<fb::NonConstBufferDevice>>> devices;
  if (!p.non_const_buffer_device.empty()) {
    devices = table_vector(b, p.non_const_buffer_device,
                           [](FlatBufferBuilder& bb, const fb::NonConstBufferDeviceT& d) {
                             return fb::CreateNonConstBufferDevice(bb, d.buffer_idx, d.device_type,
                                                                   d.device_index);
                           });
  }
  return fb::CreateExecutionPlan(b, name, container, values, inputs, outputs, chains, operators,
                                 delegates, buffer_sizes, devices);
}

Offset<fb::SubsegmentOffsets> write_subsegment(FlatBufferBuilder& b,
                                               const fb::SubsegmentOffsetsT& s) {
  return fb::CreateSubsegmentOffsets(b, s.segment_index, b.CreateVector(s.offsets));
}

}  // namespace

flatbuffers::DetachedBuffer serialize_program(const fb::ProgramT& program) {
  FlatBufferBuilder b(4096);
  auto plans = table_vector(b, program.execution_plan, write_plan);
  auto constant_buffer =
      table_vector(b, program.constant_buffer, [](FlatBufferBuilder& bb, const fb::BufferT& buf) {
        bb.ForceVectorAlignment(buf.storage.size(), sizeof(uint8_t), 16);
        return fb::CreateBuffer(bb, bb.CreateVector(buf.storage));
      });
  auto inline_data =
      table_vector(b, program.backend_delegate_data,
                   [](FlatBufferBuilder& bb, const fb::BackendDelegateInlineDataT& d) {
                     bb.ForceVectorAlignment(d.data.size(), sizeof(uint8_t), 16);
                     return fb::CreateBackendDelegateInlineData(bb, bb.CreateVector(d.data));
                   });
  auto segments =
      table_vector(b, program.segments, [](FlatBufferBuilder& bb, const fb::DataSegmentT& s) {
        return fb::CreateDataSegment(bb, s.offset, s.size);
      });
  Offset<fb::SubsegmentOffsets> constant_segment;
  if (program.constant_segment) constant_segment = write_subsegment(b, *program.constant_segment);
  Offset<flatbuffers::Vector<Offset<fb::SubsegmentOffsets>>> mutable_segments;
  if (!program.mutable_data_segments.empty()) {
    mutable_segments = table_vector(b, program.mutable_data_segments, write_subsegment);
  }
  Offset<flatbuffers::Vector<Offset<fb::NamedData>>> named_data;
  if (!program.named_data.empty()) {
    named_data =
        table_vector(b, program.named_data, [](FlatBufferBuilder& bb, const fb::NamedDataT& n) {
          return fb::CreateNamedData(bb, bb.CreateString(n.key), n.segment_index);
        });
  }
  auto root = fb::CreateProgram(b, program.version, plans, constant_buffer, inline_data, segments,
                                constant_segment, mutable_segments, named_data);
  b.Finish(root, fb::ProgramIdentifier());
  return b.Release();
}

}  // namespace ptec::emit
