#pragma once

#include <cstdint>

namespace ptec {

/// Error codes shared by the runtime and the compiler. The numbering follows ExecuTorch's
/// runtime/core/error.h so that codes read the same in logs of both runtimes.
enum class Error : uint32_t {
  // System errors.
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,

  // Logical errors.
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,

  // Resource errors.
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,

  // Delegate errors.
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

/// Name of an error code, e.g. "InvalidProgram". Never null.
const char* to_string(Error error);

}  // namespace ptec
