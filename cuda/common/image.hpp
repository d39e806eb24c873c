// Image views: the plain description of pixels that crosses every cuda/ interface.
//
// A view does not own memory. It names where the pixels live (host or device), their format, size
// and, per plane, a base pointer and a pitch in bytes (>= the row's bytes; padding allowed).
#pragma once

#include <cstddef>
#include <cstdint>

#include "status.hpp"

namespace cvis {

// 8-bit formats. Packed RGB variants name the byte order in memory (GStreamer's convention: RGBA is
// bytes R,G,B,A; xRGB is a padding byte then R,G,B). NV12 = Y plane + interleaved UV plane at half
// resolution; I420 = Y, U, V planes, chroma at half resolution in both directions.
enum class PixelFormat : int {
  kRGBA,
  kBGRA,
  kRGBx,
  kBGRx,
  kxRGB,
  kxBGR,
  kARGB,
  kABGR,
  kRGB,
  kBGR,
  kGRAY8,
  kNV12,
  kI420,
};

enum class MemorySpace : int { kHost, kDevice };

// Opaque CUDA stream handle (a cudaStream_t); nullptr means the legacy default stream. Kept opaque so
// that method headers stay free of CUDA types.
using StreamHandle = void*;

// Colorimetry of YUV input (ignored for RGB/GRAY formats).
struct YuvColorimetry {
  enum class Matrix : int { kBT601, kBT709, kBT2020, kSMPTE240M };
  Matrix matrix = Matrix::kBT601;
  bool full_range = false;  // false: Y in 16..235, chroma in 16..240
};

struct ImageView {
  PixelFormat format = PixelFormat::kRGBA;
  MemorySpace space = MemorySpace::kHost;
  int width = 0;
  int height = 0;
  uint8_t* data[3] = {nullptr, nullptr, nullptr};  // per plane
  size_t pitch[3] = {0, 0, 0};                     // bytes per row, per plane
  YuvColorimetry yuv;                              // YUV formats only
};

// Byte offsets of R, G, B and alpha (-1: none) inside one pixel of a packed format.
struct PackedLayout {
  int bytes_per_pixel;
  int r, g, b, a;
};

const char* pixel_format_name(PixelFormat f);
bool is_packed_rgb(PixelFormat f);  // the ten packed RGB formats
bool is_yuv(PixelFormat f);         // NV12, I420
bool has_alpha(PixelFormat f);      // RGBA, BGRA, ARGB, ABGR
int plane_count(PixelFormat f);
PackedLayout packed_layout(PixelFormat f);  // packed RGB formats only; GRAY8 gives bpp 1, r=g=b=0

// Bytes of one row of `plane` for an image `width` pixels wide.
size_t plane_row_bytes(PixelFormat f, int plane, int width);
// Rows of `plane` for an image `height` pixels high.
int plane_rows(PixelFormat f, int plane, int height);

// Checks the view is usable: positive size, non-null planes, pitch >= row bytes. `what` prefixes the
// message ("input: pitch 100 < row bytes 160").
Status validate_view(const ImageView& v, const char* what);

// A view of the rectangle (x, y, w, h) of `v` (packed RGB and GRAY8 only: YUV sub-views would need
// even offsets). The rectangle must lie inside `v`.
Status sub_view(const ImageView& v, int x, int y, int w, int h, ImageView* out);

}  // namespace cvis
