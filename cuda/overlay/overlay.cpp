// Backend-independent overlay steps: parameters, colours, the scene as primitives, tile binning,
// the factory.
#include <algorithm>
#include <cmath>
#include <string>

#include "overlay_internal.hpp"

namespace cvis::overlay {

std::unique_ptr<Drawer> make_cpu_drawer();
#if defined(CVIS_HAVE_CUDA)
std::unique_ptr<Drawer> make_cuda_drawer();
#endif

namespace {

constexpr int kMaxSide = kMaxCoord; // frames up to 16384 pixels a side (covers() stays exact)

// Glyph cell: 5x7 ink, one blank column between glyphs, `scale` pixels per font pixel; the
// label's background leaves `scale` pixels around the text.
int text_width(size_t n, int s) {
  return n == 0 ? 0 : static_cast<int>(n) * 6 * s - s;
}

bool outside(const Prim& p, int width, int height) {
  int x0, y0, x1, y1;
  prim_bounds(p, &x0, &y0, &x1, &y1);
  return x1 <= 0 || y1 <= 0 || x0 >= width || y0 >= height || x0 >= x1 || y0 >= y1;
}

bool in_range(const Point& p) {
  return p.x >= -kMaxCoord && p.x <= kMaxCoord && p.y >= -kMaxCoord && p.y <= kMaxCoord;
}

class Builder {
public:
  Builder(const ImageView& frame, std::vector<Prim>* prims) : frame_(frame), prims_(prims) {
    prims_->clear();
  }

  // A filled rectangle [x0, x1) x [y0, y1), clipped to the frame (64-bit: boxes may be anywhere).
  Status rect(int64_t x0, int64_t y0, int64_t x1, int64_t y1, const uint8_t* c) {
    Prim p = base(kPrimRect, 1, c);
    p.x0 = static_cast<int32_t>(std::clamp<int64_t>(x0, 0, frame_.width));
    p.x1 = static_cast<int32_t>(std::clamp<int64_t>(x1, 0, frame_.width));
    p.y0 = static_cast<int32_t>(std::clamp<int64_t>(y0, 0, frame_.height));
    p.y1 = static_cast<int32_t>(std::clamp<int64_t>(y1, 0, frame_.height));
    return push(p);
  }

  Status glyph(int x, int y, int scale, char ch, const uint8_t* c) {
    Prim p = base(kPrimGlyph, scale, c);
    p.x0 = x;
    p.y0 = y;
    glyph_rows(ch, p.rows);
    return push(p);
  }

  Status line(Point a, Point b, int width, const uint8_t* c) {
    if (!in_range(a) || !in_range(b))
      return Status::Ok(); // covers() is exact within range only
    Prim p = base(kPrimLine, width, c);
    p.x0 = a.x, p.y0 = a.y, p.x1 = b.x, p.y1 = b.y;
    return push(p);
  }

private:
  static Prim base(PrimKind kind, int size, const uint8_t* c) {
    Prim p{};
    p.kind = kind;
    p.size = size;
    p.color[0] = c[0], p.color[1] = c[1], p.color[2] = c[2];
    return p;
  }
  Status push(const Prim& p) {
    if (outside(p, frame_.width, frame_.height))
      return Status::Ok();
    if (prims_->size() >= static_cast<size_t>(kMaxPrimitives))
      return invalid_argument("overlay: more than " + std::to_string(kMaxPrimitives) +
                              " primitives in one frame");
    prims_->push_back(p);
    return Status::Ok();
  }

  const ImageView& frame_;
  std::vector<Prim>* prims_;
};

} // namespace

std::string printable(const std::string& text) {
  std::string out = text.substr(0, kMaxLabelChars);
  for (char& c : out) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 32 || u > 126)
      c = '?';
  }
  return out;
}

Status validate(const Params& p) {
  if (p.line_width < 1 || p.line_width > 64)
    return invalid_argument("overlay: line_width " + std::to_string(p.line_width) +
                            " outside 1..64");
  if (p.font_scale < 1 || p.font_scale > 16)
    return invalid_argument("overlay: font_scale " + std::to_string(p.font_scale) +
                            " outside 1..16");
  if (p.mask_alpha < 0 || p.mask_alpha > 255)
    return invalid_argument("overlay: mask_alpha " + std::to_string(p.mask_alpha) +
                            " outside 0..255");
  // Written as negations so that NaN is refused too.
  if (!(p.label_full_area >= 0 && p.label_full_area <= 1))
    return invalid_argument("overlay: label_full_area " + std::to_string(p.label_full_area) +
                            " outside 0..1");
  if (!(p.label_min_area >= 0 && p.label_min_area <= p.label_full_area))
    return invalid_argument("overlay: label_min_area " + std::to_string(p.label_min_area) +
                            " outside 0..label_full_area");
  return Status::Ok();
}

