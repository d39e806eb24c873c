// The overlay's CPU reference: the mask tint quad by quad, then every primitive in drawing order
// with plain loops over its pixels (a later primitive paints over an earlier one). The CUDA
// backend must produce the same bytes (README.md, "Parity").
#include <algorithm>
#include <vector>

#include "overlay_internal.hpp"

namespace cvis::overlay {
namespace {

// One primitive: every covered pixel gets its colour; in YUV frames so does the chroma sample of
// that pixel's 2x2 quad (the last primitive covering any of the quad's pixels wins).
void draw_prim(const Target& t, const Prim& p) {
  int x0, y0, x1, y1;
  prim_bounds(p, &x0, &y0, &x1, &y1);
  x0 = std::max(x0, 0), y0 = std::max(y0, 0);
  x1 = std::min(x1, t.width), y1 = std::min(y1, t.height);
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) {
      if (!covers(p, x, y))
        continue;
      put_pixel(t, x, y, p.color);
      if (target_is_yuv(t))
        put_chroma(t, x >> 1, y >> 1, p.color);
    }
  }
}

class CpuDrawer final : public Drawer {
public:
  Backend backend() const override { return Backend::kCpu; }

  Status configure(const Params& params) override {
    CVIS_RETURN_IF_ERROR(validate(params));
    params_ = params;
    return Status::Ok();
  }

  Status draw(const Scene& scene, const ImageView& frame, StreamHandle) override {
    CVIS_RETURN_IF_ERROR(check_views(scene, frame));
    if (frame.space != MemorySpace::kHost ||
        (scene.mask && scene.mask->space != MemorySpace::kHost))
      return unsupported_format("overlay: the CPU backend draws in host memory only");
    const Target t = make_target(frame);
    if (scene.mask && params_.mask_alpha > 0) {
      const Tint k = make_tint(params_, frame);
      for (int y = 0; y < t.height; y += 2)
        for (int x = 0; x < t.width; x += 2)
          tint_quad(t, scene.mask->data[0], scene.mask->pitch[0], k, x, y);
    }
    CVIS_RETURN_IF_ERROR(build_primitives(scene, params_, frame, &prims_));
    for (const Prim& p : prims_)
      draw_prim(t, p);
    return Status::Ok();
  }

  void release() override { prims_ = {}; }

private:
  Params params_;
  std::vector<Prim> prims_;
};

} // namespace

std::unique_ptr<Drawer> make_cpu_drawer() {
  return std::make_unique<CpuDrawer>();
}

} // namespace cvis::overlay
