#include "upload.hpp"

#include <cstring>

namespace cvis::cuda {

Status HostUploader::upload(const ImageView& host, cudaStream_t stream, ImageView* device) {
  if (host.space == MemorySpace::kDevice) {
    *device = host;
    return Status::Ok();
  }
  CVIS_RETURN_IF_ERROR(validate_view(host, "upload"));
  const int np = plane_count(host.format);
  size_t total = 0;
  size_t offset[3] = {0, 0, 0};
  for (int p = 0; p < np; ++p) {
    offset[p] = total;
    total += plane_row_bytes(host.format, p, host.width) *
             static_cast<size_t>(plane_rows(host.format, p, host.height));
  }
  CVIS_RETURN_IF_ERROR(copied_.create());
  if (pending_) {
    // The previous asynchronous copy may still read the staging buffer.
    CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(copied_.get()));
    pending_ = false;
  }
  CVIS_RETURN_IF_ERROR(staging_.reserve(total));
  *device = host;
  device->space = MemorySpace::kDevice;
  for (int p = 0; p < np; ++p) {
    const size_t row = plane_row_bytes(host.format, p, host.width);
    const size_t rows = static_cast<size_t>(plane_rows(host.format, p, host.height));
    uint8_t* dst = staging_.get() + offset[p];
    for (size_t r = 0; r < rows; ++r)
      std::memcpy(dst + r * row, host.data[p] + r * host.pitch[p], row);
    CVIS_RETURN_IF_ERROR(planes_[p].reserve(row, rows, stream));
    CVIS_CUDA_CHECK(cudaMemcpy2DAsync(planes_[p].get(), planes_[p].pitch(), dst, row, row, rows,
                                      cudaMemcpyHostToDevice, stream));
    device->data[p] = planes_[p].get();
    device->pitch[p] = planes_[p].pitch();
  }
  CVIS_CUDA_CHECK(cudaEventRecord(copied_.get(), stream));
  pending_ = true;
  return Status::Ok();
}

Status HostUploader::reserve(PixelFormat format, int width, int height) {
  size_t total = 0;
  for (int p = 0; p < plane_count(format); ++p) {
    const size_t row = plane_row_bytes(format, p, width);
    const size_t rows = static_cast<size_t>(plane_rows(format, p, height));
    total += row * rows;
    CVIS_RETURN_IF_ERROR(planes_[p].reserve(row, rows));
  }
  if (pending_) {
    // Growing the staging buffer frees the old one, which a copy may still read.
    CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(copied_.get()));
    pending_ = false;
  }
  return staging_.reserve(total);
}

} // namespace cvis::cuda