void label_size(const std::string& text, int font_scale, int* width, int* height) {
  const std::string t = printable(text);
  *width = text_width(t.size(), font_scale) + 2 * font_scale;
  *height = 9 * font_scale;
}

void color_channels(Rgb rgb, PixelFormat format, const YuvColorimetry& yuv, uint8_t out[3]) {
  if (is_packed_rgb(format)) {
    out[0] = rgb.r, out[1] = rgb.g, out[2] = rgb.b;
    return;
  }
  double kr = 0.299, kb = 0.114;
  if (format == PixelFormat::kGRAY8) {
    out[0] = out[1] = out[2] =
        static_cast<uint8_t>(std::lround(kr * rgb.r + (1 - kr - kb) * rgb.g + kb * rgb.b));
    return;
  }
  switch (yuv.matrix) {
  case YuvColorimetry::Matrix::kBT601:
    kr = 0.299, kb = 0.114;
    break;
  case YuvColorimetry::Matrix::kBT709:
    kr = 0.2126, kb = 0.0722;
    break;
  case YuvColorimetry::Matrix::kBT2020:
    kr = 0.2627, kb = 0.0593;
    break;
  case YuvColorimetry::Matrix::kSMPTE240M:
    kr = 0.212, kb = 0.087;
    break;
  }
  const double y = kr * rgb.r + (1 - kr - kb) * rgb.g + kb * rgb.b;
  const double pb = (rgb.b - y) / (2 * (1 - kb)), pr = (rgb.r - y) / (2 * (1 - kr));
  const double ys = yuv.full_range ? 1.0 : 219.0 / 255, cs = yuv.full_range ? 1.0 : 224.0 / 255;
  auto u8 = [](double v) { return static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L)); };
  out[0] = u8((yuv.full_range ? 0 : 16) + y * ys);
  out[1] = u8(128 + pb * cs);
  out[2] = u8(128 + pr * cs);
}

Target make_target(const ImageView& frame) {
  Target t{};
  t.format = frame.format;
  t.width = frame.width;
  t.height = frame.height;
  for (int p = 0; p < 3; ++p) {
    t.plane[p] = frame.data[p];
    t.pitch[p] = frame.pitch[p];
  }
  t.layout = packed_layout(frame.format);
  return t;
}

Tint make_tint(const Params& params, const ImageView& frame) {
  Tint k{};
  color_channels(params.mask_color, frame.format, frame.yuv, k.color);
  k.alpha = params.mask_alpha;
  return k;
}

Status check_views(const Scene& scene, const ImageView& frame) {
  CVIS_RETURN_IF_ERROR(validate_view(frame, "overlay frame"));
  if (frame.width > kMaxSide || frame.height > kMaxSide)
    return invalid_argument("overlay: frames up to " + std::to_string(kMaxSide) + " pixels a side");
  if (scene.mask) {
    const ImageView& m = *scene.mask;
    CVIS_RETURN_IF_ERROR(validate_view(m, "overlay mask"));
    if (m.format != PixelFormat::kGRAY8 || m.width != frame.width || m.height != frame.height)
      return invalid_argument("overlay: the mask must be GRAY8 of the frame's size (" +
                              std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                              "), got " + pixel_format_name(m.format) + " " +
                              std::to_string(m.width) + "x" + std::to_string(m.height));
  }
  return Status::Ok();
}

Status build_primitives(const Scene& scene, const Params& params, const ImageView& frame,
                        std::vector<Prim>* prims) {
  Builder b(frame, prims);
  const int lw = params.line_width, s = params.font_scale;
  uint8_t c[3];
  for (const Polyline& t : scene.trails) {
    color_channels(t.color, frame.format, frame.yuv, c);
    if (t.points.size() == 1)
      CVIS_RETURN_IF_ERROR(b.line(t.points[0], t.points[0], lw, c));
    for (size_t i = 1; i < t.points.size(); ++i)
      CVIS_RETURN_IF_ERROR(b.line(t.points[i - 1], t.points[i], lw, c));
  }
  for (const Box& box : scene.boxes) {
    if (box.w <= 0 || box.h <= 0)
      continue;
    color_channels(box.color, frame.format, frame.yuv, c);
    const int64_t x0 = box.x, y0 = box.y, x1 = x0 + box.w, y1 = y0 + box.h;
    if (box.w <= 2 * lw || box.h <= 2 * lw) {
      CVIS_RETURN_IF_ERROR(b.rect(x0, y0, x1, y1, c));
      continue;
    }
    CVIS_RETURN_IF_ERROR(b.rect(x0, y0, x1, y0 + lw, c));           // top
    CVIS_RETURN_IF_ERROR(b.rect(x0, y1 - lw, x1, y1, c));           // bottom
    CVIS_RETURN_IF_ERROR(b.rect(x0, y0 + lw, x0 + lw, y1 - lw, c)); // left
    CVIS_RETURN_IF_ERROR(b.rect(x1 - lw, y0 + lw, x1, y1 - lw, c)); // right
  }
  if (!params.labels)
    return Status::Ok();
  std::vector<LabelPlacement> labels;
  CVIS_RETURN_IF_ERROR(layout_labels(scene.boxes, frame.width, frame.height, params, &labels));
  for (size_t k = 0; k < labels.size(); ++k) {
    const LabelPlacement& l = labels[k];
    if (l.text.empty())
      continue;
    const Box& box = scene.boxes[k];
    color_channels(box.color, frame.format, frame.yuv, c);
    CVIS_RETURN_IF_ERROR(
        b.rect(l.x, l.y, static_cast<int64_t>(l.x) + l.w, static_cast<int64_t>(l.y) + l.h, c));
    // Dark text on light boxes, white on dark ones (BT.601 luma of the box colour).
    const int luma = (299 * box.color.r + 587 * box.color.g + 114 * box.color.b) / 1000;
    uint8_t ink[3];
    color_channels(luma > 140 ? Rgb{0, 0, 0} : Rgb{255, 255, 255}, frame.format, frame.yuv, ink);
    for (size_t i = 0; i < l.text.size(); ++i) {
      if (l.text[i] == ' ')
        continue;
      const int64_t gx = l.x + s + static_cast<int64_t>(i) * 6 * s;
      if (gx >= frame.width)
        break;
      CVIS_RETURN_IF_ERROR(
          b.glyph(static_cast<int>(gx), static_cast<int>(l.y + s), s, l.text[i], ink));
    }
  }
  return Status::Ok();
}

