// GPU tests of the action front end: the CUDA backend returns exactly the CPU backend's frames
// (frame numbers, points in order, responses and the 162 or 234 descriptor values compared as bits;
// periodic and Harris detectors) on seeded clips of moving, blinking and oscillating shapes over texture, for parameter sets across
// the ranges, odd sizes with padded pitch, GRAY8 / NV12 / I420, host and device memory, a
// non-blocking stream, reset() and reconfiguration, short clips flushed by finish(), and a wrong
// frame size in the middle of a stream. Skips without a GPU (fails with CVIS_REQUIRE_GPU=1);
// CVIS_SANITIZER=1 takes small frames and short clips.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "stip.hpp"
#include "common/backend.hpp"
#include "test_images.hpp"

namespace cvis::stip {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Luma of a clip, packed (w x h per frame).
struct Clip {
  int w = 0, h = 0;
  std::vector<std::vector<uint8_t>> frames;
};

// Value-noise texture, a rectangle swinging sideways, a disc blinking with a period of a few
// frames, a bar translating diagonally and a square oscillating in size: every frame has points.
Clip make_clip(int w, int h, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const int gw = w / 6 + 3, gh = h / 6 + 3;
  std::vector<double> grid(static_cast<size_t>(gw) * gh);
  for (double& g : grid)
    g = u(rng);
  const double period = 4 + 6 * u(rng), phase = 2 * kPi * u(rng), swing = 0.15 + 0.1 * u(rng);
  const double dx = 0.8 + u(rng), dy = 0.4 + 0.6 * u(rng);
  const int bright = 150 + static_cast<int>(100 * u(rng));
  Clip c;
  c.w = w;
  c.h = h;
  for (int t = 0; t < n; ++t) {
    std::vector<uint8_t> f(static_cast<size_t>(w) * h);
    const double rx = w * (0.3 + swing * std::sin(2 * kPi * t / period + phase));
    const bool disc_on = std::fmod(t + phase, period) < period / 2;
    const double bx = std::fmod(dx * t, w * 0.6), by = std::fmod(dy * t, h * 0.6);
    const double half = 2 + 2 * (1 + std::sin(2 * kPi * t / 5.0));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double fx = x / 6.0, fy = y / 6.0;
        const int ix = static_cast<int>(fx), iy = static_cast<int>(fy);
        const double ax = fx - ix, ay = fy - iy;
        auto G = [&](int a, int b) { return grid[static_cast<size_t>(b) * gw + a]; };
        double v = 90 * ((1 - ay) * ((1 - ax) * G(ix, iy) + ax * G(ix + 1, iy)) +
                         ay * ((1 - ax) * G(ix, iy + 1) + ax * G(ix + 1, iy + 1)));
        if (x >= rx && x < rx + w / 8 && y >= h / 5 && y < h / 2)
          v = bright;
        const double ddx = x - 0.75 * w, ddy = y - 0.7 * h;
        if (disc_on && ddx * ddx + ddy * ddy < (h / 8.0) * (h / 8.0))
          v = 240;
        if (x >= bx && x < bx + 3 && y >= by + h * 0.3 && y < by + h * 0.3 + h / 4)
          v = 20;
        if (std::abs(x - 0.2 * w) < half && std::abs(y - 0.8 * h) < half)
          v = 200;
        f[static_cast<size_t>(y) * w + x] = static_cast<uint8_t>(v);
      }
    c.frames.push_back(std::move(f));
  }
  return c;
}

// A clip laid out in one format and memory: luma plane with `pad` bytes of row padding, chroma
// planes filled with noise (never read).
class Frames {
public:
  Frames(const Clip& c, PixelFormat fmt, int pad, MemorySpace space) {
    const size_t pitch = static_cast<size_t>(c.w + pad);
    const size_t crows = static_cast<size_t>((c.h + 1) / 2);
    const int planes = fmt == PixelFormat::kGRAY8 ? 1 : (fmt == PixelFormat::kNV12 ? 2 : 3);
    size_t off[3] = {0, pitch * c.h, pitch * c.h + pitch * crows};
    bytes_ = pitch * c.h + (planes - 1) * pitch * crows;
    host_.assign(bytes_ * c.frames.size(), 0);
    std::mt19937 rng(7);
    for (size_t t = 0; t < c.frames.size(); ++t) {
      uint8_t* base = host_.data() + t * bytes_;
      for (size_t i = 0; i < bytes_; ++i)
        base[i] = static_cast<uint8_t>(rng());
      for (int y = 0; y < c.h; ++y)
        std::memcpy(base + y * pitch, c.frames[t].data() + static_cast<size_t>(y) * c.w, c.w);
    }
    uint8_t* data = host_.data();
    if (space == MemorySpace::kDevice) {
      EXPECT_EQ(cudaMalloc(&dev_, host_.size()), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(dev_, host_.data(), host_.size(), cudaMemcpyHostToDevice), cudaSuccess);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess); // the pushes run on another stream
      data = static_cast<uint8_t*>(dev_);
    }
    for (size_t t = 0; t < c.frames.size(); ++t) {
      ImageView v;
      v.format = fmt;
      v.space = space;
      v.width = c.w;
      v.height = c.h;
      for (int p = 0; p < planes; ++p) {
        v.data[p] = data + t * bytes_ + off[p];
        v.pitch[p] = pitch;
      }
      views.push_back(v);
    }
  }
  ~Frames() {
    if (dev_)
      cudaFree(dev_);
  }
  Frames(const Frames&) = delete;
  Frames& operator=(const Frames&) = delete;
  std::vector<ImageView> views;

private:
  std::vector<uint8_t> host_;
  void* dev_ = nullptr;
  size_t bytes_ = 0;
};

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Every final frame of `views` (configure, every push, finish) on `stream`.
std::vector<FramePoints> run(FrontEnd& fe, const std::vector<ImageView>& views, int w, int h,
                             const FrontEndParams& p, StreamHandle stream) {
  std::vector<FramePoints> out;
  Status s = fe.configure(w, h, p);
  EXPECT_TRUE(s.ok()) << s.to_string();
  for (const ImageView& v : views) {
    const size_t before = out.size();
    s = fe.push(v, stream, &out);
    EXPECT_TRUE(s.ok()) << s.to_string();
    EXPECT_LE(out.size(), before + 1);
  }
  s = fe.finish(stream, &out);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return out;
}

// Exact comparison of two streams' outputs; returns the number of points.
int expect_same(const std::vector<FramePoints>& cpu, const std::vector<FramePoints>& gpu,
                const std::string& what) {
  EXPECT_EQ(cpu.size(), gpu.size()) << what;
  int points = 0;
  for (size_t i = 0; i < std::min(cpu.size(), gpu.size()); ++i) {
    const FramePoints& a = cpu[i];
    const FramePoints& b = gpu[i];
    EXPECT_EQ(a.frame, b.frame) << what;
    EXPECT_EQ(a.points.size(), b.points.size()) << what << ": frame " << a.frame;
    if (a.points.size() != b.points.size())
      continue;
    for (size_t k = 0; k < a.points.size(); ++k) {
      const InterestPoint& p = a.points[k];
      const InterestPoint& q = b.points[k];
      EXPECT_TRUE(p.frame == q.frame && p.x == q.x && p.y == q.y &&
                  bits(p.response) == bits(q.response))
          << what << ": frame " << a.frame << " point " << k << ": cpu (" << p.x << ", " << p.y
          << ", " << p.response << "), cuda (" << q.x << ", " << q.y << ", " << q.response << ")";
    }
    EXPECT_EQ(a.desc.size(), b.desc.size()) << what;
    if (a.desc.size() != b.desc.size())
      continue;
    int diffs = 0;
    for (size_t k = 0; k < a.desc.size(); ++k)
      diffs += bits(a.desc[k]) != bits(b.desc[k]);
    EXPECT_EQ(diffs, 0) << what << ": frame " << a.frame << ": descriptor values differ";
    points += static_cast<int>(a.points.size());
  }
  return points;
}

struct Backends {
  std::unique_ptr<FrontEnd> cpu, gpu;
  StreamHandle stream = nullptr;
  Backends() {
    Status s;
    cpu = make_frontend(Backend::kCpu, &s);
    gpu = make_frontend(Backend::kCuda, &s);
    EXPECT_TRUE(s.ok()) << s.to_string();
    s = stream_create(&stream); // non-blocking
    EXPECT_TRUE(s.ok()) << s.to_string();
  }
  ~Backends() { stream_destroy(stream); }
};

bool small() {
  return cvis::test::sanitizer_run();
}

struct Named {
  std::string name;
  FrontEndParams p;
};

std::vector<Named> parameter_sets() {
  std::vector<Named> v;
  auto add = [&](const std::string& name, auto edit) {
    FrontEndParams p;
    edit(p);
    v.push_back({name, p});
  };
  add("defaults", [](FrontEndParams&) {});
  add("tau 1.5, cell_frames 8", [](FrontEndParams& p) { p.tau = 1.5, p.cell_frames = 8; });
  add("tau 0.5", [](FrontEndParams& p) { p.tau = 0.5; });
  add("sigma 1", [](FrontEndParams& p) { p.sigma = 1; });
  add("sigma 4", [](FrontEndParams& p) { p.sigma = 4; });
  add("nms_radius 1, threshold 1e-6, max_points 64",
      [](FrontEndParams& p) { p.nms_radius = 1, p.threshold = 1e-6, p.max_points = 64; });
  add("nms_radius 5", [](FrontEndParams& p) { p.nms_radius = 5; });
  add("max_points 1", [](FrontEndParams& p) { p.max_points = 1; });
  add("max_points 64", [](FrontEndParams& p) { p.max_points = 64; });
  add("flow_levels 1", [](FrontEndParams& p) { p.flow_levels = 1; });
  add("flow_levels 5, radius 7, 3 iterations",
      [](FrontEndParams& p) { p.flow_levels = 5, p.flow_radius = 7, p.flow_iterations = 3; });
  add("normalise_gain off", [](FrontEndParams& p) { p.normalise_gain = false; });
  add("cell 3, cell_frames 1, flow_min 0",
      [](FrontEndParams& p) { p.cell_size = 3, p.cell_frames = 1, p.flow_min = 0; });
  // The clip's shapes move about 1 to 2 pixels per frame: both speed classes get votes.
  add("speed histogram, split 1", [](FrontEndParams& p) {
    p.flow_histogram = FlowHistogram::kSpeed, p.speed_split = 1;
  });
  add("speed histogram, split 0.3, max_points 64", [](FrontEndParams& p) {
    p.flow_histogram = FlowHistogram::kSpeed, p.speed_split = 0.3, p.max_points = 64,
    p.threshold = 1e-6;
  });
  // Harris: an appearing blob of contrast 0.55 gives H = 1.6e-8 (test_actionmatch_frontend_harris).
  add("harris, tau 1.5", [](FrontEndParams& p) {
    p.detector = Detector::kHarris, p.tau = 1.5, p.threshold = 1e-9;
  });
  add("harris, sigma 1, tau 1, scale 3, k 0.02, speed histogram", [](FrontEndParams& p) {
    p.detector = Detector::kHarris, p.sigma = 1, p.tau = 1, p.harris_scale = 3,
    p.harris_k = 0.02, p.threshold = 1e-9, p.flow_histogram = FlowHistogram::kSpeed;
  });
  return v;
}

// Odd size, padded pitch, GRAY8 in device memory (CUDA) and host memory (CPU).
TEST(ActionFrontEndGpu, ParameterSetsEqualCpu) {
  CVIS_REQUIRE_GPU();
  Backends b;
  const int w = small() ? 41 : 97, h = small() ? 33 : 71, n = small() ? 22 : 34;
  const Clip clip = make_clip(w, h, n, 11);
  Frames host(clip, PixelFormat::kGRAY8, 13, MemorySpace::kHost);
  Frames dev(clip, PixelFormat::kGRAY8, 13, MemorySpace::kDevice);
  for (const Named& c : parameter_sets()) {
    const auto want = run(*b.cpu, host.views, w, h, c.p, nullptr);
    const auto got = run(*b.gpu, dev.views, w, h, c.p, b.stream);
    const int points = expect_same(want, got, c.name);
    EXPECT_GT(points, 0) << c.name << ": the clip has no points to compare";
  }
}

// Host and device memory, GRAY8 / NV12 / I420 (luma plane), the same frames.
TEST(ActionFrontEndGpu, FormatsAndMemoryEqualCpu) {
  CVIS_REQUIRE_GPU();
  Backends b;
  const int w = small() ? 40 : 96, h = small() ? 32 : 64, n = small() ? 20 : 30;
  const Clip clip = make_clip(w, h, n, 23);
  FrontEndParams p;
  p.threshold = 1e-6;
  p.max_points = 16;
  Frames ref(clip, PixelFormat::kGRAY8, 0, MemorySpace::kHost);
  const auto want = run(*b.cpu, ref.views, w, h, p, nullptr);
  struct Case {
    PixelFormat fmt;
    MemorySpace space;
    int pad;
  };
  for (const Case c : {Case{PixelFormat::kNV12, MemorySpace::kDevice, 32},
                       Case{PixelFormat::kGRAY8, MemorySpace::kHost, 0},
                       Case{PixelFormat::kI420, MemorySpace::kHost, 7},
                       Case{PixelFormat::kGRAY8, MemorySpace::kDevice, 0}}) {
    Frames f(clip, c.fmt, c.pad, c.space);
    const auto got = run(*b.gpu, f.views, w, h, p, b.stream);
    const std::string what = std::string(pixel_format_name(c.fmt)) +
                             (c.space == MemorySpace::kHost ? " host" : " device");
    EXPECT_GT(expect_same(want, got, what), n / 2) << what;
  }
}

// reset() mid-stream and reconfiguration to another size and parameters: the later streams are
// those of a fresh front end; clips shorter than the lag come out of finish() alone.
TEST(ActionFrontEndGpu, ResetReconfigureAndShortClips) {
  CVIS_REQUIRE_GPU();
  Backends b;
  const int w = small() ? 36 : 80, h = small() ? 28 : 60, n = small() ? 20 : 28;
  const Clip clip = make_clip(w, h, n, 5);
  Frames host(clip, PixelFormat::kGRAY8, 3, MemorySpace::kHost);
  FrontEndParams p;
  p.max_points = 8;
  ASSERT_TRUE(b.gpu->configure(w, h, p).ok());
  std::vector<FramePoints> junk;
  for (int t = 0; t < n / 2; ++t)
    ASSERT_TRUE(b.gpu->push(host.views[(t * 7) % n], b.stream, &junk).ok());
  b.gpu->reset();
  std::vector<FramePoints> got;
  for (const ImageView& v : host.views)
    ASSERT_TRUE(b.gpu->push(v, b.stream, &got).ok());
  ASSERT_TRUE(b.gpu->finish(b.stream, &got).ok());
  const auto want = run(*b.cpu, host.views, w, h, p, nullptr);
  EXPECT_GT(expect_same(want, got, "after reset"), 0);

  // Another size and parameters on the same object.
  const Clip clip2 = make_clip(w + 5, h - 3, n, 9);
  Frames host2(clip2, PixelFormat::kGRAY8, 0, MemorySpace::kHost);
  FrontEndParams q;
  q.tau = 1.5;
  q.sigma = 1.5;
  q.threshold = 1e-5;
  EXPECT_GT(expect_same(run(*b.cpu, host2.views, w + 5, h - 3, q, nullptr),
                        run(*b.gpu, host2.views, w + 5, h - 3, q, b.stream), "reconfigured"),
            0);

  // Clips of 1 .. lag + 2 r + 2 frames: finish() flushes every frame.
  const int lag = b.gpu->lag();
  for (int len : {1, 3, lag, lag + 1, lag + 2 * q.temporal_radius() + 2}) {
    const std::vector<ImageView> part(host2.views.begin(), host2.views.begin() + len);
    const auto a = run(*b.cpu, part, w + 5, h - 3, q, nullptr);
    const auto c = run(*b.gpu, part, w + 5, h - 3, q, b.stream);
    EXPECT_EQ(static_cast<int>(c.size()), len);
    expect_same(a, c, "clip of " + std::to_string(len) + " frames");
  }
}

// A frame of the wrong size is refused without touching the stream or the ring: the rest of the
// stream gives the CPU's results.
TEST(ActionFrontEndGpu, WrongSizeLeavesStreamUsable) {
  CVIS_REQUIRE_GPU();
  Backends b;
  const int w = small() ? 40 : 72, h = small() ? 30 : 54, n = small() ? 20 : 26;
  const Clip clip = make_clip(w, h, n, 31);
  const Clip other = make_clip(w + 2, h, 1, 32);
  Frames dev(clip, PixelFormat::kGRAY8, 0, MemorySpace::kDevice);
  Frames host(clip, PixelFormat::kGRAY8, 0, MemorySpace::kHost);
  Frames bad(other, PixelFormat::kGRAY8, 0, MemorySpace::kDevice);
  FrontEndParams p;
  ASSERT_TRUE(b.gpu->configure(w, h, p).ok());
  std::vector<FramePoints> got;
  for (int t = 0; t < n; ++t) {
    if (t == n / 2) {
      const Status s = b.gpu->push(bad.views[0], b.stream, &got);
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
      ImageView rgb = dev.views[t];
      rgb.format = PixelFormat::kRGBA;
      EXPECT_FALSE(b.gpu->push(rgb, b.stream, &got).ok());
    }
    ASSERT_TRUE(b.gpu->push(dev.views[t], b.stream, &got).ok());
  }
  ASSERT_TRUE(b.gpu->finish(b.stream, &got).ok());
  EXPECT_EQ(cudaStreamQuery(static_cast<cudaStream_t>(b.stream)), cudaSuccess);
  EXPECT_GT(expect_same(run(*b.cpu, host.views, w, h, p, nullptr), got, "wrong size"), 0);
}

} // namespace
} // namespace cvis::stip
