#include "runtime/extension/module.h"

#include <cstdlib>
#include <utility>

#include "core/log.h"
#include "runtime/extension/reusable_arena_allocator.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"

namespace ptec::runtime {
namespace {

// A method allocator that grows on the heap: each allocation is its own block, freed when the
// allocator is reset or destroyed.
class MallocMemoryAllocator final : public MemoryAllocator {
 public:
  MallocMemoryAllocator() : MemoryAllocator(nullptr, 0) {}
  ~MallocMemoryAllocator() override { reset(); }
  MallocMemoryAllocator(const MallocMemoryAllocator&) = delete;
  MallocMemoryAllocator& operator=(const MallocMemoryAllocator&) = delete;

  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) return nullptr;
    if (alignment < alignof(void*)) alignment = alignof(void*);
    const size_t rounded = ((size == 0 ? 1 : size) + alignment - 1) & ~(alignment - 1);
    void* p = std::aligned_alloc(alignment, rounded);
    if (p != nullptr) {
      blocks_.push_back(p);
      track_allocation(size);
    }
    return p;
  }
  void reset() override {
    for (void* p : blocks_) std::free(p);
    blocks_.clear();
  }

 private:
  std::vector<void*> blocks_;
};

struct AlignedFree {
  void operator()(uint8_t* p) const { std::free(p); }
};

}  // namespace

struct Module::MethodHolder {
  MallocMemoryAllocator method_allocator;
  ReusableArenaAllocator temp_allocator;
  std::vector<std::unique_ptr<uint8_t, AlignedFree>> buffers;
  std::vector<Span<uint8_t>> spans;
  std::unique_ptr<HierarchicalAllocator> planned;
  MemoryManager memory_manager;
  std::unique_ptr<Method> method;
};

Module::Module(std::string path, std::string data_path, LoadMode mode, EventTracer* event_tracer)
    : path_(std::move(path)),
      data_path_(std::move(data_path)),
      mode_(mode),
      event_tracer_(event_tracer) {}

Module::Module(const void* data, size_t size, EventTracer* event_tracer)
    : mode_(LoadMode::File), buffer_(data), buffer_size_(size), event_tracer_(event_tracer) {}

Module::~Module() {
  // Methods before the program, the program before its loader.
  methods_.clear();
  program_.reset();
  data_map_.reset();
}

namespace {

Result<std::unique_ptr<DataLoader>> open_loader(const std::string& path, Module::LoadMode mode) {
  if (mode == Module::LoadMode::Mmap) {
    Result<MmapDataLoader> loader = MmapDataLoader::from(path.c_str());
    if (!loader.ok()) return loader.error();
    return std::unique_ptr<DataLoader>(new MmapDataLoader(std::move(loader.get())));
  }
  Result<FileDataLoader> loader = FileDataLoader::from(path.c_str());
  if (!loader.ok()) return loader.error();
  return std::unique_ptr<DataLoader>(new FileDataLoader(std::move(loader.get())));
}

}  // namespace

Error Module::load(Program::Verification verification) {
  if (program_ != nullptr) return Error::Ok;
  if (loader_ == nullptr) {
    if (buffer_ != nullptr) {
      loader_ = std::make_unique<BufferDataLoader>(buffer_, buffer_size_);
    } else {
      Result<std::unique_ptr<DataLoader>> loader = open_loader(path_, mode_);
      if (!loader.ok()) return loader.error();
      loader_ = std::move(loader.get());
    }
  }
  if (!data_path_.empty() && data_map_ == nullptr) {
    Result<std::unique_ptr<DataLoader>> loader = open_loader(data_path_, mode_);
    if (!loader.ok()) return loader.error();
    data_loader_ = std::move(loader.get());
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(data_loader_.get());
    if (!map.ok()) {
      PTEC_LOG(Error, "cannot load data file '%s'", data_path_.c_str());
      return map.error();
    }
    data_map_ = std::make_unique<FlatTensorDataMap>(std::move(map.get()));
  }
  Result<Program> program = Program::load(loader_.get(), verification);
  if (!program.ok()) {
    if (!path_.empty()) PTEC_LOG(Error, "cannot load program '%s'", path_.c_str());
    return program.error();
  }
  program_ = std::make_unique<Program>(std::move(program.get()));
  return Error::Ok;
}

