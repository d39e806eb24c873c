// gpu suite: the CUDA labelling (launch_blobs, enqueue_readback, read_blobs) equal
// to ccl::connected_blobs on seeded masks: a frame-sized blob, the most tiny blobs a mask can hold
// (more records than the first read-back), 1xN and Nx1, odd sizes, padded pitches, tile-border
// patterns; a scratch reused across sizes; the persistence filter against
// seg::keep_persistent_components.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <random>

#include <algorithm>
#include <cstdio>

#include "ccl_test_util.hpp"
#include "common/backend.hpp"
#include "common/mask_area.hpp"
#include "test_images.hpp"

namespace cvis::ccl {
namespace {

using test::Kind;
using test::Mask;

class CclGpu : public ::testing::Test {
protected:
  void SetUp() override {
    CVIS_REQUIRE_GPU();
    ASSERT_TRUE(select_cuda_device(0).ok());
    ASSERT_TRUE(stream_create(&stream_).ok());
  }
  void TearDown() override {
    scratch_.release();
    if (dev_)
      cudaFree(dev_);
    if (stream_)
      stream_destroy(stream_);
  }

  // Uploads `m` with a device pitch of m.pitch + extra (the padding keeps the host's garbage),
  // labels it on the device and compares with the CPU function.
  void check(const Mask& m, int min_area, size_t extra, const std::string& what) {
    const size_t pitch = m.pitch + extra;
    const size_t bytes = pitch * m.height;
    if (bytes > dev_bytes_) {
      if (dev_)
        cudaFree(dev_);
      dev_ = nullptr;
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dev_), bytes), cudaSuccess);
      dev_bytes_ = bytes;
    }
    ASSERT_EQ(cudaMemset(dev_, 0x77, bytes), cudaSuccess); // padding: non-zero garbage
    ASSERT_EQ(cudaMemcpy2D(dev_, pitch, m.data.data(), m.pitch, m.pitch, m.height,
                           cudaMemcpyHostToDevice),
              cudaSuccess);
    // Pageable copies may return before their DMA ends, and the labelling runs on a non-blocking
    // stream that does not wait for the legacy default stream.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<Blob> ref;
    int64_t fg_ref = 0;
    connected_blobs(m.data.data(), m.pitch, m.width, m.height, min_area, &ref, &fg_ref);
    ASSERT_TRUE(scratch_.reserve(m.width, m.height, stream_).ok());
    Status s = launch_blobs(dev_, pitch, m.width, m.height, min_area, &scratch_, stream_);
    ASSERT_TRUE(s.ok()) << s.to_string();
    ASSERT_TRUE(enqueue_readback(true, &scratch_, stream_).ok());
    ASSERT_TRUE(stream_synchronize(stream_).ok());
    std::vector<Blob> got;
    int64_t fg = -1;
    s = read_blobs(&scratch_, &got, &fg);
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_EQ(fg, fg_ref) << what;
    ASSERT_EQ(got.size(), ref.size()) << what;
    int bad = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (got[i] != ref[i] && ++bad <= 5)
        ADD_FAILURE() << what << " blob " << i << ": got " << ::testing::PrintToString(got[i])
                      << " want " << ::testing::PrintToString(ref[i]);
    }
    ASSERT_EQ(bad, 0) << what;
  }

  StreamHandle stream_ = nullptr;
  DeviceScratch scratch_;
  uint8_t* dev_ = nullptr;
  size_t dev_bytes_ = 0;
};

std::string name(int w, int h, Kind k, uint32_t seed, double d, int min_area) {
  return std::to_string(w) + "x" + std::to_string(h) + " kind " + std::to_string(int(k)) +
         " seed " + std::to_string(seed) + " density " + std::to_string(d) + " min_area " +
         std::to_string(min_area);
}

