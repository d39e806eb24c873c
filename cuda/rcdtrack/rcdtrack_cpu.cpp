// CPU reference engine: clear loops over the thesis's steps. Features (Eq. 2, 8, 9) per pixel,
// cell sums of every plane and their 2-D prefix sums (integral images, Eq. 4), then for every
// window the covariance from four corners per plane (Eq. 3, Fig. 3.20) and its distance to the
// model (Eq. 10 or Eq. 5-6), keeping the best windows in order. The per-window arithmetic is
// rcdtrack_math.hpp, the same functions the kernels run.
#include <algorithm>
#include <string>
#include <vector>

#include "rcdtrack_engine.hpp"

namespace cvis::rcdtrack {

namespace {

// Integral image of one region: P planes of (rows + 1) x (cols + 1) int64 (rcdtrack_math.hpp).
void build_integral(const PixelSource& src, const Layout& L, const IntegralSpec& s,
                    std::vector<int64_t>* out) {
  const int64_t stride = s.cols + 1;
  const int64_t plane = static_cast<int64_t>(s.rows + 1) * stride;
  out->assign(static_cast<size_t>(L.planes * plane), 0);
  const int pw = s.cols * s.cell, ph = s.rows * s.cell;
  // Features of every pixel of the region, once.
  std::vector<int> feat(static_cast<size_t>(pw) * ph * L.nf);
  for (int y = 0; y < ph; ++y)
    for (int x = 0; x < pw; ++x)
      pixel_features(src, L, s.x + x, s.y + y, &feat[(static_cast<size_t>(y) * pw + x) * L.nf]);
  int64_t* I = out->data();
  std::vector<int64_t> cell(L.planes);
  for (int j = 0; j < s.rows; ++j) {
    for (int i = 0; i < s.cols; ++i) {
      std::fill(cell.begin(), cell.end(), 0);
      for (int dy = 0; dy < s.cell; ++dy) {
        for (int dx = 0; dx < s.cell; ++dx) {
          const int x = i * s.cell + dx, y = j * s.cell + dy;
          const int* f = &feat[(static_cast<size_t>(y) * pw + x) * L.nf];
          for (int p = 0; p < L.planes; ++p)
            cell[p] += plane_value(L.plane[p], f, x, y);
        }
      }
      for (int p = 0; p < L.planes; ++p) {
        int64_t* P = I + p * plane;
        const uint64_t v = static_cast<uint64_t>(cell[p]) +
                           static_cast<uint64_t>(P[j * stride + i + 1]) +
                           static_cast<uint64_t>(P[(j + 1) * stride + i]) -
                           static_cast<uint64_t>(P[j * stride + i]);
        P[(j + 1) * stride + i + 1] = static_cast<int64_t>(v);
      }
    }
  }
}

// Keeps the k best hits in order (hit_before).
void insert_top(std::vector<Hit>* top, int k, const Hit& h) {
  auto it = top->begin();
  while (it != top->end() && hit_before(it->score, it->index, h.score, h.index))
    ++it;
  if (static_cast<int>(it - top->begin()) >= k)
    return;
  top->insert(it, h);
  if (static_cast<int>(top->size()) > k)
    top->pop_back();
}

template <int N>
void eval_group(const Layout& L, Distance dist, const Pass& pass, const GroupSpec& g,
                const IntegralRef& I, GroupResult* r) {
  constexpr int T = N * (N + 1) / 2;
  const IntegralSpec& is = pass.integrals[g.integral];
  const ModelData* m = g.model >= 0 ? &pass.models[g.model] : nullptr;
  r->top.clear();
  r->below.clear();
  r->overflow = false;
  int64_t index = 0;
  for (int k = g.first_grid; k < g.first_grid + g.grid_count; ++k) {
    const GridSpec& gr = pass.grids[k];
    for (int iy = 0; iy < gr.ny; ++iy) {
      for (int ix = 0; ix < gr.nx; ++ix, ++index) {
        const int x0 = gr.x0 + ix * gr.step, y0 = gr.y0 + iy * gr.step;
        Hit h;
        h.distance =
            m ? window_distance<N>(L, dist, I, is.cell, (x0 - is.x) / is.cell,
                                   (y0 - is.y) / is.cell, gr.ww / is.cell, gr.wh / is.cell, *m)
              : 0.0;
        h.score = m ? search_score<N>(L, dist, I, is.x, is.y, is.cols, is.rows, is.cell, g.prior,
                                      x0, y0, gr.ww, gr.wh, gr.ln_factor, h.distance, *m)
                    : 0.0;
        h.index = index;
        h.grid = k;
        h.box = {x0, y0, gr.ww, gr.wh};
        insert_top(&r->top, g.top_k, h);
        if (g.threshold >= 0.0 && h.distance < g.threshold)
          r->below.push_back(h);
      }
    }
  }
  std::sort(r->below.begin(), r->below.end(), [](const Hit& a, const Hit& b) {
    return hit_before(a.score, a.index, b.score, b.index);
  });
  if (static_cast<int64_t>(r->below.size()) > kMaxCandidates) {
    r->below.resize(kMaxCandidates);
    r->overflow = true;
  }
  // The best window's unridged covariances (every part) and plane sums.
  const Box& b = r->top.front().box;
  const int cx0 = (b.x - is.x) / is.cell, cy0 = (b.y - is.y) / is.cell;
  const int cw = b.w / is.cell, ch = b.h / is.cell;
  r->cov.assign(static_cast<size_t>(L.parts) * N * N, 0.0);
  for (int p = 0; p < L.parts; ++p) {
    int px, py, pw, ph;
    part_box(p, cx0, cy0, cw, ch, &px, &py, &pw, &ph);
    double C[T];
    window_covariance<N>(L, I, is.cell, px, py, pw, ph, false, C);
    double* out = &r->cov[static_cast<size_t>(p) * N * N];
    for (int i = 0; i < N; ++i)
      for (int j = 0; j <= i; ++j)
        out[i * N + j] = out[j * N + i] = C[packed(i, j)];
  }
  r->sums.resize(L.planes + 1);
  for (int p = 0; p < L.planes; ++p)
    r->sums[p] = box_sum(I, p, cx0, cy0, cw, ch);
  r->sums[L.planes] = static_cast<int64_t>(b.w) * b.h;
}

class CpuEngine final : public Engine {
public:
  Backend backend() const override { return Backend::kCpu; }

