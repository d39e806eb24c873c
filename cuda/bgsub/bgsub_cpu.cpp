// CPU reference of the background subtraction: the same per-pixel arithmetic as the CUDA kernels
// (bgsub_math.hpp, bgsub_scene_math.hpp), the same passes in the same order, spread over all
// cores by rows. It is also the fallback on machines without a
// GPU, so the density sums (which dominate) run in parallel and denormals are flushed to zero.
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

namespace cvis::bgsub {

namespace {

// Flush-to-zero and denormals-are-zero for this thread (x86), restored on destruction. Products of
// tiny Gaussian values are denormal-heavy, which costs ~100x on x86; the CUDA kernels are built
// with -ftz=true, so flushing also keeps the two backends alike.
class FlushDenormals {
public:
  FlushDenormals() {
#if defined(__SSE__)
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | 0x8040u);
#endif
  }
  ~FlushDenormals() {
#if defined(__SSE__)
    _mm_setcsr(saved_);
#endif
  }

private:
  unsigned saved_ = 0;
};

// fn(y0, y1) over row bands, on `threads` threads (the caller's included).
template <typename F> void parallel_rows(int height, int threads, F&& fn) {
  threads = std::max(1, std::min(threads, height));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    pool.emplace_back([&, t] {
      FlushDenormals ftz;
      fn(height * t / threads, height * (t + 1) / threads);
    });
  }
  {
    FlushDenormals ftz;
    fn(0, height / threads);
  }
  for (auto& th : pool)
    th.join();
}

constexpr float kLog2e = 1.44269504088896341f;

class CpuSubtractor final : public SubtractorBase {
public:
  Backend backend() const override { return Backend::kCpu; }

