#include "core/log.h"
#include "runtime/backend/interface.h"

namespace ptec::runtime {
namespace {

Backend g_backends[kMaxRegisteredBackends];
size_t g_num_backends = 0;

}  // namespace

Error register_backend(const Backend& backend) {
  PTEC_CHECK_OR_RETURN_ERROR(backend.name != nullptr && backend.backend != nullptr, InvalidArgument,
                             "register_backend: null name or backend");
  PTEC_CHECK_OR_RETURN_ERROR(get_backend_class(backend.name) == nullptr, InvalidArgument,
                             "register_backend: backend '%s' is already registered", backend.name);
  PTEC_CHECK_OR_RETURN_ERROR(g_num_backends < kMaxRegisteredBackends, OutOfResources,
                             "register_backend: table of %zu backends is full",
                             kMaxRegisteredBackends);
  g_backends[g_num_backends++] = backend;
  return Error::Ok;
}

BackendInterface* get_backend_class(std::string_view name) {
  for (size_t i = 0; i < g_num_backends; ++i) {
    if (name == g_backends[i].name) return g_backends[i].backend;
  }
  return nullptr;
}

size_t get_num_registered_backends() { return g_num_backends; }

const char* get_registered_backend_name(size_t index) {
  return index < g_num_backends ? g_backends[index].name : nullptr;
}

}  // namespace ptec::runtime
