#include "runtime/kernel/operator_registry.h"

#include <cstring>

#include "core/log.h"

namespace ptec::runtime {
namespace {

Kernel g_kernels[kMaxRegisteredKernels];
size_t g_num_kernels = 0;

}  // namespace

Error register_kernels(Span<const Kernel> kernels) {
  if (kernels.size() > kMaxRegisteredKernels - g_num_kernels) {
    PTEC_LOG(Error, "register_kernels: table of %zu kernels is full", kMaxRegisteredKernels);
    return Error::OutOfResources;
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    bool duplicate = get_op_function(kernels[i].name) != nullptr;
    for (size_t j = 0; j < i && !duplicate; ++j) {
      duplicate = std::strcmp(kernels[i].name, kernels[j].name) == 0;
    }
    if (duplicate) {
      PTEC_LOG(Error, "register_kernels: kernel '%s' is already registered", kernels[i].name);
      return Error::InvalidArgument;
    }
  }
  for (const Kernel& k : kernels) g_kernels[g_num_kernels++] = k;
  return Error::Ok;
}

Error replace_kernel(const char* name, OpFunction fn, OpFunction* previous) {
  if (name == nullptr || fn == nullptr) return Error::InvalidArgument;
  for (size_t i = 0; i < g_num_kernels; ++i) {
    if (std::strcmp(g_kernels[i].name, name) == 0) {
      if (previous != nullptr) *previous = g_kernels[i].fn;
      g_kernels[i].fn = fn;
      return Error::Ok;
    }
  }
  return Error::NotFound;
}

OpFunction get_op_function(const char* name) {
  for (size_t i = 0; i < g_num_kernels; ++i) {
    if (std::strcmp(g_kernels[i].name, name) == 0) return g_kernels[i].fn;
  }
  return nullptr;
}

Span<const Kernel> registered_kernels() { return {g_kernels, g_num_kernels}; }

}  // namespace ptec::runtime
