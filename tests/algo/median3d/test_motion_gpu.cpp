// gpu suite: the CUDA motion detector equal to the CPU reference, bit for bit (every pass is
// integer; the gain is the same float computed by the same function): masks, backgrounds, figures
// and blobs of every frame, on seeded sequences with moving objects, a parked object that leaves
// (adoption), an illumination drop (gain, widened thresholds), a cut (shot change and refill),
// odd sizes, padded pitches, several formats, device and host frames and outputs.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/cuda/preload.hpp"
#include "median3d_cases.hpp"
#include "median3d_device_image.hpp"
#include "motion.hpp"

namespace cvis::median3d {
namespace {

using test::DeviceImage;
using test::HostImage;

// Defined first, so it runs before any other test of this binary has launched a kernel: the first
// stream of the context loads every kernel of the linked modules (motion, median3d, ccl), so
// none is loaded by its first launch in the middle of a stream (common/cuda/preload.hpp).
TEST(MotionKernels, FirstStreamLoadsEveryKernel) {
  CVIS_REQUIRE_GPU();
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess); // the context, nothing launched
  int loaded = 0, total = 0;
  if (!cuda::kernel_load_state(&loaded, &total))
    GTEST_SKIP() << "the driver cannot tell (older than CUDA 12.4)";
  EXPECT_GE(total, 20) << "the motion, median3d and ccl modules' kernels";
  RecordProperty("loaded_before", loaded); // under lazy loading: fewer than total
  StreamHandle s = nullptr;
  ASSERT_TRUE(stream_create(&s).ok());
  ASSERT_TRUE(cuda::kernel_load_state(&loaded, &total));
  EXPECT_EQ(loaded, total);
  stream_destroy(s);
}

// A context made after a reset (the driver often gives it the address of the old one) is a new
// context: its first stream loads every kernel again.
TEST(MotionKernels, AContextAfterAResetIsLoadedAgain) {
  CVIS_REQUIRE_GPU();
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  int loaded = 0, total = 0;
  if (!cuda::kernel_load_state(&loaded, &total))
    GTEST_SKIP() << "the driver cannot tell (older than CUDA 12.4)";
  StreamHandle s = nullptr;
  ASSERT_TRUE(stream_create(&s).ok());
  ASSERT_TRUE(cuda::kernel_load_state(&loaded, &total));
  EXPECT_EQ(loaded, total);
  stream_destroy(s);
}

struct MotionCase {
  std::string name;
  PixelFormat format;
  int width, height;
  size_t pad;
  bool device; // device frames and outputs (else host: the backend uploads and downloads)
  MotionParams p;
  int frames = 64;
  bool black = false; // frames 28..37 black instead of dimmed (the gain's lower bound)
  int creep =
      0; // packed RGB: the frame moved right by up to this many pixels, swinging (shift_test)
};

void PrintTo(const MotionCase& c, std::ostream* os) {
  *os << c.name;
}

// Frame t: the seeded scene (two moving rectangles over a textured background, +-6 noise), a dark
// parked block until frame 16 (inside the initial fill: it leaves a ghost), the first plane dimmed
// to 70% during frames 28..37 (luma, or R for packed RGB; `black`: every plane set to 0), its rows
// mirrored from frame 48 (a cut).
HostImage motion_frame(PixelFormat f, int w, int h, size_t pad, int t, bool black = false,
                       int creep = 0) {
  HostImage img = test::make_frame(f, w, h, pad, test::Content::kScene, 6u, t);
  const int bpp = is_yuv(f) ? 1 : static_cast<int>(plane_row_bytes(f, 0, 1));
  // creep: a shift right by s = creep * a16 / 16 pixels, each value a blend of the two pixels s
  // lies between, in 16ths (integer: the same frames on every machine).
  const int a16 = creep ? 8 + static_cast<int>(std::lround(7.0 * std::sin(t / 6.0))) : 0;
  const int s16 = creep * a16, whole = s16 / 16, part = s16 % 16;
  for (int y = 0; y < h; ++y) {
    uint8_t* row = img.plane(0) + static_cast<size_t>(y) * img.pitch(0);
    for (int x = w * bpp - 1; creep && x >= (whole + 1) * bpp; --x)
      row[x] = static_cast<uint8_t>(
          (row[x - whole * bpp] * (16 - part) + row[x - (whole + 1) * bpp] * part + 8) / 16);
    for (int x = 0; x < w * bpp; ++x) {
      if (t < 16 && x / bpp >= w / 2 && x / bpp < w / 2 + 7 && y >= h / 3 && y < h / 3 + 6)
        row[x] = 30;
      if (t >= 28 && t < 38)
        row[x] = static_cast<uint8_t>((row[x] * 7 + 5) / 10);
    }
    if (t >= 48)
      std::reverse(row, row + static_cast<size_t>(w) * bpp);
  }
  if (black && t >= 28 && t < 38) {
    for (int p = 0; p < plane_count(f); ++p)
      for (int y = 0; y < plane_rows(f, p, h); ++y)
        std::fill_n(img.plane(p) + static_cast<size_t>(y) * img.pitch(p), plane_row_bytes(f, p, w),
                    0);
  }
  return img;
}

std::vector<uint8_t> packed(const HostImage& img) {
  std::vector<uint8_t> out;
  for (int p = 0; p < plane_count(img.format()); ++p) {
    for (int y = 0; y < plane_rows(img.format(), p, img.height()); ++y) {
      const uint8_t* row = img.view().data[p] + static_cast<size_t>(y) * img.pitch(p);
      out.insert(out.end(), row, row + plane_row_bytes(img.format(), p, img.width()));
    }
  }
  return out;
}

std::vector<MotionCase> cases() {
  MotionParams base;
  base.history = 7;
  base.sample_period = 2;
  base.min_mask_area = 6;
  base.min_blob_area = 4;
  base.adopt_frames = 2; // adoptions within these short sequences
  std::vector<MotionCase> v;
  v.push_back({"i420_odd_device", PixelFormat::kI420, 67, 45, 0, true, base});
  v.push_back({"nv12_padded_host", PixelFormat::kNV12, 70, 37, 19, false, base});
  MotionParams luma = base;
  luma.color = false;
  luma.radius = 2;
  luma.absorb_frames = 9;
  luma.max_blobs = 1;
  luma.adopt_tight = false;
  v.push_back({"rgba_luma_r2_absorb_device", PixelFormat::kRGBA, 53, 41, 0, true, luma});
  MotionParams plain = base;
  plain.illumination = false;
  plain.cleanup = false;
  plain.min_mask_area = 0;
  plain.adopt_frames = 0;
  plain.radius = 0;
  plain.blobs = false;
  plain.history = 9;
  plain.sample_period = 1;
  plain.live_background = false; // the median everywhere (the other cases: the frame's luma too)
  plain.persistence = 0.0f;      // no labelling at all (the other cases: the persistence filter)
  v.push_back({"bgr_plain_host", PixelFormat::kBGR, 45, 33, 3, false, plain});
  MotionParams defaults; // the element's defaults: 31 samples every 4 frames
  v.push_back({"nv12_defaults_device", PixelFormat::kNV12, 96, 64, 0, true, defaults, 150});
  // The longest history (63 samples: the CUDA backend's widest sample block, 64 bytes) and a period
  // of 3 (groups of 3 pixels per update thread, a partial group at the end of each 40-pixel row).
  // The sequence's dimming and cut fall inside the 63-frame fill: neither is expected here.
  MotionParams longest = base;
  longest.history = 63;
  longest.sample_period = 3;
  longest.illumination = false;
  longest.shot_change = false;
  v.push_back({"nv12_k63_p3_device", PixelFormat::kNV12, 40, 30, 0, true, longest, 103});
  // Slower adoption while a scene counts as moving (MotionParams::adopt_frames_dynamic): a fraction
  // low enough that the scene's textured edges switch it on and off from frame to frame.
  MotionParams dynamic = base;
  dynamic.adopt_frames_dynamic = 3;
  dynamic.dynamic_fraction = 0.02f;
  v.push_back({"i420_adopt_dynamic_device", PixelFormat::kI420, 64, 48, 0, true, dynamic});
  // The same decided by the scene's changes (MotionParams::dynamic_change_fraction): the count of
  // pixels whose luma changed by more than their threshold widened by the gain (the sequence dims).
  MotionParams changing = dynamic;
  changing.dynamic_fraction = 1.0f;
  changing.dynamic_change_fraction = 0.02f;
  v.push_back({"i420_adopt_changing_device", PixelFormat::kI420, 64, 48, 0, true, changing});
  // A creeping camera (MotionParams::shift_test, reaching kShiftRadius: beyond the halo of the
  // radius 0 and 1 kernels, within that of radius 2).
  v.push_back({"rgba_creep_device", PixelFormat::kRGBA, 56, 40, 0, true, base, 64, false, 1});
  v.push_back({"rgba_creep2_device", PixelFormat::kRGBA, 70, 44, 0, true, base, 64, false, 2});
  MotionParams creep0 = base;
  creep0.radius = 0;
  v.push_back({"rgba_creep2_r0_host", PixelFormat::kRGBA, 40, 30, 8, false, creep0, 64, false, 2});
  MotionParams creep2 = base;
  creep2.radius = 2;
  v.push_back({"bgra_creep_r2_host", PixelFormat::kBGRA, 45, 35, 4, false, creep2, 64, false, 2});
  // Black frames: every voter in the gain's bin 0 (the gain stops at seg::kGainMin).
  v.push_back({"rgba_black_frames_device", PixelFormat::kRGBA, 48, 32, 0, true, base, 64, true});
  if (cvis::test::sanitizer_run()) { // small: every kernel and path, few frames
    // The first two cases and the shift test beyond the halo (global reads).
    const auto beyond = std::find_if(
        v.begin(), v.end(), [](const MotionCase& c) { return c.name == "rgba_creep2_device"; });
    const MotionCase creep2 = *beyond;
    v.resize(2);
    v.push_back(creep2);
    for (auto& c : v)
      c.frames = 52;
  }
  return v;
}

class MotionGpu : public ::testing::TestWithParam<MotionCase> {
protected:
  void SetUp() override {
    CVIS_REQUIRE_GPU();
    ASSERT_TRUE(select_cuda_device(0).ok());
    ASSERT_TRUE(stream_create(&stream_).ok());
  }
  void TearDown() override {
    if (stream_)
      stream_destroy(stream_);
  }
  StreamHandle stream_ = nullptr;
};

TEST_P(MotionGpu, EqualsTheCpuReference) {
  const MotionCase& c = GetParam();
  Status s;
  auto cpu = make_motion_detector(Backend::kCpu, &s);
  ASSERT_TRUE(cpu) << s.to_string();
  auto gpu = make_motion_detector(Backend::kCuda, &s);
  ASSERT_TRUE(gpu) << s.to_string();
  ASSERT_TRUE(cpu->configure(c.p).ok());
  ASSERT_TRUE(gpu->configure(c.p).ok());
  int gains = 0, cuts = 0, busy = 0, with_blobs = 0, shadows = 0, shifted = 0;
  for (int t = 0; t < c.frames; ++t) {
    const HostImage f = motion_frame(c.format, c.width, c.height, c.pad, t, c.black, c.creep);
    HostImage cm(PixelFormat::kGRAY8, c.width, c.height), cb(c.format, c.width, c.height);
    HostImage gm(PixelFormat::kGRAY8, c.width, c.height, 5), gb(c.format, c.width, c.height, 2);
    const ImageView cmv = cm.view(), cbv = cb.view();
    MotionResult rc, rg;
    ASSERT_TRUE(cpu->process(f.view(), &cmv, &cbv, &rc, nullptr).ok());
    if (c.device) {
      DeviceImage df(f.view()), dm(gm.view()), db(gb.view());
      ASSERT_TRUE(df.ok() && dm.ok() && db.ok());
      s = gpu->process(df.view(), &dm.view(), &db.view(), &rg, stream_);
      ASSERT_TRUE(s.ok()) << s.to_string();
      ASSERT_TRUE(dm.download(&gm) && db.download(&gb));
    } else {
      const ImageView gmv = gm.view(), gbv = gb.view();
      s = gpu->process(f.view(), &gmv, &gbv, &rg, stream_);
      ASSERT_TRUE(s.ok()) << s.to_string();
      ASSERT_TRUE(stream_synchronize(stream_).ok());
    }
    const std::string at = c.name + " frame " + std::to_string(t);
    ASSERT_EQ(packed(gm), packed(cm)) << at;
    ASSERT_EQ(packed(gb), packed(cb)) << at;
    EXPECT_EQ(rg.frame, rc.frame) << at;
    EXPECT_EQ(rg.warming_up, rc.warming_up) << at;
    EXPECT_EQ(rg.shot_change, rc.shot_change) << at;
    EXPECT_EQ(rg.gain, rc.gain) << at;
    EXPECT_EQ(rg.chroma_offset[0], rc.chroma_offset[0]) << at;
    EXPECT_EQ(rg.chroma_offset[1], rc.chroma_offset[1]) << at;
    EXPECT_EQ(rg.shadow, rc.shadow) << at;
    EXPECT_EQ(rg.shifted, rc.shifted) << at;
    EXPECT_EQ(rg.foreground, rc.foreground) << at;
    EXPECT_EQ(rg.pixels, rc.pixels) << at;
    EXPECT_EQ(rg.blobs, rc.blobs) << at;
    gains += rc.gain != 1.0f;
    cuts += rc.shot_change;
    busy += rc.foreground > 0;
    with_blobs += !rc.blobs.empty();
    shadows += rc.shadow > 0;
    shifted += rc.shifted > 0;
  }
  if (c.creep) {
    EXPECT_GT(shifted, 10) << c.name;
  }
  // The sequence exercises what it is meant to (on the CPU side: equal on both). 8 frames of
  // foreground in rgba_luma_r2_absorb_device: its moving block is mostly added light against the
  // background, so the persistence filter wants it in both previous masks (11 or more before).
  EXPECT_GT(busy, 6) << c.name;
  if (c.p.blobs) {
    EXPECT_GT(with_blobs, 6) << c.name;
  }
  if (c.p.illumination) {
    EXPECT_GT(gains, 2) << c.name;
  }
  // The mirror (the defaults also call the 70% step a cut); not under a 2-pixel creep, whose
  // samples widen the thresholds enough that the mirrored scene is no cut (the CPU reference, with
  // or without the shift test).
  if (c.p.shot_change && c.frames > 55 && c.creep < 2) {
    EXPECT_GE(cuts, 1) << c.name;
  }
  RecordProperty("shadow_frames", shadows);
}

INSTANTIATE_TEST_SUITE_P(Cases, MotionGpu, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<MotionCase>& i) {
                           return i.param.name;
                         });

