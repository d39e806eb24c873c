#include "test_images.hpp"

#include <png.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "common/backend.hpp"

namespace cvis::test {

namespace {
constexpr uint8_t kPoison = 0xA5;
}

HostImage::HostImage(PixelFormat f, int width, int height, size_t pad) {
  view_.format = f;
  view_.space = MemorySpace::kHost;
  view_.width = width;
  view_.height = height;
  for (int p = 0; p < plane_count(f); ++p) {
    const size_t pitch = plane_row_bytes(f, p, width) + pad;
    const size_t rows = static_cast<size_t>(plane_rows(f, p, height));
    storage_[p].assign(pitch * rows, kPoison);
    view_.data[p] = storage_[p].data();
    view_.pitch[p] = pitch;
  }
}

void HostImage::set_rgb(int x, int y, uint8_t r, uint8_t g, uint8_t b) {
  const PackedLayout l = packed_layout(view_.format);
  uint8_t* px = view_.data[0] + static_cast<size_t>(y) * view_.pitch[0] +
                static_cast<size_t>(x) * l.bytes_per_pixel;
  if (view_.format == PixelFormat::kGRAY8) {
    px[0] = r;
    return;
  }
  for (int i = 0; i < l.bytes_per_pixel; ++i) px[i] = 255;
  px[l.r] = r;
  px[l.g] = g;
  px[l.b] = b;
}

HostImage HostImage::converted(PixelFormat f, size_t pad) const {
  HostImage out(f, width(), height(), pad);
  const PackedLayout src = packed_layout(format());
  const PackedLayout dst = packed_layout(f);
  for (int y = 0; y < height(); ++y) {
    for (int x = 0; x < width(); ++x) {
      const uint8_t* s = view_.data[0] + static_cast<size_t>(y) * view_.pitch[0] +
                         static_cast<size_t>(x) * src.bytes_per_pixel;
      uint8_t* d = out.view_.data[0] + static_cast<size_t>(y) * out.view_.pitch[0] +
                   static_cast<size_t>(x) * dst.bytes_per_pixel;
      for (int i = 0; i < dst.bytes_per_pixel; ++i) d[i] = 255;
      d[dst.r] = s[src.r];
      if (f != PixelFormat::kGRAY8) {
        d[dst.g] = s[src.g];
        d[dst.b] = s[src.b];
        if (dst.a >= 0 && src.a >= 0) d[dst.a] = s[src.a];
      }
    }
  }
  return out;
}

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::kNoise: return "noise";
    case Pattern::kSmoothNoise: return "smooth-noise";
    case Pattern::kGradient: return "gradient";
    case Pattern::kStripes: return "stripes";
    case Pattern::kChecker: return "checker";
    case Pattern::kGreyLevels: return "grey-levels";
    case Pattern::kSolid: return "solid";
  }
  return "?";
}

