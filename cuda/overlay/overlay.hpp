// Drawing of analysis results onto video frames: box outlines, text labels in a built-in 5x7
// bitmap font, polylines (track trails) and a tinted foreground mask. The GStreamer element
// cudaroioverlay turns metadata into a Scene and draws it in place.
//
// A Scene is turned into a list of primitives (filled rectangles, glyphs, thick line segments,
// overlay_raster.hpp) in drawing order by build_primitives(); both backends draw that same list, so
// they write identical bytes (all arithmetic is integer):
// - the CPU reference (overlay_cpu.cpp) draws each primitive in turn with plain loops;
// - the CUDA backend (overlay_cuda.cpp) bins the primitives into 32x32-pixel tiles and gives every
//   pixel the colour of the last primitive covering it (the same result, README.md).
//
// Order: the mask tint first, then the trails, the box outlines and the labels (the labels on top
// of every box). Formats: every cvis::PixelFormat (packed RGB, GRAY8, NV12, I420); YUV chroma takes
// the colour of the last primitive covering any of its 2x2 pixels. Drawn pixels are opaque (alpha
// 255 in formats with alpha; padding bytes of xRGB-style formats are left alone).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/image.hpp"
#include "common/status.hpp"

namespace cvis::overlay {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

struct Point {
  int x = 0, y = 0;
};

// A box outline (x, y, w, h in pixels; may extend past the frame: it is clipped) and its label
// (printable ASCII; other bytes are drawn as '?'; empty: no label). With the label layout
// (Params::label_layout) `short_label` is drawn where the full label does not fit or the box is
// small (empty: none), and labels of higher `priority` are placed first.
struct Box {
  int x = 0, y = 0, w = 0, h = 0;
  Rgb color;
  std::string label;
  std::string short_label;
  int priority = 0;
};

// Connected line segments through `points` (a track's trail), `color`.
struct Polyline {
  std::vector<Point> points;
  Rgb color;
};

struct Scene {
  std::vector<Polyline> trails;
  std::vector<Box> boxes;
  // Optional foreground mask: GRAY8 view of the frame's size, non-zero = foreground. Host or
  // device memory (the CUDA backend uploads a host mask; the CPU backend needs a host mask).
  const ImageView* mask = nullptr;
};

struct Params {
  int line_width = 2; // box outlines and trails, pixels (1..64)
  int font_scale = 1; // glyph pixels per font pixel (1..16): a glyph is 5x7 * scale
  bool labels = true; // draw the boxes' labels
  // Label layout (layout_labels): labels never overlap each other and stay inside the frame;
  // boxes smaller than `label_full_area` of the frame's area get the short label only, those
  // smaller than `label_min_area` none. false: every label above its box (inside its top edge
  // when there is no room above), overlapping or not.
  bool label_layout = true;
  double label_full_area = 1.0 / 400; // share of the frame (0..1): 5,184 pixels at 1920x1080
  double label_min_area = 1.0 / 5000; // share of the frame (0..label_full_area): 414 at 1080p
  Rgb mask_color{255, 0, 255};
  int mask_alpha = 96; // mask tint strength, 0 (none) .. 255 (opaque)
};

// Checks the ranges above; kInvalidArgument with the offending field otherwise.
Status validate(const Params& p);

// Limits of one frame's drawing (the primitives: 4 per box, 1 + characters per label, one per
// trail segment). A scene needing more is refused with kInvalidArgument.
inline constexpr int kMaxPrimitives = 1 << 20;
inline constexpr int kMaxLabelChars = 64; // longer labels are cut

// Draws scenes onto frames in place.
class Drawer {
public:
  virtual ~Drawer() = default;
  virtual Backend backend() const = 0;

  // Errors: kInvalidArgument (validate()). May be called between frames.
  virtual Status configure(const Params& params) = 0;

  // Draws `scene` onto `frame` (writable, any format). CPU backend: host frame and mask, done on
  // return. CUDA backend: device frame; the work is queued on `stream` (the caller synchronises
  // before the frame is used elsewhere); host masks are uploaded. The scene is copied: it may be
  // changed or freed on return.
  // Errors: kInvalidArgument (bad view, mask of another size, too many primitives),
  // kUnsupportedFormat (memory the backend cannot draw in), kCudaError / kOutOfMemory.
  virtual Status draw(const Scene& scene, const ImageView& frame, StreamHandle stream) = 0;

  // Frees device memory (kept otherwise between frames).
  virtual void release() = 0;
};

// kCpu or kCuda (kAuto resolves first). nullptr with *status set when the backend is not
// available (no CUDA in this build: kNoDevice).
std::unique_ptr<Drawer> make_drawer(Backend backend, Status* status);

// Size of a label's background box for `text` at `font_scale` (pixels), for callers laying
// labels out.
void label_size(const std::string& text, int font_scale, int* width, int* height);

// Where a box's label is drawn: the background rectangle (x, y, w, h; label_size of `text`) and
// the text (printable, possibly the short label or cut to the frame's width); empty text: none.
struct LabelPlacement {
  int x = 0, y = 0, w = 0, h = 0;
  std::string text;
};

// The labels of `boxes` on a `width` x `height` frame, one placement per box (what both backends
// draw; deterministic). With params.label_layout, boxes are taken by priority (higher first), then
// area (larger first), then index; each label (the full one, unless the box is under
// label_full_area; then the short one) goes to the first of these positions, shifted into the
// frame, where it overlaps no label placed before: above the box at its left edge, inside its top
// edge, below it, inside its bottom edge, above / inside the top / below at its right edge, left
// of it and right of it, at its top. No free position: the short label is tried the same way,
// then the box stays unlabelled. Boxes entirely outside the frame, of zero size, or under
// label_min_area get none. Without label_layout: the full label above every box as described at
// Params. Errors: kInvalidArgument (validate(), a frame size outside 1..16384).
Status layout_labels(const std::vector<Box>& boxes, int width, int height, const Params& params,
                     std::vector<LabelPlacement>* out);

} // namespace cvis::overlay