  Status process(const ImageView& frame, const ImageView& mask, FrameResult* result, StreamHandle,
                 float* density) override {
    if (!configured_)
      CVIS_RETURN_IF_ERROR(configure(Params()));
    CVIS_RETURN_IF_ERROR(validate_view(frame, "frame"));
    if (frame.space != MemorySpace::kHost) {
      return unsupported_format("bgsub: the CPU backend needs host frames");
    }
    CVIS_RETURN_IF_ERROR(validate_mask(mask, frame.width, frame.height, false));
    if (frame.width != w_ || frame.height != h_)
      allocate(frame.width, frame.height);
    const int threads = p_.cpu_threads > 0
                            ? p_.cpu_threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const size_t npix = static_cast<size_t>(w_) * h_;

    const PixelSource src = make_pixel_source(frame);
    const bool chroma = p_.color == ColorSpace::kChromaticity;
    parallel_rows(h_, threads, [&](int y0, int y1) {
      for (int y = y0; y < y1; ++y)
        for (int x = 0; x < w_; ++x)
          feat_[static_cast<size_t>(y) * w_ + x] = feature_of(fetch_rgb(src, x, y), chroma);
    });

    *result = FrameResult();
    const FramePlan plan = schedule_.begin();
    result->frame = plan.frame;
    result->shot_change = plan.shot_change;
    if (plan.warming_up) {
      warm_up(plan, threads);
      std::fill(mask_prev_.begin(), mask_prev_.end(), uint8_t(0));
      std::fill(mask_prev2_.begin(), mask_prev2_.end(), uint8_t(0));
      for (int y = 0; y < h_; ++y)
        std::memset(mask.data[0] + y * mask.pitch[0], 0, w_);
      if (density)
        std::fill(density, density + npix, 0.0f);
      result->warming_up = true;
      return Status::Ok();
    }

    // Illumination: gains from the previous frame's background, the compensated features into
    // cur_, the changed pixels against the previous frame's.
    Gains g = unit_gains();
    if (p_.illumination && !chroma)
      estimate_gains(&g);
    int64_t changed = 0;
    const int L = p_.num_samples;
    for (size_t i = 0; i < npix; ++i) {
      cur_[i] = compensate_feature(feat_[i], g.inv);
      changed += changed_since(cur_[i], prev_[i], kChangedLevels);
      still_[i] = still_frames(still_[i], cur_[i], prev_[i], p_.ghost_levels);
      prev_[i] = cur_[i];
      // Added light: the frame against the newest sample, before this frame's update.
      light_[i] = brightness(cur_[i], chroma);
      light_[npix + i] = brightness(sample((head_[i] + L - 1) % L, i), chroma);
    }
    for (int c = 0; c < 3; ++c)
      result->gain[c] = g.g[c];

    const ModelConsts m = model_consts(p_, w_, h_, table_);
    parallel_rows(h_, threads, [&](int y0, int y1) { classify(m, g, y0, y1, density); });
    if (p_.shift_test && p_.color == ColorSpace::kRgb)
      parallel_rows(h_, threads, [&](int y0, int y1) { shift(y0, y1); });
    int64_t raw_count = 0;
    for (size_t i = 0; i < npix; ++i) {
      raw_count += raw_counts_foreground(raw_[i]);
      result->shadow_pixels += raw_[i] == kRawShadow;
    }
    schedule_.end(raw_count, changed, static_cast<int64_t>(npix));
    cleanup();
    int64_t wide = 0;
    for (size_t i = 0; i < npix; ++i)
      wide += wide_bandwidth(medians_[i]);
    result->moving_background = wide > wide_limit();
    note_scene(result->moving_background);
    if (plan.update) {
      if (p_.update_own && !plan.blind)
        lend(result->moving_background ? lend_need_moving() : lend_need_still());
      parallel_rows(h_, threads, [&](int y0, int y1) { update(y0, y1, plan.blind); });
    }
    // The output: the persistence filter's components of the mask the model used.
    // Glints: a mostly lit component must persist in both previous masks, and lit pixels away from
    // the previous mask are trimmed from the kept ones.
    const seg::AddedLight light{light_.data(), light_.data() + npix, static_cast<size_t>(w_),
                                seg::kAddedLightLevels, seg::trim_radius_for(w_, h_)};
    seg::keep_persistent_components(mask_.data(), mask_prev_.data(), out_.data(), w_, h_,
                                    p_.persistence, mask_prev2_.data(), &light);
    mask_prev_.swap(mask_prev2_); // prev becomes the older; its old buffer takes the mask
    std::copy(mask_.begin(), mask_.end(), mask_prev_.begin()); // mask_: the next frame's gain votes
    if (p_.blobs) {
      ccl::connected_blobs(out_.data(), w_, w_, h_, p_.min_blob_area, &result->blobs,
                           &result->foreground_pixels);
    } else {
      result->foreground_pixels = std::count(out_.begin(), out_.end(), uint8_t(255));
    }
    result->foreground_fraction = static_cast<double>(result->foreground_pixels) / npix;
    for (int y = 0; y < h_; ++y) {
      std::memcpy(mask.data[0] + y * mask.pitch[0], out_.data() + static_cast<size_t>(y) * w_, w_);
    }
    return Status::Ok();
  }

private:
  void allocate(int w, int h) {
    w_ = w;
    h_ = h;
    const size_t npix = static_cast<size_t>(w) * h;
    samples_.assign(npix * p_.num_samples, 0u);
    head_.assign(npix, 0);
    medians_.assign(npix, 0u);
    feat_.assign(npix, 0u);
    cur_.assign(npix, 0u);
    prev_.assign(npix, 0u);
    raw_.assign(npix, 0);
    mask_.assign(npix, 0);
    mask_prev_.assign(npix, 0);
    mask_prev2_.assign(npix, 0);
    light_.assign(2 * npix, 0);
    out_.assign(npix, 0);
    still_.assign(npix, 0);
    schedule_.reset();
  }

  // Warm-up frame plan.frame of plan.warm_len: the features go to slots frame - 1, frame - 1 +
  // warm_len, ... (the first warm-up: slot frame - 1 alone), so that a short warm-up after a cut
  // still fills every slot, consecutive slots with consecutive frames. The last one restarts the
  // heads and computes every bandwidth. The mask and raw classification restart empty (the gains
  // of the first classified frame then vote everywhere).
  void warm_up(const FramePlan& plan, int threads) {
    const size_t npix = static_cast<size_t>(w_) * h_;
    for (int k = static_cast<int>(plan.frame - 1); k < p_.num_samples; k += plan.warm_len)
      std::copy(feat_.begin(), feat_.end(), samples_.begin() + static_cast<size_t>(k) * npix);
    if (plan.last_warm) {
      std::fill(head_.begin(), head_.end(), 0);
      parallel_rows(h_, threads, [&](int y0, int y1) {
        for (size_t i = static_cast<size_t>(y0) * w_; i < static_cast<size_t>(y1) * w_; ++i)
          refresh_median(i);
      });
    }
    std::copy(feat_.begin(), feat_.end(), prev_.begin());
    std::fill(raw_.begin(), raw_.end(), 0);
    std::fill(mask_.begin(), mask_.end(), 0);
    std::fill(still_.begin(), still_.end(), 0);
  }