// A frame of another size reallocates and restarts; after a reset the GPU equals a new CPU
// detector (device memory reused, the per-pixel state cleared).
TEST_F(MotionGpu, ResizeAndResetRestart) {
  MotionParams p;
  p.history = 5;
  p.sample_period = 1;
  Status s;
  auto gpu = make_motion_detector(Backend::kCuda, &s);
  auto cpu = make_motion_detector(Backend::kCpu, &s);
  ASSERT_TRUE(gpu && cpu);
  ASSERT_TRUE(gpu->configure(p).ok() && cpu->configure(p).ok());
  for (int round = 0; round < 4; ++round) {
    const int w = round == 1 ? 40 : 33, h = round == 1 ? 20 : 27;
    if (round == 3) {
      gpu->reset();
      cpu = make_motion_detector(Backend::kCpu, &s);
      ASSERT_TRUE(cpu && cpu->configure(p).ok());
    }
    for (int t = 0; t < 12; ++t) {
      const HostImage f = motion_frame(PixelFormat::kNV12, w, h, 0, round == 3 ? t + 5 : t);
      HostImage cm(PixelFormat::kGRAY8, w, h), gm(PixelFormat::kGRAY8, w, h);
      const ImageView cmv = cm.view(), gmv = gm.view();
      MotionResult rc, rg;
      ASSERT_TRUE(cpu->process(f.view(), &cmv, nullptr, &rc, nullptr).ok());
      ASSERT_TRUE(gpu->process(f.view(), &gmv, nullptr, &rg, stream_).ok());
      ASSERT_TRUE(stream_synchronize(stream_).ok());
      ASSERT_EQ(packed(gm), packed(cm)) << "round " << round << " frame " << t;
      EXPECT_EQ(rg.frame, rc.frame);
      EXPECT_EQ(rg.blobs, rc.blobs);
    }
  }
}

} // namespace
} // namespace cvis::median3d
