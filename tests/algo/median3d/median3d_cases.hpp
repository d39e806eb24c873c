// Seeded frame sequences and the check of an Estimator against the brute-force definitions, shared
// by the cpu and gpu test programs (and usable by the benchmark for its sanity check).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "median3d.hpp"
#include "median3d_math.hpp"
#include "test_images.hpp"

namespace cvis::median3d::test {

using cvis::test::HostImage;

inline uint32_t mix(uint32_t a, uint32_t b) {
  uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u + (a << 6) + (a >> 2));
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

enum class Content { kScene, kNoise, kFewLevels };

// Byte `i` of the sample at (x, y) of frame t. kScene: a smooth static background, +-6 noise and
// two moving rectangles (the median must recover the background); kNoise: uniform bytes (every
// bin, many ties at low bin counts); kFewLevels: 3 levels only (long runs of equal values, so
// medians sit exactly on the half-count boundary).
inline uint8_t sample(Content k, uint32_t seed, int x, int y, int t, int i) {
  const uint32_t r = mix(mix(mix(mix(seed, x), y), t), i);
  switch (k) {
  case Content::kNoise:
    return static_cast<uint8_t>(r >> 24);
  case Content::kFewLevels:
    return static_cast<uint8_t>(40 + 80 * ((r >> 20) % 3));
  case Content::kScene:
    break;
  }
  const int ox = (t * 3) % 40 - 8, oy = (t * 2) % 30 - 6;
  if (x >= ox && x < ox + 6 && y >= oy && y < oy + 5)
    return static_cast<uint8_t>(230 - 20 * i);
  if (x >= 30 - ox && x < 34 - ox && y >= oy / 2 && y < oy / 2 + 8)
    return 10;
  const int base = (x * 9 + y * 5 + i * 70 + static_cast<int>(seed % 50)) % 200 + 20;
  return static_cast<uint8_t>(std::clamp(base + static_cast<int>(r % 13) - 6, 0, 255));
}

// One frame: every byte of every plane (alpha, padding bytes of RGBx, chroma) from sample().
inline HostImage make_frame(PixelFormat f, int w, int h, size_t pad, Content k, uint32_t seed,
                            int t) {
  HostImage img(f, w, h, pad);
  for (int p = 0; p < plane_count(f); ++p) {
    const size_t row = plane_row_bytes(f, p, w);
    for (int y = 0; y < plane_rows(f, p, h); ++y) {
      for (size_t b = 0; b < row; ++b) {
        img.plane(p)[static_cast<size_t>(y) * img.pitch(p) + b] =
            sample(k, seed + 977u * p, static_cast<int>(b), y, t, p);
      }
    }
  }
  return img;
}

struct Case {
  Params p;
  Timing timing = Timing::kCentered;
  PixelFormat format = PixelFormat::kGRAY8;
  int width = 17, height = 13;
  size_t pad = 0;
  int frames = 8;
  Content content = Content::kScene;
  uint32_t seed = 1;
  int threshold = -1;

