#include "frontends/onnx/const_eval.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/exception.h"

namespace ptec::onnx_import::eval {
namespace {

/// Maps each flat index of `out_sizes` to the flat index of a tensor with `in_strides` (0 for
/// broadcast dims), calling fn(out_index, in_index).
template <typename Fn>
void for_each_mapped(const std::vector<int64_t>& out_sizes, const std::vector<int64_t>& in_strides,
                     int64_t in_offset, Fn&& fn) {
  const int64_t n = element_count(out_sizes);
  if (n == 0) return;
  const size_t rank = out_sizes.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t in = in_offset;
  for (int64_t out = 0; out < n; ++out) {
    fn(out, in);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out_sizes[d]) {
        in += in_strides[d];
        break;
      }
      in -= in_strides[d] * (out_sizes[d] - 1);
      idx[d] = 0;
    }
  }
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
  return strides;
}

/// Strides of `sizes` viewed as broadcast to rank `rank` (0 for broadcast dims).
std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& sizes,
                                       const std::vector<int64_t>& out_sizes) {
  const std::vector<int64_t> strides = contiguous_strides(sizes);
  std::vector<int64_t> out(out_sizes.size(), 0);
  const size_t shift = out_sizes.size() - sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d) {
    out[d + shift] = sizes[d] == 1 && out_sizes[d + shift] != 1 ? 0 : strides[d];
  }
  return out;
}

/// Copies elements: out[i] = t[map(i)] for a strided view of `t`.
ConstTensor gather_strided(const ConstTensor& t, std::vector<int64_t> out_sizes,
                           const std::vector<int64_t>& strides, int64_t offset) {
  const size_t es = element_size(t.dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(element_count(out_sizes)) * es);
  const uint8_t* src = t.data->data();
  for_each_mapped(out_sizes, strides, offset, [&](int64_t o, int64_t i) {
    std::memcpy(bytes.data() + static_cast<size_t>(o) * es, src + static_cast<size_t>(i) * es, es);
  });
  return ConstTensor{t.dtype, std::move(out_sizes), ir::Buffer::from_vector(std::move(bytes))};
}

bool is_compare(BinaryOp op) {
  return op == BinaryOp::Equal || op == BinaryOp::Less || op == BinaryOp::Greater ||
         op == BinaryOp::LessEqual || op == BinaryOp::GreaterEqual || op == BinaryOp::And ||
         op == BinaryOp::Or || op == BinaryOp::Xor;
}

}  // namespace

std::vector<int64_t> broadcast_sizes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    PTEC_ENFORCE(da == db || da == 1 || db == 1, InvalidArgument,
                 "shapes {} and {} do not broadcast", sizes_to_string(a), sizes_to_string(b));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

