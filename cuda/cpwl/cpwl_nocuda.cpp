// GPU entry points of builds without CUDA: they report that there is no device.
#include "cpwl.hpp"

namespace cvis::cpwl {

namespace {
Status no_cuda() {
  return Status(StatusCode::kNoDevice, "this build has no CUDA support");
}
} // namespace

Status evaluate_gpu(Evaluator, const Table&, const float*, int, float*) {
  return no_cuda();
}

} // namespace cvis::cpwl
