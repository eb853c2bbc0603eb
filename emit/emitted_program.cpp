#include "emit/emitted_program.h"

#include "ir/exception.h"

namespace ptec::emit {

uint64_t EmittedProgram::segment_data_size() const {
  uint64_t end = 0;
  for (const Segment& s : segments) end = std::max(end, s.offset + s.size);
  return end;
}

uint64_t EmittedProgram::constant_bytes() const {
  if (segments.empty()) return 0;
  uint64_t total = 0;
  for (const SegmentPiece& p : segments[0].pieces) total += p.data->size();
  return total;
}

std::map<std::string, std::map<int64_t, int64_t>> EmittedProgram::debug_handle_map() const {
  std::map<std::string, std::map<int64_t, int64_t>> out;
  for (const EmittedMethod& m : methods) out[m.name] = m.debug_handle_map;
  return out;
}

const EmittedMethod& EmittedProgram::method(const std::string& name) const {
  for (const EmittedMethod& m : methods) {
    if (m.name == name) return m;
  }
  raise(Error::NotFound, "the emitted program has no method '{}'", name);
}

}  // namespace ptec::emit