  std::string name() const {
    return std::string(method_name(p.method)) + " " + pixel_format_name(format) + " " +
           std::to_string(width) + "x" + std::to_string(height) + "+" + std::to_string(pad) +
           " win " + std::to_string(p.spatial_w) + "x" + std::to_string(p.spatial_h) + "x" +
           std::to_string(p.temporal) + " bins " + std::to_string(p.bins) +
           (p.channels == Channels::kLuma ? " luma" : " rgb") +
           (timing == Timing::kCentered ? " centered" : " causal") + " frames " +
           std::to_string(frames) + " seed " + std::to_string(seed) + " thr " +
           std::to_string(threshold);
  }
};

// How the estimator under test sees frames and writes outputs: the CPU backend uses the host
// images directly; the GPU test supplies device copies (and downloads the outputs).
struct Io {
  // Returns the view to push for host frame `f` (kept alive by the implementation).
  std::function<ImageView(const HostImage& f)> frame;
  // Computes frame `index` into host images `bg` (GRAY8 or RGBA) and `mask` (GRAY8).
  std::function<Status(Estimator& e, int index, int threshold, HostImage* bg, HostImage* mask)>
      compute;
  // The stream of every push, pop and compute (the estimator's contract: one stream for all).
  StreamHandle stream = nullptr;
};

// The blob request of every compute() of the Io's below (a function of the window index, so that
// run_and_check can rebuild it): min_area 1..3, every other one at most 4 blobs (the largest).
inline BlobRequest blob_request(int index) {
  BlobRequest b;
  b.enabled = true;
  b.min_area = static_cast<uint32_t>(1 + index % 3);
  b.max_blobs = index % 2 ? 4 : static_cast<size_t>(-1);
  return b;
}

inline Io host_io() {
  Io io;
  io.frame = [](const HostImage& f) { return f.view(); };
  io.compute = [](Estimator& e, int index, int threshold, HostImage* bg, HostImage* mask) {
    const ImageView b = bg->view(), m = mask->view();
    Request rq;
    rq.background = &b;
    rq.mask = &m;
    rq.threshold = threshold;
    rq.blobs = blob_request(index);
    return e.compute(index, rq, nullptr);
  };
  return io;
}

// Runs the whole sequence through `e` with a WindowTracker (arrivals, then the end-of-stream
// drain) and checks every output against the definition over the frames the timing names:
// background values bit-exact, mask and threshold exact (Otsu on the reference differences), blobs
// (blob_request) equal to find_blobs() of the reference mask.
// `separable`: the reference is eq. (3) instead of eq. (2). Returns the number of outputs.
inline int run_and_check(Estimator& e, const Case& c, const Io& io) {
  const bool sep = c.p.method == Method::kSeparable;
  const bool luma = c.p.channels == Channels::kLuma;
  const int nc = luma ? 1 : 3;
  const size_t px = static_cast<size_t>(c.width) * c.height;
  std::vector<HostImage> seq;
  for (int t = 0; t < c.frames; ++t) {
    seq.push_back(make_frame(c.format, c.width, c.height, c.pad, c.content, c.seed, t));
  }
  Status st = e.configure(c.p, c.width, c.height, c.format);
  EXPECT_TRUE(st.ok()) << st.to_string() << " | " << c.name();
  if (!st.ok())
    return 0;

  WindowTracker tr(c.p.temporal, c.timing);
  const int after = tr.lag(), before = c.p.temporal - 1 - after;
  int outputs = 0, arrived = 0;
  auto check_output = [&](int index) {
    const int j = outputs; // frame number of this output
    const int first = std::max(0, j - before), last = std::min(c.frames - 1, j + after);
    EXPECT_EQ(index, j - first) << c.name() << " output " << j;
    EXPECT_EQ(e.frames(), last - first + 1) << c.name() << " output " << j;
    HostImage bg(luma ? PixelFormat::kGRAY8 : PixelFormat::kRGBA, c.width, c.height, 3);
    HostImage mask(PixelFormat::kGRAY8, c.width, c.height, 5);
    Status s = io.compute(e, index, c.threshold, &bg, &mask);
    ASSERT_TRUE(s.ok()) << s.to_string() << " | " << c.name();
    FrameResult fr;
    ASSERT_TRUE(e.result(&fr).ok());

    std::vector<ImageView> window;
    for (int t = first; t <= last; ++t)
      window.push_back(seq[t].view());
    std::vector<uint8_t> ref;
    s = sep ? separable_reference(window, c.p, &ref) : median3d_reference(window, c.p, &ref);
    ASSERT_TRUE(s.ok()) << s.to_string();

    const PixelSource center = make_pixel_source(seq[j].view());
    std::vector<uint8_t> diff(px);
    uint32_t hist[256] = {0};
    int bad = 0;
    for (int y = 0; y < c.height; ++y) {
      for (int x = 0; x < c.width; ++x) {
        const size_t i = static_cast<size_t>(y) * c.width + x;
        const uint8_t* b = bg.view().data[0] + y * bg.pitch(0) + x * (luma ? 1 : 4);
        uint8_t v[3];
        fetch_channels(center, x, y, luma, v);
        int d = 0;
        for (int ch = 0; ch < nc; ++ch) {
          const int want = bin_value(ref[ch * px + i], c.p.bins);
          if (b[ch] != want && ++bad <= 5) {
            ADD_FAILURE() << c.name() << " output " << j << " pixel " << x << "," << y
                          << " channel " << ch << ": got " << int(b[ch]) << " want " << want;
          }
          d = std::max(d, std::abs(v[ch] - want));
        }
        diff[i] = static_cast<uint8_t>(d);
        ++hist[d];
      }
    }
    // Exact: bins and thresholds are integers; Otsu's double arithmetic is the shared function.
    const int tau = c.threshold >= 0 ? c.threshold : otsu_threshold(hist);
    EXPECT_EQ(fr.threshold, tau) << c.name() << " output " << j;
    uint64_t fg = 0;
    HostImage want_mask(PixelFormat::kGRAY8, c.width, c.height, 1);
    for (size_t i = 0; i < px; ++i) {
      const int y = static_cast<int>(i / c.width), x = static_cast<int>(i % c.width);
      const uint8_t want = diff[i] > tau ? 255 : 0;
      want_mask.plane(0)[y * want_mask.pitch(0) + x] = want;
      fg += want != 0;
      const uint8_t got = mask.view().data[0][y * mask.pitch(0) + x];
      if (got != want && ++bad <= 5) {
        ADD_FAILURE() << c.name() << " output " << j << " mask " << x << "," << y << ": got "
                      << int(got) << " want " << int(want);
      }
    }
    EXPECT_EQ(fr.foreground, fg) << c.name() << " output " << j;
    EXPECT_EQ(fr.pixels, px);
    const BlobRequest br = blob_request(index);
    std::vector<Blob> ref_blobs;
    ASSERT_TRUE(find_blobs(want_mask.view(), br.min_area, br.max_blobs, &ref_blobs).ok());
    EXPECT_TRUE(fr.has_blobs) << c.name() << " output " << j;
    EXPECT_EQ(fr.blobs.size(), ref_blobs.size()) << c.name() << " output " << j;
    EXPECT_TRUE(fr.blobs == ref_blobs) << c.name() << " output " << j << ": blobs differ";
    EXPECT_EQ(bad, 0) << c.name() << " output " << j << ": " << bad << " wrong values";
  };

  auto drain_outputs = [&](bool draining) {
    int pops = 0, index = 0;
    while (tr.next_output(draining, &pops, &index)) {
      for (int k = 0; k < pops; ++k) {
        Status s = e.pop(io.stream);
        EXPECT_TRUE(s.ok()) << s.to_string();
      }
      check_output(index);
      ++outputs;
    }
  };
  for (const HostImage& f : seq) {
    const bool drop = tr.arrive();
    Status s = e.push(io.frame(f), drop, io.stream);
    EXPECT_TRUE(s.ok()) << s.to_string() << " | " << c.name() << " frame " << arrived;
    ++arrived;
    drain_outputs(false);
    EXPECT_EQ(outputs, std::max(0, arrived - after)) << c.name();
  }
  drain_outputs(true);
  EXPECT_EQ(outputs, c.frames) << c.name();
  return outputs;
}

// The window-shape sweep of the exactness tests: bins x spatial x temporal on small odd frames
// with padded pitch, alternating centered/causal timing and content.
inline std::vector<Case> sweep_cases(Method m) {
  std::vector<Case> out;
  const int spatial[][2] = {{1, 1}, {3, 3}, {5, 3}, {3, 7}, {9, 9}};
  int n = 0;
  for (int bins : {8, 16, 64, 256}) {
    for (const auto& s : spatial) {
      for (int temporal : {1, 2, 4, 9, 33}) {
        Case c;
        c.p.method = m;
        c.p.bins = bins;
        c.p.spatial_w = s[0];
        c.p.spatial_h = s[1];
        c.p.temporal = temporal;
        c.timing = n % 2 ? Timing::kCausal : Timing::kCentered;
        c.content =
            n % 3 == 0 ? Content::kNoise : (n % 3 == 1 ? Content::kScene : Content::kFewLevels);
        c.width = 13 + (n % 3) * 2;
        c.height = 9 + (n % 2) * 2;
        c.pad = n % 4 == 3 ? 0 : 3 + n % 5;
        c.frames = temporal + 3 + n % 4;
        c.seed = 100 + n;
        out.push_back(c);
        ++n;
      }
    }
  }
  return out;
}

// Formats, channels, sizes (odd, 1-pixel-wide/high, larger than one GPU tile) and thresholds.
inline std::vector<Case> format_cases(Method m) {
  std::vector<Case> out;
  const PixelFormat formats[] = {PixelFormat::kGRAY8, PixelFormat::kRGBA, PixelFormat::kBGRx,
                                 PixelFormat::kRGB,   PixelFormat::kxBGR, PixelFormat::kNV12,
                                 PixelFormat::kI420};
  const int sizes[][2] = {{23, 15}, {1, 9}, {9, 1}, {2, 2}, {70, 37}};
  int n = 0;
  for (PixelFormat f : formats) {
    for (Channels ch : {Channels::kLuma, Channels::kRgb}) {
      Case c;
      c.p.method = m;
      c.p.channels = ch;
      c.p.spatial_w = 5;
      c.p.spatial_h = 3;
      c.p.temporal = 7;
      c.p.bins = n % 2 ? 64 : 256;
      c.format = f;
      c.width = sizes[n % 5][0];
      c.height = sizes[n % 5][1];
      c.pad = n % 3 == 0 ? 0 : 1 + 2 * (n % 3);
      c.frames = 10;
      c.timing = n % 3 == 2 ? Timing::kCausal : Timing::kCentered;
      c.threshold = n % 4 == 1 ? 20 : -1;
      c.seed = 500 + n;
      out.push_back(c);
      ++n;
    }
  }
  return out;
}

} // namespace cvis::median3d::test
