#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace ptec::cli {

/// A tensor owned by the CLI: inputs read from files and outputs read back from a method.
struct HostTensor {
  DType dtype = DType::Float;
  std::vector<int64_t> sizes;
  std::vector<uint8_t> data;

  int64_t numel() const;
  std::string shape_string() const;  // "[1, 1000]"
};

/// Reads a serialized onnx.TensorProto (the ONNX backend-test `input_K.pb` layout).
/// Throws ptec::Exception naming the file on any problem.
HostTensor read_tensor_pb(const std::string& path);
/// Writes `tensor` as a serialized onnx.TensorProto (raw_data), atomically.
void write_tensor_pb(const HostTensor& tensor, const std::string& path);

/// Reads a NumPy .npy file (format 1.0–3.0, C order, little-endian numeric dtypes).
HostTensor read_npy(const std::string& path);
/// Writes a NumPy .npy file (format 1.0), atomically.
void write_npy(const HostTensor& tensor, const std::string& path);

/// Reads the inputs of a directory: `input_0.pb, input_1.pb, ...` or `input_0.npy, ...` (or, when
/// there are no input_K files, every .npy file in name order). Throws when the directory has none.
std::vector<HostTensor> read_input_dir(const std::string& dir);

/// Writes `path` atomically (temp file in the same directory, then rename).
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace ptec::cli