ConstTensor binary(BinaryOp op, const ConstTensor& a, const ConstTensor& b) {
  PTEC_ENFORCE(is_numeric(a.dtype) && is_numeric(b.dtype), NotSupported,
               "import-time evaluation does not support dtype {}", to_string(a.dtype));
  const std::vector<int64_t> sizes = broadcast_sizes(a.sizes, b.sizes);
  const std::vector<int64_t> sa = broadcast_strides(a.sizes, sizes);
  const std::vector<int64_t> sb = broadcast_strides(b.sizes, sizes);
  const int64_t n = element_count(sizes);
  // Pair up indices of a and b for each output element.
  std::vector<int64_t> ia(static_cast<size_t>(n)), ib(static_cast<size_t>(n));
  for_each_mapped(sizes, sa, 0, [&](int64_t o, int64_t i) { ia[static_cast<size_t>(o)] = i; });
  for_each_mapped(sizes, sb, 0, [&](int64_t o, int64_t i) { ib[static_cast<size_t>(o)] = i; });
  const DType out_dtype = is_compare(op) ? DType::Bool : a.dtype;
  const bool floating = is_floating_point(a.dtype) || is_floating_point(b.dtype);
  if (floating) {
    std::vector<double> out(static_cast<size_t>(n));
    for (size_t k = 0; k < out.size(); ++k) {
      const double x = a.double_at(ia[k]);
      const double y = b.double_at(ib[k]);
      switch (op) {
        case BinaryOp::Add: out[k] = x + y; break;
        case BinaryOp::Sub: out[k] = x - y; break;
        case BinaryOp::Mul: out[k] = x * y; break;
        case BinaryOp::Div: out[k] = x / y; break;
        case BinaryOp::Pow: out[k] = std::pow(x, y); break;
        case BinaryOp::Mod: {  // the divisor's sign
          const double r = std::fmod(x, y);
          out[k] = r != 0 && (r < 0) != (y < 0) ? r + y : r;
          break;
        }
        case BinaryOp::FMod: out[k] = std::fmod(x, y); break;
        case BinaryOp::Equal: out[k] = x == y; break;
        case BinaryOp::Less: out[k] = x < y; break;
        case BinaryOp::Greater: out[k] = x > y; break;
        case BinaryOp::LessEqual: out[k] = x <= y; break;
        case BinaryOp::GreaterEqual: out[k] = x >= y; break;
        case BinaryOp::Max: out[k] = std::isnan(x) || x > y ? x : y; break;
        case BinaryOp::Min: out[k] = std::isnan(x) || x < y ? x : y; break;
        case BinaryOp::And: out[k] = x != 0 && y != 0; break;
        case BinaryOp::Or: out[k] = x != 0 || y != 0; break;
        case BinaryOp::Xor: out[k] = (x != 0) != (y != 0); break;
      }
    }
    return ConstTensor::from_double(out_dtype, sizes, out);
  }
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t x = a.int_at(ia[k]);
    const int64_t y = b.int_at(ib[k]);
    switch (op) {
      // Wrapping arithmetic, as int64 kernels do (computed unsigned to avoid UB).
      case BinaryOp::Add:
        out[k] = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
        break;
      case BinaryOp::Sub:
        out[k] = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
        break;
      case BinaryOp::Mul:
        out[k] = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
        break;
      case BinaryOp::Div:
        PTEC_ENFORCE(y != 0, InvalidArgument, "integer division by zero");
        out[k] = (x == INT64_MIN && y == -1) ? INT64_MIN : x / y;  // truncates toward zero
        break;
      case BinaryOp::Pow: {
        PTEC_ENFORCE(y >= 0, InvalidArgument, "integer Pow with a negative exponent");
        uint64_t r = 1, base = static_cast<uint64_t>(x);
        for (int64_t e = y; e > 0; e >>= 1, base *= base) {
          if (e & 1) r *= base;
        }
        out[k] = static_cast<int64_t>(r);
        break;
      }
      case BinaryOp::Mod:
      case BinaryOp::FMod: {
        PTEC_ENFORCE(y != 0, InvalidArgument, "integer modulo by zero");
        const int64_t r = y == -1 ? 0 : x % y;  // INT64_MIN % -1 overflows
        out[k] = op == BinaryOp::Mod && r != 0 && (r < 0) != (y < 0) ? r + y : r;
        break;
      }
      case BinaryOp::Equal: out[k] = x == y; break;
      case BinaryOp::Less: out[k] = x < y; break;
      case BinaryOp::Greater: out[k] = x > y; break;
      case BinaryOp::LessEqual: out[k] = x <= y; break;
      case BinaryOp::GreaterEqual: out[k] = x >= y; break;
      case BinaryOp::Max: out[k] = std::max(x, y); break;
      case BinaryOp::Min: out[k] = std::min(x, y); break;
      case BinaryOp::And: out[k] = x != 0 && y != 0; break;
      case BinaryOp::Or: out[k] = x != 0 || y != 0; break;
      case BinaryOp::Xor: out[k] = (x != 0) != (y != 0); break;
    }
  }
  return ConstTensor::from_int64(out_dtype, sizes, out);
}