  Status configure(const Layout& layout, Distance distance, int width, int height,
                   PixelFormat format) override {
    layout_ = layout;
    distance_ = distance;
    width_ = width;
    height_ = height;
    format_ = format;
    have_frame_ = false;
    return Status::Ok();
  }

  Status set_frame(const ImageView& frame, StreamHandle) override {
    if (frame.space != MemorySpace::kHost)
      return unsupported_format("the CPU backend takes host frames only");
    CVIS_RETURN_IF_ERROR(validate_view(frame, "frame"));
    if (frame.width != width_ || frame.height != height_ || frame.format != format_)
      return invalid_argument("frame " + std::to_string(frame.width) + "x" +
                              std::to_string(frame.height) + " " + pixel_format_name(frame.format) +
                              " does not match the configured " + std::to_string(width_) + "x" +
                              std::to_string(height_) + " " + pixel_format_name(format_));
    src_ = make_pixel_source(frame);
    have_frame_ = true;
    return Status::Ok();
  }

  Status match_templates(const TemplatePass& pass, std::vector<TemplateHit>* out,
                         StreamHandle) override {
    if (!have_frame_)
      return internal_error("match_templates before set_frame");
    CVIS_RETURN_IF_ERROR(validate_templates(pass, src_.width, src_.height));
    match_templates_cpu(src_, pass, out);
    return Status::Ok();
  }

  Status read_luma(const std::vector<LumaRegion>& regions, std::vector<uint8_t>* out,
                   StreamHandle) override {
    if (!have_frame_)
      return internal_error("read_luma before set_frame");
    CVIS_RETURN_IF_ERROR(validate_regions(regions, src_.width, src_.height));
    read_luma_cpu(src_, regions, out);
    return Status::Ok();
  }

  Status run(const Pass& pass, std::vector<GroupResult>* out, StreamHandle) override {
    if (!have_frame_)
      return internal_error("run before set_frame");
    CVIS_RETURN_IF_ERROR(validate_pass(pass, layout_, width_, height_));
    integrals_.resize(pass.integrals.size());
    for (size_t k = 0; k < pass.integrals.size(); ++k)
      build_integral(src_, layout_, pass.integrals[k], &integrals_[k]);
    out->assign(pass.groups.size(), GroupResult());
    for (size_t gi = 0; gi < pass.groups.size(); ++gi) {
      const GroupSpec& g = pass.groups[gi];
      const IntegralSpec& is = pass.integrals[g.integral];
      IntegralRef I{integrals_[g.integral].data(),
                    static_cast<int64_t>(is.rows + 1) * (is.cols + 1), is.cols + 1};
      GroupResult* r = &(*out)[gi];
      switch (layout_.n) {
      case 2:
        eval_group<2>(layout_, distance_, pass, g, I, r);
        break;
      case 3:
        eval_group<3>(layout_, distance_, pass, g, I, r);
        break;
      case 4:
        eval_group<4>(layout_, distance_, pass, g, I, r);
        break;
      case 5:
        eval_group<5>(layout_, distance_, pass, g, I, r);
        break;
      case 6:
        eval_group<6>(layout_, distance_, pass, g, I, r);
        break;
      case 7:
        eval_group<7>(layout_, distance_, pass, g, I, r);
        break;
      case 8:
        eval_group<8>(layout_, distance_, pass, g, I, r);
        break;
      case 9:
        eval_group<9>(layout_, distance_, pass, g, I, r);
        break;
      default:
        return internal_error("feature count out of range");
      }
    }
    return Status::Ok();
  }

private:
  Layout layout_;
  Distance distance_ = Distance::kJbld;
  int width_ = 0, height_ = 0;
  PixelFormat format_ = PixelFormat::kRGBA;
  PixelSource src_{};
  bool have_frame_ = false;
  std::vector<std::vector<int64_t>> integrals_;
};

} // namespace

std::unique_ptr<Engine> make_cpu_engine() {
  return std::make_unique<CpuEngine>();
}

std::vector<int64_t> brute_force_sums(const ImageView& frame, const Layout& layout, const Box& box,
                                      int region_x, int region_y) {
  const PixelSource src = make_pixel_source(frame);
  std::vector<int64_t> s(layout.planes + 1, 0);
  int f[kMaxFeatures];
  for (int y = box.y; y < box.y + box.h; ++y) {
    for (int x = box.x; x < box.x + box.w; ++x) {
      pixel_features(src, layout, x, y, f);
      for (int p = 0; p < layout.planes; ++p)
        s[p] += plane_value(layout.plane[p], f, x - region_x, y - region_y);
    }
  }
  s[layout.planes] = static_cast<int64_t>(box.w) * box.h;
  return s;
}

} // namespace cvis::rcdtrack
