// Where the CUDA backend's match() spends its time (internal, for bench_actionmatch): host steps
// by the wall clock, device steps by CUDA events recorded between them on the caller's stream.
#pragma once

namespace cvis::actionmatch::detail {

struct CudaMatchProfile {
  // Host, wall clock (ms): validation and layouts (prepare_scenes); the scene arrays, pair table
  // and launch set-up packed into pinned staging; enqueueing the copies and launches; the wait
  // for the stream; the results unpacked.
  double prepare_ms = 0, pack_ms = 0, enqueue_ms = 0, wait_ms = 0, unpack_ms = 0;
  // Device, CUDA events (ms): the one upload, the prologue (ray directions, angle tables, cell
  // plans and unary tables), the trellis, the download (no copy since the trellis kernel writes
  // the results into pinned host memory: the interval between two back-to-back events, about 0;
  // download_kb is what the kernel wrote there).
  float upload_ms = 0, prologue_ms = 0, trellis_ms = 0, download_ms = 0;
  int launches = 0;     // kernel launches of the call
  double upload_kb = 0; // bytes up and down (KiB)
  double download_kb = 0;
};

// While a sink is set on a thread, the CUDA matchers called from that thread record events around
// their steps and write the call's profile there (the events add a little work: time calls with
// no sink). nullptr stops it. Available in CUDA builds only.
void set_cuda_match_profile(CudaMatchProfile* sink);

} // namespace cvis::actionmatch::detail
