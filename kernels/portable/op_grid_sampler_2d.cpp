// grid_sampler_2d.out: samples input [N, C, H, W] at the normalized (x, y) locations of grid
// [N, H_out, W_out, 2] (-1 and 1 are the edges: the outer pixels' centers with align_corners,
// their outer edges without), as ATen's grid_sampler_2d (and ONNX GridSample): bilinear, nearest
// (round half to even) or bicubic (A = -0.75) interpolation; zeros, border or reflection padding
// for locations outside the input. Float and Double; coordinates are computed in the input's
// type, as ATen's CPU kernel does. Non-finite grid values read as outside the input.

#include <algorithm>
#include <cmath>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"

namespace ptec::kernels {
namespace {

enum Interpolation : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// Normalized coordinate -> pixel coordinate.
template <typename T>
T unnormalize(T coord, int64_t size, bool align_corners) {
  const T n = static_cast<T>(size);
  return align_corners ? (coord + 1) / 2 * (n - 1) : ((coord + 1) * n - 1) / 2;
}

// (ATen's order of min and max: NaN becomes size - 1.)
template <typename T>
T clip(T x, int64_t size) {
  return std::min(static_cast<T>(size - 1), std::max(x, static_cast<T>(0)));
}

// x reflected into [twice_low / 2, twice_high / 2].
template <typename T>
T reflect(T x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  const T low = static_cast<T>(twice_low) / 2;
  const T span = static_cast<T>(twice_high - twice_low) / 2;
  x = std::fabs(x - low);
  const T extra = std::fmod(x, span);
  const T flips = std::floor(x / span);
  return std::fmod(flips, static_cast<T>(2)) == 0 ? extra + low : span - extra + low;
}

// The padding mode applied to a pixel coordinate (zeros: unchanged; reads outside are 0).
template <typename T>
T pad_coordinate(T x, int64_t size, int64_t padding, bool align_corners) {
  if (padding == kBorder) return clip(x, size);
  if (padding == kReflection) {
    x = align_corners ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    return clip(x, size);
  }
  return x;
}

// plane[y][x] where (x, y), whole numbers held in T, lies inside the plane; else 0. Compared in
// T, so that NaN and coordinates past the int64 range never reach a conversion.
template <typename T>
T at(const T* plane, int64_t h, int64_t w, T x, T y) {
  if (!(x >= 0 && x < static_cast<T>(w) && y >= 0 && y < static_cast<T>(h))) return 0;
  return plane[static_cast<int64_t>(y) * w + static_cast<int64_t>(x)];
}

template <typename T>
void cubic_weights(T t, T (&c)[4]) {
  constexpr T kA = static_cast<T>(-0.75);
  auto near = [&](T x) { return ((kA + 2) * x - (kA + 3)) * x * x + 1; };         // |x| <= 1
  auto far = [&](T x) { return ((kA * x - 5 * kA) * x + 8 * kA) * x - 4 * kA; };  // 1 < |x| < 2
  c[0] = far(t + 1);
  c[1] = near(t);
  c[2] = near(1 - t);
  c[3] = far(2 - t);
}

template <typename T>
T sample(const T* plane, int64_t h, int64_t w, T gx, T gy, int64_t mode, int64_t padding,
         bool align_corners) {
  if (mode == kBicubic) {
    // The 4 x 4 neighbourhood of the unpadded coordinate, each tap padded on its own.
    const T ix = unnormalize(gx, w, align_corners), iy = unnormalize(gy, h, align_corners);
    const T x0 = std::floor(ix), y0 = std::floor(iy);
    T cx[4], cy[4];
    cubic_weights(ix - x0, cx);
    cubic_weights(iy - y0, cy);
    T sum = 0;
    for (int i = 0; i < 4; ++i) {
      const T y = pad_coordinate(y0 - 1 + static_cast<T>(i), h, padding, align_corners);
      T row = 0;
      for (int j = 0; j < 4; ++j) {
        const T x = pad_coordinate(x0 - 1 + static_cast<T>(j), w, padding, align_corners);
        row += cx[j] * at(plane, h, w, std::trunc(x), std::trunc(y));
      }
      sum += cy[i] * row;
    }
    return sum;
  }
  const T ix = pad_coordinate(unnormalize(gx, w, align_corners), w, padding, align_corners);
  const T iy = pad_coordinate(unnormalize(gy, h, align_corners), h, padding, align_corners);
  if (mode == kNearest) return at(plane, h, w, std::nearbyint(ix), std::nearbyint(iy));
  const T x0 = std::floor(ix), y0 = std::floor(iy);
  const T fx = ix - x0, fy = iy - y0;
  return (1 - fy) * ((1 - fx) * at(plane, h, w, x0, y0) + fx * at(plane, h, w, x0 + 1, y0)) +
         fy * ((1 - fx) * at(plane, h, w, x0, y0 + 1) + fx * at(plane, h, w, x0 + 1, y0 + 1));
}

}  // namespace

Tensor& grid_sampler_2d_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& grid,
                            int64_t interpolation_mode, int64_t padding_mode, bool align_corners,
                            Tensor& out) {
  constexpr const char* kOp = "grid_sampler_2d.out";
  if (!check_contiguous(ctx, kOp, {&input, &grid, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, input.dim() == 4, InvalidArgument, out,
                        "%s: input must be 4-d [N, C, H, W], got rank %zu", kOp, input.dim());
  PTEC_KERNEL_CHECK_MSG(
      ctx, grid.dim() == 4 && grid.sizes()[0] == input.sizes()[0] && grid.sizes()[3] == 2,
      InvalidArgument, out, "%s: grid must be [N, H_out, W_out, 2] with input's N", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx,
                        (input.dtype() == DType::Float || input.dtype() == DType::Double) &&
                            grid.dtype() == input.dtype(),
                        InvalidArgument, out,
                        "%s: input and grid must both be Float or both Double (%s, %s)", kOp,
                        to_string(input.dtype()), to_string(grid.dtype()));
  if (!check_dtype(ctx, kOp, out, input.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, interpolation_mode >= kBilinear && interpolation_mode <= kBicubic,
                        InvalidArgument, out, "%s: interpolation_mode %lld is not 0, 1 or 2", kOp,
                        static_cast<long long>(interpolation_mode));
  PTEC_KERNEL_CHECK_MSG(ctx, padding_mode >= kZeros && padding_mode <= kReflection, InvalidArgument,
                        out, "%s: padding_mode %lld is not 0, 1 or 2", kOp,
                        static_cast<long long>(padding_mode));
  const int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2],
                w = input.sizes()[3];
  const int64_t oh = grid.sizes()[1], ow = grid.sizes()[2];
  const SizesType sizes[4] = {static_cast<SizesType>(n), static_cast<SizesType>(c),
                              static_cast<SizesType>(oh), static_cast<SizesType>(ow)};
  if (!resize_out(ctx, kOp, out, Span<const SizesType>(sizes, 4))) return out;
  dispatch_float(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.const_data_ptr<T>();
    const T* g = grid.const_data_ptr<T>();
    T* o = out.mutable_data_ptr<T>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t p = 0; p < oh * ow; ++p) {
        const T gx = g[(b * oh * ow + p) * 2], gy = g[(b * oh * ow + p) * 2 + 1];
        for (int64_t ch = 0; ch < c; ++ch) {
          const T* plane = in + (b * c + ch) * h * w;
          o[(b * c + ch) * oh * ow + p] =
              h * w == 0
                  ? T{0}
                  : sample(plane, h, w, gx, gy, interpolation_mode, padding_mode, align_corners);
        }
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels
