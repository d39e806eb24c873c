// CPU reference of the motion detector (motion.hpp): plain loops over the pixels, in the order the
// CUDA kernels will run the passes (gain, test, clean-up, adoption, update), so that both backends
// give the same masks bit for bit (everything is integer but the gain, whose float value is
// computed by the same function on both sides).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/mask_area.hpp"
#include "common/segmentation.hpp"
#include "median3d_internal.hpp"
#include "median3d_math.hpp"
#include "motion.hpp"
#include "motion_math.hpp"

namespace cvis::median3d {

namespace {

class CpuMotionDetector final : public MotionDetectorBase {
public:
  Backend backend() const override { return Backend::kCpu; }

  Status process(const ImageView& frame, const ImageView* mask, const ImageView* background,
                 MotionResult* result, StreamHandle) override {
    CVIS_RETURN_IF_ERROR(validate_view(frame, "frame"));
    if (frame.space != MemorySpace::kHost || (mask && mask->space != MemorySpace::kHost) ||
        (background && background->space != MemorySpace::kHost)) {
      return unsupported_format("motion: the CPU backend needs host views");
    }
    if (mask)
      CVIS_RETURN_IF_ERROR(check_output(*mask, frame.width, frame.height, true, "mask"));
    if (background)
      CVIS_RETURN_IF_ERROR(
          check_output(*background, frame.width, frame.height, false, "background"));
    if (frame.width != w_ || frame.height != h_)
      allocate(frame.width, frame.height);
    black_ = is_yuv(frame.format) && !frame.yuv.full_range ? 16 : 0;
    const int K = p_.history;
    const PixelSource src = make_pixel_source(frame);
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        uint8_t v[3];
        fetch_yuv(src, x, y, nc_ == 1, v);
        for (int c = 0; c < nc_; ++c)
          in_[c * npix_ + idx(x, y)] = v[c];
      }
    }
    *result = MotionResult();
    result->frame = ++frame_;
    result->pixels = static_cast<int64_t>(npix_);
    if (restart_pending_) { // a shot change confirmed at the previous frame
      restart_pending_ = false;
      restart_from(in_);
      result->shot_change = true;
      std::fill(mask_.begin(), mask_.end(), 0);
      std::fill(mask_prev_.begin(), mask_prev_.end(), 0);
      std::fill(mask_prev2_.begin(), mask_prev2_.end(), 0);
      std::fill(out_.begin(), out_.end(), 0);
      write_outputs(mask, background, 65536u, false);
      return Status::Ok();
    }
    if (frame_ <= K) { // initial fill: sample k = frame k, blindly
      for (int c = 0; c < nc_; ++c)
        std::copy(in_.begin() + c * npix_, in_.begin() + (c + 1) * npix_,
                  samples_.begin() + (static_cast<size_t>(c) * K + frame_ - 1) * npix_);
      if (frame_ == K) {
        std::fill(head_.begin(), head_.end(), 0);
        for (size_t i = 0; i < npix_; ++i)
          refresh(i);
      }
      std::copy(in_.begin(), in_.begin() + npix_, prev_.begin());
      std::fill(mask_.begin(), mask_.end(), 0);
      std::fill(mask_prev_.begin(), mask_prev_.end(), 0);
      std::fill(mask_prev2_.begin(), mask_prev2_.end(), 0);
      std::fill(out_.begin(), out_.end(), 0);
      result->warming_up = true;
      write_outputs(mask, background, 65536u, true);
      return Status::Ok();
    }

    int off[2] = {0, 0};
    const float g = p_.illumination ? estimate_gain(off) : 1.0f;
    const uint32_t g16 = seg::gain_applies(g)
                             ? static_cast<uint32_t>(std::lround(static_cast<double>(g) * 65536.0))
                             : 65536u;
    result->gain = g16 == 65536u ? 1.0f : g;
    result->chroma_offset[0] = off[0];
    result->chroma_offset[1] = off[1];
    for (size_t i = 0; i < npix_; ++i) {
      cur_[i] = static_cast<uint8_t>(compensate(in_[i], black_, 0, g16));
      for (int c = 1; c < nc_; ++c)
        cur_[c * npix_ + i] =
            static_cast<uint8_t>(compensate(in_[c * npix_ + i], 128, off[c - 1], g16));
    }

