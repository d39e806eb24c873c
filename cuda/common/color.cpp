#include "color.hpp"

#include <cmath>

namespace cvis {

YuvToRgb yuv_to_rgb_coeffs(const YuvColorimetry& c) {
  double kr = 0.299, kb = 0.114;  // BT.601
  switch (c.matrix) {
    case YuvColorimetry::Matrix::kBT601: break;
    case YuvColorimetry::Matrix::kBT709: kr = 0.2126; kb = 0.0722; break;
    case YuvColorimetry::Matrix::kBT2020: kr = 0.2627; kb = 0.0593; break;
    case YuvColorimetry::Matrix::kSMPTE240M: kr = 0.212; kb = 0.087; break;
  }
  const double kg = 1.0 - kr - kb;
  // Limited range stretches Y 16..235 and chroma 16..240 to the full 0..255.
  const double ys = c.full_range ? 1.0 : 255.0 / 219.0;
  const double cs = c.full_range ? 1.0 : 255.0 / 224.0;
  const double q = 16384.0;
  YuvToRgb k;
  k.y_off = c.full_range ? 0 : 16;
  k.y_mul = static_cast<int32_t>(std::lround(ys * q));
  k.rv = static_cast<int32_t>(std::lround(2.0 * (1.0 - kr) * cs * q));
  k.bu = static_cast<int32_t>(std::lround(2.0 * (1.0 - kb) * cs * q));
  k.gu = static_cast<int32_t>(std::lround(2.0 * kb * (1.0 - kb) / kg * cs * q));
  k.gv = static_cast<int32_t>(std::lround(2.0 * kr * (1.0 - kr) / kg * cs * q));
  return k;
}

PixelSource make_pixel_source(const ImageView& v) {
  PixelSource s{};
  s.format = v.format;
  s.width = v.width;
  s.height = v.height;
  for (int p = 0; p < 3; ++p) {
    s.plane[p] = v.data[p];
    s.pitch[p] = v.pitch[p];
  }
  if (is_yuv(v.format)) {
    s.yuv = yuv_to_rgb_coeffs(v.yuv);
  } else {
    s.layout = packed_layout(v.format);
  }
  return s;
}

}  // namespace cvis