ConstTensor where(const ConstTensor& cond, const ConstTensor& a, const ConstTensor& b) {
  PTEC_ENFORCE(a.dtype == b.dtype, InvalidArgument, "Where of {} and {}", to_string(a.dtype),
               to_string(b.dtype));
  const std::vector<int64_t> sizes = broadcast_sizes(cond.sizes, broadcast_sizes(a.sizes, b.sizes));
  const ConstTensor ca = expand(a, sizes);
  const ConstTensor cb = expand(b, sizes);
  const ConstTensor cc = expand(cond, sizes);
  const size_t es = element_size(a.dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(element_count(sizes)) * es);
  for (int64_t i = 0; i < element_count(sizes); ++i) {
    const ConstTensor& src = cc.int_at(i) != 0 ? ca : cb;
    std::memcpy(bytes.data() + static_cast<size_t>(i) * es,
                src.data->data() + static_cast<size_t>(i) * es, es);
  }
  return ConstTensor{a.dtype, sizes, ir::Buffer::from_vector(std::move(bytes))};
}

ConstTensor cast(const ConstTensor& t, DType dtype) {
  if (t.dtype == dtype) return t;
  PTEC_ENFORCE(is_numeric(t.dtype) && is_numeric(dtype), NotSupported,
               "import-time Cast from {} to {} is not supported", to_string(t.dtype),
               to_string(dtype));
  if (is_floating_point(t.dtype)) return ConstTensor::from_double(dtype, t.sizes, t.to_double());
  if (t.dtype == DType::UInt64 && is_floating_point(dtype)) {
    return ConstTensor::from_double(dtype, t.sizes, t.to_double());
  }
  return ConstTensor::from_int64(dtype, t.sizes, t.to_int64());
}

ConstTensor gather(const ConstTensor& data, const ConstTensor& indices, int64_t axis) {
  PTEC_ENFORCE(axis >= 0 && axis < static_cast<int64_t>(data.sizes.size()), InvalidArgument,
               "Gather axis {} for rank {}", axis, data.sizes.size());
  const int64_t dim = data.sizes[static_cast<size_t>(axis)];
  std::vector<int64_t> idx = indices.to_int64();
  for (int64_t& i : idx) {
    PTEC_ENFORCE(i >= -dim && i < dim, InvalidArgument,
                 "Gather index {} is out of range for a dim of size {}", i, dim);
    if (i < 0) i += dim;
  }
  // out = data[outer, idx, inner]
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= data.sizes[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < data.sizes.size(); ++d) {
    inner *= data.sizes[d];
  }
  std::vector<int64_t> sizes(data.sizes.begin(), data.sizes.begin() + axis);
  sizes.insert(sizes.end(), indices.sizes.begin(), indices.sizes.end());
  sizes.insert(sizes.end(), data.sizes.begin() + axis + 1, data.sizes.end());
  const size_t es = element_size(data.dtype);
  const size_t chunk = static_cast<size_t>(inner) * es;
  std::vector<uint8_t> bytes(static_cast<size_t>(outer) * idx.size() * chunk);
  uint8_t* dst = bytes.data();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : idx) {
      std::memcpy(dst, data.data->data() + static_cast<size_t>(o * dim + i) * chunk, chunk);
      dst += chunk;
    }
  }
  return ConstTensor{data.dtype, std::move(sizes), ir::Buffer::from_vector(std::move(bytes))};
}

