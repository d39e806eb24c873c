// A CPWL table in device memory (CUDA builds only): the arrays of cpwl::Table plus a 1-D CUDA array
// with a texture object (linear filtering, unnormalized coordinates, zero border) over the nodal
// values. Used by the CPWL evaluators and by the background subtraction backend.
#pragma once

#include <cuda_runtime_api.h>

#include "common/cuda/device_buffer.hpp"
#include "cpwl.hpp"

namespace cvis::cpwl {

class DeviceTable {
public:
  DeviceTable() = default;
  ~DeviceTable() { release(); }
  DeviceTable(const DeviceTable&) = delete;
  DeviceTable& operator=(const DeviceTable&) = delete;

  // Copies `t` (n >= 1; the analytic evaluators take no table) to the device in stream order on
  // `stream` (pinned staging, asynchronous copies: kernels enqueued on `stream` afterwards read
  // the new table) and builds the texture. The new table is built beside the current one and
  // replaces it only when every step succeeded: on an error the previous table stays in place.
  // The previous table's memory is freed in stream order (its texture array once `stream` has
  // reached this point). Errors: kInvalidArgument (n = 0, arrays that do not match n),
  // kOutOfMemory, kCudaError.
  Status upload(const Table& t, cudaStream_t stream);
  // Device pointers and the texture handle; valid until the next upload() or release().
  TableView view() const { return view_; }
  // Frees the table once `stream` has reached this point (nullptr: at once, nothing queued may
  // still read it).
  void release(cudaStream_t stream = nullptr);

private:
  struct Parts {
    cuda::DeviceArray<float> padded, slope, knots, inv_h;
    cudaArray_t array = nullptr;
    cudaTextureObject_t tex = 0;
    void destroy(cudaStream_t stream);
  };
  Status build(const Table& t, cudaStream_t stream, Parts* p, TableView* v);

  Parts parts_;
  TableView view_;
  cuda::PinnedArray<float> staging_; // host side of the copies
  cuda::Event copied_;               // after the last upload's copies out of staging_
  bool pending_ = false;
};

} // namespace cvis::cpwl
