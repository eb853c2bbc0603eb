#include "kernels/quantized/register.h"

#include "kernels/quantized/functions.h"
#include "runtime/kernel/boxing.h"

namespace ptec::kernels {
namespace {

const runtime::Kernel kQuantizedKernels[] = {
    PTEC_KERNEL("quantized_decomposed::quantize_per_tensor.out", quantize_per_tensor_out),
    PTEC_KERNEL("quantized_decomposed::quantize_per_tensor.Tensor_out",
                quantize_per_tensor_tensor_out),
    PTEC_KERNEL("quantized_decomposed::quantize_per_channel.out", quantize_per_channel_out),
    PTEC_KERNEL("quantized_decomposed::dequantize_per_tensor.out", dequantize_per_tensor_out),
    PTEC_KERNEL("quantized_decomposed::dequantize_per_tensor.Tensor_out",
                dequantize_per_tensor_tensor_out),
    PTEC_KERNEL("quantized_decomposed::dequantize_per_channel.out", dequantize_per_channel_out),
    PTEC_KERNEL("quantized_decomposed::choose_qparams.Tensor_out", choose_qparams_tensor_out),
};

}  // namespace

Span<const runtime::Kernel> quantized_kernels() { return kQuantizedKernels; }

Error register_quantized_kernels() {
  static const Error result = runtime::register_kernels(quantized_kernels());
  return result;
}

}  // namespace ptec::kernels