TEST_F(CclGpu, RandomMasksEqualTheCpu) {
  struct Size {
    int w, h;
  };
  // 1xN, Nx1, odd sizes across tile borders (tiles are 32x8), a few tiles each way.
  std::vector<Size> sizes = {{1, 1},   {1, 77},  {77, 1},  {31, 7},   {32, 8},   {33, 9},
                             {65, 17}, {100, 3}, {3, 100}, {127, 61}, {257, 131}};
  const bool small = cvis::test::sanitizer_run(); // under compute-sanitizer: a spread
  if (small)
    sizes = cvis::test::spread(sizes, 4);
  const Kind kinds[] = {Kind::kNoise, Kind::kBlocks,  Kind::kFull,    Kind::kEmpty,
                        Kind::kDots,  Kind::kStripes, Kind::kChecker, Kind::kRings};
  uint32_t seed = 100;
  for (const Size& s : sizes) {
    for (Kind k : kinds) {
      for (double d : {0.1, 0.45, 0.6, 0.9}) {
        if ((k != Kind::kNoise || small) && d != 0.45)
          continue;
        const size_t pad = (seed % 3) * 3;
        const Mask m = test::make_mask(k, s.w, s.h, ++seed, d, pad);
        for (int min_area : {1, 4}) {
          check(m, min_area, seed % 2 ? 64 : 0, name(s.w, s.h, k, seed, d, min_area));
          if (HasFatalFailure())
            return;
        }
      }
    }
  }
}

TEST_F(CclGpu, FrameSizedBlobAndManyTinyBlobs) {
  // 1080p: one blob over the whole frame (every tile merges), the most components a mask can
  // hold (one per 2x2 cell: the records' capacity, far more than the first read-back), a
  // checkerboard (one component through the diagonals only) and dense noise.
  // Under compute-sanitizer: a quarter of the size each way (still far more than 256 records).
  const int q = cvis::test::sanitizer_run() ? 4 : 1;
  const int w = 1920 / q, h = 1080 / q;
  check(test::make_mask(Kind::kFull, w, h, 1), 1, 0, "full 1080p");
  if (HasFatalFailure())
    return;
  check(test::make_mask(Kind::kDots, w, h, 1), 1, 0, "dots 1080p");
  if (HasFatalFailure())
    return;
  check(test::make_mask(Kind::kChecker, w, h, 1), 1, 0, "checker 1080p");
  if (HasFatalFailure())
    return;
  check(test::make_mask(Kind::kNoise, w, h, 7, 0.55, 64), 3, 0, "noise 1080p");
  if (HasFatalFailure())
    return;
  // Odd frame-sized cases and a padded pitch.
  check(test::make_mask(Kind::kFull, 1921 / q, 1081 / q, 1, 0.5, 3), 1, 512, "full 1921x1081");
  check(test::make_mask(Kind::kDots, 1023 / q, 577 / q, 1, 0.5, 1), 1, 128, "dots 1023x577");
  check(test::make_mask(Kind::kRings, 999 / q, 555 / q, 1), 1, 0, "rings 999x555");
}

