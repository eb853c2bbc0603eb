// libFuzzer target: Program::load, load_method for every method, and execute with bounded
// memory (runtime/test/fuzz/exercise_program.h); inputs that carry the FT01 identifier are fed
// to FlatTensorDataMap instead. Built with clang when PTEC_BUILD_FUZZERS=ON (`make fuzz`).

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/log.h"
#include "kernels/portable/register.h"
#include "kernels/quantized/register.h"
#include "runtime/backend/interface.h"
#include "runtime/kernel/boxing.h"
#include "runtime/test/fuzz/exercise_program.h"

namespace {

// Accepts any delegate of the upstream demo backend's id so that mutated delegate programs
// reach init/execute/destroy; it reads its blob but never writes tensors.
class FuzzBackend final : public ptec::runtime::BackendInterface {
 public:
  bool is_available() const override { return true; }
  ptec::Result<ptec::runtime::DelegateHandle*> init(
      ptec::runtime::BackendInitContext&, ptec::runtime::FreeableBuffer* processed,
      ptec::Span<const ptec::runtime::CompileSpec> specs) const override {
    uint32_t sum = 0;
    const uint8_t* bytes = static_cast<const uint8_t*>(processed->data());
    for (size_t i = 0; i < processed->size(); ++i) sum += bytes[i];
    for (const auto& spec : specs) sum += static_cast<uint32_t>(std::strlen(spec.key));
    return reinterpret_cast<ptec::runtime::DelegateHandle*>(static_cast<uintptr_t>(sum | 1));
  }
  ptec::Error execute(ptec::runtime::BackendExecutionContext&, ptec::runtime::DelegateHandle*,
                      ptec::Span<ptec::runtime::EValue*>) const override {
    return ptec::Error::Ok;
  }
};

FuzzBackend g_backend;

void silent(ptec::LogLevel, const char*, void*) {}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (std::getenv("PTEC_FUZZ_VERBOSE") == nullptr) ptec::set_log_sink(&silent, nullptr);
  // The real portable and quantized kernels: programs that use them load fully and run (bounded
  // memory).
  (void)ptec::kernels::register_portable_kernels();
  (void)ptec::kernels::register_quantized_kernels();
  (void)ptec::runtime::register_backend({"BackendWithCompilerDemo", &g_backend});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Program::load requires max_align_t alignment; libFuzzer's buffer makes no promise.
  const size_t rounded = (size + 63) & ~size_t{63};
  uint8_t* copy = static_cast<uint8_t*>(std::aligned_alloc(64, rounded == 0 ? 64 : rounded));
  if (copy == nullptr) return 0;
  if (size > 0) std::memcpy(copy, data, size);
  if (size >= 8 && std::memcmp(copy + 4, "FT01", 4) == 0) {
    ptec::runtime::fuzz::exercise_data_map(copy, size);
  } else {
    ptec::runtime::fuzz::exercise_program(copy, size);
  }
  std::free(copy);
  return 0;
}
