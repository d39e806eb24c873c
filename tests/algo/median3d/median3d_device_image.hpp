// gpu-suite helper of the median3d tests: a device copy of a host image.
#pragma once

#include <cuda_runtime_api.h>

#include "common/image.hpp"
#include "test_images.hpp"

namespace cvis::median3d::test {

// A device copy of a host image (pitched planes); frees on destruction.
class DeviceImage {
public:
  explicit DeviceImage(const ImageView& host) : view_(host) {
    view_.space = MemorySpace::kDevice;
    for (int p = 0; p < plane_count(host.format); ++p) {
      const size_t row = plane_row_bytes(host.format, p, host.width);
      const size_t rows = plane_rows(host.format, p, host.height);
      void* d = nullptr;
      size_t pitch = 0;
      ok_ = ok_ && cudaMallocPitch(&d, &pitch, row, rows) == cudaSuccess;
      view_.data[p] = static_cast<uint8_t*>(d);
      view_.pitch[p] = pitch;
      ok_ = ok_ && cudaMemcpy2D(d, pitch, host.data[p], host.pitch[p], row, rows,
                                cudaMemcpyHostToDevice) == cudaSuccess;
    }
    // Pageable copies may return before their DMA ends, and the estimator reads the frame on a
    // non-blocking stream that does not wait for the legacy default stream.
    ok_ = ok_ && cudaDeviceSynchronize() == cudaSuccess;
  }
  ~DeviceImage() {
    for (int p = 0; p < 3; ++p) {
      if (view_.data[p])
        cudaFree(view_.data[p]);
    }
  }
  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;
  bool ok() const { return ok_; }
  const ImageView& view() const { return view_; }
  // Copies the device pixels back into `host` (same format and size).
  bool download(cvis::test::HostImage* host) const {
    for (int p = 0; p < plane_count(view_.format); ++p) {
      if (cudaMemcpy2D(host->plane(p), host->pitch(p), view_.data[p], view_.pitch[p],
                       plane_row_bytes(view_.format, p, view_.width),
                       plane_rows(view_.format, p, view_.height),
                       cudaMemcpyDeviceToHost) != cudaSuccess) {
        return false;
      }
    }
    return true;
  }

private:
  ImageView view_;
  bool ok_ = true;
};

} // namespace cvis::median3d::test
