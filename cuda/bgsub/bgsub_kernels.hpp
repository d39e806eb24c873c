// Background subtraction kernels and their launchers (CUDA builds only).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "bgsub_math.hpp"
#include "bgsub_scene_math.hpp"
#include "common/color.hpp"
#include "common/status.hpp"
#include "cpwl/cpwl_eval.hpp"

namespace cvis::bgsub::kernels {

// Figures of one frame (scene extensions), written by the kernels, read back after the frame.
struct SceneFigures {
  uint32_t votes[3];             // gain voters per channel
  Gains gains;                   // applied (unit_gains() without illumination)
  unsigned long long raw;        // raw foreground pixels (shadows excluded, shifts included)
  unsigned long long shadow;     // raw foreground explained as shadows
  unsigned long long changed;    // pixels changed since the previous frame (kChangedLevels)
  unsigned long long foreground; // final mask (after the area filter)
  unsigned long long wide;       // pixels with a wide bandwidth (wide_bandwidth)
};

// Shadow test settings (Params::shadows and its bounds), per frame.
struct ShadowConsts {
  bool enabled = false;
  int lo16 = 6, hi16 = 14, chroma = 4, need = 12;
};

// Device state of one model. Per-pixel arrays share the row stride `stride` (elements).
struct DeviceModel {
  int width = 0, height = 0;
  size_t stride = 0;
  int num_samples = 0;
  int median_bits = 8;           // bgsub::median_bits() of the parameters
  uint32_t* feat = nullptr;      // current frame's features
  uint32_t* cur = nullptr;       // feat with the illumination gains removed (what the model sees)
  uint32_t* prev = nullptr;      // the previous frame's cur (feat while warming up)
  uint32_t* gain_hist = nullptr; // 3 x seg::kGainBins votes
  SceneFigures* fig = nullptr;
  uint32_t* samples = nullptr;   // num_samples planes of height x stride
  uint32_t* medians = nullptr;   // packed bandwidth medians
  uint8_t* head = nullptr;       // per pixel: slot of the oldest sample (next to overwrite)
  uint8_t* raw = nullptr;        // classification before clean-up
  uint8_t* mask = nullptr;       // final mask
  uint8_t* mask_prev = nullptr;  // the previous frame's mask (Params::persistence)
  uint8_t* mask_prev2 = nullptr; // the mask before mask_prev (the added-light rule)
  uint8_t* light = nullptr;   // 2 planes: brightness() of cur, of the newest samples (foreground)
  uint8_t* tmp = nullptr;     // clean-up scratch, then the ghost passes' sources
  uint8_t* still = nullptr;   // still_frames() of every pixel (ghosts)
  float* density = nullptr;   // optional density output (height x stride), nullptr: none
  const float* lut = nullptr; // 3 x 256 inverse bandwidths
};

// Packed features of `src` (device planes) into m.feat.
Status launch_features(const PixelSource& src, bool chromaticity, const DeviceModel& m,
                       cudaStream_t stream);

// How the update kernel runs for a number of samples on the current device: differences in shared
// memory (dynamic, above 48 KiB with the function attribute set) or in local memory.
struct UpdatePlan {
  int num_samples = 0;
  bool shared = false;
  size_t smem = 0;
};
// Queries the device's opt-in shared-memory limit and sets the kernel's attribute when needed:
// once per configuration, not per frame.
Status plan_update(int num_samples, UpdatePlan* plan);

// update = false: bandwidth medians of every pixel (end of warm-up). update = true: selective
// update, the pixels `updatable` allows (m.mask, m.raw) store m.cur at their head slot, advance
// it and recompute their medians; `blind`: every pixel does. `plan`: plan_update() for
// m.num_samples.
Status launch_update(const DeviceModel& m, const UpdatePlan& plan, bool update, bool conservative,
                     bool blind, cudaStream_t stream);

// Params::update_own, before a selective update: kRawBorrowed pixels of the mask's background that
// borrowed_learnable() lets learn become kRawLent (m.raw; reads m.cur and m.samples). `levels`:
// Params::ghost_levels. The lender holds `need_moving` samples when the frame's m.fig->wide
// (launch_scene_counts, before) exceeds `wide_limit`, else `need_still`.
Status launch_lend(const DeviceModel& m, int levels, int need_moving, int need_still,
                   unsigned long long wide_limit, cudaStream_t stream);

// Params::shift_test, after the classification: kRawForeground pixels that shift_explained()
// explains become kRawShifted (m.raw; reads m.cur and m.samples). `levels`: Params::shift_levels;
// `reach`: the neighbours tried (SubtractorBase::shift_reach).
Status launch_shift(const DeviceModel& m, int levels, int reach, cudaStream_t stream);
// KDE classification of m.cur into m.raw (and m.density) with Kernel `kernel` (bgsub::Kernel
// value), the bandwidths widened by m.fig->gains; foreground explained as a shadow becomes
// kRawShadow. `table` holds device pointers (CPWL kernels).
Status launch_classify(int kernel, const DeviceModel& m, const ModelConsts& consts,
                       const ShadowConsts& shadow, const cpwl::TableView& table,
                       cudaStream_t stream);

// ---- Scene extensions (bgsub_scene_kernels.cu), the passes of the CPU reference in its order.
// Figures zeroed, gains unit; with `illumination`, the vote histograms zeroed too.
Status launch_scene_begin(const DeviceModel& m, bool illumination, cudaStream_t stream);
// Gain votes of the previous frame's background (m.mask, m.raw) against the newest samples, and
// their medians into m.fig->gains (bgsub_scene_math.hpp: solve_gain).
Status launch_gains(const DeviceModel& m, cudaStream_t stream);
// cur = compensated feat; the changed count against prev; still against prev (within
// `still_levels`, Params::ghost_levels); prev = cur.
Status launch_compensate(const DeviceModel& m, int still_levels, cudaStream_t stream);
// Warm-up frame: feat into the sample slots first, first + step, ... < num_samples; prev = feat;
// raw, mask, both previous masks and still emptied.
Status launch_warm_fill(const DeviceModel& m, int first, int step, cudaStream_t stream);
// Raw foreground and shadow counts of m.raw, foreground count of m.mask, into m.fig; at the
// foreground pixels of m.mask the brightness() planes of m.light (before the update).
Status launch_scene_counts(const DeviceModel& m, bool chromaticity, cudaStream_t stream);

// m.raw -> m.mask with Cleanup `cleanup` (bgsub::Cleanup value).
Status launch_cleanup(int cleanup, const DeviceModel& m, cudaStream_t stream);

// Params::ghost_passes passes of the ghost test on m.mask (bgsub_scene_math.hpp: ghost_source),
// each a marking kernel (sources into m.tmp) and one that lets the ghost pixels take over their
// neighbour's samples, head and medians and clears them in m.mask.
Status launch_ghosts(const DeviceModel& m, int passes, int levels, int need, int frames,
                     cudaStream_t stream);

// Connected components of m.mask: cuda/ccl (ccl::launch_blobs, ccl::launch_persistence).

} // namespace cvis::bgsub::kernels
