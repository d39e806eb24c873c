#include "image.hpp"

#include <string>

namespace cvis {

const char* pixel_format_name(PixelFormat f) {
  switch (f) {
    case PixelFormat::kRGBA: return "RGBA";
    case PixelFormat::kBGRA: return "BGRA";
    case PixelFormat::kRGBx: return "RGBx";
    case PixelFormat::kBGRx: return "BGRx";
    case PixelFormat::kxRGB: return "xRGB";
    case PixelFormat::kxBGR: return "xBGR";
    case PixelFormat::kARGB: return "ARGB";
    case PixelFormat::kABGR: return "ABGR";
    case PixelFormat::kRGB: return "RGB";
    case PixelFormat::kBGR: return "BGR";
    case PixelFormat::kGRAY8: return "GRAY8";
    case PixelFormat::kNV12: return "NV12";
    case PixelFormat::kI420: return "I420";
  }
  return "unknown";
}

bool is_packed_rgb(PixelFormat f) {
  return f != PixelFormat::kGRAY8 && f != PixelFormat::kNV12 && f != PixelFormat::kI420;
}

bool is_yuv(PixelFormat f) { return f == PixelFormat::kNV12 || f == PixelFormat::kI420; }

bool has_alpha(PixelFormat f) {
  return f == PixelFormat::kRGBA || f == PixelFormat::kBGRA || f == PixelFormat::kARGB ||
         f == PixelFormat::kABGR;
}

int plane_count(PixelFormat f) {
  switch (f) {
    case PixelFormat::kNV12: return 2;
    case PixelFormat::kI420: return 3;
    default: return 1;
  }
}

PackedLayout packed_layout(PixelFormat f) {
  switch (f) {
    case PixelFormat::kRGBA: return {4, 0, 1, 2, 3};
    case PixelFormat::kBGRA: return {4, 2, 1, 0, 3};
    case PixelFormat::kRGBx: return {4, 0, 1, 2, -1};
    case PixelFormat::kBGRx: return {4, 2, 1, 0, -1};
    case PixelFormat::kxRGB: return {4, 1, 2, 3, -1};
    case PixelFormat::kxBGR: return {4, 3, 2, 1, -1};
    case PixelFormat::kARGB: return {4, 1, 2, 3, 0};
    case PixelFormat::kABGR: return {4, 3, 2, 1, 0};
    case PixelFormat::kRGB: return {3, 0, 1, 2, -1};
    case PixelFormat::kBGR: return {3, 2, 1, 0, -1};
    case PixelFormat::kGRAY8: return {1, 0, 0, 0, -1};
    default: return {0, -1, -1, -1, -1};
  }
}

size_t plane_row_bytes(PixelFormat f, int plane, int width) {
  const size_t w = static_cast<size_t>(width);
  const size_t cw = (w + 1) / 2;
  switch (f) {
    case PixelFormat::kNV12: return plane == 0 ? w : 2 * cw;
    case PixelFormat::kI420: return plane == 0 ? w : cw;
    default: return w * static_cast<size_t>(packed_layout(f).bytes_per_pixel);
  }
}

int plane_rows(PixelFormat f, int plane, int height) {
  return (is_yuv(f) && plane > 0) ? (height + 1) / 2 : height;
}

Status validate_view(const ImageView& v, const char* what) {
  if (v.width <= 0 || v.height <= 0) {
    return invalid_argument(std::string(what) + ": size " + std::to_string(v.width) + "x" +
                            std::to_string(v.height) + " is not positive");
  }
  for (int p = 0; p < plane_count(v.format); ++p) {
    if (v.data[p] == nullptr) {
      return invalid_argument(std::string(what) + ": plane " + std::to_string(p) + " is null");
    }
    const size_t row = plane_row_bytes(v.format, p, v.width);
    if (v.pitch[p] < row) {
      return invalid_argument(std::string(what) + ": plane " + std::to_string(p) + " pitch " +
                              std::to_string(v.pitch[p]) + " < row bytes " + std::to_string(row));
    }
  }
  return Status::Ok();
}

Status sub_view(const ImageView& v, int x, int y, int w, int h, ImageView* out) {
  if (is_yuv(v.format)) return unsupported_format("sub_view: YUV formats are not supported");
  if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > v.width || y + h > v.height) {
    return invalid_argument("sub_view: rectangle " + std::to_string(x) + "," + std::to_string(y) +
                            " " + std::to_string(w) + "x" + std::to_string(h) +
                            " is not inside the image");
  }
  *out = v;
  out->width = w;
  out->height = h;
  out->data[0] = v.data[0] + static_cast<size_t>(y) * v.pitch[0] +
                 static_cast<size_t>(x) * static_cast<size_t>(packed_layout(v.format).bytes_per_pixel);
  return Status::Ok();
}

}  // namespace cvis