    // Tests, shadows and the adoption candidates.
    int64_t raw_count = 0, diff_count = 0, wide_count = 0, changed_count = 0;
    const int adopt_frames = adopt_frames_now();
    // Below a gain of 1 the sensor noise is amplified by 1/g in compensated levels: so are the
    // thresholds (the dimmer the scene, the wider each pixel's tolerance).
    const uint32_t tau_scale16 =
        g16 < 65536u ? static_cast<uint32_t>((65536ull * 65536ull + g16 / 2) / g16) : 65536u;
    auto model = [&](int x, int y) { return model_at(idx(x, y), tau_scale16); };
    const int tight_chroma = scale_tau(p_.tau_min_chroma, tau_scale16);
    const int tight[3] = {scale_tau(p_.tau_min, tau_scale16), tight_chroma, tight_chroma};
    const int lo16 = static_cast<int>(std::lround(p_.shadow_low * 16.0f));
    const int hi16 = static_cast<int>(std::lround(p_.shadow_high * 16.0f));
    auto values = [&](size_t i, int v[3]) {
      for (int c = 0; c < 3; ++c)
        v[c] = c < nc_ ? cur_[c * npix_ + i] : 0;
    };
    for (size_t i = 0; i < npix_; ++i) { // own tests first: the neighbour test reads them
      int v[3], margin;
      values(i, v);
      own_[i] = matches(v, model_at(i, tau_scale16), nc_, &margin);
    }
    auto shows_bg = [&](int x, int y) { return own_[idx(x, y)] != 0; };
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = idx(x, y);
        int v[3];
        values(i, v);
        const MotionTest t = motion_test(v, nc_, x, y, w_, h_, p_.radius, model, shows_bg);
        raw_[i] = (!t.own && t.neighbour < 0) ? 255 : 0;
        // Shifted pixels are marked as shadows are (2: no sample, no gain vote, no live value).
        shadow_[i] = 0;
        if (raw_[i] && p_.shift_test && nc_ == 3 &&
            shift_explained(v, model(x, y), nc_, x, y, w_, h_, kShiftRadius, model, shows_bg)) {
          raw_[i] = 0;
          shadow_[i] = 2;
          ++result->shifted;
        }
        if (raw_[i] && nc_ == 3 && p_.shadows &&
            seg::shadow_yuv(v[0], v[1], v[2], bg_[i], bg_[npix_ + i], bg_[2 * npix_ + i], black_,
                            lo16, hi16, p_.shadow_chroma)) {
          shadow_[i] = 1;
        }
        const int d = cur_[i] > prev_[i] ? cur_[i] - prev_[i] : prev_[i] - cur_[i];
        diff_count += d > tau_[i];
        changed_count += d > scale_tau(tau_[i], tau_scale16);
        wide_count += tau_[i] > wide_tau();
        if (!t.own && t.neighbour >= 0) {
          cnt_[i] = static_cast<uint8_t>(std::min(255, cnt_[i] + 1));
        } else {
          cnt_[i] = 0;
        }
        bool adopt = adopt_frames > 0 && cnt_[i] >= adopt_frames;
        if (adopt && p_.adopt_tight) {
          int qx, qy;
          neighbour_xy(x, y, p_.radius, t.neighbour, &qx, &qy);
          adopt = matches_tightly(v, model(qx, qy), nc_, tight);
        }
        adopt_[i] = static_cast<int8_t>(adopt ? t.neighbour : -1);
      }
    }
    for (size_t i = 0; i < npix_; ++i) {
      if (shadow_[i] == 1) { // (2: shifted, not a shadow)
        raw_[i] = 0;
        ++result->shadow;
      }
    }
    for (size_t i = 0; i < npix_; ++i)
      raw_count += raw_[i] != 0;

    // Clean-up.
    auto raw_at = [&](int x, int y) { return raw_[idx(x, y)]; };
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x)
        mask_[idx(x, y)] = p_.cleanup ? seg::majority3x3(raw_at, x, y, w_, h_) : raw_[idx(x, y)];
    seg::remove_small_components(mask_.data(), w_, h_, p_.min_mask_area);

    // Adoption (reads neighbours that do not adopt in this frame, so the order does not matter).
    std::fill(adopted_.begin(), adopted_.end(), 0);
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = idx(x, y);
        if (adopt_[i] < 0)
          continue;
        int qx, qy;
        neighbour_xy(x, y, p_.radius, adopt_[i], &qx, &qy);
        const size_t q = idx(qx, qy);
        if (adopt_[q] >= 0)
          continue;
        for (size_t k = 0; k < static_cast<size_t>(nc_) * K; ++k)
          samples_[k * npix_ + i] = samples_[k * npix_ + q];
        head_[i] = head_[q];
        for (int c = 0; c < nc_; ++c) {
          bg_[c * npix_ + i] = bg_[c * npix_ + q];
          tau_[c * npix_ + i] = tau_[c * npix_ + q];
        }
        cnt_[i] = 0;
        adopted_[i] = 1;
      }
    }

    // Sample updates: blind while refilling after a shot change, else background pixels (raw and
    // final masks, own test passed) every sample_period frames.
    // Pixels take turns (sample_phase): every frame costs the same on the GPU.
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = idx(x, y);
        const bool own_bg = raw_[i] == 0 && cnt_[i] == 0 && !adopted_[i] && !shadow_[i];
        const bool turn = sample_phase(x, y, frame_, p_.sample_period);
        if (fill_ > 0 || (turn && own_bg && mask_[i] == 0))
          insert(i);
      }
    }
    if (fill_ > 0)
      --fill_;

    // Absorption of long-stopped foreground (ages are counted only while it is on: without it,
    // no pass of the CUDA backend touches them).
    if (clear_ages_) {
      std::fill(age_.begin(), age_.end(), 0);
      clear_ages_ = false;
    }
    for (size_t i = 0; i < npix_ && p_.absorb_frames > 0; ++i) {
      age_[i] = mask_[i] ? static_cast<uint16_t>(std::min(65535, age_[i] + 1)) : 0;
      if (age_[i] >= p_.absorb_frames) {
        for (int c = 0; c < nc_; ++c)
          for (int k = 0; k < K; ++k)
            samples_[(static_cast<size_t>(c) * K + k) * npix_ + i] = cur_[c * npix_ + i];
        refresh(i);
        age_[i] = 0;
      }
    }
    std::copy(cur_.begin(), cur_.begin() + npix_, prev_.begin());
    note_scene(wide_count, changed_count, static_cast<int64_t>(npix_));
    // The output: the persistence filter's components of the mask the model used.
    // Glints: the compensated luma against the background (both luma first).
    const seg::AddedLight light{cur_.data(), bg_.data(), static_cast<size_t>(w_),
                                seg::kAddedLightLevels, seg::trim_radius_for(w_, h_)};
    seg::keep_persistent_components(mask_.data(), mask_prev_.data(), out_.data(), w_, h_,
                                    p_.persistence, mask_prev2_.data(), &light);
    mask_prev_.swap(mask_prev2_); // prev becomes the older; its old buffer takes the mask
    std::copy(mask_.begin(), mask_.end(), mask_prev_.begin());
    write_outputs(mask, background, g16, false);
    // The shot-change rule reads this frame's counts; a confirmed change restarts the model at the
    // next frame (the CUDA backend reads the counts after the frame's synchronisation).
    // The rule counts the pixels that no model explains, before the shift test: a new scene's
    // values are often blends of the old one's neighbouring backgrounds.
    if (p_.shot_change && rule_.update(static_cast<double>(raw_count + result->shifted) / npix_,
                                       static_cast<double>(diff_count) / npix_)) {
      restart_pending_ = true;
    }
    for (uint8_t m : out_)
      result->foreground += m != 0;
    if (p_.blobs) {
      ccl::connected_blobs(out_.data(), w_, w_, h_, p_.min_blob_area, &result->blobs, nullptr);
      ccl::keep_largest(&result->blobs, p_.max_blobs);
    }
    return Status::Ok();
  }