// The persistence filter on seeded mask pairs (this frame, the previous one) against
// seg::keep_persistent_components: the output, its blobs and foreground count, the updated
// reference (= this frame's mask), at several thresholds, with and without an area filter
// between the labelling and the filter; the pairs overlap a little (independent noise) or mostly (a
// blob pattern and the same pattern shifted by one pixel).
TEST_F(CclGpu, PersistenceEqualsTheCpu) {
  const bool small = cvis::test::sanitizer_run();
  const int sizes[][2] = {{33, 9}, {127, 61}, {257, 131}};
  uint32_t seed = 900;
  for (const auto& sz : sizes) {
    const int w = sz[0], h = sz[1];
    if (small && w > 127)
      continue;
    for (Kind k : {Kind::kNoise, Kind::kBlocks, Kind::kRings}) {
      const Mask cur = test::make_mask(k, w, h, ++seed, 0.45);
      Mask prev = test::make_mask(k, w, h, k == Kind::kNoise ? ++seed : seed, 0.45);
      if (k != Kind::kNoise) { // the same pattern one pixel to the left
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x)
            prev.at(x, y) = x + 1 < w ? cur.at(x + 1, y) : 0;
      }
      std::vector<uint8_t> c(static_cast<size_t>(w) * h), p(c.size());
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          c[static_cast<size_t>(y) * w + x] = cur.at(x, y);
          p[static_cast<size_t>(y) * w + x] = prev.at(x, y);
        }
      const size_t pitch = w + 16, bytes = pitch * h;
      uint8_t *dm = nullptr, *dp = nullptr, *dout = nullptr;
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dm), bytes), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dp), bytes), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dout), bytes), cudaSuccess);
      ASSERT_TRUE(scratch_.reserve(w, h, stream_).ok());
      // filter: an area filter between the labelling and the persistence pass (as cudabgsub);
      // the output's blobs of min_area pixels and its count come from the persistence pass.
      for (float persistence : {0.1f, 0.3f, 0.5f, 1.0f})
        for (int filter : {0, 4}) {
          const int min_area = 3;
          ASSERT_EQ(cudaMemcpy2D(dm, pitch, c.data(), w, w, h, cudaMemcpyHostToDevice),
                    cudaSuccess);
          ASSERT_EQ(cudaMemcpy2D(dp, pitch, p.data(), w, w, h, cudaMemcpyHostToDevice),
                    cudaSuccess);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          ASSERT_TRUE(launch_blobs(dm, pitch, w, h, min_area, &scratch_, stream_).ok());
          if (filter) {
            ASSERT_TRUE(launch_area_filter(dm, pitch, w, h, filter, &scratch_, stream_).ok());
          }
          MaskReferences refs{dp, nullptr, pitch};
          Status st = launch_persistence(dm, pitch, &refs, w, h, persistence, min_area, dout,
                                         pitch, &scratch_, stream_);
          ASSERT_TRUE(st.ok()) << st.to_string();
          ASSERT_TRUE(enqueue_readback(true, &scratch_, stream_).ok());
          std::vector<Blob> blobs;
          int64_t fg = -1;
          st = read_blobs(&scratch_, &blobs, &fg);
          ASSERT_TRUE(st.ok()) << st.to_string();
          ASSERT_TRUE(stream_synchronize(stream_).ok());
          std::vector<uint8_t> got(c.size()), ref_prev(c.size()), want(c.size()), cf = c;
          ASSERT_EQ(cudaMemcpy2D(got.data(), w, dout, pitch, w, h, cudaMemcpyDeviceToHost),
                    cudaSuccess);
          EXPECT_EQ(refs.prev, dp) << "one reference is updated in place";
          ASSERT_EQ(cudaMemcpy2D(ref_prev.data(), w, dp, pitch, w, h, cudaMemcpyDeviceToHost),
                    cudaSuccess);
          seg::remove_small_components(cf.data(), w, h, filter);
          seg::keep_persistent_components(cf.data(), p.data(), want.data(), w, h, persistence);
          std::vector<Blob> want_blobs;
          int64_t want_fg = -1;
          connected_blobs(want.data(), w, w, h, min_area, &want_blobs, &want_fg);
          const std::string what =
              std::to_string(w) + "x" + std::to_string(h) + " kind " + std::to_string(int(k)) +
              " persistence " + std::to_string(persistence) + " filter " + std::to_string(filter);
          EXPECT_EQ(got, want) << what;
          EXPECT_EQ(ref_prev, cf) << what << ": the reference becomes this frame's mask";
          EXPECT_EQ(fg, want_fg) << what << ": the output's foreground count";
          EXPECT_EQ(blobs, want_blobs) << what << ": the output's blobs";
          std::printf("[persistence] %s: %ld of %ld pixels kept, %zu blobs\n", what.c_str(),
                      static_cast<long>(want_fg),
                      static_cast<long>(
                          std::count_if(cf.begin(), cf.end(), [](uint8_t v) { return v != 0; })),
                      want_blobs.size());
        }
      cudaFree(dm);
      cudaFree(dp);
      cudaFree(dout);
    }
  }
}

