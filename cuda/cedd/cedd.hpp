// CEDD: Color and Edge Directivity Descriptor (Chatzichristofis & Boutalis, ICVS 2008), computed
// bit-exactly as LIRE's CEDD class (specification: shared notes cedd.md; see README.md here), with
// the GPU-only and hybrid CPU/GPU strategies of Bampis et al., "Real-time indexing for large image
// databases: color and edge directivity descriptor on GPU", J. Supercomputing 2015.
//
// Input: any cvis::PixelFormat. Packed RGB and GRAY8 are exact with LIRE (GRAY8 as R = G = B; alpha
// composited over black, cuda/common/color.hpp). NV12/I420 are converted to RGB with the view's
// colorimetry first, so YUV input cannot be bit-exact with LIRE (which only defines 8-bit RGB).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/backend.hpp"
#include "common/image.hpp"
#include "common/status.hpp"

namespace cvis::cedd {

inline constexpr int kBins = 144;

// The descriptor: 144 quantised levels, each 0..7, in LIRE's bin order.
using Levels = std::array<uint8_t, kBins>;

struct Result {
  Levels levels{};
  // The normalised histogram before quantisation (spec section 9). Bit-identical between backends
  // and with LIRE for RGB input (both sum in LIRE's order).
  std::array<double, kBins> normalized{};
};

// A rectangle of the image, in pixels. Must lie inside the image.
struct Region {
  int x = 0, y = 0, w = 0, h = 0;
};

enum class Mode : int {
  kGpuOnly = 0,  // every stage on the GPU (paper Sect. 4.2)
  kHybrid = 1,   // block sums on the CPU, fuzzy stages on the GPU, pipelined over the frames of a
                 // describe_batch() call (paper Sect. 4.3). Device inputs are downloaded first.
};

struct Params {
  Mode mode = Mode::kGpuOnly;  // CUDA backend only; the CPU backend ignores it
  int cpu_threads = 0;         // CPU work (CPU backend, hybrid block sums): 0 = all cores
};

// Block grid of a W x H image (spec section 2).
struct BlockLayout {
  int nx = 0, ny = 0;  // blocks per row / column (0 when W < 2 or H < 2)
  int sx = 0, sy = 0;  // block width / height in pixels (even, >= 2)
};
BlockLayout block_layout(int width, int height);

class Extractor {
 public:
  virtual ~Extractor() = default;

  virtual Backend backend() const = 0;

  // Errors: kInvalidArgument for bad values. May be called between frames.
  virtual Status configure(const Params& params) = 0;

  // Describes `n` regions of `image` into out[0..n-1]; regions == nullptr means the whole image
  // (then n must be 1). `image` may live on the host or (CUDA backend only) the device; the CUDA
  // backend uploads host images itself. All work is finished when the call returns (results are on
  // the host); `stream` is the CUDA stream to work on (ignored by the CPU backend).
  // Errors: kInvalidArgument (bad view, region outside the image, n < 1), kUnsupportedFormat (device
  // view given to the CPU backend), kCudaError / kOutOfMemory.
  virtual Status describe(const ImageView& image, const Region* regions, int n, Result* out,
                          StreamHandle stream) = 0;

  // Describes `n` whole images (sizes may differ) into out[0..n-1], batching GPU launches so that
  // small images fill the device. Same errors as describe().
  virtual Status describe_batch(const ImageView* images, int n, Result* out, StreamHandle stream) = 0;
};

// `backend` must be kCpu or kCuda (resolve kAuto with cvis::resolve_backend first). Returns nullptr
// and sets *status (kNoDevice) when the CUDA backend is not in this build.
std::unique_ptr<Extractor> make_extractor(Backend backend, Status* status);

// Per-block intermediate values of the CPU reference, for debugging against the reference's
// debug_blocks_*.tsv files (spec section 15). Host images only.
struct BlockDebug {
  int x0 = 0, y0 = 0;
  int area[4] = {0, 0, 0, 0};  // quadrant values A1..A4
  double max_mask = 0.0;
  uint8_t classes = 0;  // bit k set: texture class k
  int mean_r = 0, mean_g = 0, mean_b = 0;
  int h = 0, s = 0, v = 0;
  std::array<double, 10> fuzzy10{};
};
Status describe_blocks_cpu(const ImageView& image, std::vector<BlockDebug>* blocks);

}  // namespace cvis::cedd
