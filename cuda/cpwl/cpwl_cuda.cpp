// CPWL on the GPU: device tables and the parity entry point (the Table I timing is bench_cpwl's,
// tests/bench/cpwl).
#include "cpwl_cuda.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/backend.hpp"
#include "cpwl_kernels.hpp"

namespace cvis::cpwl {

namespace {

// The scalars of `t` without its host pointers (for evaluators that read no table).
TableView host_free_view(const Table& t) {
  TableView v = t.view();
  v.values = v.slope = v.knots = v.inv_h = nullptr;
  return v;
}

Status require_device() {
  if (cuda_device_count() <= 0)
    return Status(StatusCode::kNoDevice, cuda_device_description(0));
  return Status::Ok();
}

} // namespace

void DeviceTable::Parts::destroy(cudaStream_t stream) {
  if (array && stream) {
    // cudaFreeArray is not stream-ordered: the texture's readers must be done.
    cudaStreamSynchronize(stream);
  }
  if (tex)
    cudaDestroyTextureObject(tex);
  if (array)
    cudaFreeArray(array);
  tex = 0;
  array = nullptr;
  padded.release(stream);
  slope.release(stream);
  knots.release(stream);
  inv_h.release(stream);
}

void DeviceTable::release(cudaStream_t stream) {
  parts_.destroy(stream);
  view_ = TableView();
}

Status DeviceTable::build(const Table& t, cudaStream_t stream, Parts* p, TableView* v) {
  // Host side: one pinned block [padded | slope | knots | inv_h], reused once the previous
  // upload's copies out of it are done.
  const size_t np = t.padded.size(), ns = t.slope.size(), nk = t.knots.size(), ni = t.inv_h.size();
  CVIS_RETURN_IF_ERROR(copied_.create());
  if (pending_) {
    CVIS_RETURN_IF_ERROR(::cvis::cuda::event_wait(copied_.get()));
    pending_ = false;
  }
  CVIS_RETURN_IF_ERROR(staging_.reserve(np + ns + nk + ni));
  float* h = staging_.get();
  std::copy(t.padded.begin(), t.padded.end(), h);
  std::copy(t.slope.begin(), t.slope.end(), h + np);
  std::copy(t.knots.begin(), t.knots.end(), h + np + ns);
  std::copy(t.inv_h.begin(), t.inv_h.end(), h + np + ns + nk);
  auto copy = [&](const float* src, size_t n, cuda::DeviceArray<float>* dst) -> Status {
    if (n == 0)
      return Status::Ok();
    CVIS_RETURN_IF_ERROR(dst->reserve(n, stream));
    CVIS_CUDA_CHECK(
        cudaMemcpyAsync(dst->get(), src, n * sizeof(float), cudaMemcpyHostToDevice, stream));
    return Status::Ok();
  };
  CVIS_RETURN_IF_ERROR(copy(h, np, &p->padded));
  CVIS_RETURN_IF_ERROR(copy(h + np, ns, &p->slope));
  CVIS_RETURN_IF_ERROR(copy(h + np + ns, nk, &p->knots));
  CVIS_RETURN_IF_ERROR(copy(h + np + ns + nk, ni, &p->inv_h));

  // The texture holds the n + 1 nodal values only; the border (address mode) supplies the zeros
  // that the padded layout stores explicitly.
  const size_t texels = static_cast<size_t>(t.n) + 1;
  cudaChannelFormatDesc ch = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  CVIS_CUDA_CHECK(cudaMallocArray(&p->array, &ch, texels, 0));
  CVIS_CUDA_CHECK(cudaMemcpy2DToArrayAsync(p->array, 0, 0, h + 1, texels * sizeof(float),
                                           texels * sizeof(float), 1, cudaMemcpyHostToDevice,
                                           stream));
  CVIS_CUDA_CHECK(cudaEventRecord(copied_.get(), stream));
  pending_ = true;
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = p->array;
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof(td));
  td.addressMode[0] = cudaAddressModeBorder;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  td.borderColor[0] = td.borderColor[1] = td.borderColor[2] = td.borderColor[3] = 0.0f;
  CVIS_CUDA_CHECK(cudaCreateTextureObject(&p->tex, &res, &td, nullptr));

  *v = t.view();
  v->values = p->padded.get();
  v->slope = p->slope.get();
  v->knots = nk ? p->knots.get() : nullptr;
  v->inv_h = ni ? p->inv_h.get() : nullptr;
  v->texture = static_cast<uint64_t>(p->tex);
  return Status::Ok();
}

Status DeviceTable::upload(const Table& t, cudaStream_t stream) {
  if (t.n <= 0)
    return invalid_argument("DeviceTable::upload: empty table (n = 0)");
  if (t.padded.size() != static_cast<size_t>(t.n) + 4 ||
      t.slope.size() != 2 * (static_cast<size_t>(t.n) + 3) || t.knots.size() != t.inv_h.size()) {
    return invalid_argument("DeviceTable::upload: table arrays do not match n");
  }
  Parts next;
  TableView v;
  const Status st = build(t, stream, &next, &v);
  if (!st.ok()) {
    next.destroy(stream);
    cudaGetLastError(); // the failed call's error would otherwise fail the next launch check
    return st;
  }
  std::swap(parts_.padded, next.padded);
  std::swap(parts_.slope, next.slope);
  std::swap(parts_.knots, next.knots);
  std::swap(parts_.inv_h, next.inv_h);
  std::swap(parts_.array, next.array);
  std::swap(parts_.tex, next.tex);
  view_ = v;
  next.destroy(stream); // the previous table, after the work enqueued before this upload
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
  TableView view = host_free_view(table); // the analytic evaluators read no table
  if (table.n > 0) {
    CVIS_RETURN_IF_ERROR(dt.upload(table, nullptr));
    view = dt.view();
  }
  cuda::DeviceArray<float> dx, dout;
  CVIS_RETURN_IF_ERROR(dx.reserve(count));
  CVIS_RETURN_IF_ERROR(dout.reserve(count));
  CVIS_CUDA_CHECK(cudaMemcpy(dx.get(), x, sizeof(float) * count, cudaMemcpyHostToDevice));
  CVIS_RETURN_IF_ERROR(
      kernels::launch_evaluate(static_cast<int>(e), view, dx.get(), count, dout.get(), nullptr));
  CVIS_CUDA_CHECK(cudaMemcpy(out, dout.get(), sizeof(float) * count, cudaMemcpyDeviceToHost));
  return Status::Ok();
}

} // namespace cvis::cpwl
