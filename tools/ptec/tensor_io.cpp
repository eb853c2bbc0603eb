#include "tools/ptec/tensor_io.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <onnx/onnx_pb.h>

#include "emit/atomic_file.h"
#include "ir/exception.h"

namespace ptec::cli {
namespace fs = std::filesystem;
namespace {

struct OnnxType {
  int onnx;
  DType dtype;
  const char* npy;  // NumPy descr without the byte-order character
};

// ONNX TensorProto.DataType ↔ DType ↔ NumPy descr.
constexpr OnnxType kTypes[] = {
    {1, DType::Float, "f4"},   {2, DType::Byte, "u1"},    {3, DType::Char, "i1"},
    {4, DType::UInt16, "u2"},  {5, DType::Short, "i2"},   {6, DType::Int, "i4"},
    {7, DType::Long, "i8"},    {9, DType::Bool, "b1"},    {10, DType::Half, "f2"},
    {11, DType::Double, "f8"}, {12, DType::UInt32, "u4"}, {13, DType::UInt64, "u8"},
    {16, DType::BFloat16, ""},
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  PTEC_ENFORCE(in.good(), AccessFailed, "{}: cannot open", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <typename Field>
void append_typed(std::vector<uint8_t>& out, const Field& field, DType dtype) {
  for (const auto& v : field) {
    switch (dtype) {
#define PTEC_APPEND(DT, T)                                \
  case DType::DT: {                                       \
    const T x = static_cast<T>(v);                        \
    const auto* p = reinterpret_cast<const uint8_t*>(&x); \
    out.insert(out.end(), p, p + sizeof(T));              \
    break;                                                \
  }
      PTEC_APPEND(Float, float)
      PTEC_APPEND(Double, double)
      PTEC_APPEND(Byte, uint8_t)
      PTEC_APPEND(Char, int8_t)
      PTEC_APPEND(Short, int16_t)
      PTEC_APPEND(UInt16, uint16_t)
      PTEC_APPEND(Int, int32_t)
      PTEC_APPEND(Long, int64_t)
      PTEC_APPEND(UInt32, uint32_t)
      PTEC_APPEND(UInt64, uint64_t)
      PTEC_APPEND(Bool, uint8_t)
#undef PTEC_APPEND
      case DType::Half:
      case DType::BFloat16: {
        const auto x = static_cast<uint16_t>(v);  // int32_data holds the raw 16 bits
        const auto* p = reinterpret_cast<const uint8_t*>(&x);
        out.insert(out.end(), p, p + 2);
        break;
      }
      default: raise(Error::NotSupported, "unsupported dtype {}", to_string(dtype));
    }
  }
}

}  // namespace

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::string HostTensor::shape_string() const {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "]";
}

HostTensor read_tensor_pb(const std::string& path) {
  const std::string bytes = read_file(path);
  onnx::TensorProto proto;
  PTEC_ENFORCE(proto.ParseFromString(bytes), InvalidArgument,
               "{}: not a serialized onnx.TensorProto", path);
  HostTensor t;
  bool found = false;
  for (const OnnxType& type : kTypes) {
    if (type.onnx == proto.data_type()) {
      t.dtype = type.dtype;
      found = true;
    }
  }
  PTEC_ENFORCE(found, NotSupported, "{}: unsupported tensor data type {}", path, proto.data_type());
  for (int64_t d : proto.dims()) {
    PTEC_ENFORCE(d >= 0, InvalidArgument, "{}: negative dimension {}", path, d);
    t.sizes.push_back(d);
  }
  PTEC_ENFORCE(proto.data_location() != onnx::TensorProto::EXTERNAL, NotSupported,
               "{}: tensors with external data are not supported here", path);
  if (proto.has_raw_data()) {
    t.data.assign(proto.raw_data().begin(), proto.raw_data().end());
  } else if (proto.float_data_size() > 0) {
    append_typed(t.data, proto.float_data(), t.dtype);
  } else if (proto.double_data_size() > 0) {
    append_typed(t.data, proto.double_data(), t.dtype);
  } else if (proto.int64_data_size() > 0) {
    append_typed(t.data, proto.int64_data(), t.dtype);
  } else if (proto.uint64_data_size() > 0) {
    append_typed(t.data, proto.uint64_data(), t.dtype);
  } else if (proto.int32_data_size() > 0) {
    append_typed(t.data, proto.int32_data(), t.dtype);
  }
  const auto expected = static_cast<size_t>(t.numel()) * element_size(t.dtype);
  PTEC_ENFORCE(t.data.size() == expected, InvalidArgument,
               "{}: tensor {} of {} needs {} bytes, the file holds {}", path, t.shape_string(),
               to_string(t.dtype), expected, t.data.size());
  return t;
}

void write_tensor_pb(const HostTensor& tensor, const std::string& path) {
  onnx::TensorProto proto;
  int onnx_type = 0;
  for (const OnnxType& type : kTypes) {
    if (type.dtype == tensor.dtype) onnx_type = type.onnx;
  }
  PTEC_ENFORCE(onnx_type != 0, NotSupported, "{}: cannot write dtype {} as an ONNX tensor", path,
               to_string(tensor.dtype));
  proto.set_data_type(onnx_type);
  for (int64_t d : tensor.sizes) proto.add_dims(d);
  proto.set_raw_data(tensor.data.data(), tensor.data.size());
  write_file_atomically(path, proto.SerializeAsString());
}

HostTensor read_npy(const std::string& path) {
  const std::string bytes = read_file(path);
  PTEC_ENFORCE(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0, InvalidArgument,
               "{}: not a .npy file", path);
  const auto major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    header_start = 10;
  } else {
    PTEC_ENFORCE(bytes.size() >= 12, InvalidArgument, "{}: truncated .npy header", path);
    for (int i = 0; i < 4; ++i) header_len |= size_t{static_cast<uint8_t>(bytes[8 + i])} << (8 * i);
    header_start = 12;
  }
  PTEC_ENFORCE(header_start + header_len <= bytes.size(), InvalidArgument,
               "{}: truncated .npy header", path);
  const std::string header = bytes.substr(header_start, header_len);

  auto field = [&](const std::string& key) -> std::string {
    const size_t k = header.find("'" + key + "'");
    PTEC_ENFORCE(k != std::string::npos, InvalidArgument, "{}: .npy header has no '{}'", path, key);
    const size_t colon = header.find(':', k);
    PTEC_ENFORCE(colon != std::string::npos, InvalidArgument, "{}: malformed .npy header", path);
    size_t start = colon + 1;
    while (start < header.size() && header[start] == ' ') ++start;
    size_t end = start;
    if (start < header.size() && header[start] == '(') {
      end = header.find(')', start);
      PTEC_ENFORCE(end != std::string::npos, InvalidArgument, "{}: malformed .npy shape", path);
      return header.substr(start + 1, end - start - 1);
    }
    end = header.find_first_of(",}", start);
    return header.substr(start, end - start);
  };

  std::string descr = field("descr");
  descr.erase(std::remove(descr.begin(), descr.end(), '\''), descr.end());
  PTEC_ENFORCE(field("fortran_order").find("False") != std::string::npos, NotSupported,
               "{}: Fortran-ordered arrays are not supported", path);
  PTEC_ENFORCE(!descr.empty() && (descr[0] == '<' || descr[0] == '|'), NotSupported,
               "{}: only little-endian arrays are supported (descr {})", path, descr);
  HostTensor t;
  bool found = false;
  for (const OnnxType& type : kTypes) {
    if (type.npy[0] != '\0' && descr.substr(1) == type.npy) {
      t.dtype = type.dtype;
      found = true;
    }
  }
  PTEC_ENFORCE(found, NotSupported, "{}: unsupported .npy dtype {}", path, descr);
  std::stringstream shape(field("shape"));
  std::string item;
  while (std::getline(shape, item, ',')) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item.empty()) continue;
    t.sizes.push_back(std::stoll(item));
  }
  const size_t data_start = header_start + header_len;
  const auto expected = static_cast<size_t>(t.numel()) * element_size(t.dtype);
  PTEC_ENFORCE(bytes.size() - data_start == expected, InvalidArgument,
               "{}: array {} needs {} bytes, the file holds {}", path, t.shape_string(), expected,
               bytes.size() - data_start);
  t.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start), bytes.end());
  return t;
}

