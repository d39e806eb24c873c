// CPU reference of the model with the scene extensions (bgsub_scene.hpp): the paper's model of
// bgsub_cpu.cpp (same per-pixel functions of bgsub_math.hpp, same order) plus illumination gains,
// shadows, adaptive thresholds for dynamic background and shot changes. Prototype of issue 12, to
// be merged into bgsub_cpu.cpp with the CUDA kernels.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "bgsub_internal.hpp"
#include "bgsub_scene.hpp"
#include "bgsub_scene_math.hpp"
#include "common/mask_area.hpp"
#include "common/segmentation.hpp"

namespace cvis::bgsub {

namespace {

constexpr float kGainDeadZone = 1.0f / 64.0f;
constexpr int kChangedLevels = 20; // shot-change rule: a pixel changed since the previous frame

template <typename F> void parallel_rows(int height, int threads, F&& fn) {
  threads = std::max(1, std::min(threads, height));
  std::vector<std::thread> pool;
  auto run = [&](int t) {
#if defined(__SSE__)
    const unsigned saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040u); // FTZ/DAZ as the kernels (-ftz=true)
#endif
    fn(height * t / threads, height * (t + 1) / threads);
#if defined(__SSE__)
    _mm_setcsr(saved);
#endif
  };
  for (int t = 1; t < threads; ++t)
    pool.emplace_back(run, t);
  run(0);
  for (auto& th : pool)
    th.join();
}

class SceneCpuSubtractor final : public SceneSubtractor {
public:
  Backend backend() const override { return Backend::kCpu; }
  const Params& params() const override { return p_; }
  const SceneInfo& scene_info() const override { return info_; }

  Status configure(const Params& p) override {
    CVIS_RETURN_IF_ERROR(validate(p));
    if (p.kernel != Kernel::kFastFused && p.kernel != Kernel::kExact)
      return invalid_argument("bgsub scene prototype: kernel fast-fused or exact only");
    const bool structural = !configured_ || p.num_samples != p_.num_samples || p.color != p_.color;
    p_ = p;
    CVIS_RETURN_IF_ERROR(build_table(p_, &table_));
    lut_ = bandwidth_table(p_);
    configured_ = true;
    if (structural) {
      w_ = h_ = 0;
      reset();
    }
    return Status::Ok();
  }

  Status configure_scene(const SceneParams& s) override {
    if (s.cut_warmup < 2 || s.cut_warmup > 64 || s.cut_frames < 1 || !(s.cut_fraction > 0) ||
        !(s.shadow_low > 0) || !(s.shadow_high >= s.shadow_low) || s.shadow_samples < 1 ||
        !(s.blink_gain >= 0)) {
      return invalid_argument("bgsub scene: bad parameters");
    }
    s_ = s;
    lo16_ = static_cast<int>(std::lround(s.shadow_low * 16.0f));
    hi16_ = static_cast<int>(std::lround(s.shadow_high * 16.0f));
    rule_.configure(s.cut_fraction, s.cut_frames);
    return Status::Ok();
  }

  void reset() override {
    frame_ = 0;
    warm_ = p_.num_samples;
    restart_pending_ = false;
    rule_.reset();
  }

