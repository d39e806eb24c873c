// Helpers for the CEDD algorithm tests: the reference's test vectors, a literal transcription of
// the specification (an independent oracle for sizes and layouts the test vectors do not cover),
// seeded images in every format, and bit-exact comparison of results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cedd/cedd.hpp"
#include "test_images.hpp"

namespace cvis::cedd::test {

using cvis::test::HostImage;
using cvis::test::Pattern;

// One row of expected.tsv joined with expected_normalized.tsv (tests/data/cedd).
struct Expected {
  std::string file;
  int width = 0, height = 0;
  Levels levels{};
  std::array<double, kBins> normalized{};
};
// Reads the test vectors; false with a message when a file is missing or malformed.
bool load_expected(std::vector<Expected>* out, std::string* error);

// One line of debug_blocks_<image>.tsv.
struct ExpectedBlock {
  int x0, y0;
  int area[4];
  double max_mask;
  uint8_t classes; // bit k: class k
  int r, g, b, h, s, v;
  double fuzzy10[10];
};
bool load_debug_blocks(const std::string& image_stem, std::vector<ExpectedBlock>* out,
                       std::string* error);

// CEDD transcribed literally from the specification, one plain loop nest, plain C++ expressions
// (compiled without FP contraction), its own constant tables; shares no arithmetic with the
// library. Pixels via cvis::fetch_rgb. An image without blocks gives 144 zeros and 0.0 bins.
Result literal_cedd(const ImageView& image);

// Exact comparison: levels equal and normalised doubles bit-identical. Describes the first
// difference in *why.
bool same_result(const Result& a, const Result& b, std::string* why);

// An image in `format` (any cvis::PixelFormat) with `pad` bytes of row padding. Packed RGB and
// GRAY8 come from make_rgba(pattern) (GRAY8 takes the red channel); with `random_alpha`, formats
// with alpha get seeded alpha values. YUV planes take bytes of the pattern's channels (Y = R, U =
// G, V = B subsampled); set the colorimetry on the view passed to the extractor.
HostImage make_image(PixelFormat format, Pattern pattern, int width, int height, uint32_t seed,
                     size_t pad, bool random_alpha);

// "RGBA 333x211 pad 3" (for failure messages).
std::string image_name(const ImageView& v);

} // namespace cvis::cedd::test
