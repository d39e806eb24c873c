// The many-streams benchmark's command line, chains, placement over the GPUs and reports
// (bench_streams.cpp says what it measures).
#pragma once

#include <gst/gst.h>

#include <map>
#include <string>
#include <vector>

#include "streams.hpp"

namespace bench {

struct Chain {
  std::string name, launch, note;
};

struct Options {
  std::string clip, out, decoder = "nvh264dec", props, custom;
  std::vector<std::string> chains;
  std::vector<int> ns = {1, 4, 16, 32, 64, 96, 128}; // streams per GPU
  std::vector<int> gpus = {1};                       // GPU counts to run with
  double warmup = 1.5, measure = 3.0, budget = 300.0, soak = 0.0, sample = 10.0;
  bool ab = true, profile = true, child = false, per_pipeline = false, realtime = false;
  int gpu_slots = -1; // GPU turns per device (gst_cvis_gpu_turns_set_slots), 0: no limit,
                      // -1: the library's default
};

// Where the streams of a run with `gpus` GPUs go: per device, its decoder element (the chain gets
// cuda-device-id of the device on every cuda* element).
struct Placement {
  int gpus = 1;
  std::vector<std::string> decoders;
};

// A chain's best run with a number of GPUs.
struct Best {
  std::string name;
  int gpus = 1, per_gpu = 0; // streams per GPU at the best aggregate
  double fps = 0.0;
  double gpu_util = -1.0, dec_util = -1.0, host_cores = -1.0; // of that run (mean over GPUs)
};

// Reads argv[1..] into *o; false (with a message) on an unknown argument.
bool parse_args(int argc, char** argv, Options* o);

bool has_feature(const char* name);

// `launch` with `props` after every element whose name starts with "cuda" (ours, and GStreamer's
// cudaupload/cudadownload/cudaconvert): backend=cpu to check the harness on a machine without a
// GPU, cuda-device-id=D to place a chain on device D.
std::string with_props(const std::string& launch, const std::string& props);

// The decoder element of each CUDA device for `decoder` (e.g. nvh264dec). GStreamer 1.22's nvcodec
// registers one element per GPU that can decode: `decoder` for the first, then stem + "device" + K
// + "dec" (K = 1, 2, ... in registration order, not the device number); each instance's read-only
// cuda-device-id names its device. Empty when `decoder` has no cuda-device-id (a CPU decoder).
std::map<guint, std::string> decoders_by_device(const std::string& decoder);

// The placements of o.gpus that have `decoder` on each of their devices (one GPU always fits: its
// streams use o.decoder as given); a line per count left out, and why, in *left_out.
std::vector<Placement> placements(const Options& o, std::string* left_out);

// The named chains (decode, bgsub, median3d, median3d+cedd, full, full+overlay).
std::vector<Chain> all_chains();

std::vector<std::string> split(const std::string& s);
// printf of one value; "n/a" for a negative one.
std::string fmt(const char* f, double v);

// A run of `per_gpu` streams on each GPU of `place`.
streams::Config make_config(const Options& o, const std::string& launch, int per_gpu,
                            const Placement& place);

// One run's lines on stdout: totals, the spread of the streams' rates, per GPU, ROIs per frame,
// the slow streams.
void print_run(const std::string& label, int n, const streams::Config& cfg,
               const streams::Result& r);

// Each chain's best aggregate per GPU count against the previous count's: the factor, the factor
// per doubling of the GPUs, and what was busy (GPU and NVDEC utilisation, host cores). A markdown
// table; the same lines are added to `summary`.
std::string scaling(const std::vector<Best>& best, std::string* summary);

// One A/B configuration (`n` streams per GPU on `gpus` GPUs) in a child process of `self`: its
// RESULT line, false when it gave none.
bool run_child(const char* self, const Options& o, const std::string& chain, int n, int gpus,
               bool per_pipeline, std::string* line);

// --soak: one chain for o.soak seconds; exit status (0: memory flat, frames flowing, no error).
int run_soak(const Options& o, const Chain& chain, const Placement& place);

// Writes `md` to o.out when one is named.
void write_out(const Options& o, const std::string& md);

} // namespace bench