private:
  size_t idx(int x, int y) const { return static_cast<size_t>(y) * w_ + x; }

  void allocate(int w, int h) {
    w_ = w;
    h_ = h;
    npix_ = static_cast<size_t>(w) * h;
    nc_ = p_.color ? 3 : 1;
    samples_.assign(static_cast<size_t>(nc_) * p_.history * npix_, 0);
    for (auto* v :
         {&head_, &cnt_, &prev_, &raw_, &mask_, &mask_prev_, &mask_prev2_, &out_, &adopted_, &shadow_,
          &own_})
      v->assign(npix_, 0);
    for (auto* v : {&bg_, &tau_, &in_, &cur_})
      v->assign(static_cast<size_t>(nc_) * npix_, 0);
    adopt_.assign(npix_, -1);
    age_.assign(npix_, 0);
    restart_counters();
  }

  PixelModel model_at(size_t i, uint32_t tau_scale16) const {
    PixelModel m{};
    for (int c = 0; c < nc_; ++c) {
      m.b[c] = bg_[c * npix_ + i];
      m.tau[c] = scale_tau(tau_[c * npix_ + i], tau_scale16);
    }
    return m;
  }

  // Median and deviation of every channel's samples -> background and threshold.
  void refresh(size_t i) {
    const size_t K = static_cast<size_t>(p_.history);
    for (int c = 0; c < nc_; ++c) {
      const uint8_t* s = samples_.data() + c * K * npix_ + i;
      int b, d;
      median_mad([&](int k) { return static_cast<int>(s[k * npix_]); }, p_.history, &b, &d);
      bg_[c * npix_ + i] = static_cast<uint8_t>(b);
      tau_[c * npix_ + i] = static_cast<uint8_t>(
          tau_of(d, factor16(), c == 0 ? p_.tau_min : p_.tau_min_chroma, p_.tau_max));
    }
  }

  int factor16() const { return static_cast<int>(std::lround(p_.noise_factor * 16.0f)); }

  // The pixel's current (compensated) values replace its oldest samples.
  void insert(size_t i) {
    const size_t K = static_cast<size_t>(p_.history);
    for (int c = 0; c < nc_; ++c)
      samples_[(c * K + head_[i]) * npix_ + i] = cur_[c * npix_ + i];
    head_[i] = static_cast<uint8_t>((head_[i] + 1) % p_.history);
    refresh(i);
  }

  // The gain: median of (Y - black) / (B_Y - black) over the previous frame's background pixels
  // (every other row and column); color: then the chroma offsets, medians of
  // chroma_offset_vote() over the same pixels (|offset| <= 1 is ignored).
  float estimate_gain(int off[2]) {
    std::fill(gain_hist_.begin(), gain_hist_.end(), 0u);
    uint32_t n = 0;
    for (int y = 0; y < h_; y += 2) {
      for (int x = 0; x < w_; x += 2) {
        const size_t i = idx(x, y);
        if (mask_[i] || shadow_[i] || bg_[i] - black_ < seg::kGainMinLevel)
          continue;
        ++gain_hist_[seg::gain_bin(std::max(0, in_[i] - black_), bg_[i] - black_)];
        ++n;
      }
    }
    const float g = seg::gain_median([&](int k) { return gain_hist_[k]; }, n);
    if (nc_ == 1)
      return g;
    const uint32_t g16 = static_cast<uint32_t>(std::lround(static_cast<double>(g) * 65536.0));
    for (auto& h : off_hist_)
      std::fill(h.begin(), h.end(), 0u);
    uint32_t no = 0;
    for (int y = 0; y < h_; y += 2) {
      for (int x = 0; x < w_; x += 2) {
        const size_t i = idx(x, y);
        if (mask_[i] || shadow_[i])
          continue;
        for (int c = 1; c < nc_; ++c) {
          const int vote = chroma_offset_vote(in_[c * npix_ + i], bg_[c * npix_ + i], g16);
          ++off_hist_[c - 1][std::min(254, std::max(-255, vote)) + 255];
        }
        ++no;
      }
    }
    for (int c = 1; c < nc_; ++c) {
      const int o = seg::offset_median([&](int k) { return off_hist_[c - 1][k]; }, no);
      off[c - 1] = (o >= -1 && o <= 1) ? 0 : o;
    }
    return g;
  }

  // Every sample of every pixel becomes the frame's value; the next K - 1 frames refill blindly.
  void restart_from(const std::vector<uint8_t>& v) {
    for (int c = 0; c < nc_; ++c) {
      for (int k = 0; k < p_.history; ++k)
        std::copy(v.begin() + c * npix_, v.begin() + (c + 1) * npix_,
                  samples_.begin() + (static_cast<size_t>(c) * p_.history + k) * npix_);
      for (size_t i = 0; i < npix_; ++i) {
        bg_[c * npix_ + i] = v[c * npix_ + i];
        tau_[c * npix_ + i] = static_cast<uint8_t>(c == 0 ? p_.tau_min : p_.tau_min_chroma);
      }
    }
    std::fill(head_.begin(), head_.end(), 0);
    std::fill(shadow_.begin(), shadow_.end(), 0);
    std::fill(cnt_.begin(), cnt_.end(), 0);
    std::fill(age_.begin(), age_.end(), 0);
    std::copy(v.begin(), v.begin() + npix_, prev_.begin());
    fill_ = p_.history - 1;
    rule_.reset();
  }

  void write_outputs(const ImageView* mask, const ImageView* background, uint32_t g16, bool raw) {
    const PixelDest d = background ? make_pixel_dest(*background) : PixelDest{};
    for (int y = 0; y < h_; ++y) {
      if (mask)
        std::memcpy(mask->data[0] + y * mask->pitch[0], out_.data() + idx(0, y), w_);
      if (!background)
        continue;
      for (int x = 0; x < w_; ++x) {
        const size_t i = idx(x, y);
        // live_background: a background pixel of this frame shows the background itself (same
        // rule as the CUDA output kernel).
        const bool live = p_.live_background && !mask_[i] && !raw_[i] && !shadow_[i];
        const int b = uncompensate(bg_[i], black_, g16);
        const uint8_t v[3] = {
            static_cast<uint8_t>(raw ? in_[i]
                                     : (live ? live_background_value(in_[i], b, p_.tau_min) : b)),
            128, 128};
        store_background(d, x, y, true, v);
      }
    }
  }

  void drop_state() override { w_ = h_ = 0; }

  int w_ = 0, h_ = 0;
  size_t npix_ = 0;
  int nc_ = 3;
  int black_ = 16;               // luma black level of the input (compensation is relative to it)
  std::vector<uint8_t> samples_; // [channel][k][pixel]
  std::vector<uint8_t> bg_, tau_, in_, cur_; // [channel][pixel]
  std::vector<uint8_t> head_, cnt_, prev_, raw_, mask_, adopted_, shadow_, own_;
  // Params::persistence: the previous mask_, the one before it, the output.
  std::vector<uint8_t> mask_prev_, mask_prev2_, out_;
  std::vector<int8_t> adopt_;
  std::vector<uint16_t> age_;
  std::vector<uint32_t> gain_hist_ = std::vector<uint32_t>(seg::kGainBins);
  std::vector<uint32_t> off_hist_[2] = {std::vector<uint32_t>(seg::kOffsetBins),
                                        std::vector<uint32_t>(seg::kOffsetBins)};
};

} // namespace

std::unique_ptr<MotionDetector> make_cpu_motion_detector() {
  return std::make_unique<CpuMotionDetector>();
}

} // namespace cvis::median3d