  Status process(const ImageView& frame, const ImageView& mask, FrameResult* result, StreamHandle,
                 float* density) override {
    if (!configured_)
      CVIS_RETURN_IF_ERROR(configure(Params()));
    CVIS_RETURN_IF_ERROR(validate_view(frame, "frame"));
    if (frame.space != MemorySpace::kHost)
      return unsupported_format("bgsub: the CPU backend needs host frames");
    CVIS_RETURN_IF_ERROR(validate_mask(mask, frame.width, frame.height, false));
    if (frame.width != w_ || frame.height != h_)
      allocate(frame.width, frame.height);
    threads_ = p_.cpu_threads > 0
                   ? p_.cpu_threads
                   : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int L = p_.num_samples;
    const size_t npix = static_cast<size_t>(w_) * h_;
    const PixelSource src = make_pixel_source(frame);
    const bool chroma = p_.color == ColorSpace::kChromaticity;
    parallel_rows(h_, threads_, [&](int y0, int y1) {
      for (int y = y0; y < y1; ++y)
        for (int x = 0; x < w_; ++x)
          feat_[idx(x, y)] = feature_of(fetch_rgb(src, x, y), chroma);
    });
    *result = FrameResult();
    info_ = SceneInfo();
    result->frame = ++frame_;
    if (restart_pending_) {
      restart_pending_ = false;
      info_.shot_change = true;
      frame_ = 1;
      warm_ = s_.cut_warmup;
      result->frame = frame_;
    }
    if (frame_ <= warm_) {
      warm_up();
      finish_empty(mask, density, result);
      return Status::Ok();
    }

    // Illumination gains (RGB features only) and the compensated features.
    float inv_gain[3] = {1.f, 1.f, 1.f};
    if (s_.illumination && !chroma)
      estimate_gains(inv_gain);
    for (size_t i = 0; i < npix; ++i)
      cur_[i] = (inv_gain[0] != 1.f || inv_gain[1] != 1.f || inv_gain[2] != 1.f)
                    ? compensate_feature(feat_[i], inv_gain)
                    : feat_[i];
    const ModelConsts m = model_consts(p_, w_, h_, table_);
    parallel_rows(h_, threads_, [&](int y0, int y1) { classify(m, inv_gain, y0, y1, density); });

    // Shot change: most pixels foreground and most changed since the previous frame.
    int64_t raw_count = 0, changed = 0;
    for (size_t i = 0; i < npix; ++i) {
      raw_count += raw_[i] == kRawForeground;
      changed += absdiff_max(cur_[i], prev_[i]) > kChangedLevels;
      prev_[i] = cur_[i];
    }
    // A confirmed shot change restarts the model at the next frame (the CUDA backend reads the
    // counts after the frame's synchronisation).
    restart_pending_ = s_.shot_change && rule_.update(static_cast<double>(raw_count) / npix,
                                                      static_cast<double>(changed) / npix);
    cleanup();
    if ((frame_ - warm_ - 1) % p_.update_period == 0)
      parallel_rows(h_, threads_, [&](int y0, int y1) { update(y0, y1); });
    if (p_.blobs) {
      ccl::connected_blobs(mask_.data(), w_, w_, h_, p_.min_blob_area, &result->blobs,
                           &result->foreground_pixels);
    } else {
      result->foreground_pixels = std::count(mask_.begin(), mask_.end(), uint8_t(255));
    }
    result->foreground_fraction = static_cast<double>(result->foreground_pixels) / npix;
    for (int y = 0; y < h_; ++y)
      std::memcpy(mask.data[0] + y * mask.pitch[0], mask_.data() + idx(0, y), w_);
    (void)L;
    return Status::Ok();
  }

private:
  size_t idx(int x, int y) const { return static_cast<size_t>(y) * w_ + x; }

  static int absdiff_max(uint32_t a, uint32_t b) {
    const uint32_t d = absdiff3(a, b);
    return std::max({channel(d, 0), channel(d, 1), channel(d, 2)});
  }

  void allocate(int w, int h) {
    w_ = w;
    h_ = h;
    const size_t npix = static_cast<size_t>(w) * h;
    samples_.assign(npix * p_.num_samples, 0u);
    for (auto* v : {&medians_, &feat_, &cur_, &prev_})
      v->assign(npix, 0u);
    for (auto* v : {&head_, &raw_, &mask_, &shadow_, &blink_, &prev_raw_})
      v->assign(npix, 0);
    reset();
  }

  uint32_t& sample(int k, size_t i) { return samples_[static_cast<size_t>(k) * w_ * h_ + i]; }

