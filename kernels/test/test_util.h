#pragma once

// Test-only helpers (heap allowed): owning tensors, a boxed argument stack that calls kernels
// through the operator registry exactly as the runtime does, and the reference-case reader.

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "core/dtype.h"
#include "core/error.h"
#include "core/log.h"
#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"

namespace ptec::kernels::test {

using runtime::EValue;
using runtime::ShapeDynamism;
using runtime::SizesType;
using runtime::Tensor;

/// A tensor that owns its sizes, dim order, strides and data. Not copyable (the Tensor points
/// into the owned vectors); hold it in a std::deque or by pointer.
class OwnedTensor {
 public:
  /// `data` holds the raw little-endian bytes; it is padded to `capacity_numel` elements.
  OwnedTensor(DType dtype, std::vector<SizesType> sizes, std::vector<uint8_t> data,
              ShapeDynamism dynamism = ShapeDynamism::Static, size_t capacity_numel = 0);
  OwnedTensor(const OwnedTensor&) = delete;
  OwnedTensor& operator=(const OwnedTensor&) = delete;

  Tensor& tensor() { return tensor_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  std::vector<SizesType> sizes_;
  std::vector<runtime::DimOrderType> dim_order_;
  std::vector<runtime::StridesType> strides_;
  std::vector<uint8_t> data_;
  Tensor tensor_;
};

/// Makes an owned tensor from typed values.
template <typename T>
OwnedTensor* make_tensor(std::deque<OwnedTensor>& pool, DType dtype, std::vector<SizesType> sizes,
                         const std::vector<T>& values,
                         ShapeDynamism dynamism = ShapeDynamism::Static) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return &pool.emplace_back(dtype, std::move(sizes), std::move(bytes), dynamism);
}

/// A zero-filled owned tensor in `pool`. Dynamic tensors get room for `capacity` elements
/// (at least their numel).
Tensor& make_zeros(std::deque<OwnedTensor>& pool, DType dtype, std::vector<SizesType> sizes,
                   ShapeDynamism dynamism = ShapeDynamism::Static, size_t capacity = 0);

/// Collects log lines while alive (replaces the log sink).
class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  const std::string& text() const { return text_; }

 private:
  static void sink(LogLevel level, const char* message, void* user);
  std::string text_;
};

/// Builds the EValue stack of one kernel call (schema order, then the return slot) and runs it
/// through get_op_function(), as the executor does.
class ArgStack {
 public:
  ArgStack& none();
  ArgStack& i(int64_t v);
  ArgStack& d(double v);
  ArgStack& b(bool v);
  ArgStack& str(std::string v);
  ArgStack& t(Tensor& v);
  ArgStack& ints(const std::vector<int64_t>& v);
  ArgStack& doubles(const std::vector<double>& v);
  ArgStack& bools(const std::vector<bool>& v);
  ArgStack& tensors(const std::vector<Tensor*>& v);
  /// A Tensor?[] (OptionalTensorList); nullptr entries are None.
  ArgStack& opt_tensors(const std::vector<Tensor*>& v);

  /// Runs `op` with the return slot `ret` (index of an earlier argument, or -1 for a TensorList
  /// of `ret_list` argument indices, or -2 for None). Returns the context's failure state, or
  /// OperatorMissing when no kernel is registered under `op`.
  Error call(const char* op, int ret = -2, const std::vector<int>& ret_list = {});

  /// Calls with the last argument (the single out tensor) as the return slot.
  Error call_out(const char* op) { return call(op, static_cast<int>(stack_.size()) - 1); }

 private:
  EValue* push(EValue v);

  std::deque<EValue> values_;
  std::deque<std::string> strings_;
  std::deque<std::vector<EValue*>> wrapped_;
  std::deque<std::vector<int64_t>> int_storage_;
  std::deque<std::vector<double>> double_storage_;
  std::deque<std::unique_ptr<bool[]>> bool_storage_;
  std::deque<std::vector<Tensor>> tensor_storage_;
  std::deque<std::vector<std::optional<Tensor>>> opt_tensor_storage_;
  std::vector<EValue*> stack_;
};

/// One argument of a reference case.
struct RefArg {
  enum Kind : uint8_t {
    None = 0,
    Int,
    Double,
    Bool,
    String,
    TensorIn,
    IntList,
    DoubleList,
    BoolList,
    TensorListIn,
    TensorOut,
    TensorListOut,
    OptTensorListIn,
  };
  struct TensorData {
    DType dtype = DType::Float;
    std::vector<SizesType> sizes;
    std::vector<uint8_t> bytes;
  };
  Kind kind = None;
  int64_t i = 0;
  double d = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::vector<bool> bools;
  std::vector<TensorData> tensors;  // one for TensorIn / TensorOut
  std::vector<bool> present;        // OptTensorListIn: which entries are tensors (in `tensors`)
};

/// One reference case written by gen_reference.py.
struct RefCase {
  std::string name;
  std::string op;
  double rtol = 0;
  double atol = 0;
  std::vector<RefArg> args;
};

/// Prints a case as its name in GoogleTest messages.
inline void PrintTo(const RefCase& c, std::ostream* os) { *os << c.name; }

/// Reads kernels/test/data/<file>. On a read error returns one case named "load_error" whose
/// `op` holds the message.
std::vector<RefCase> load_ref_cases(const std::string& file);

/// Runs a case through the registry and compares every out tensor with the expected one.
/// Returns an empty string on success, otherwise a description of the mismatch.
std::string run_ref_case(const RefCase& c);

/// Runs `stack` as `op` (single out as return slot) and checks that it fails with `code` and
/// logs a message containing `message`.
::testing::AssertionResult fails_with(ArgStack& stack, const char* op, Error code,
                                      const std::string& message);

/// The data-driven test: each parameter is one reference case.
class RefTest : public ::testing::TestWithParam<RefCase> {};

/// GoogleTest name of a case (its name in the data file).
std::string ref_case_name(const ::testing::TestParamInfo<RefCase>& info);

/// Registers the portable kernels once (idempotent) and fails the test on error.
void ensure_kernels_registered();

}  // namespace ptec::kernels::test

/// Instantiates the reference cases of one data file as the suite `family`. Use inside
/// namespace ptec::kernels::test (GoogleTest pastes the fixture name into identifiers).
#define PTEC_REF_SUITE(family, file)                                                   \
  INSTANTIATE_TEST_SUITE_P(family, RefTest, ::testing::ValuesIn(load_ref_cases(file)), \
                           ref_case_name)
