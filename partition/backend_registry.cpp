#include <map>
#include <mutex>

#include <fmt/format.h>

#include "ir/exception.h"
#include "partition/backend.h"

namespace ptec::partition {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, std::shared_ptr<const Backend>>& registry() {
  static std::map<std::string, std::shared_ptr<const Backend>> backends;
  return backends;
}

}  // namespace

void register_backend(std::shared_ptr<const Backend> backend) {
  PTEC_ENFORCE(backend != nullptr, InvalidArgument, "register_backend: null backend");
  const std::string id = backend->id();
  PTEC_ENFORCE(!id.empty(), InvalidArgument, "register_backend: empty backend id");
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto [it, inserted] = registry().emplace(id, backend);
  PTEC_ENFORCE(inserted || it->second == backend, InvalidArgument,
               "register_backend: backend {} is already registered", id);
}

const Backend& get_backend(const std::string& id) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(id);
  if (it == registry().end()) {
    std::vector<std::string> known;
    for (const auto& [name, backend] : registry()) known.push_back(name);
    raise(Error::NotFound, "Backend {} is not registered (registered: {})", id,
          known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", ")));
  }
  return *it->second;
}

std::vector<std::string> registered_backends() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<std::string> out;
  for (const auto& [name, backend] : registry()) out.push_back(name);
  return out;
}

}  // namespace ptec::partition
