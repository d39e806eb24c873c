// Many streams in one process (tests/bench/streams): N pipelines
//   filesrc ! qtdemux ! h264parse ! nvh264dec ! CHAIN ! fakesink sync=false
// looping over one H.264 clip (segment seeks), sharing one GstCudaContext (or one each), measured
// over a fixed window after a warm-up.
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
  int n = 1;             // pipelines
  double warmup_s = 1.5; // after all pipelines are PLAYING
  double measure_s = 3.0;
  bool shared_context = true; // one GstCudaContext for every pipeline (the application's job)
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

struct Result {
  bool ok = false;
  std::string error;          // first error message of any pipeline
  double seconds = 0.0;       // the measured window
  double aggregate_fps = 0.0; // frames at all sinks / window
  double min_stream_fps = 0.0, mean_stream_fps = 0.0;
  double gpu_util = -1.0, dec_util = -1.0;         // mean %, nvidia-smi (-1: not available)
  double mem_used_mib = -1.0, mem_base_mib = -1.0; // nvidia-smi memory.used, before and during
  double setup_s = 0.0;                            // create + preroll of the N pipelines
  std::map<std::string, ElementProfile> profile;
  std::vector<Sample> samples;    // soak runs
  std::vector<double> stream_fps; // each stream's frames / window (measure runs)
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

// nvidia-smi query "utilization.gpu,utilization.decoder,memory.used": false when unavailable.
bool gpu_sample(double* gpu, double* dec, double* mem_mib);

} // namespace streams