void write_npy(const HostTensor& tensor, const std::string& path) {
  const char* descr = nullptr;
  for (const OnnxType& type : kTypes) {
    if (type.dtype == tensor.dtype && type.npy[0] != '\0') descr = type.npy;
  }
  PTEC_ENFORCE(descr != nullptr, NotSupported, "{}: cannot write dtype {} as .npy", path,
               to_string(tensor.dtype));
  std::string shape;
  for (size_t i = 0; i < tensor.sizes.size(); ++i) {
    shape += (i ? ", " : "") + std::to_string(tensor.sizes[i]);
  }
  if (tensor.sizes.size() == 1) shape += ",";            // a one-element tuple: "(2,)"
  const char* byte_order = descr[1] == '1' ? "|" : "<";  // one-byte types have no byte order
  std::string header = fmt::format("{{'descr': '{}{}', 'fortran_order': False, 'shape': ({}), }}",
                                   byte_order, descr, shape);
  // Pad so that the data starts at a multiple of 64 bytes; the header ends with '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(tensor.data.data()), tensor.data.size());
  write_file_atomically(path, out);
}

std::vector<HostTensor> read_input_dir(const std::string& dir) {
  PTEC_ENFORCE(fs::is_directory(dir), NotFound, "{}: not a directory", dir);
  std::vector<HostTensor> inputs;
  for (int k = 0;; ++k) {
    const fs::path pb = fs::path(dir) / fmt::format("input_{}.pb", k);
    const fs::path npy = fs::path(dir) / fmt::format("input_{}.npy", k);
    if (fs::exists(pb)) {
      inputs.push_back(read_tensor_pb(pb.string()));
    } else if (fs::exists(npy)) {
      inputs.push_back(read_npy(npy.string()));
    } else {
      break;
    }
  }
  if (inputs.empty()) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".npy") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) inputs.push_back(read_npy(f.string()));
  }
  PTEC_ENFORCE(!inputs.empty(), NotFound, "{}: no input_K.pb or .npy files", dir);
  return inputs;
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  emit::AtomicFileWriter writer(path);
  writer.write(bytes.data(), bytes.size());
  writer.commit();
}

}  // namespace ptec::cli
