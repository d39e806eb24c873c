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

  // Copies `t` to the device (synchronously: tables change only on configuration) and builds the
  // texture. Replaces any previous table.
  Status upload(const Table& t);
  // Device pointers and the texture handle; valid until the next upload() or release().
  TableView view() const { return view_; }
  void release();

private:
  cuda::DeviceArray<float> padded_, slope_, knots_, inv_h_;
  cudaArray_t array_ = nullptr;
  cudaTextureObject_t tex_ = 0;
  TableView view_;
};

} // namespace cvis::cpwl