  // Warm-up frame `frame_` of `warm_`: sample k of every pixel is warm-up frame k mod warm_ (the
  // initial warm-up: frame k itself), so that consecutive samples are consecutive frames.
  void warm_up() {
    const size_t npix = static_cast<size_t>(w_) * h_;
    const int L = p_.num_samples;
    for (int k = static_cast<int>(frame_ - 1); k < L; k += static_cast<int>(warm_))
      std::copy(feat_.begin(), feat_.end(), samples_.begin() + static_cast<size_t>(k) * npix);
    if (frame_ == warm_) {
      std::fill(head_.begin(), head_.end(), 0);
      parallel_rows(h_, threads_, [&](int y0, int y1) {
        for (size_t i = idx(0, y0); i < idx(0, y1); ++i)
          refresh_median(i);
      });
      std::fill(blink_.begin(), blink_.end(), 0);
      std::fill(prev_raw_.begin(), prev_raw_.end(), 0);
    }
    std::copy(feat_.begin(), feat_.end(), prev_.begin());
    std::fill(mask_.begin(), mask_.end(), 0);
  }

  void finish_empty(const ImageView& mask, float* density, FrameResult* result) {
    for (int y = 0; y < h_; ++y)
      std::memset(mask.data[0] + y * mask.pitch[0], 0, w_);
    if (density)
      std::fill(density, density + static_cast<size_t>(w_) * h_, 0.0f);
    result->warming_up = true;
  }

  void refresh_median(size_t i) {
    const int L = p_.num_samples;
    const int bits = median_bits(p_), sat = (1 << bits) - 1;
    uint32_t diffs[kMaxSamples];
    const int h = head_[i];
    uint32_t prev = sample(h, i);
    for (int j = 1; j < L; ++j) {
      const uint32_t cur = sample((h + j) % L, i);
      diffs[j - 1] = absdiff3(cur, prev, sat);
      prev = cur;
    }
    medians_[i] = median3(diffs, L - 1, bits);
  }

  // g_c = median of x_c / s_c over the previous frame's background pixels (every other row and
  // column; s = the newest sample, s_c >= kGainMinLevel); 1/g into inv_gain (dead zone 1/64).
  void estimate_gains(float inv_gain[3]) {
    const int L = p_.num_samples;
    for (int c = 0; c < 3; ++c) {
      std::fill(gain_hist_.begin(), gain_hist_.end(), 0u);
      uint32_t n = 0;
      for (int y = 0; y < h_; y += 2) {
        for (int x = 0; x < w_; x += 2) {
          const size_t i = idx(x, y);
          if (mask_[i] || shadow_[i])
            continue;
          const int s = channel(sample((head_[i] + L - 1) % L, i), c);
          if (s < seg::kGainMinLevel)
            continue;
          ++gain_hist_[seg::gain_bin(channel(feat_[i], c), s)];
          ++n;
        }
      }
      const float g = seg::gain_median([&](int k) { return gain_hist_[k]; }, n);
      info_.gain[c] = std::fabs(g - 1.0f) < kGainDeadZone ? 1.0f : g;
      inv_gain[c] = std::fabs(g - 1.0f) < kGainDeadZone ? 1.0f : 1.0f / g;
    }
  }

