// CUDA search: the set's rows in device chunks (cedd_search_kernels.hpp), appended through pinned
// staging and a conversion kernel; a search is two launches (scan, merge) and one small copy back.
// Everything runs on the caller's stream and is finished when a call returns.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "cedd/cedd_search_internal.hpp"
#include "cedd/cedd_search_kernels.hpp"
#include "common/cuda/check.hpp"
#include "common/cuda/device_buffer.hpp"

namespace cvis::cedd::search {
namespace {

// Rows staged per upload of append().
constexpr size_t kStageRows = 1 << 18;
// Bytes of device memory per row: 27 halfwords, norms, id.
constexpr size_t kRowBytes = 2 * kHalfwords + 4 + 8;

class CudaSet final : public DescriptorSet {
public:
  Backend backend() const override { return Backend::kCuda; }

  Status configure(const SearchParams& params) override {
    const uint32_t c = params.chunk_rows;
    if (c < 64 || c > (1u << 30) || (c & (c - 1)) != 0)
      return invalid_argument("cedd search: chunk_rows must be a power of two in 64..2^30");
    if (c != params_.chunk_rows && !chunks_.empty())
      return invalid_argument("cedd search: chunk_rows cannot change once rows were added");
    params_ = params;
    return Status::Ok();
  }

  Status append(const uint8_t* packed, const int64_t* ids, size_t n, StreamHandle stream) override {
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    CVIS_RETURN_IF_ERROR(grow(size_ + n, s));
    CVIS_RETURN_IF_ERROR(stage_packed_.reserve(kStageRows * kPackedBytes));
    CVIS_RETURN_IF_ERROR(stage_ids_.reserve(kStageRows));
    CVIS_RETURN_IF_ERROR(dev_packed_.reserve(kStageRows * kPackedBytes, s));
    CVIS_RETURN_IF_ERROR(dev_ids_.reserve(kStageRows, s));
    CVIS_RETURN_IF_ERROR(done_.create());
    for (size_t off = 0; off < n; off += kStageRows) {
      const size_t m = std::min(kStageRows, n - off);
      std::memcpy(stage_packed_.get(), packed + off * kPackedBytes, m * kPackedBytes);
      std::memcpy(stage_ids_.get(), ids + off, m * sizeof(int64_t));
      CVIS_CUDA_CHECK(cudaMemcpyAsync(dev_packed_.get(), stage_packed_.get(), m * kPackedBytes,
                                      cudaMemcpyHostToDevice, s));
      CVIS_CUDA_CHECK(cudaMemcpyAsync(dev_ids_.get(), stage_ids_.get(), m * sizeof(int64_t),
                                      cudaMemcpyHostToDevice, s));
      CVIS_RETURN_IF_ERROR(kernels::launch_append(dev_packed_.get(), dev_ids_.get(),
                                                  static_cast<uint32_t>(m), size_ + off,
                                                  table_.get(), shift(), s));
      // The staging buffers are reused for the next piece: wait for these copies.
      CVIS_CUDA_CHECK(cudaEventRecord(done_.get(), s));
      CVIS_RETURN_IF_ERROR(cuda::event_wait(done_.get()));
    }
    size_ += n;
    return Status::Ok();
  }

