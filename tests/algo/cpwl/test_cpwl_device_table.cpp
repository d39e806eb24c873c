// cpwl::DeviceTable (gpu suite, CUDA builds): uploads in stream order on a non-blocking stream,
// and failed uploads that leave the previous table in place.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/backend.hpp"
#include "cpwl/cpwl.hpp"
#include "cpwl/cpwl_cuda.hpp"
#include "cpwl/cpwl_kernels.hpp"
#include "test_images.hpp"

namespace cvis::cpwl {
namespace {

class CpwlDeviceTable : public ::testing::Test {
protected:
  void SetUp() override {
    CVIS_REQUIRE_GPU();
    ASSERT_TRUE(select_cuda_device(0).ok());
    StreamHandle h = nullptr;
    ASSERT_TRUE(stream_create(&h).ok());
    stream_ = static_cast<cudaStream_t>(h);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> d(-0.5f, 4.5f);
    x_.resize(cvis::test::sanitizer_run() ? 5000 : 50000);
    for (float& v : x_)
      v = d(rng);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dx_), x_.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dout_), x_.size() * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dx_, x_.data(), x_.size() * sizeof(float), cudaMemcpyHostToDevice),
              cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess); // the pageable copy, before any use
  }
  void TearDown() override {
    table_.release();
    cudaFree(dx_);
    cudaFree(dout_);
    if (stream_)
      stream_destroy(stream_);
  }

  static Table make(int n, Partition p) {
    Cpwl g;
    EXPECT_TRUE(approximate(gaussian(), n, p, Fit::kProjection, &g).ok());
    Table t;
    EXPECT_TRUE(make_table(g, p, &t).ok());
    return t;
  }

  // Evaluates x_ with `e` and the device table on the stream, right after whatever was enqueued
  // before (no synchronisation in between), and compares with the CPU twin on host table `t`:
  // manual evaluators bit-exact, texture ones within 2^-20 (test_cpwl_gpu's tolerance).
  void expect_evaluates(Evaluator e, const Table& t, const char* what) {
    ASSERT_TRUE(kernels::launch_evaluate(static_cast<int>(e), table_.view(), dx_,
                                         static_cast<int>(x_.size()), dout_, stream_)
                    .ok())
        << what;
    std::vector<float> got(x_.size());
    // Into pageable memory: returns once the copy is done.
    ASSERT_EQ(cudaMemcpyAsync(got.data(), dout_, got.size() * sizeof(float), cudaMemcpyDeviceToHost,
                              stream_),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    const bool texture = e == Evaluator::kTextureUniform || e == Evaluator::kTextureOptimized;
    size_t bad = 0;
    for (size_t i = 0; i < x_.size(); ++i) {
      const float want = evaluate_twin(e, t.view(), x_[i], TexRounding::kNearest);
      const double tol = texture ? std::ldexp(1.0, -20) : 0.0;
      bad += !(std::fabs(static_cast<double>(got[i]) - want) <= tol);
    }
    EXPECT_EQ(bad, 0u) << what << ": " << evaluator_name(e);
  }

  cudaStream_t stream_ = nullptr;
  std::vector<float> x_;
  float* dx_ = nullptr;
  float* dout_ = nullptr;
  DeviceTable table_;
};

TEST_F(CpwlDeviceTable, UploadsInStreamOrder) {
  // Each table is read by the next kernel on the stream with no synchronisation in between.
  const Table a = make(64, Partition::kUniform), b = make(17, Partition::kOptimized);
  const Table c = make(1024, Partition::kUniform);
  ASSERT_TRUE(table_.upload(a, stream_).ok());
  expect_evaluates(Evaluator::kManualUniform, a, "first table");
  expect_evaluates(Evaluator::kTextureUniform, a, "first table");
  ASSERT_TRUE(table_.upload(b, stream_).ok());
  expect_evaluates(Evaluator::kManualOptimized, b, "second table");
  expect_evaluates(Evaluator::kTextureOptimized, b, "second table");
  ASSERT_TRUE(table_.upload(c, stream_).ok());
  ASSERT_TRUE(table_.upload(a, stream_).ok()); // two uploads before any reader
  expect_evaluates(Evaluator::kSlopeUniform, a, "table replaced twice");
}

TEST_F(CpwlDeviceTable, FailedUploadKeepsThePreviousTable) {
  const Table t = make(64, Partition::kUniform);
  ASSERT_TRUE(table_.upload(t, stream_).ok());
  const TableView before = table_.view();

  Table empty; // n = 0: the analytic evaluators take no table
  EXPECT_EQ(table_.upload(empty, stream_).code(), StatusCode::kInvalidArgument);
  Table mismatched = t;
  mismatched.slope.pop_back();
  EXPECT_EQ(table_.upload(mismatched, stream_).code(), StatusCode::kInvalidArgument);
  // A table wider than the device's 1-D texture limit: the device arrays are allocated and their
  // copies enqueued before the texture array fails. Not under compute-sanitizer, which reports
  // the failing CUDA call as an error (the refusal above happens before any CUDA call).
  if (cvis::test::sanitizer_run()) {
    expect_evaluates(Evaluator::kManualUniform, t, "after refused uploads");
    return;
  }
  int max_width = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&max_width, cudaDevAttrMaxTexture1DWidth, 0), cudaSuccess);
  Table wide;
  wide.n = max_width; // n + 1 texels
  wide.b = 4.0f;
  wide.scale = static_cast<float>(wide.n) / 4.0f;
  wide.padded.assign(static_cast<size_t>(wide.n) + 4, 0.25f);
  wide.slope.assign(2 * (static_cast<size_t>(wide.n) + 3), 0.0f);
  const Status st = table_.upload(wide, stream_);
  EXPECT_FALSE(st.ok()) << "a 1-D texture array of " << wide.n + 1 << " texels was accepted";

  const TableView after = table_.view();
  EXPECT_EQ(after.n, before.n);
  EXPECT_EQ(after.values, before.values);
  EXPECT_EQ(after.slope, before.slope);
  EXPECT_EQ(after.texture, before.texture);
  // And it still works (the failed calls' errors do not fail the next launch).
  expect_evaluates(Evaluator::kManualUniform, t, "after failed uploads");
  expect_evaluates(Evaluator::kTextureUniform, t, "after failed uploads");
}

} // namespace
} // namespace cvis::cpwl
