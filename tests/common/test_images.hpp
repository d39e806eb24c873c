// Seeded test images for the algorithm tests and benchmarks: owned host images in any
// cvis::PixelFormat, with optional row padding, filled from reproducible generators.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/blob.hpp"
#include "common/image.hpp"

namespace cvis {
// How gtest prints a blob (found by argument-dependent lookup in namespace cvis).
inline void PrintTo(const Blob& b, std::ostream* os) {
  *os << "{" << b.x << "," << b.y << " " << b.width << "x" << b.height << " area " << b.area << "}";
}
}  // namespace cvis

namespace cvis::test {

// A host image that owns its planes. `pad` extra bytes are added to every row's pitch, and the
// padding is filled with a poison value so a reader that strays into it shows up in results.
class HostImage {
 public:
  HostImage() = default;
  HostImage(PixelFormat f, int width, int height, size_t pad = 0);
  // Move-only: the view points into the owned storage (a move keeps those buffers in place).
  HostImage(const HostImage&) = delete;
  HostImage& operator=(const HostImage&) = delete;
  HostImage(HostImage&&) = default;
  HostImage& operator=(HostImage&&) = default;
  ImageView view() const { return view_; }
  uint8_t* plane(int p) { return view_.data[p]; }
  size_t pitch(int p) const { return view_.pitch[p]; }
  int width() const { return view_.width; }
  int height() const { return view_.height; }
  PixelFormat format() const { return view_.format; }
  // Sets pixel (x, y) of a packed RGB or GRAY8 image (alpha 255 where there is one; GRAY8 takes r).
  void set_rgb(int x, int y, uint8_t r, uint8_t g, uint8_t b);
  // Copy into another format (packed RGB / GRAY8 targets: GRAY8 target takes the red channel;
  // alpha/padding bytes set to 255) and/or another padding.
  HostImage converted(PixelFormat f, size_t pad = 0) const;

 private:
  std::vector<uint8_t> storage_[3];
  ImageView view_;
};

enum class Pattern {
  kNoise,        // independent uniform bytes
  kSmoothNoise,  // low-frequency noise (block-wise random colours, bilinear)
  kGradient,     // hue / brightness ramps
  kStripes,      // stripes in 4 directions (horizontal, vertical, both diagonals)
  kChecker,      // checkerboard of random colours
  kGreyLevels,   // uniform grey patches, including the levels whose double luma falls below v
  kSolid,        // one random colour
};
const char* pattern_name(Pattern p);

// An RGBA image filled with `pattern` from `seed` (same seed, same bytes, on every machine).
HostImage make_rgba(Pattern pattern, int width, int height, uint32_t seed);

// Loads an 8-bit PNG as RGB (colour types gray, gray+alpha, RGB, RGBA; alpha kept as RGBA).
// Returns false with a message on failure.
bool load_png(const std::string& path, HostImage* out, std::string* error);

// Directory of the test data (tests/data): $CVIS_TESTDATA, else the path configured at build time.
std::string testdata_dir();

// True when the CUDA backend has a usable device. Tests call CVIS_REQUIRE_GPU() first: it skips
// the test without a GPU, unless CVIS_REQUIRE_GPU=1 is set in the environment (the GPU host's run),
// where a missing GPU is a failure.
bool gpu_available();
bool gpu_required();

// True when CVIS_SANITIZER=1: the run is under compute-sanitizer (scripts/gpu/run.sh sanitize),
// whose tools slow kernels down by 10x to 1000x. The gpu tests then take their small cases: every
// kernel and code path still runs, on few and small inputs.
bool sanitizer_run();

// True when sanitizer_run() and the tool is `tool` (scripts/gpu/run.sh sets CVIS_SANITIZER_TOOL):
// racecheck tracks every shared-memory access and is far slower than the other tools on
// shared-memory-heavy kernels, so some tests take a still smaller case under it.
bool sanitizer_tool(const char* tool);

// At most `n` elements of `v`, evenly spaced, the first and the last included (for picking the
// small cases of a sweep).
template <typename T>
std::vector<T> spread(const std::vector<T>& v, size_t n) {
  if (n == 0) return {};
  if (v.size() <= n) return v;
  std::vector<T> out;
  for (size_t i = 0; i < n; ++i) out.push_back(v[n == 1 ? 0 : i * (v.size() - 1) / (n - 1)]);
  return out;
}

}  // namespace cvis::test

#define CVIS_REQUIRE_GPU()                                                             \
  do {                                                                                 \
    if (!::cvis::test::gpu_available()) {                                              \
      if (::cvis::test::gpu_required()) FAIL() << "CVIS_REQUIRE_GPU=1 but no usable GPU"; \
      GTEST_SKIP() << "no usable CUDA device";                                         \
    }                                                                                  \
  } while (0)