HostImage make_rgba(Pattern pattern, int width, int height, uint32_t seed) {
  HostImage img(PixelFormat::kRGBA, width, height);
  std::mt19937 rng(seed);
  auto byte = [&rng]() { return static_cast<uint8_t>(rng() & 0xFF); };
  switch (pattern) {
    case Pattern::kNoise:
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) img.set_rgb(x, y, byte(), byte(), byte());
      break;
    case Pattern::kSmoothNoise: {
      const int cell = 8 + static_cast<int>(rng() % 24);
      const int gw = width / cell + 2, gh = height / cell + 2;
      std::vector<uint8_t> grid(static_cast<size_t>(gw) * gh * 3);
      for (auto& v : grid) v = byte();
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          const int gx = x / cell, gy = y / cell;
          const int fx = x % cell, fy = y % cell;
          uint8_t c[3];
          for (int k = 0; k < 3; ++k) {
            auto at = [&](int i, int j) { return grid[(static_cast<size_t>(j) * gw + i) * 3 + k]; };
            const int top = at(gx, gy) * (cell - fx) + at(gx + 1, gy) * fx;
            const int bot = at(gx, gy + 1) * (cell - fx) + at(gx + 1, gy + 1) * fx;
            c[k] = static_cast<uint8_t>((top * (cell - fy) + bot * fy) / (cell * cell));
          }
          img.set_rgb(x, y, c[0], c[1], c[2]);
        }
      break;
    }
    case Pattern::kGradient: {
      const int phase = static_cast<int>(rng() % 256);
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          const int h = (x * 256 / width + phase) % 256;
          const int v = 255 - y * 200 / (height > 1 ? height : 1);
          img.set_rgb(x, y, static_cast<uint8_t>(h * v / 255),
                      static_cast<uint8_t>((255 - h) * v / 255), static_cast<uint8_t>(v));
        }
      break;
    }
    case Pattern::kStripes: {
      const int period = 4 + static_cast<int>(rng() % 12);
      uint8_t a[3] = {byte(), byte(), byte()}, b[3] = {byte(), byte(), byte()};
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          const int quad = (x * 2 / width) + 2 * (y * 2 / height);
          const int t = quad == 0 ? y : quad == 1 ? x : quad == 2 ? x + y : x - y + 4096;
          const uint8_t* c = ((t / period) & 1) ? a : b;
          img.set_rgb(x, y, c[0], c[1], c[2]);
        }
      break;
    }
    case Pattern::kChecker: {
      const int cell = 1 + static_cast<int>(rng() % 16);
      uint8_t a[3] = {byte(), byte(), byte()}, b[3] = {byte(), byte(), byte()};
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          const uint8_t* c = (((x / cell) + (y / cell)) & 1) ? a : b;
          img.set_rgb(x, y, c[0], c[1], c[2]);
        }
      break;
    }
    case Pattern::kGreyLevels: {
      // Includes the 16 grey levels whose double-precision luma lies just below v (spec section 3).
      static const uint8_t special[] = {23, 46, 57, 59, 92, 114, 118, 127, 184, 205, 223, 228, 236, 241, 249, 254};
      const int cell = 2 + static_cast<int>(rng() % 30);
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          const uint32_t h = static_cast<uint32_t>((x / cell) * 7919 + (y / cell) * 104729) ^ seed;
          const uint8_t v = (h % 3 == 0) ? static_cast<uint8_t>(h >> 3) : special[(h >> 2) % 16];
          img.set_rgb(x, y, v, v, v);
        }
      break;
    }
    case Pattern::kSolid: {
      const uint8_t r = byte(), g = byte(), b = byte();
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) img.set_rgb(x, y, r, g, b);
      break;
    }
  }
  return img;
}

bool load_png(const std::string& path, HostImage* out, std::string* error) {
  png_image im;
  std::memset(&im, 0, sizeof im);
  im.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&im, path.c_str())) {
    *error = path + ": " + im.message;
    return false;
  }
  const bool alpha = (im.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  im.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
  HostImage img(alpha ? PixelFormat::kRGBA : PixelFormat::kRGB, static_cast<int>(im.width),
                static_cast<int>(im.height));
  // No colour-space conversion: raw sample values, as the reference decodes them.
  if (!png_image_finish_read(&im, nullptr, img.plane(0), static_cast<png_int_32>(img.pitch(0)), nullptr)) {
    *error = path + ": " + im.message;
    png_image_free(&im);
    return false;
  }
  *out = std::move(img);
  return true;
}

std::string testdata_dir() {
  if (const char* e = std::getenv("CVIS_TESTDATA")) return e;
  return CVIS_TESTDATA_DEFAULT;
}

bool gpu_available() { return cvis::cuda_device_count() > 0; }

bool gpu_required() {
  const char* e = std::getenv("CVIS_REQUIRE_GPU");
  return e != nullptr && std::strcmp(e, "1") == 0;
}

bool sanitizer_run() {
  const char* e = std::getenv("CVIS_SANITIZER");
  return e != nullptr && std::strcmp(e, "1") == 0;
}

bool sanitizer_tool(const char* tool) {
  const char* e = std::getenv("CVIS_SANITIZER_TOOL");
  return sanitizer_run() && e != nullptr && std::strcmp(e, tool) == 0;
}

}  // namespace cvis::test