ConstTensor concat(const std::vector<const ConstTensor*>& parts, int64_t axis) {
  PTEC_ENFORCE(!parts.empty(), InvalidArgument, "Concat of no tensors");
  const ConstTensor& first = *parts[0];
  std::vector<int64_t> sizes = first.sizes;
  PTEC_ENFORCE(axis >= 0 && axis < static_cast<int64_t>(sizes.size()), InvalidArgument,
               "Concat axis {} for rank {}", axis, sizes.size());
  sizes[static_cast<size_t>(axis)] = 0;
  for (const ConstTensor* p : parts) {
    PTEC_ENFORCE(p->dtype == first.dtype && p->sizes.size() == first.sizes.size(), InvalidArgument,
                 "Concat of {} and {}", p->spec().to_string(), first.spec().to_string());
    for (size_t d = 0; d < sizes.size(); ++d) {
      PTEC_ENFORCE(d == static_cast<size_t>(axis) || p->sizes[d] == first.sizes[d], InvalidArgument,
                   "Concat of {} and {}", p->spec().to_string(), first.spec().to_string());
    }
    sizes[static_cast<size_t>(axis)] += p->sizes[static_cast<size_t>(axis)];
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= sizes[static_cast<size_t>(d)];
  const size_t es = element_size(first.dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(element_count(sizes)) * es);
  uint8_t* dst = bytes.data();
  for (int64_t o = 0; o < outer; ++o) {
    for (const ConstTensor* p : parts) {
      const size_t chunk = static_cast<size_t>(p->numel() / std::max<int64_t>(outer, 1)) * es;
      if (chunk == 0) continue;
      std::memcpy(dst, p->data->data() + static_cast<size_t>(o) * chunk, chunk);
      dst += chunk;
    }
  }
  return ConstTensor{first.dtype, std::move(sizes), ir::Buffer::from_vector(std::move(bytes))};
}

SliceAxis normalize_slice(int64_t axis, int64_t dim, int64_t start, int64_t end, int64_t step) {
  PTEC_ENFORCE(step != 0, InvalidArgument, "Slice step is 0");
  // INT64_MIN + dim and INT64_MAX stay in range; clamping below does the rest.
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  int64_t length = 0;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    length = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    length = start > end ? (start - end + (-step) - 1) / (-step) : 0;
  }
  return SliceAxis{axis, start, step, length};
}

ConstTensor slice(const ConstTensor& t, const std::vector<SliceAxis>& axes) {
  std::vector<int64_t> strides = contiguous_strides(t.sizes);
  std::vector<int64_t> sizes = t.sizes;
  int64_t offset = 0;
  for (const SliceAxis& s : axes) {
    const size_t d = static_cast<size_t>(s.axis);
    sizes[d] = s.length;
    if (s.length > 0) offset += s.start * strides[d];
    strides[d] *= s.step;
  }
  return gather_strided(t, std::move(sizes), strides, offset);
}

ConstTensor transpose(const ConstTensor& t, const std::vector<int64_t>& perm) {
  PTEC_ENFORCE(perm.size() == t.sizes.size(), InvalidArgument, "permutation of {} dims for rank {}",
               perm.size(), t.sizes.size());
  const std::vector<int64_t> in_strides = contiguous_strides(t.sizes);
  std::vector<int64_t> sizes(perm.size()), strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    sizes[i] = t.sizes[static_cast<size_t>(perm[i])];
    strides[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  return gather_strided(t, std::move(sizes), strides, 0);
}

ConstTensor expand(const ConstTensor& t, const std::vector<int64_t>& sizes) {
  if (t.sizes == sizes) return t;
  PTEC_ENFORCE(broadcast_sizes(t.sizes, sizes) == sizes, InvalidArgument, "cannot expand {} to {}",
               sizes_to_string(t.sizes), sizes_to_string(sizes));
  return gather_strided(t, sizes, broadcast_strides(t.sizes, sizes), 0);
}

ConstTensor range(double start, double limit, double delta, DType dtype) {
  PTEC_ENFORCE(delta != 0, InvalidArgument, "Range delta is 0");
  const double count = std::ceil((limit - start) / delta);
  PTEC_ENFORCE(count < 1e9, InvalidArgument, "Range of {} elements is too large", count);
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  if (!is_floating_point(dtype)) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      v[static_cast<size_t>(i)] = static_cast<int64_t>(start) + i * static_cast<int64_t>(delta);
    }
    return ConstTensor::from_int64(dtype, {n}, v);
  }
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = start + static_cast<double>(i) * delta;
  return ConstTensor::from_double(dtype, {n}, v);
}

ConstTensor fill(const std::vector<int64_t>& sizes, const ConstTensor& value) {
  PTEC_ENFORCE(value.numel() == 1, InvalidArgument, "fill value has {} elements", value.numel());
  return gather_strided(value, sizes, std::vector<int64_t>(sizes.size(), 0), 0);
}

}  // namespace ptec::onnx_import::eval