  Status search(const uint8_t* query_levels, int k, std::vector<SearchHit>* hits,
                StreamHandle stream) override {
    CVIS_RETURN_IF_ERROR(check_k(k));
    hits->clear();
    if (size_ == 0)
      return Status::Ok();
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    uint8_t packed[kPackedBytes];
    pack_levels(query_levels, packed);
    uint16_t h[kHalfwords];
    uint32_t norms = 0;
    planes_from_packed(packed, h, &norms);
    kernels::Query q;
    words_of(h, &q.planes);
    q.tb = norms & 0xffffu;
    q.bb = norms >> 16;
    if (k != occupancy_k_) {
      CVIS_RETURN_IF_ERROR(kernels::scan_blocks_per_device(k, &device_blocks_));
      occupancy_k_ = k;
    }
    const uint64_t tiles = (size_ + kernels::kBlock * kernels::kRowsPerThread - 1) /
                           (kernels::kBlock * kernels::kRowsPerThread);
    const int blocks = static_cast<int>(std::min<uint64_t>(tiles, device_blocks_));
    const size_t parts = static_cast<size_t>(blocks) * k;
    CVIS_RETURN_IF_ERROR(part_sim_.reserve(parts, s));
    CVIS_RETURN_IF_ERROR(part_id_.reserve(parts, s));
    CVIS_RETURN_IF_ERROR(part_n_.reserve(static_cast<size_t>(blocks), s));
    CVIS_RETURN_IF_ERROR(out_sim_.reserve(kMaxSearchK, s));
    CVIS_RETURN_IF_ERROR(out_id_.reserve(kMaxSearchK, s));
    CVIS_RETURN_IF_ERROR(out_n_.reserve(1, s));
    CVIS_RETURN_IF_ERROR(host_sim_.reserve(kMaxSearchK));
    CVIS_RETURN_IF_ERROR(host_id_.reserve(kMaxSearchK));
    CVIS_RETURN_IF_ERROR(host_n_.reserve(1));
    CVIS_RETURN_IF_ERROR(done_.create());
    CVIS_RETURN_IF_ERROR(kernels::launch_scan(table_.get(), shift(), size_, q, k, blocks,
                                              part_sim_.get(), part_id_.get(), part_n_.get(), s));
    CVIS_RETURN_IF_ERROR(kernels::launch_merge(part_sim_.get(), part_id_.get(), part_n_.get(),
                                               blocks, k, out_sim_.get(), out_id_.get(),
                                               out_n_.get(), s));
    // The list holds min(k, rows) entries: every row enters while fewer than k are kept.
    const size_t m = std::min<size_t>(static_cast<size_t>(k), size_);
    CVIS_CUDA_CHECK(
        cudaMemcpyAsync(host_n_.get(), out_n_.get(), sizeof(int), cudaMemcpyDeviceToHost, s));
    CVIS_CUDA_CHECK(cudaMemcpyAsync(host_sim_.get(), out_sim_.get(), m * sizeof(double),
                                    cudaMemcpyDeviceToHost, s));
    CVIS_CUDA_CHECK(cudaMemcpyAsync(host_id_.get(), out_id_.get(), m * sizeof(int64_t),
                                    cudaMemcpyDeviceToHost, s));
    CVIS_CUDA_CHECK(cudaEventRecord(done_.get(), s));
    CVIS_RETURN_IF_ERROR(cuda::event_wait(done_.get()));
    const int n = std::min(*host_n_.get(), static_cast<int>(m));
    for (int i = 0; i < n; ++i)
      hits->push_back({host_id_.get()[i], host_sim_.get()[i]});
    return Status::Ok();
  }

  size_t size() const override { return size_; }
  void clear() override { size_ = 0; }

private:
  int shift() const {
    int s = 0;
    while ((1u << s) < params_.chunk_rows)
      ++s;
    return s;
  }

  // Chunks for `rows` rows, and the device table listing them.
  Status grow(size_t rows, cudaStream_t s) {
    const size_t c = params_.chunk_rows;
    const size_t need = (rows + c - 1) / c;
    if (need <= chunks_.size())
      return Status::Ok();
    while (chunks_.size() < need) {
      cuda::DeviceArray<uint8_t> mem;
      CVIS_RETURN_IF_ERROR(mem.reserve(c * kRowBytes, s));
      uint8_t* base = mem.get();
      kernels::Chunk ch;
      ch.planes = reinterpret_cast<uint16_t*>(base);
      ch.norms = reinterpret_cast<uint32_t*>(base + 2 * kHalfwords * c);
      ch.ids = reinterpret_cast<int64_t*>(base + (2 * kHalfwords + 4) * c);
      host_table_.push_back(ch);
      chunks_.push_back(std::move(mem));
    }
    CVIS_RETURN_IF_ERROR(table_.reserve(host_table_.size(), s));
    CVIS_RETURN_IF_ERROR(table_stage_.reserve(host_table_.size()));
    CVIS_RETURN_IF_ERROR(done_.create());
    std::memcpy(table_stage_.get(), host_table_.data(),
                host_table_.size() * sizeof(kernels::Chunk));
    CVIS_CUDA_CHECK(cudaMemcpyAsync(table_.get(), table_stage_.get(),
                                    host_table_.size() * sizeof(kernels::Chunk),
                                    cudaMemcpyHostToDevice, s));
    CVIS_CUDA_CHECK(cudaEventRecord(done_.get(), s));
    return cuda::event_wait(done_.get());
  }

  SearchParams params_;
  size_t size_ = 0;
  std::vector<cuda::DeviceArray<uint8_t>> chunks_;
  std::vector<kernels::Chunk> host_table_;
  cuda::DeviceArray<kernels::Chunk> table_;
  cuda::PinnedArray<kernels::Chunk> table_stage_;
  cuda::PinnedArray<uint8_t> stage_packed_;
  cuda::PinnedArray<int64_t> stage_ids_;
  cuda::DeviceArray<uint8_t> dev_packed_;
  cuda::DeviceArray<int64_t> dev_ids_;
  cuda::DeviceArray<double> part_sim_, out_sim_;
  cuda::DeviceArray<int64_t> part_id_, out_id_;
  cuda::DeviceArray<int> part_n_, out_n_;
  cuda::PinnedArray<double> host_sim_;
  cuda::PinnedArray<int64_t> host_id_;
  cuda::PinnedArray<int> host_n_;
  cuda::Event done_;
  int occupancy_k_ = 0, device_blocks_ = 1;
};

} // namespace

std::unique_ptr<DescriptorSet> make_cuda_set() {
  return std::make_unique<CudaSet>();
}

} // namespace cvis::cedd::search