void bin_primitives(const std::vector<Prim>& prims, int width, int height,
                    std::vector<int32_t>* counts, std::vector<TileRef>* tiles,
                    std::vector<int32_t>* ids) {
  const int ntx = (width + kTile - 1) / kTile, nty = (height + kTile - 1) / kTile;
  counts->assign(static_cast<size_t>(ntx) * nty + 1, 0);
  tiles->clear();
  ids->clear();
  // Tiles of primitive i: its clipped bounds; for lines only those whose centre lies within the
  // tile's half diagonal + the line's reach of the segment (a conservative test: coverage itself
  // is decided per pixel).
  auto for_tiles = [&](const Prim& p, auto&& fn) {
    int x0, y0, x1, y1;
    prim_bounds(p, &x0, &y0, &x1, &y1);
    const int tx0 = std::max(0, x0) / kTile, ty0 = std::max(0, y0) / kTile;
    const int tx1 = (std::min(width, x1) - 1) / kTile, ty1 = (std::min(height, y1) - 1) / kTile;
    const double ax = p.x0, ay = p.y0, dx = p.x1 - ax, dy = p.y1 - ay;
    const double len2 = dx * dx + dy * dy;
    const double reach = kTile * 0.7072 + p.size / 2.0 + 1.0;
    for (int ty = ty0; ty <= ty1; ++ty) {
      for (int tx = tx0; tx <= tx1; ++tx) {
        if (p.kind == kPrimLine && len2 > 0) {
          const double cx = tx * kTile + kTile / 2.0 - 0.5, cy = ty * kTile + kTile / 2.0 - 0.5;
          const double t = std::clamp(((cx - ax) * dx + (cy - ay) * dy) / len2, 0.0, 1.0);
          const double ex = ax + t * dx - cx, ey = ay + t * dy - cy;
          if (ex * ex + ey * ey > reach * reach)
            continue;
        }
        fn(static_cast<size_t>(ty) * ntx + tx);
      }
    }
  };
  for (const Prim& p : prims)
    for_tiles(p, [&](size_t t) { ++(*counts)[t]; });
  // Exclusive prefix sums become each tile's write position.
  int32_t total = 0;
  for (size_t t = 0; t + 1 < counts->size(); ++t) {
    const int32_t n = (*counts)[t];
    if (n > 0)
      tiles->push_back({static_cast<int32_t>(t % ntx), static_cast<int32_t>(t / ntx), total, n});
    (*counts)[t] = total;
    total += n;
  }
  ids->resize(static_cast<size_t>(total));
  for (size_t i = 0; i < prims.size(); ++i)
    for_tiles(prims[i], [&](size_t t) { (*ids)[static_cast<size_t>((*counts)[t]++)] = i; });
}

std::unique_ptr<Drawer> make_drawer(Backend backend, Status* status) {
  Backend resolved = backend;
  Status st = resolve_backend(backend, &resolved);
  if (st.ok() && resolved == Backend::kCpu)
    return make_cpu_drawer();
#if defined(CVIS_HAVE_CUDA)
  if (st.ok())
    return make_cuda_drawer();
#else
  if (st.ok())
    st = Status(StatusCode::kNoDevice, "overlay: this build has no CUDA backend");
#endif
  if (status)
    *status = st;
  return nullptr;
}

} // namespace cvis::overlay
