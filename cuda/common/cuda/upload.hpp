// Upload of host (system-memory) images for the CUDA backends: the frame is copied into pinned
// staging memory, then copied asynchronously to a pitched device buffer on the caller's stream.
#pragma once

#include <cuda_runtime_api.h>

#include "../image.hpp"
#include "device_buffer.hpp"

namespace cvis::cuda {

class HostUploader {
public:
  // Makes `*device` a device view holding the pixels of `host` (any format). The device buffer is
  // reused across calls (grown in stream order on `stream`) and stays valid until the next upload()
  // or the uploader's destruction; work that reads it must be enqueued on `stream`. The staging
  // buffer is reused only after the previous copy finished (an event guards it), so back-to-back
  // calls are safe without a caller sync. Host views pass through unchanged if they are already
  // device views.
  Status upload(const ImageView& host, cudaStream_t stream, ImageView* device);
  // Allocates the staging and device buffers for images of this format and size now (with no
  // stream: usable on every stream), so that uploading such images later does not allocate.
  Status reserve(PixelFormat format, int width, int height);

private:
  PinnedArray<uint8_t> staging_;
  PitchedBuffer planes_[3];
  Event copied_;
  bool pending_ = false;
};

} // namespace cvis::cuda