const Program* Module::program() { return load() == Error::Ok ? program_.get() : nullptr; }

Result<std::vector<std::string>> Module::method_names() {
  PTEC_TRY(load());
  std::vector<std::string> names;
  for (size_t i = 0; i < program_->num_methods(); ++i) {
    PTEC_TRY_ASSIGN(const char* name, program_->get_method_name(i));
    names.emplace_back(name);
  }
  return names;
}

Result<MethodMeta> Module::method_meta(const std::string& method_name) {
  PTEC_TRY(load());
  return program_->method_meta(method_name.c_str());
}

bool Module::is_method_loaded(const std::string& method_name) const {
  return methods_.count(method_name) > 0;
}

Error Module::load_method(const std::string& method_name) {
  if (is_method_loaded(method_name)) return Error::Ok;
  PTEC_TRY(load());
  PTEC_TRY_ASSIGN(const MethodMeta meta, program_->method_meta(method_name.c_str()));
  auto holder = std::make_unique<MethodHolder>();
  for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
    PTEC_TRY_ASSIGN(const int64_t size, meta.memory_planned_buffer_size(i));
    const size_t bytes = static_cast<size_t>(size);
    const size_t rounded = ((bytes == 0 ? 1 : bytes) + 63) & ~size_t{63};
    uint8_t* data = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
    if (data == nullptr) {
      PTEC_LOG(Error, "cannot allocate planned buffer %zu of %zu bytes", i, bytes);
      return Error::MemoryAllocationFailed;
    }
    holder->buffers.emplace_back(data);
    holder->spans.emplace_back(data, bytes);
  }
  holder->planned = std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>(holder->spans));
  holder->memory_manager.method_allocator = &holder->method_allocator;
  holder->memory_manager.planned_memory = holder->planned.get();
  holder->memory_manager.temp_allocator = &holder->temp_allocator;
  if (event_tracer_ != nullptr) {
    // Allocation events (ETDump): the method allocator during load, scratch memory per kernel.
    holder->method_allocator.enable_profiling(event_tracer_, "method_allocator");
    holder->temp_allocator.enable_profiling(event_tracer_, "temp_allocator");
  }
  Result<Method> method = program_->load_method(method_name.c_str(), &holder->memory_manager,
                                                event_tracer_, data_map_.get());
  if (!method.ok()) return method.error();
  holder->method = std::make_unique<Method>(std::move(method.get()));
  methods_.emplace(method_name, std::move(holder));
  return Error::Ok;
}

Result<Method*> Module::method(const std::string& method_name) {
  PTEC_TRY(load_method(method_name));
  return methods_.at(method_name)->method.get();
}

Error Module::set_input(const std::string& method_name, const EValue& value, size_t index) {
  PTEC_TRY_ASSIGN(Method * m, method(method_name));
  return m->set_input(value, index);
}

Result<std::vector<EValue>> Module::execute(const std::string& method_name,
                                            const std::vector<EValue>& inputs) {
  PTEC_TRY_ASSIGN(Method * m, method(method_name));
  PTEC_CHECK_OR_RETURN_ERROR(inputs.size() == m->inputs_size(), InvalidArgument,
                             "method '%s' takes %zu inputs, %zu given", method_name.c_str(),
                             m->inputs_size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) PTEC_TRY(m->set_input(inputs[i], i));
  return execute(method_name);
}

Result<std::vector<EValue>> Module::execute(const std::string& method_name) {
  PTEC_TRY_ASSIGN(Method * m, method(method_name));
  PTEC_TRY(m->execute());
  std::vector<EValue> outputs;
  outputs.reserve(m->outputs_size());
  for (size_t i = 0; i < m->outputs_size(); ++i) {
    PTEC_TRY_ASSIGN(EValue v, m->get_output(i));
    outputs.push_back(v);
  }
  return outputs;
}

}  // namespace ptec::runtime
