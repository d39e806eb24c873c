// The brute-force definitions: for every pixel, gather every value of its window, histogram it and
// apply Algorithm 1. No running state, no shortcuts; the oracle of every method's tests.
#include <string>

#include "median3d.hpp"
#include "median3d_internal.hpp"
#include "median3d_math.hpp"

namespace cvis::median3d {

namespace {

// Channel planes of every window frame: planes[f][c * w * h + y * w + x].
Status extract(const std::vector<ImageView>& window, const Params& p,
               std::vector<std::vector<uint8_t>>* planes) {
  CVIS_RETURN_IF_ERROR(validate(p));
  if (window.empty())
    return invalid_argument("reference: empty window");
  const ImageView& f0 = window[0];
  CVIS_RETURN_IF_ERROR(validate_geometry(f0.width, f0.height, f0.format));
  const int w = f0.width, h = f0.height, nc = channel_count(p);
  const size_t px = static_cast<size_t>(w) * h;
  planes->assign(window.size(), std::vector<uint8_t>(nc * px));
  for (size_t f = 0; f < window.size(); ++f) {
    CVIS_RETURN_IF_ERROR(check_frame(window[f], w, h, f0.format, "reference frame"));
    if (window[f].space != MemorySpace::kHost)
      return unsupported_format("reference: host views only");
    const PixelSource src = make_pixel_source(window[f]);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        uint8_t v[3];
        fetch_channels(src, x, y, p.channels == Channels::kLuma, v);
        for (int c = 0; c < nc; ++c)
          (*planes)[f][c * px + static_cast<size_t>(y) * w + x] = v[c];
      }
    }
  }
  return Status::Ok();
}

} // namespace

// Eq. (2): the median of the m x n x |window| box, values binned, Algorithm 1.
Status median3d_reference(const std::vector<ImageView>& window, const Params& p,
                          std::vector<uint8_t>* out) {
  std::vector<std::vector<uint8_t>> planes;
  CVIS_RETURN_IF_ERROR(extract(window, p, &planes));
  const int w = window[0].width, h = window[0].height, nc = channel_count(p);
  const size_t px = static_cast<size_t>(w) * h;
  const int rx = p.spatial_w / 2, ry = p.spatial_h / 2;
  out->assign(nc * px, 0);
  uint32_t hist[256];
  for (int c = 0; c < nc; ++c) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        for (int k = 0; k < p.bins; ++k)
          hist[k] = 0;
        const Box b = clip_box(x, y, rx, ry, w, h);
        for (const auto& frame : planes) {
          for (int yy = b.y0; yy <= b.y1; ++yy) {
            for (int xx = b.x0; xx <= b.x1; ++xx) {
              ++hist[quantize(frame[c * px + static_cast<size_t>(yy) * w + xx], p.bins)];
            }
          }
        }
        const uint32_t n = box_area(b) * static_cast<uint32_t>(planes.size());
        (*out)[c * px + static_cast<size_t>(y) * w + x] =
            static_cast<uint8_t>(median_bin([&](int k) { return hist[k]; }, p.bins, n));
      }
    }
  }
  return Status::Ok();
}

// Eq. (3): per frame the median bin of the m x n box, then the median of those bins over time.
Status separable_reference(const std::vector<ImageView>& window, const Params& p,
                           std::vector<uint8_t>* out) {
  std::vector<std::vector<uint8_t>> planes;
  CVIS_RETURN_IF_ERROR(extract(window, p, &planes));
  const int w = window[0].width, h = window[0].height, nc = channel_count(p);
  const size_t px = static_cast<size_t>(w) * h;
  const int rx = p.spatial_w / 2, ry = p.spatial_h / 2;
  out->assign(nc * px, 0);
  uint32_t hist[256];
  std::vector<uint8_t> spatial(planes.size());
  for (int c = 0; c < nc; ++c) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        const Box b = clip_box(x, y, rx, ry, w, h);
        for (size_t f = 0; f < planes.size(); ++f) {
          for (int k = 0; k < p.bins; ++k)
            hist[k] = 0;
          for (int yy = b.y0; yy <= b.y1; ++yy) {
            for (int xx = b.x0; xx <= b.x1; ++xx) {
              ++hist[quantize(planes[f][c * px + static_cast<size_t>(yy) * w + xx], p.bins)];
            }
          }
          spatial[f] =
              static_cast<uint8_t>(median_bin([&](int k) { return hist[k]; }, p.bins, box_area(b)));
        }
        for (int k = 0; k < p.bins; ++k)
          hist[k] = 0;
        for (uint8_t s : spatial)
          ++hist[s];
        (*out)[c * px + static_cast<size_t>(y) * w + x] = static_cast<uint8_t>(median_bin(
            [&](int k) { return hist[k]; }, p.bins, static_cast<uint32_t>(spatial.size())));
      }
    }
  }
  return Status::Ok();
}

} // namespace cvis::median3d