// The persistence filter with added light (a mostly lit component against the pixels of both
// previous masks) on seeded triples of masks and seeded lumas against
// seg::keep_persistent_components: the output, its blobs and count, and both references moved on
// (prev2 = prev, prev = this frame's mask). The frame's luma is the background's plus 0-39 levels
// by 4x4 cell, so components are lit in every share. Trim radii 0, 1 and 4: runs that trim label
// the output again, runs that trim nothing keep the records of the kept components.
TEST_F(CclGpu, PersistenceWithAddedLightEqualsTheCpu) {
  const bool small = cvis::test::sanitizer_run();
  const int sizes[][2] = {{33, 9}, {127, 61}, {257, 131}};
  uint32_t seed = 1900;
  int mostly_lit = 0, components = 0;
  int64_t trimmed = 0;
  int untrimmed_runs = 0; // trim > 0 and nothing trimmed: the output is not labelled again
  for (const auto& sz : sizes) {
    const int w = sz[0], h = sz[1];
    if (small && w > 127)
      continue;
    for (Kind k : {Kind::kNoise, Kind::kBlocks, Kind::kRings}) {
      const Mask masks[3] = {test::make_mask(k, w, h, ++seed, 0.45),
                             test::make_mask(k, w, h, ++seed, 0.45),
                             test::make_mask(k, w, h, ++seed, 0.45)};
      const size_t n = static_cast<size_t>(w) * h;
      std::vector<uint8_t> c(n), p(n), p2(n), frame(n), bg(n);
      std::mt19937 rng(seed);
      std::vector<int> cell_add(((w + 3) / 4) * ((h + 3) / 4));
      for (int& a : cell_add)
        a = static_cast<int>(rng() % 40);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const size_t i = static_cast<size_t>(y) * w + x;
          c[i] = masks[0].at(x, y);
          p[i] = masks[1].at(x, y);
          p2[i] = masks[2].at(x, y);
          bg[i] = static_cast<uint8_t>(rng() % 200);
          frame[i] = static_cast<uint8_t>(bg[i] + cell_add[(y / 4) * ((w + 3) / 4) + x / 4]);
        }
      const size_t pitch = w + 16, bytes = pitch * h;
      uint8_t *dm = nullptr, *dp = nullptr, *dp2 = nullptr, *dout = nullptr, *dl = nullptr;
      for (uint8_t** d : {&dm, &dp, &dp2, &dout})
        ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(d), bytes), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dl), 2 * n), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(dl, frame.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(dl + n, bg.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
      seg::AddedLight dlight{dl, dl + n, static_cast<size_t>(w)},
          hlight{frame.data(), bg.data(), static_cast<size_t>(w)};
      ASSERT_TRUE(scratch_.reserve(w, h, stream_).ok());
      for (int trim : {0, 1, 4})
      for (float persistence : {0.3f, 0.7f}) {
        dlight.trim_radius = hlight.trim_radius = trim;
        const int min_area = 3;
        ASSERT_EQ(cudaMemcpy2D(dm, pitch, c.data(), w, w, h, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemcpy2D(dp, pitch, p.data(), w, w, h, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemcpy2D(dp2, pitch, p2.data(), w, w, h, cudaMemcpyHostToDevice),
                  cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ASSERT_TRUE(launch_blobs(dm, pitch, w, h, min_area, &scratch_, stream_).ok());
        MaskReferences refs{dp, dp2, pitch};
        Status st = launch_persistence(dm, pitch, &refs, w, h, persistence, min_area, dout, pitch,
                                       &scratch_, stream_, &dlight);
        ASSERT_TRUE(st.ok()) << st.to_string();
        ASSERT_TRUE(enqueue_readback(true, &scratch_, stream_).ok());
        std::vector<Blob> blobs;
        int64_t fg = -1;
        st = read_blobs(&scratch_, &blobs, &fg);
        ASSERT_TRUE(st.ok()) << st.to_string();
        ASSERT_TRUE(stream_synchronize(stream_).ok());
        std::vector<uint8_t> got(n), got_prev(n), got_prev2(n), want(n);
        ASSERT_EQ(cudaMemcpy2D(got.data(), w, dout, pitch, w, h, cudaMemcpyDeviceToHost),
                  cudaSuccess);
        EXPECT_TRUE(refs.prev == dp2 && refs.prev2 == dp) << "the references take turns";
        ASSERT_EQ(
            cudaMemcpy2D(got_prev.data(), w, refs.prev, pitch, w, h, cudaMemcpyDeviceToHost),
            cudaSuccess);
        ASSERT_EQ(
            cudaMemcpy2D(got_prev2.data(), w, refs.prev2, pitch, w, h, cudaMemcpyDeviceToHost),
            cudaSuccess);
        seg::keep_persistent_components(c.data(), p.data(), want.data(), w, h, persistence,
                                        p2.data(), &hlight);
        std::vector<Blob> want_blobs;
        int64_t want_fg = -1;
        connected_blobs(want.data(), w, w, h, min_area, &want_blobs, &want_fg);
        const std::string what = std::to_string(w) + "x" + std::to_string(h) + " kind " +
                                 std::to_string(int(k)) + " persistence " +
                                 std::to_string(persistence) + " trim " + std::to_string(trim);
        if (trim > 0) {
          std::vector<uint8_t> untrimmed(n);
          hlight.trim_radius = 0;
          seg::keep_persistent_components(c.data(), p.data(), untrimmed.data(), w, h, persistence,
                                          p2.data(), &hlight);
          int64_t here = 0;
          for (size_t i = 0; i < n; ++i)
            here += untrimmed[i] && !want[i];
          trimmed += here;
          untrimmed_runs += here == 0;
        }
        EXPECT_EQ(got, want) << what;
        EXPECT_EQ(got_prev, c) << what << ": prev becomes this frame's mask";
        EXPECT_EQ(got_prev2, p) << what << ": prev2 becomes the previous mask";
        EXPECT_EQ(fg, want_fg) << what;
        EXPECT_EQ(blobs, want_blobs) << what;
      }
      seg::for_each_component(c.data(), w, h, [&](const std::vector<int32_t>& comp) {
        int l = 0;
        for (int32_t i : comp)
          l += seg::lit(frame[i], bg[i], seg::kAddedLightLevels);
        mostly_lit += seg::mostly_lit(l, static_cast<int>(comp.size()));
        ++components;
      });
      for (uint8_t* d : {dm, dp, dp2, dout, dl})
        cudaFree(d);
    }
  }
  std::printf("[persistence, added light] %d of %d components mostly lit, %lld pixels trimmed, "
              "%d trimming runs without any\n",
              mostly_lit, components, static_cast<long long>(trimmed), untrimmed_runs);
  EXPECT_GT(trimmed, 0);
  EXPECT_GT(untrimmed_runs, 0);
  EXPECT_GT(mostly_lit, 0);
  EXPECT_LT(mostly_lit, components);
}

TEST_F(CclGpu, ScratchReusedAcrossSizes) {
  // The scratch grows to the largest size; smaller masks then use part of it.
  uint32_t seed = 500;
  const int q = cvis::test::sanitizer_run() ? 4 : 1;
  for (auto [w, h] : {std::pair{640, 360}, {33, 900}, {900, 33}, {1, 1}, {640, 360}}) {
    w = std::max(1, w / q);
    h = std::max(1, h / q);
    check(test::make_mask(Kind::kNoise, w, h, ++seed, 0.5), 1, 0,
          "reuse " + std::to_string(w) + "x" + std::to_string(h));
    if (HasFatalFailure())
      return;
  }
}

// read_blobs() waits for its readback itself (no stream synchronisation before it), on a
// non-blocking stream, with few records and with more than the first read-back holds (the rest
// is copied on the same stream), and the labelling of the next mask overlaps nothing it reads.
TEST_F(CclGpu, ReadBlobsWaitsForTheReadback) {
  const struct {
    Kind kind;
    int w, h;
  } cases[] = {{Kind::kBlocks, 97, 61}, {Kind::kDots, 160, 90}, {Kind::kNoise, 333, 211}};
  uint32_t seed = 900;
  for (const auto& c : cases) {
    const Mask m = test::make_mask(c.kind, c.w, c.h, ++seed, 0.3);
    const size_t bytes = m.pitch * m.height;
    if (bytes > dev_bytes_) {
      if (dev_)
        cudaFree(dev_);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dev_), bytes), cudaSuccess);
      dev_bytes_ = bytes;
    }
    ASSERT_EQ(cudaMemcpy(dev_, m.data.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess); // the upload, not the labelling
    std::vector<Blob> ref;
    int64_t fg_ref = 0;
    connected_blobs(m.data.data(), m.pitch, m.width, m.height, 1, &ref, &fg_ref);
    ASSERT_TRUE(scratch_.reserve(m.width, m.height, stream_).ok());
    ASSERT_TRUE(launch_blobs(dev_, m.pitch, m.width, m.height, 1, &scratch_, stream_).ok());
    ASSERT_TRUE(enqueue_readback(true, &scratch_, stream_).ok());
    std::vector<Blob> got;
    int64_t fg = -1;
    const Status s = read_blobs(&scratch_, &got, &fg);
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_EQ(fg, fg_ref) << c.w << "x" << c.h;
    EXPECT_EQ(got.size(), ref.size()) << c.w << "x" << c.h;
    EXPECT_TRUE(got == ref) << c.w << "x" << c.h << ": blobs differ";
  }
}

TEST_F(CclGpu, RejectsMasksLargerThanTheScratch) {
  ASSERT_TRUE(scratch_.reserve(16, 16).ok());
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dev_), 32 * 32), cudaSuccess);
  dev_bytes_ = 32 * 32;
  EXPECT_FALSE(launch_blobs(dev_, 32, 32, 32, 1, &scratch_, stream_).ok());
  EXPECT_FALSE(launch_blobs(dev_, 8, 16, 16, 1, &scratch_, stream_).ok()); // pitch < width
}

} // namespace
} // namespace cvis::ccl
