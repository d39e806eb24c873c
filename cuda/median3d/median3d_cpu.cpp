// CPU backend: the three methods with plain loops, structured like the CUDA kernels (same running
// state, same decomposition of the integral histogram's scans) so that the cpu test suite checks
// each method's algebra against the brute-force definition where no GPU is available.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "median3d.hpp"
#include "median3d_internal.hpp"
#include "median3d_math.hpp"

namespace cvis::median3d {

namespace {

class CpuEstimator final : public Estimator {
public:
  Backend backend() const override { return Backend::kCpu; }

  Status configure(const Params& params, int width, int height, PixelFormat format) override {
    CVIS_RETURN_IF_ERROR(validate(params));
    CVIS_RETURN_IF_ERROR(validate_geometry(width, height, format));
    p_ = params;
    w_ = width;
    h_ = height;
    format_ = format;
    nc_ = channel_count(params);
    px_ = static_cast<size_t>(w_) * h_;
    cap_ = p_.temporal + 1; // one spare slot: the head is stored before the tail leaves
    ring_.assign(static_cast<size_t>(cap_) * nc_ * px_, 0);
    med_.assign(nc_ * px_, 0);
    hist_.clear();
    spatial_.clear();
    jih_.clear();
    if (p_.method == Method::kIntegralHistogram) {
      jih_.assign(static_cast<size_t>(nc_) * p_.bins * px_, 0);
    } else {
      hist_.assign(static_cast<size_t>(nc_) * px_ * p_.bins, 0);
      if (p_.method == Method::kSeparable)
        spatial_.assign(ring_.size(), 0);
    }
    configured_ = true;
    reset();
    return Status::Ok();
  }

  void reset() override {
    oldest_ = 0;
    count_ = 0;
    std::fill(hist_.begin(), hist_.end(), 0);
    std::fill(jih_.begin(), jih_.end(), 0);
    result_ = FrameResult();
  }

  int frames() const override { return count_; }

  Status push(const ImageView& frame, bool drop_oldest, StreamHandle) override {
    if (!configured_)
      return internal_error("push before configure");
    CVIS_RETURN_IF_ERROR(check_frame(frame, w_, h_, format_, "frame"));
    if (frame.space != MemorySpace::kHost)
      return unsupported_format("CPU backend: host frames only");
    if (drop_oldest && count_ == 0)
      return invalid_argument("push: nothing to drop");
    if (!drop_oldest && count_ >= p_.temporal)
      return invalid_argument("push: the window is full");
    const int head = (oldest_ + count_) % cap_;
    const PixelSource src = make_pixel_source(frame);
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        uint8_t v[3];
        fetch_channels(src, x, y, p_.channels == Channels::kLuma, v);
        for (int c = 0; c < nc_; ++c)
          plane(ring_, head, c)[static_cast<size_t>(y) * w_ + x] = v[c];
      }
    }
    if (p_.method == Method::kSeparable)
      spatial_median(head);
    update(head, drop_oldest ? oldest_ : -1);
    if (drop_oldest) {
      oldest_ = (oldest_ + 1) % cap_;
    } else {
      ++count_;
    }
    return Status::Ok();
  }

  Status pop(StreamHandle) override {
    if (count_ == 0)
      return invalid_argument("pop: the window is empty");
    update(-1, oldest_);
    oldest_ = (oldest_ + 1) % cap_;
    --count_;
    return Status::Ok();
  }

  Status compute(int index, const Request& rq, StreamHandle) override {
    CVIS_RETURN_IF_ERROR(check_request(index, count_, rq, w_, h_, true));
    if (p_.method == Method::kIntegralHistogram) {
      medians_from_integral();
    } else {
      medians_from_histograms(p_.method == Method::kSeparable ? 0 : p_.spatial_w / 2,
                              p_.method == Method::kSeparable ? 0 : p_.spatial_h / 2);
    }
    finish((oldest_ + index) % cap_, rq);
    return Status::Ok();
  }

