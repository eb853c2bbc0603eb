#include "kernels/test/test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "kernels/portable/register.h"
#include "runtime/core/bfloat16.h"
#include "runtime/core/half.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/kernel/kernel_runtime_context.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::kernels::test {

OwnedTensor::OwnedTensor(DType dtype, std::vector<SizesType> sizes, std::vector<uint8_t> data,
                         ShapeDynamism dynamism, size_t capacity_numel)
    : sizes_(std::move(sizes)),
      dim_order_(sizes_.size()),
      strides_(sizes_.size()),
      data_(std::move(data)) {
  for (size_t i = 0; i < dim_order_.size(); ++i) {
    dim_order_[i] = static_cast<runtime::DimOrderType>(i);
  }
  size_t numel = 1;
  for (SizesType s : sizes_) numel *= static_cast<size_t>(s);
  const size_t cap = std::max(numel, capacity_numel);
  const size_t want = std::max<size_t>(cap * element_size(dtype), 1);
  if (data_.size() < want) data_.resize(want, 0);
  // Tensors are built with their final sizes so that capacity = max(numel, capacity_numel).
  std::vector<SizesType> cap_sizes = sizes_;
  if (cap > numel && !cap_sizes.empty()) {
    cap_sizes.assign(cap_sizes.size(), 1);
    cap_sizes[0] = static_cast<SizesType>(cap);
  }
  std::vector<SizesType> want_sizes = sizes_;
  sizes_ = cap_sizes;
  tensor_ = Tensor(dtype, sizes_.size(), sizes_.data(), dim_order_.data(), strides_.data(),
                   data_.data(), dynamism);
  if (cap_sizes != want_sizes) (void)tensor_.resize(want_sizes);
}

Tensor& make_zeros(std::deque<OwnedTensor>& pool, DType dtype, std::vector<SizesType> sizes,
                   ShapeDynamism dynamism, size_t capacity) {
  return pool.emplace_back(dtype, std::move(sizes), std::vector<uint8_t>{}, dynamism, capacity)
      .tensor();
}

LogCapture::LogCapture() { set_log_sink(&LogCapture::sink, this); }
LogCapture::~LogCapture() { set_log_sink(nullptr, nullptr); }
void LogCapture::sink(LogLevel /*level*/, const char* message, void* user) {
  auto* self = static_cast<LogCapture*>(user);
  self->text_ += message;
  self->text_ += "\n";
}

::testing::AssertionResult fails_with(ArgStack& stack, const char* op, Error code,
                                      const std::string& message) {
  ensure_kernels_registered();
  LogCapture log;
  const Error got = stack.call_out(op);
  if (got != code) {
    return ::testing::AssertionFailure() << op << " returned " << to_string(got) << ", expected "
                                         << to_string(code) << "; log: " << log.text();
  }
  if (log.text().find(message) == std::string::npos) {
    return ::testing::AssertionFailure()
           << op << " log lacks \"" << message << "\"; log: " << log.text();
  }
  return ::testing::AssertionSuccess();
}

EValue* ArgStack::push(EValue v) {
  values_.push_back(v);
  stack_.push_back(&values_.back());
  return &values_.back();
}

ArgStack& ArgStack::none() { return push(EValue()), *this; }
ArgStack& ArgStack::i(int64_t v) { return push(EValue(v)), *this; }
ArgStack& ArgStack::d(double v) { return push(EValue(v)), *this; }
ArgStack& ArgStack::b(bool v) { return push(EValue(v)), *this; }
ArgStack& ArgStack::str(std::string v) {
  strings_.push_back(std::move(v));
  return push(EValue(std::string_view(strings_.back()))), *this;
}
ArgStack& ArgStack::t(Tensor& v) { return push(EValue(&v)), *this; }

ArgStack& ArgStack::ints(const std::vector<int64_t>& v) {
  auto& wrapped = wrapped_.emplace_back();
  for (int64_t x : v) {
    values_.emplace_back(x);
    wrapped.push_back(&values_.back());
  }
  auto& unboxed = int_storage_.emplace_back(v.size() + 1);
  return push(EValue(runtime::BoxedEvalueList<int64_t>(wrapped.data(), unboxed.data(), v.size()))),
         *this;
}

ArgStack& ArgStack::doubles(const std::vector<double>& v) {
  auto& s = double_storage_.emplace_back(v);
  return push(EValue(Span<const double>(s.data(), s.size()))), *this;
}

ArgStack& ArgStack::bools(const std::vector<bool>& v) {
  auto& s = bool_storage_.emplace_back(new bool[v.size() + 1]);
  for (size_t k = 0; k < v.size(); ++k) s[k] = v[k];
  return push(EValue(Span<const bool>(s.get(), v.size()))), *this;
}

