// CUDA overlay backend: the primitives and their tile lists go to the device in one asynchronous
// copy from pinned memory, then the tint and tile kernels draw on the caller's stream. Device and
// pinned buffers grow when needed and are kept between frames (no per-frame allocation).
#include <cstring>
#include <memory>
#include <vector>

#include "common/cuda/device_buffer.hpp"
#include "common/cuda/upload.hpp"
#include "overlay_internal.hpp"
#include "overlay_kernels.hpp"

namespace cvis::overlay {
namespace {

size_t align_up(size_t n) {
  return (n + 255) & ~static_cast<size_t>(255);
}

class CudaDrawer final : public Drawer {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status configure(const Params& params) override {
    CVIS_RETURN_IF_ERROR(validate(params));
    params_ = params;
    return Status::Ok();
  }

  Status draw(const Scene& scene, const ImageView& frame, StreamHandle stream_handle) override {
    const cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    CVIS_RETURN_IF_ERROR(check_views(scene, frame));
    if (frame.space != MemorySpace::kDevice)
      return unsupported_format("overlay: the CUDA backend draws in device memory only");
    const Target t = make_target(frame);
    if (scene.mask && params_.mask_alpha > 0) {
      ImageView mask;
      if (!mask_upload_)
        mask_upload_ = std::make_unique<cuda::HostUploader>();
      CVIS_RETURN_IF_ERROR(mask_upload_->upload(*scene.mask, stream, &mask));
      CVIS_RETURN_IF_ERROR(
          kernels::launch_tint(t, mask.data[0], mask.pitch[0], make_tint(params_, frame), stream));
    }
    CVIS_RETURN_IF_ERROR(build_primitives(scene, params_, frame, &prims_));
    if (prims_.empty())
      return Status::Ok();
    bin_primitives(prims_, frame.width, frame.height, &counts_, &tiles_, &ids_);

    // One block of [prims | tiles | ids], each part 256-byte aligned.
    const size_t prim_bytes = prims_.size() * sizeof(Prim);
    const size_t tile_bytes = tiles_.size() * sizeof(TileRef);
    const size_t id_bytes = ids_.size() * sizeof(int32_t);
    const size_t tiles_at = align_up(prim_bytes), ids_at = tiles_at + align_up(tile_bytes);
    const size_t total = ids_at + id_bytes;
    CVIS_RETURN_IF_ERROR(copied_.create());
    if (pending_) {
      // The previous frame's copy may still read the pinned block.
      CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(copied_.get()));
      pending_ = false;
    }
    CVIS_RETURN_IF_ERROR(host_.reserve(total));
    CVIS_RETURN_IF_ERROR(device_.reserve(total));
    std::memcpy(host_.get(), prims_.data(), prim_bytes);
    std::memcpy(host_.get() + tiles_at, tiles_.data(), tile_bytes);
    std::memcpy(host_.get() + ids_at, ids_.data(), id_bytes);
    CVIS_CUDA_CHECK(
        cudaMemcpyAsync(device_.get(), host_.get(), total, cudaMemcpyHostToDevice, stream));
    CVIS_CUDA_CHECK(cudaEventRecord(copied_.get(), stream));
    pending_ = true;
    const uint8_t* d = device_.get();
    return kernels::launch_tiles(
        t, reinterpret_cast<const Prim*>(d), reinterpret_cast<const TileRef*>(d + tiles_at),
        static_cast<int>(tiles_.size()), reinterpret_cast<const int32_t*>(d + ids_at), stream);
  }

  void release() override {
    if (pending_)
      cudaEventSynchronize(copied_.get());
    pending_ = false;
    device_.release();
    host_.release();
    mask_upload_.reset();
  }

private:
  Params params_;
  std::vector<Prim> prims_;
  std::vector<int32_t> counts_, ids_;
  std::vector<TileRef> tiles_;
  cuda::DeviceArray<uint8_t> device_;
  cuda::PinnedArray<uint8_t> host_;
  cuda::Event copied_;
  bool pending_ = false;
  std::unique_ptr<cuda::HostUploader> mask_upload_; // host masks only
};

} // namespace

std::unique_ptr<Drawer> make_cuda_drawer() {
  return std::make_unique<CudaDrawer>();
}

} // namespace cvis::overlay