  Status result(FrameResult* out) override {
    *out = result_;
    return Status::Ok();
  }

  MemoryUse memory() const override {
    MemoryUse m;
    m.host_bytes = ring_.size() + med_.size() + hist_.size() + spatial_.size() + jih_.size() * 4 +
                   mask_.size();
    return m;
  }

private:
  uint8_t* plane(std::vector<uint8_t>& v, int slot, int c) {
    return v.data() + (static_cast<size_t>(slot) * nc_ + c) * px_;
  }

  // Separable method, step 1 (eq. 3, inner median): the 2-D median bin of every pixel of the
  // frame in `slot`, by binary search over bins (as the CUDA kernel does).
  void spatial_median(int slot) {
    const int rx = p_.spatial_w / 2, ry = p_.spatial_h / 2;
    for (int c = 0; c < nc_; ++c) {
      const uint8_t* src = plane(ring_, slot, c);
      uint8_t* dst = plane(spatial_, slot, c);
      for (int y = 0; y < h_; ++y) {
        for (int x = 0; x < w_; ++x) {
          const Box b = clip_box(x, y, rx, ry, w_, h_);
          const uint32_t n = box_area(b);
          int lo = 0, hi = p_.bins - 1;
          while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            uint32_t le = 0;
            for (int yy = b.y0; yy <= b.y1; ++yy) {
              for (int xx = b.x0; xx <= b.x1; ++xx) {
                le += quantize(src[static_cast<size_t>(yy) * w_ + xx], p_.bins) <= mid;
              }
            }
            if (2 * le > n) {
              hi = mid;
            } else {
              lo = mid + 1;
            }
          }
          dst[static_cast<size_t>(y) * w_ + x] = static_cast<uint8_t>(lo);
        }
      }
    }
  }

  // Bin of a stored value: the ring holds values, the separable method's ring holds bins.
  int stored_bin(int slot, int c, size_t i) {
    if (p_.method == Method::kSeparable)
      return plane(spatial_, slot, c)[i];
    return quantize(plane(ring_, slot, c)[i], p_.bins);
  }

  // Adds the frame in `head` and removes the one in `tail` (-1: none) from the running state.
  void update(int head, int tail) {
    if (p_.method == Method::kIntegralHistogram) {
      update_integral(head, tail);
      return;
    }
    for (int c = 0; c < nc_; ++c) {
      for (size_t i = 0; i < px_; ++i) {
        uint8_t* h = hist_.data() + (c * px_ + i) * p_.bins;
        if (head >= 0)
          ++h[stored_bin(head, c, i)];
        if (tail >= 0)
          --h[stored_bin(tail, c, i)];
      }
    }
  }

  // JIH += integral histogram of (head - tail) (Algorithm 4, lines 12-15, by linearity): a row
  // prefix sum R of the signed indicator per bin, then a column prefix sum of R split into
  // kScanSegment-row segments: segment totals, their exclusive prefix (the carries), then the
  // scan within each segment (the CUDA kernels' split).
  void update_integral(int head, int tail) {
    std::vector<int16_t> r(px_);
    std::vector<int16_t> qh(px_, -1), qt(px_, -1);
    const int segs = (h_ + kScanSegment - 1) / kScanSegment;
    std::vector<int32_t> seg_total(static_cast<size_t>(segs) * w_);
    for (int c = 0; c < nc_; ++c) {
      for (size_t i = 0; i < px_; ++i) {
        if (head >= 0)
          qh[i] = static_cast<int16_t>(stored_bin(head, c, i));
        if (tail >= 0)
          qt[i] = static_cast<int16_t>(stored_bin(tail, c, i));
      }
      for (int b = 0; b < p_.bins; ++b) {
        for (int y = 0; y < h_; ++y) {
          int acc = 0;
          for (int x = 0; x < w_; ++x) {
            const size_t i = static_cast<size_t>(y) * w_ + x;
            acc += (qh[i] == b) - (qt[i] == b);
            r[i] = static_cast<int16_t>(acc);
          }
        }
        for (int s = 0; s < segs; ++s) {
          for (int x = 0; x < w_; ++x) {
            int32_t t = 0;
            for (int y = s * kScanSegment; y < std::min(h_, (s + 1) * kScanSegment); ++y) {
              t += r[static_cast<size_t>(y) * w_ + x];
            }
            seg_total[static_cast<size_t>(s) * w_ + x] = t;
          }
        }
        uint32_t* j = jih_.data() + (static_cast<size_t>(c) * p_.bins + b) * px_;
        for (int x = 0; x < w_; ++x) { // exclusive prefix down the segments (the carries)
          int32_t acc = 0;
          for (int s = 0; s < segs; ++s) {
            const int32_t v = seg_total[static_cast<size_t>(s) * w_ + x];
            seg_total[static_cast<size_t>(s) * w_ + x] = acc;
            acc += v;
          }
        }
        for (int s = 0; s < segs; ++s) {
          for (int x = 0; x < w_; ++x) {
            int32_t acc = seg_total[static_cast<size_t>(s) * w_ + x];
            for (int y = s * kScanSegment; y < std::min(h_, (s + 1) * kScanSegment); ++y) {
              acc += r[static_cast<size_t>(y) * w_ + x];
              j[static_cast<size_t>(y) * w_ + x] += static_cast<uint32_t>(acc); // mod 2^32
            }
          }
        }
      }
    }
  }

  // Eq. (5) per bin from four corners of the joint integral histogram, then Algorithm 1.
  void medians_from_integral() {
    const int rx = p_.spatial_w / 2, ry = p_.spatial_h / 2;
    for (int c = 0; c < nc_; ++c) {
      const uint32_t* j = jih_.data() + static_cast<size_t>(c) * p_.bins * px_;
      for (int y = 0; y < h_; ++y) {
        for (int x = 0; x < w_; ++x) {
          const Box b = clip_box(x, y, rx, ry, w_, h_);
          auto at = [&](int k, int yy, int xx) -> uint32_t {
            return (yy < 0 || xx < 0) ? 0u : j[k * px_ + static_cast<size_t>(yy) * w_ + xx];
          };
          auto count = [&](int k) {
            return at(k, b.y1, b.x1) - at(k, b.y0 - 1, b.x1) - at(k, b.y1, b.x0 - 1) +
                   at(k, b.y0 - 1, b.x0 - 1);
          };
          med_[c * px_ + static_cast<size_t>(y) * w_ + x] = static_cast<uint8_t>(
              median_bin(count, p_.bins, box_area(b) * static_cast<uint32_t>(count_)));
        }
      }
    }
  }

  // Box sums of the per-pixel histograms: vertical sums slid down the rows, then horizontal sums
  // slid along each row (O(bins) per pixel whatever the box), then Algorithm 1.
  void medians_from_histograms(int rx, int ry) {
    const int nb = p_.bins;
    std::vector<uint32_t> v(static_cast<size_t>(w_) * nb), box(nb);
    for (int c = 0; c < nc_; ++c) {
      const uint8_t* hist = hist_.data() + c * px_ * nb;
      auto row = [&](int y, int sign) {
        if (y < 0 || y >= h_)
          return;
        const uint8_t* hr = hist + static_cast<size_t>(y) * w_ * nb;
        for (size_t i = 0; i < static_cast<size_t>(w_) * nb; ++i)
          v[i] += sign * hr[i];
      };
      std::fill(v.begin(), v.end(), 0);
      for (int y = -ry; y <= ry; ++y)
        row(y, 1);
      for (int y = 0; y < h_; ++y) {
        if (y > 0) {
          row(y + ry, 1);
          row(y - ry - 1, -1);
        }
        auto col = [&](int x, int sign) {
          if (x < 0 || x >= w_)
            return;
          for (int k = 0; k < nb; ++k)
            box[k] += sign * v[static_cast<size_t>(x) * nb + k];
        };
        std::fill(box.begin(), box.end(), 0);
        for (int x = -rx; x <= rx; ++x)
          col(x, 1);
        for (int x = 0; x < w_; ++x) {
          if (x > 0) {
            col(x + rx, 1);
            col(x - rx - 1, -1);
          }
          const Box b = clip_box(x, y, rx, ry, w_, h_);
          med_[c * px_ + static_cast<size_t>(y) * w_ + x] = static_cast<uint8_t>(median_bin(
              [&](int k) { return box[k]; }, nb, box_area(b) * static_cast<uint32_t>(count_)));
        }
      }
    }
  }

  // Background, differences |I - median|, Otsu or the fixed threshold, and the mask.
  void finish(int center, const Request& rq) {
    const bool luma = p_.channels == Channels::kLuma;
    const bool want_mask = rq.mask || rq.mask_copy || rq.blobs.enabled;
    PixelDest dst{};
    if (rq.background)
      dst = make_pixel_dest(*rq.background);
    diff_.resize(px_);
    uint32_t hist[256] = {0};
    for (int y = 0; y < h_; ++y) {
      for (int x = 0; x < w_; ++x) {
        const size_t i = static_cast<size_t>(y) * w_ + x;
        uint8_t m[3] = {0, 0, 0};
        int d = 0;
        for (int c = 0; c < nc_; ++c) {
          m[c] = static_cast<uint8_t>(bin_value(med_[c * px_ + i], p_.bins));
          d = std::max(d, std::abs(static_cast<int>(plane(ring_, center, c)[i]) - m[c]));
        }
        if (rq.background)
          store_background(dst, x, y, luma, m);
        diff_[i] = static_cast<uint8_t>(d);
        ++hist[d];
      }
    }
    result_ = FrameResult();
    result_.pixels = px_;
    if (!want_mask)
      return;
    const int tau = rq.threshold >= 0 ? rq.threshold : otsu_threshold(hist);
    result_.threshold = tau;
    for (int v = tau + 1; v < 256; ++v)
      result_.foreground += hist[v];
    for (const ImageView* mv : {rq.mask, rq.mask_copy}) {
      if (!mv)
        continue;
      for (int y = 0; y < h_; ++y) {
        uint8_t* row = mv->data[0] + static_cast<size_t>(y) * mv->pitch[0];
        for (int x = 0; x < w_; ++x)
          row[x] = diff_[static_cast<size_t>(y) * w_ + x] > tau ? 255 : 0;
      }
    }
    if (rq.blobs.enabled) { // the mask's blobs, as the CUDA backend's (cuda/ccl)
      mask_.resize(px_);
      for (size_t i = 0; i < px_; ++i)
        mask_[i] = diff_[i] > tau ? 255 : 0;
      std::vector<Blob> found;
      ccl::connected_blobs(mask_.data(), w_, w_, h_, ccl_min_area(rq.blobs.min_area), &found,
                           nullptr);
      select_blobs(std::move(found), rq.blobs.max_blobs, &result_.blobs);
      result_.has_blobs = true;
    }
  }

  Params p_;
  int w_ = 0, h_ = 0, nc_ = 1, cap_ = 1;
  PixelFormat format_ = PixelFormat::kGRAY8;
  size_t px_ = 0;
  bool configured_ = false;
  int oldest_ = 0, count_ = 0;
  std::vector<uint8_t> ring_;    // [slot][channel][pixel] values
  std::vector<uint8_t> spatial_; // separable: [slot][channel][pixel] spatial median bins
  std::vector<uint8_t> hist_;    // sliding / separable: [channel][pixel][bin] window counts
  std::vector<uint32_t> jih_;    // integral histogram: [channel][bin][pixel]
  std::vector<uint8_t> med_;     // [channel][pixel] median bins
  std::vector<uint8_t> diff_;
  std::vector<uint8_t> mask_; // blob requests: the mask
  FrameResult result_;
};

} // namespace

std::unique_ptr<Estimator> make_cpu_estimator() {
  return std::make_unique<CpuEstimator>();
}

} // namespace cvis::median3d