ArgStack& ArgStack::tensors(const std::vector<Tensor*>& v) {
  auto& wrapped = wrapped_.emplace_back();
  for (Tensor* x : v) {
    values_.emplace_back(x);
    wrapped.push_back(&values_.back());
  }
  auto& unboxed = tensor_storage_.emplace_back(v.size() + 1);
  return push(EValue(runtime::BoxedEvalueList<Tensor>(wrapped.data(), unboxed.data(), v.size()))),
         *this;
}

ArgStack& ArgStack::opt_tensors(const std::vector<Tensor*>& v) {
  auto& wrapped = wrapped_.emplace_back();
  for (Tensor* x : v) {
    if (x == nullptr) {
      values_.emplace_back();
    } else {
      values_.emplace_back(x);
    }
    wrapped.push_back(&values_.back());
  }
  auto& unboxed = opt_tensor_storage_.emplace_back(v.size() + 1);
  return push(EValue(runtime::BoxedEvalueList<std::optional<Tensor>>(wrapped.data(), unboxed.data(),
                                                                     v.size()))),
         *this;
}

Error ArgStack::call(const char* op, int ret, const std::vector<int>& ret_list) {
  runtime::OpFunction fn = runtime::get_op_function(op);
  if (fn == nullptr) return Error::OperatorMissing;
  std::vector<EValue*> stack = stack_;
  if (ret >= 0) {
    stack.push_back(stack_[static_cast<size_t>(ret)]);
  } else if (ret == -1) {
    std::vector<Tensor*> outs;
    for (int k : ret_list) outs.push_back(&stack_[static_cast<size_t>(k)]->to_tensor());
    tensors(outs);
    stack.push_back(stack_.back());
    stack_.pop_back();
  } else {
    values_.emplace_back();
    stack.push_back(&values_.back());
  }
  std::vector<uint8_t> temp(1 << 20);
  runtime::MemoryAllocator temp_allocator(temp.data(), temp.size());
  runtime::KernelRuntimeContext ctx(&temp_allocator);
  fn(ctx, Span<EValue*>(stack.data(), stack.size()));
  return ctx.failure_state();
}

// ---- Reference cases ----
namespace {

class Reader {
 public:
  explicit Reader(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  bool ok() const { return ok_; }
  template <typename T>
  T get() {
    T v{};
    if (pos_ + sizeof(T) > bytes_.size()) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::vector<uint8_t> raw(size_t n) {
    if (pos_ + n > bytes_.size()) {
      ok_ = false;
      return {};
    }
    std::vector<uint8_t> v(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_),
                           bytes_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    return v;
  }
  std::string str() {
    const auto n = get<uint32_t>();
    auto v = raw(n);
    return std::string(v.begin(), v.end());
  }
  RefArg::TensorData tensor() {
    RefArg::TensorData t;
    t.dtype = static_cast<DType>(get<int8_t>());
    const auto nd = get<uint8_t>();
    size_t numel = 1;
    for (uint8_t k = 0; k < nd && ok_; ++k) {
      t.sizes.push_back(get<int32_t>());
      numel *= static_cast<size_t>(t.sizes.back());
    }
    t.bytes = raw(numel * element_size(t.dtype));
    return t;
  }

 private:
  std::vector<uint8_t> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

std::vector<RefCase> load_error(const std::string& message) {
  RefCase c;
  c.name = "load_error";
  c.op = message;
  return {c};
}

double element_as_double(const RefArg::TensorData& t, const void* data, size_t i) {
  switch (t.dtype) {
    case DType::Bool: return static_cast<const bool*>(data)[i] ? 1 : 0;
    case DType::Byte: return static_cast<const uint8_t*>(data)[i];
    case DType::Char: return static_cast<const int8_t*>(data)[i];
    case DType::Short: return static_cast<const int16_t*>(data)[i];
    case DType::Int: return static_cast<const int32_t*>(data)[i];
    case DType::Long: return static_cast<double>(static_cast<const int64_t*>(data)[i]);
    case DType::Float: return static_cast<const float*>(data)[i];
    case DType::Double: return static_cast<const double*>(data)[i];
    case DType::Half: return static_cast<const runtime::Half*>(data)[i];
    case DType::BFloat16: return static_cast<const runtime::BFloat16*>(data)[i];
    case DType::UInt16: return static_cast<const uint16_t*>(data)[i];
    case DType::UInt32: return static_cast<const uint32_t*>(data)[i];
    case DType::UInt64: return static_cast<double>(static_cast<const uint64_t*>(data)[i]);
    default: return NAN;
  }
}

std::string sizes_str(Span<const SizesType> s) {
  std::string r = "[";
  for (size_t k = 0; k < s.size(); ++k) r += (k ? "," : "") + std::to_string(s[k]);
  return r + "]";
}

// Compares `actual` with `expected`; empty string when they agree.
std::string compare(const RefCase& c, const std::string& what, const Tensor& actual,
                    const RefArg::TensorData& expected) {
  if (actual.dtype() != expected.dtype) {
    return what + ": dtype " + to_string(actual.dtype()) + " != expected " +
           to_string(expected.dtype);
  }
  const Span<const SizesType> want(expected.sizes.data(), expected.sizes.size());
  if (!std::equal(actual.sizes().begin(), actual.sizes().end(), want.begin(), want.end())) {
    return what + ": shape " + sizes_str(actual.sizes()) + " != expected " + sizes_str(want);
  }
  const bool floating = is_floating_point(expected.dtype);
  // Element count from the sizes: a Tensor[] out is resized through a copy of the Tensor value
  // (BoxedEvalueList unboxes copies), which leaves the original's cached numel() stale.
  size_t numel = 1;
  for (SizesType s : actual.sizes()) numel *= static_cast<size_t>(s);
  for (size_t k = 0; k < numel; ++k) {
    const double a = element_as_double(expected, actual.const_data_ptr(), k);
    const double e = element_as_double(expected, expected.bytes.data(), k);
    bool ok = a == e || (std::isnan(a) && std::isnan(e));
    if (!ok && floating) ok = std::fabs(a - e) <= c.atol + c.rtol * std::fabs(e);
    if (!ok) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), ": element %zu is %.9g, expected %.9g (rtol %g, atol %g)", k,
                    a, e, c.rtol, c.atol);
      return what + buf;
    }
  }
  return "";
}

}  // namespace