  void classify(const ModelConsts& m, const float inv_gain[3], int y0, int y1, float* density) {
    const size_t npix = static_cast<size_t>(w_) * h_;
    auto at = [&](int k, int x, int y) {
      return samples_[static_cast<size_t>(k) * npix + static_cast<size_t>(y) * w_ + x];
    };
    const bool fused = p_.kernel == Kernel::kFastFused;
    auto prod = [fused](float t0, float t1, float t2) {
      if (fused)
        return std::exp2(fused_exponent2(t0, t1, t2));
      return cpwl::mul_rn(cpwl::mul_rn(std::exp(cpwl::gaussian_exponent(t0)),
                                       std::exp(cpwl::gaussian_exponent(t1))),
                          std::exp(cpwl::gaussian_exponent(t2)));
    };
    const bool shadows = s_.shadows && p_.color == ColorSpace::kRgb;
    for (int y = y0; y < y1; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = idx(x, y);
        float inv_sigma[3], scale[3];
        for (int c = 0; c < 3; ++c) {
          // Below g = 1 the noise is amplified by 1/g in compensated levels: so is sigma.
          const float widen = inv_gain[c] > 1.0f ? 1.0f / inv_gain[c] : 1.0f;
          inv_sigma[c] = cpwl::mul_rn(lut_[c * 256 + channel(medians_[i], c)], widen);
          scale[c] = cpwl::mul_rn(inv_sigma[c], m.arg_scale);
        }
        float total, wsum;
        kde_sums(cur_[i], x, y, m, scale, at, prod, &total, &wsum);
        const float d = kde_density(total, wsum, inv_sigma, m);
        ModelConsts mt = m;
        if (s_.blink_gain > 0.0f) {
          const float f = std::exp2(-s_.blink_gain * blink_[i] / 255.0f);
          mt.threshold = m.threshold * f;
          mt.update_threshold = m.update_threshold * f;
        }
        uint8_t r = classify_density(d, mt);
        shadow_[i] = 0;
        if (r == kRawForeground && shadows &&
            shadow_explained(
                cur_[i], [&](int k) { return sample(k, i); }, p_.num_samples, lo16_, hi16_,
                s_.shadow_chroma, s_.shadow_samples)) {
          r = 0;
          shadow_[i] = 1;
        }
        const uint8_t fg = r == kRawForeground;
        blink_[i] =
            static_cast<uint8_t>(blink_[i] + (((fg != prev_raw_[i]) ? 255 : 0) - blink_[i]) / 16);
        prev_raw_[i] = fg;
        raw_[i] = r;
        if (density)
          density[i] = d;
      }
    }
  }

  void cleanup() {
    auto raw = [&](int x, int y) { return raw_[idx(x, y)]; };
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x)
        mask_[idx(x, y)] = p_.cleanup == Cleanup::kNone
                               ? (raw_[idx(x, y)] == kRawForeground ? 255 : 0)
                               : median3x3(raw, x, y, w_, h_);
    seg::remove_small_components(mask_.data(), w_, h_, s_.min_mask_area);
  }

  void update(int y0, int y1) {
    const int L = p_.num_samples;
    auto raw = [&](int x, int y) { return raw_[idx(x, y)]; };
    for (int y = y0; y < y1; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = idx(x, y);
        if (shadow_[i] || !updatable(raw, mask_[i], x, y, w_, h_, p_.conservative_update))
          continue;
        sample(head_[i], i) = cur_[i];
        head_[i] = static_cast<uint8_t>((head_[i] + 1) % L);
        refresh_median(i);
      }
    }
  }

  Params p_;
  SceneParams s_;
  SceneInfo info_;
  seg::ShotChangeRule rule_;
  bool configured_ = false;
  int w_ = 0, h_ = 0, threads_ = 1;
  int lo16_ = 6, hi16_ = 14;
  int64_t frame_ = 0, warm_ = 48;
  bool restart_pending_ = false;
  cpwl::Table table_;
  std::vector<float> lut_;
  std::vector<uint32_t> samples_, medians_, feat_, cur_, prev_;
  std::vector<uint8_t> head_, raw_, mask_, shadow_, blink_, prev_raw_;
  std::vector<uint32_t> gain_hist_ = std::vector<uint32_t>(seg::kGainBins);
};

} // namespace

std::unique_ptr<SceneSubtractor> make_scene_cpu_subtractor() {
  auto s = std::make_unique<SceneCpuSubtractor>();
  (void)s->configure_scene(SceneParams()); // the defaults are valid
  return s;
}

} // namespace cvis::bgsub
