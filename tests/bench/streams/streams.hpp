// Many streams in one process (tests/bench/streams): N pipelines
//   filesrc ! qtdemux ! h264parse ! nvh264dec ! CHAIN ! fakesink sync=false
// looping over one H.264 clip (segment seeks), sharing one GstCudaContext per GPU (or one each),
// measured over a fixed window after a warm-up. With several GPUs the streams are spread
// round-robin: stream i runs on device i % gpus, its decoder and chain placed there.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace streams {

struct Config {
  std::string clip;  // H.264 in MP4
  std::string chain; // gst-launch text between the decoder and the sink ("" = decode only)
  std::string decoder = "nvh264dec";
  // gpus > 1: stream i on device d = i % gpus, with device_decoders[d] and device_chains[d] (the
  // decoder of that device and the chain with cuda-device-id=d) instead of decoder and chain.
  int gpus = 1;
  std::vector<std::string> device_decoders, device_chains;
  int n = 1;             // pipelines
  double warmup_s = 1.5; // after all pipelines are PLAYING
  double measure_s = 3.0;
  bool shared_context = true; // one GstCudaContext per device for all its pipelines (the
                              // application's job)
  // Paced like live 30 fps sources: the sinks render on the clock (sync=true, no QoS drops), so
  // a stream takes no more than its real-time share and one that cannot keep up falls behind.
  bool realtime = false;
  double real_time_fps = 30.0; // a stream below this in the window is reported as slow
  double soak_s = 0.0;         // > 0: a soak run of this length instead of measure_s, sampled
  double sample_s = 10.0;      //      every sample_s (host RSS, this process's GPU memory, frames)
  std::function<void(const struct Sample&)> on_sample; // soak: called with each sample
};

struct Sample {
  double t = 0.0;                // seconds since the warm-up ended
  unsigned long long frames = 0; // at all sinks, since the warm-up ended
  double rss_mib = -1.0;         // this process (VmRSS)
  double gpu_mib = -1.0;         // this process (nvidia-smi compute apps), -1: unknown
};

// Per element factory (cvis-profile messages, CVIS_PROFILE=1): totals over all pipelines and the
// whole run (warm-up included).
struct ElementProfile {
  unsigned long long frames = 0, calls = 0;
  double gpu_ms = 0.0, host_ms = 0.0;
};

// One device's share of a measured run (gpus > 1).
struct GpuFigures {
  int device = 0;
  int streams = 0;
  double aggregate_fps = 0.0, min_stream_fps = 0.0, mean_stream_fps = 0.0;
  int realtime_streams = 0;                // streams at >= real_time_fps in the window
  double gpu_util = -1.0, dec_util = -1.0; // mean %, nvidia-smi (-1: not available)
  double mem_used_mib = -1.0, mem_base_mib = -1.0;
};

struct Result {
  bool ok = false;
  std::string error;          // first error message of any pipeline
  double seconds = 0.0;       // the measured window
  double aggregate_fps = 0.0; // frames at all sinks / window
  double min_stream_fps = 0.0, mean_stream_fps = 0.0;
  double gpu_util = -1.0, dec_util = -1.0;         // mean %, nvidia-smi (-1: not available)
  double mem_used_mib = -1.0, mem_base_mib = -1.0; // nvidia-smi memory.used, before and during
  double setup_s = 0.0;                            // create + preroll of the N pipelines
  double host_cores = -1.0; // this process's CPU time (all threads) / window: cores kept busy
  std::map<std::string, ElementProfile> profile;
  std::vector<Sample> samples;     // soak runs
  std::vector<double> stream_fps;  // each stream's frames / window (measure runs)
  std::vector<GpuFigures> per_gpu; // gpus > 1: by device (measure runs)
  // Region-of-interest metas per frame at the sinks over the window, by roi_type (e.g. "track":
  // the tracker's targets, "foreground": the segmentation's blobs): what the chain worked on.
  std::map<std::string, double> rois_per_frame;
  // Streams below 30 fps in the window: per stream its loops, failed loop seeks, state, and for
  // every element's source pad the buffers pushed and the seconds since its last one (where a
  // stalled stream stopped). Empty when every stream kept real time.
  std::string slow_report;
};

// Runs one configuration (gst_init done). Never throws.
Result run(const Config& c);

// nvidia-smi query "utilization.gpu,utilization.decoder,memory.used" of the first GPU listed:
// false when unavailable.
bool gpu_sample(double* gpu, double* dec, double* mem_mib);

// The same query for CUDA devices 0 .. devices-1 in one nvidia-smi call, into (*out)[device]
// (-1 fields: not available). A device is matched to nvidia-smi's index directly or, with
// CUDA_VISIBLE_DEVICES a list of indices, through that list (not when it names UUIDs). CUDA
// numbers devices in nvidia-smi's order only with CUDA_DEVICE_ORDER=PCI_BUS_ID, which
// bench_streams sets for several GPUs. False when no device could be sampled.
struct GpuSample {
  double gpu = -1.0, dec = -1.0, mem_mib = -1.0;
};
bool gpu_sample_devices(int devices, std::vector<GpuSample>* out);

// This process: resident host memory (VmRSS) and GPU memory (nvidia-smi compute apps, all
// devices), MiB; -1 when unknown. CPU time of all its threads so far (user + system), seconds.
double rss_mib();
double process_gpu_mib();
double cpu_seconds();

// The backtraces of this process's threads whose name (comm) is in `names`: each is signalled and
// writes its own (library + offset: addr2line against the same build resolves it).
std::string thread_stacks(const std::vector<std::string>& names);

} // namespace streams