std::vector<RefCase> load_ref_cases(const std::string& file) {
  const std::string path = std::string(PTEC_SOURCE_DIR) + "/kernels/test/data/" + file;
  std::ifstream in(path, std::ios::binary);
  if (!in) return load_error("cannot open " + path);
  Reader r(std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {}));
  if (r.get<uint32_t>() != 0x544b5450u /* "PTKT" */ || r.get<uint32_t>() != 1) {
    return load_error(path + ": bad magic or version");
  }
  const auto n = r.get<uint32_t>();
  std::vector<RefCase> cases;
  for (uint32_t k = 0; k < n && r.ok(); ++k) {
    RefCase c;
    c.name = r.str();
    c.op = r.str();
    c.rtol = r.get<double>();
    c.atol = r.get<double>();
    const auto nargs = r.get<uint32_t>();
    for (uint32_t a = 0; a < nargs && r.ok(); ++a) {
      RefArg arg;
      arg.kind = static_cast<RefArg::Kind>(r.get<uint8_t>());
      switch (arg.kind) {
        case RefArg::None: break;
        case RefArg::Int: arg.i = r.get<int64_t>(); break;
        case RefArg::Double: arg.d = r.get<double>(); break;
        case RefArg::Bool: arg.i = r.get<uint8_t>(); break;
        case RefArg::String: arg.s = r.str(); break;
        case RefArg::TensorIn:
        case RefArg::TensorOut: arg.tensors.push_back(r.tensor()); break;
        case RefArg::IntList: {
          const auto m = r.get<uint32_t>();
          for (uint32_t q = 0; q < m; ++q) arg.ints.push_back(r.get<int64_t>());
          break;
        }
        case RefArg::DoubleList: {
          const auto m = r.get<uint32_t>();
          for (uint32_t q = 0; q < m; ++q) arg.doubles.push_back(r.get<double>());
          break;
        }
        case RefArg::BoolList: {
          const auto m = r.get<uint32_t>();
          for (uint32_t q = 0; q < m; ++q) arg.bools.push_back(r.get<uint8_t>() != 0);
          break;
        }
        case RefArg::TensorListIn:
        case RefArg::TensorListOut: {
          const auto m = r.get<uint32_t>();
          for (uint32_t q = 0; q < m; ++q) arg.tensors.push_back(r.tensor());
          break;
        }
        case RefArg::OptTensorListIn: {
          const auto m = r.get<uint32_t>();
          for (uint32_t q = 0; q < m && r.ok(); ++q) {
            arg.present.push_back(r.get<uint8_t>() != 0);
            if (arg.present.back()) arg.tensors.push_back(r.tensor());
          }
          break;
        }
        default: return load_error(path + ": unknown argument kind in case " + c.name);
      }
      c.args.push_back(std::move(arg));
    }
    cases.push_back(std::move(c));
  }
  if (!r.ok()) return load_error(path + ": truncated");
  return cases;
}

