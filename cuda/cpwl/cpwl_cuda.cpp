// CPWL on the GPU: device tables, the parity entry point and the Table I timing.
#include "cpwl_cuda.hpp"

#include <cstring>
#include <vector>

#include "common/backend.hpp"
#include "cpwl_kernels.hpp"

namespace cvis::cpwl {

namespace {

template <typename T> Status copy_to_device(const std::vector<T>& host, cuda::DeviceArray<T>* dev) {
  if (host.empty())
    return Status::Ok();
  CVIS_RETURN_IF_ERROR(dev->reserve(host.size()));
  CVIS_CUDA_CHECK(
      cudaMemcpy(dev->get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return Status::Ok();
}

Status require_device() {
  if (cuda_device_count() <= 0)
    return Status(StatusCode::kNoDevice, cuda_device_description(0));
  return Status::Ok();
}

} // namespace

void DeviceTable::release() {
  if (tex_)
    cudaDestroyTextureObject(tex_);
  if (array_)
    cudaFreeArray(array_);
  tex_ = 0;
  array_ = nullptr;
  padded_.release();
  slope_.release();
  knots_.release();
  inv_h_.release();
  view_ = TableView();
}

Status DeviceTable::upload(const Table& t) {
  release();
  // The analytic evaluators take an empty table (n = 0): nothing to copy, no texture (building one
  // would read the host array at padded.data() + 1, past an empty vector).
  if (t.n <= 0) {
    view_ = t.view();
    view_.values = view_.slope = view_.knots = view_.inv_h = nullptr;
    return Status::Ok();
  }
  if (t.padded.size() != static_cast<size_t>(t.n) + 4 ||
      t.slope.size() != 2 * (static_cast<size_t>(t.n) + 3)) {
    return invalid_argument("DeviceTable::upload: table arrays do not match n");
  }
  CVIS_RETURN_IF_ERROR(copy_to_device(t.padded, &padded_));
  CVIS_RETURN_IF_ERROR(copy_to_device(t.slope, &slope_));
  CVIS_RETURN_IF_ERROR(copy_to_device(t.knots, &knots_));
  CVIS_RETURN_IF_ERROR(copy_to_device(t.inv_h, &inv_h_));

  // The texture holds the n + 1 nodal values only; the border (address mode) supplies the zeros
  // that the padded layout stores explicitly.
  const size_t texels = static_cast<size_t>(t.n) + 1;
  cudaChannelFormatDesc ch = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  CVIS_CUDA_CHECK(cudaMallocArray(&array_, &ch, texels, 0));
  CVIS_CUDA_CHECK(cudaMemcpy2DToArray(array_, 0, 0, t.padded.data() + 1, texels * sizeof(float),
                                      texels * sizeof(float), 1, cudaMemcpyHostToDevice));
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array_;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof(td));
  td.addressMode[0] = cudaAddressModeBorder;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  td.borderColor[0] = td.borderColor[1] = td.borderColor[2] = td.borderColor[3] = 0.0f;
  CVIS_CUDA_CHECK(cudaCreateTextureObject(&tex_, &res, &td, nullptr));

  view_ = t.view();
  view_.values = padded_.get();
  view_.slope = slope_.get();
  view_.knots = t.knots.empty() ? nullptr : knots_.get();
  view_.inv_h = t.inv_h.empty() ? nullptr : inv_h_.get();
  view_.texture = static_cast<uint64_t>(tex_);
  return Status::Ok();
}

Status evaluate_gpu(Evaluator e, const Table& table, const float* x, int count, float* out) {
  CVIS_RETURN_IF_ERROR(require_device());
  if (evaluator_uses_table(e) && evaluator_partition(e) != table.partition) {
    return invalid_argument(std::string("evaluate_gpu: ") + evaluator_name(e) +
                            " needs a table on the " + partition_name(evaluator_partition(e)) +
                            " partition");
  }
  if (count <= 0)
    return Status::Ok();
  DeviceTable dt;
  CVIS_RETURN_IF_ERROR(dt.upload(table));
  cuda::DeviceArray<float> dx, dout;
  CVIS_RETURN_IF_ERROR(dx.reserve(count));
  CVIS_RETURN_IF_ERROR(dout.reserve(count));
  CVIS_CUDA_CHECK(cudaMemcpy(dx.get(), x, sizeof(float) * count, cudaMemcpyHostToDevice));
  CVIS_RETURN_IF_ERROR(kernels::launch_evaluate(static_cast<int>(e), dt.view(), dx.get(), count,
                                                dout.get(), nullptr));
  CVIS_CUDA_CHECK(cudaMemcpy(out, dout.get(), sizeof(float) * count, cudaMemcpyDeviceToHost));
  return Status::Ok();
}

Status benchmark_gpu(int e, const Table& table, int evals_per_thread, int repeats, GpuTiming* out) {
  CVIS_RETURN_IF_ERROR(require_device());
  if (e >= 0 && evaluator_uses_table(static_cast<Evaluator>(e)) &&
      evaluator_partition(static_cast<Evaluator>(e)) != table.partition) {
    return invalid_argument("benchmark_gpu: table partition does not match the evaluator");
  }
  if (evals_per_thread < 1 || repeats < 1)
    return invalid_argument("benchmark_gpu: bad sizes");
  int dev = 0;
  CVIS_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CVIS_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  int per_sm = 0;
  CVIS_RETURN_IF_ERROR(kernels::bench_occupancy(e, table.pow2 ? table.pow2 : 16, &per_sm));
  // Four full waves at the occupancy every variant is compiled for.
  const int blocks = prop.multiProcessorCount * kernels::kBenchMinBlocks * 4;
  const size_t threads = static_cast<size_t>(blocks) * kernels::kBlock;

  DeviceTable dt;
  CVIS_RETURN_IF_ERROR(dt.upload(table));
  cuda::DeviceArray<float> dout;
  CVIS_RETURN_IF_ERROR(dout.reserve(threads));
  cuda::Event start, stop;
  CVIS_RETURN_IF_ERROR(start.create(true));
  CVIS_RETURN_IF_ERROR(stop.create(true));
  const float a = table.a, span = table.b - table.a;
  // Warm-up launch (module load, clocks).
  CVIS_RETURN_IF_ERROR(
      kernels::launch_bench(e, dt.view(), a, span, evals_per_thread, blocks, dout.get(), nullptr));
  CVIS_CUDA_CHECK(cudaEventRecord(start.get(), nullptr));
  for (int r = 0; r < repeats; ++r) {
    CVIS_RETURN_IF_ERROR(kernels::launch_bench(e, dt.view(), a, span, evals_per_thread, blocks,
                                               dout.get(), nullptr));
  }
  CVIS_CUDA_CHECK(cudaEventRecord(stop.get(), nullptr));
  CVIS_CUDA_CHECK(cudaEventSynchronize(stop.get()));
  float ms = 0.f;
  CVIS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  std::vector<float> host(threads);
  CVIS_CUDA_CHECK(
      cudaMemcpy(host.data(), dout.get(), sizeof(float) * threads, cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (float v : host)
    sum += v;
  out->evaluations = static_cast<double>(threads) * evals_per_thread * repeats;
  out->ps_per_eval = ms * 1e9 / out->evaluations;
  out->blocks_per_sm = per_sm;
  out->sms = prop.multiProcessorCount;
  out->checksum = sum;
  return Status::Ok();
}

} // namespace cvis::cpwl