  // Gain votes of the previous frame's background pixels (every other row and column): the
  // frame's value over the pixel's newest sample (seg::gain_bin), per channel.
  void estimate_gains(Gains* g) {
    const int L = p_.num_samples;
    for (int c = 0; c < 3; ++c) {
      std::fill(gain_hist_.begin(), gain_hist_.end(), 0u);
      uint32_t n = 0;
      for (int y = 0; y < h_; y += 2) {
        for (int x = 0; x < w_; x += 2) {
          const size_t i = static_cast<size_t>(y) * w_ + x;
          if (!gain_voter(mask_[i], raw_[i]))
            continue;
          const int s = channel(sample((head_[i] + L - 1) % L, i), c);
          if (s < seg::kGainMinLevel)
            continue;
          ++gain_hist_[seg::gain_bin(channel(feat_[i], c), s)];
          ++n;
        }
      }
      solve_gain([&](int k) { return gain_hist_[k]; }, n, c, g);
    }
  }

  uint32_t sample(int k, size_t i) const { return samples_[static_cast<size_t>(k) * w_ * h_ + i]; }

  // Bandwidth medians of pixel i from its samples in time order (the oldest is at head).
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

  template <typename Prod>
  void classify_rows(const ModelConsts& m, const Gains& g, int y0, int y1, float* density,
                     Prod prod) {
    const size_t npix = static_cast<size_t>(w_) * h_;
    auto at = [&](int k, int x, int y) {
      return samples_[static_cast<size_t>(k) * npix + static_cast<size_t>(y) * w_ + x];
    };
    const bool shadows = p_.shadows && p_.color == ColorSpace::kRgb;
    const int lo16 = shadow_lo16(p_), hi16 = shadow_hi16(p_);
    const int need = std::min(p_.shadow_samples, p_.num_samples);
    // The density output needs the whole sum; the classification does not.
    const bool early = !density && kernel_terms_nonnegative(static_cast<int>(p_.kernel));
    for (int y = y0; y < y1; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = static_cast<size_t>(y) * w_ + x;
        float inv_sigma[3], scale[3];
        for (int c = 0; c < 3; ++c) {
          inv_sigma[c] = mul_rn(lut_[c * 256 + channel(medians_[i], c)], g.widen[c]);
          scale[c] = mul_rn(inv_sigma[c], m.arg_scale);
        }
        float total, wsum;
        if (early) {
          const EarlyCut cut = early_cut(kde_weight_sum(x, y, m), inv_sigma, m);
          kde_sums(cur_[i], x, y, m, scale, at, prod, &total, &wsum, &cut);
        } else {
          kde_sums(cur_[i], x, y, m, scale, at, prod, &total, &wsum);
        }
        const float d = kde_density(total, wsum, inv_sigma, m);
        uint8_t r = classify_density(d, m);
        if (r == 0 && m.update_own &&
            !own_explained(
                cur_[i], m, scale, inv_sigma, [&](int k) { return sample(k, i); }, prod,
                kernel_terms_nonnegative(static_cast<int>(p_.kernel)))) {
          r = kRawBorrowed;
        }
        if (r == kRawForeground && shadows &&
            shadow_explained(
                cur_[i], [&](int k) { return sample(k, i); }, p_.num_samples, lo16, hi16,
                p_.shadow_chroma, need)) {
          r = kRawShadow;
        }
        raw_[i] = r;
        if (density)
          density[i] = d;
      }
    }
  }

  void classify(const ModelConsts& m, const Gains& g, int y0, int y1, float* density) {
    const cpwl::TableView t = table_.view();
    const cpwl::TexRounding r = p_.texture_rounding;
    auto product = [](auto g) {
      return [g](float t0, float t1, float t2) { return mul_rn(mul_rn(g(t0), g(t1)), g(t2)); };
    };
    switch (p_.kernel) {
    case Kernel::kExact:
      return classify_rows(m, g, y0, y1, density,
                           product([](float u) { return std::exp(cpwl::gaussian_exponent(u)); }));
    case Kernel::kFast:
      return classify_rows(m, g, y0, y1, density, product([](float u) {
                             return std::exp2(mul_rn(cpwl::gaussian_exponent(u), kLog2e));
                           }));
    case Kernel::kTextureUniform:
      return classify_rows(m, g, y0, y1, density, product([t, r](float p) {
                             return cpwl::lookup_texture_emulated(t.values, t.n, p, r);
                           }));
    case Kernel::kManualUniform:
      return classify_rows(m, g, y0, y1, density,
                           product([t](float p) { return cpwl::lookup_manual(t.values, t.n, p); }));
    case Kernel::kSlopeUniform:
      return classify_rows(m, g, y0, y1, density,
                           product([t](float p) { return cpwl::lookup_slope(t.slope, t.n, p); }));
    case Kernel::kTextureOptimized:
      return classify_rows(m, g, y0, y1, density, product([t, r](float u) {
                             return cpwl::lookup_texture_emulated(
                                 t.values, t.n,
                                 cpwl::optimized_index_rt(t.knots, t.inv_h, t.pow2, u), r);
                           }));
    case Kernel::kManualOptimized:
      return classify_rows(m, g, y0, y1, density, product([t](float u) {
                             return cpwl::lookup_manual(
                                 t.values, t.n,
                                 cpwl::optimized_index_rt(t.knots, t.inv_h, t.pow2, u));
                           }));
    case Kernel::kFastFused:
      return classify_rows(m, g, y0, y1, density, [](float t0, float t1, float t2) {
        return std::exp2(fused_exponent2(t0, t1, t2)); // the GPU: ex2.approx.ftz
      });
    }
  }

  void cleanup() {
    morphology();
    for (int pass = 0; pass < p_.ghost_passes; ++pass)
      ghost_pass();
    seg::remove_small_components(mask_.data(), w_, h_, p_.min_mask_area);
  }

  // One pass of the ghost test (Params::ghost_passes): every pixel is tested against the mask as
  // the pass found it (ghost_src_), then the ghost pixels take over their neighbour's model. A
  // neighbour is background in that mask, so no pixel read here is written in the same pass (the
  // CUDA backend's two kernels).
  void ghost_pass() {
    const size_t npix = static_cast<size_t>(w_) * h_;
    const int L = p_.num_samples;
    ghost_src_.resize(npix);
    auto m = [&](int x, int y) { return mask_[static_cast<size_t>(y) * w_ + x]; };
    auto quiet = [&](int x, int y) {
      return still_[static_cast<size_t>(y) * w_ + x] >= p_.ghost_still;
    };
    auto raw = [&](int x, int y) { return raw_[static_cast<size_t>(y) * w_ + x]; };
    auto cur = [&](int x, int y) { return cur_[static_cast<size_t>(y) * w_ + x]; };
    auto smp = [&](int k, int x, int y) {
      return samples_[static_cast<size_t>(k) * npix + static_cast<size_t>(y) * w_ + x];
    };
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = static_cast<size_t>(y) * w_ + x;
        ghost_src_[i] = static_cast<uint8_t>(
            ghost_source(m, quiet, raw, cur, ghost_candidate(raw_[i], still_[i], p_.ghost_still),
                         smp, x, y, w_, h_, L, p_.ghost_levels, p_.ghost_matches));
      }
    }
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = static_cast<size_t>(y) * w_ + x;
        if (!ghost_src_[i])
          continue;
        const int n = ghost_src_[i] - 1;
        const size_t j = static_cast<size_t>(y + ghost_dy(n)) * w_ + x + ghost_dx(n);
        for (int k = 0; k < L; ++k)
          samples_[static_cast<size_t>(k) * npix + i] = samples_[static_cast<size_t>(k) * npix + j];
        head_[i] = head_[j];
        medians_[i] = medians_[j];
        mask_[i] = 0;
      }
    }
  }

  void morphology() {
    auto raw = [&](int x, int y) { return raw_[static_cast<size_t>(y) * w_ + x]; };
    if (p_.cleanup == Cleanup::kNone) {
      for (size_t i = 0; i < raw_.size(); ++i)
        mask_[i] = raw_[i] == kRawForeground ? 255 : 0;
      return;
    }
    if (p_.cleanup == Cleanup::kMedian) {
      for (int y = 0; y < h_; ++y)
        for (int x = 0; x < w_; ++x)
          mask_[static_cast<size_t>(y) * w_ + x] = median3x3(raw, x, y, w_, h_);
      return;
    }
    std::vector<uint8_t> eroded(raw_.size());
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x)
        eroded[static_cast<size_t>(y) * w_ + x] = morph3x3(raw, x, y, w_, h_, false);
    auto er = [&](int x, int y) { return eroded[static_cast<size_t>(y) * w_ + x]; };
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x)
        mask_[static_cast<size_t>(y) * w_ + x] = morph3x3(er, x, y, w_, h_, true);
  }

  // Params::shift_test: raw foreground that shift_explained() explains becomes kRawShifted.
  void shift(int y0, int y1) {
    const size_t npix = static_cast<size_t>(w_) * h_;
    const int reach = shift_reach();
    auto raw = [&](int x, int y) { return raw_[static_cast<size_t>(y) * w_ + x]; };
    auto smp = [&](int k, int x, int y) {
      return samples_[static_cast<size_t>(k) * npix + static_cast<size_t>(y) * w_ + x];
    };
    for (int y = y0; y < y1; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = static_cast<size_t>(y) * w_ + x;
        if (raw_[i] == kRawForeground && shift_explained(cur_[i], raw, smp, x, y, w_, h_,
                                                         p_.num_samples, p_.shift_levels, reach))
          raw_[i] = kRawShifted;
      }
    }
  }

  // kRawBorrowed pixels of the mask's background that borrowed_learnable() lets learn become
  // kRawLent. The test reads raw values only as 0 or not, so marking in place reads what the CUDA
  // kernel reads.
  void lend(int need) {
    const size_t npix = static_cast<size_t>(w_) * h_;
    auto raw = [&](int x, int y) { return raw_[static_cast<size_t>(y) * w_ + x]; };
    auto smp = [&](int k, int x, int y) {
      return samples_[static_cast<size_t>(k) * npix + static_cast<size_t>(y) * w_ + x];
    };
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = static_cast<size_t>(y) * w_ + x;
        if (raw_[i] == kRawBorrowed && !mask_[i] &&
            borrowed_learnable(raw, smp, p_.num_samples, cur_[i], p_.ghost_levels, need, x, y, w_,
                               h_))
          raw_[i] = kRawLent;
      }
    }
  }

  // Selective update: background pixels replace their oldest sample with the current feature and
  // re-estimate their bandwidths (`updatable`: final mask and, when conservative, raw mask).
  void update(int y0, int y1, bool blind) {
    const int L = p_.num_samples;
    const size_t npix = static_cast<size_t>(w_) * h_;
    auto raw = [&](int x, int y) { return raw_[static_cast<size_t>(y) * w_ + x]; };
    for (int y = y0; y < y1; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = static_cast<size_t>(y) * w_ + x;
        if (!blind && !updatable(raw, mask_[i], x, y, w_, h_, p_.conservative_update))
          continue;
        samples_[static_cast<size_t>(head_[i]) * npix + i] = cur_[i];
        head_[i] = static_cast<uint8_t>((head_[i] + 1) % L);
        refresh_median(i);
      }
    }
  }

  std::vector<uint32_t> samples_, medians_;
  std::vector<uint32_t> feat_, cur_, prev_; // the frame, compensated, the previous compensated
  std::vector<uint8_t> head_, raw_, mask_;
  std::vector<uint8_t> mask_prev_, out_; // Params::persistence: the previous mask_, the output
  std::vector<uint8_t> mask_prev2_;      // the mask_ before mask_prev_ (added light)
  std::vector<uint8_t> light_;           // brightness() of cur_, then of the newest samples
  std::vector<uint8_t> still_;           // still_frames() of every pixel
  std::vector<uint8_t> ghost_src_;       // ghost_pass(): 0, or 1 + the neighbour taken over
  std::vector<uint32_t> gain_hist_ = std::vector<uint32_t>(seg::kGainBins);
};

} // namespace

std::unique_ptr<Subtractor> make_subtractor(Backend backend, Status* status) {
  *status = Status::Ok();
  if (backend == Backend::kCpu)
    return std::make_unique<CpuSubtractor>();
  if (backend == Backend::kCuda) {
#if defined(CVIS_HAVE_CUDA)
    return make_cuda_subtractor(status);
#else
    *status = Status(StatusCode::kNoDevice, "this build has no CUDA support");
    return nullptr;
#endif
  }
  *status = invalid_argument("bgsub: resolve Backend::kAuto before make_subtractor");
  return nullptr;
}

} // namespace cvis::bgsub