std::string run_ref_case(const RefCase& c) {
  if (c.name == "load_error") return c.op;
  std::deque<OwnedTensor> pool;
  ArgStack stack;
  // (argument index, tensor) of every out tensor, for the return slot and the comparison.
  std::vector<std::pair<int, const RefArg::TensorData*>> outs;
  std::vector<std::pair<OwnedTensor*, const RefArg::TensorData*>> checks;
  bool has_out_list = false;
  auto make_in = [&](const RefArg::TensorData& t) {
    return &pool.emplace_back(t.dtype, t.sizes, t.bytes);
  };
  // Outs start as dynamic tensors of a different shape with the same rank, filled with 0xff
  // bytes, so that every case also checks the kernel's resize and that it writes every element.
  auto make_out = [&](const RefArg::TensorData& t) {
    size_t numel = 1;
    for (SizesType s : t.sizes) numel *= static_cast<size_t>(s);
    std::vector<SizesType> start(t.sizes.size(), 1);
    if (!start.empty()) start[0] = static_cast<SizesType>(std::max<size_t>(numel, 1));
    std::vector<uint8_t> fill(std::max<size_t>(numel, 1) * element_size(t.dtype), 0xff);
    if (t.dtype == DType::Bool) std::fill(fill.begin(), fill.end(), 0x01);
    return &pool.emplace_back(t.dtype, start, std::move(fill), ShapeDynamism::DynamicBound);
  };
  for (size_t a = 0; a < c.args.size(); ++a) {
    const RefArg& arg = c.args[a];
    switch (arg.kind) {
      case RefArg::None: stack.none(); break;
      case RefArg::Int: stack.i(arg.i); break;
      case RefArg::Double: stack.d(arg.d); break;
      case RefArg::Bool: stack.b(arg.i != 0); break;
      case RefArg::String: stack.str(arg.s); break;
      case RefArg::TensorIn: stack.t(make_in(arg.tensors[0])->tensor()); break;
      case RefArg::IntList: stack.ints(arg.ints); break;
      case RefArg::DoubleList: stack.doubles(arg.doubles); break;
      case RefArg::BoolList: stack.bools(arg.bools); break;
      case RefArg::TensorListIn: {
        std::vector<Tensor*> ts;
        for (const auto& t : arg.tensors) ts.push_back(&make_in(t)->tensor());
        stack.tensors(ts);
        break;
      }
      case RefArg::OptTensorListIn: {
        std::vector<Tensor*> ts;
        size_t next = 0;
        for (bool p : arg.present) {
          ts.push_back(p ? &make_in(arg.tensors[next++])->tensor() : nullptr);
        }
        stack.opt_tensors(ts);
        break;
      }
      case RefArg::TensorOut: {
        OwnedTensor* o = make_out(arg.tensors[0]);
        stack.t(o->tensor());
        outs.emplace_back(static_cast<int>(a), &arg.tensors[0]);
        checks.emplace_back(o, &arg.tensors[0]);
        break;
      }
      case RefArg::TensorListOut: {
        std::vector<Tensor*> ts;
        for (const auto& t : arg.tensors) {
          OwnedTensor* o = make_out(t);
          ts.push_back(&o->tensor());
          checks.emplace_back(o, &t);
        }
        stack.tensors(ts);
        has_out_list = true;
        break;
      }
    }
  }
  Error err;
  if (has_out_list || outs.empty()) {
    err = stack.call(c.op.c_str(), -2);
  } else if (outs.size() == 1) {
    err = stack.call(c.op.c_str(), outs[0].first);
  } else {
    std::vector<int> idx;
    for (const auto& o : outs) idx.push_back(o.first);
    err = stack.call(c.op.c_str(), -1, idx);
  }
  if (err != Error::Ok) return c.op + " failed with " + to_string(err);
  for (size_t k = 0; k < checks.size(); ++k) {
    std::string m =
        compare(c, "out " + std::to_string(k), checks[k].first->tensor(), *checks[k].second);
    if (!m.empty()) return m;
  }
  return "";
}

std::string ref_case_name(const ::testing::TestParamInfo<RefCase>& info) { return info.param.name; }

TEST_P(RefTest, MatchesReference) {
  ensure_kernels_registered();
  const RefCase& c = GetParam();
  EXPECT_EQ(run_ref_case(c), "") << c.name << " (" << c.op << ")";
}

void ensure_kernels_registered() { ASSERT_EQ(register_portable_kernels(), Error::Ok); }

}  // namespace ptec::kernels::test
