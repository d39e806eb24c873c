/* cvis-cedd: runs one file through GStreamer decoding and the cudacedd element.
 *
 *   filesrc ! decodebin ! videoconvert dither=none ! video/x-raw,format=<packed RGB> !
 *       cudacedd ! appsink
 *
 * Only packed RGB formats reach cudacedd, so 8-bit RGB/RGBA/GRAY PNGs arrive unchanged (or exactly
 * expanded) and their descriptors are bit-exact with LIRE. The first video stream is described;
 * other streams are discarded.
 */
#pragma once

#include <gst/gst.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cvis::tool {

struct RunOptions {
  std::string backend = "auto";  // cudacedd "backend" nick: auto, cpu, cuda
  std::string regions = "frame"; // cudacedd "regions" nick: frame, rois, both
  std::string index_location;    // empty: no index
  std::string stream_name;       // empty: the element's default
  double shot_threshold = 100.0; // 100 disables shot detection; < 0: the element's default
  bool first_frame_only = false; // stop after the first frame (describe, search)
};

/* The whole-frame descriptor of one frame. */
struct FrameDescriptor {
  int width = 0, height = 0;
  std::array<uint8_t, 144> levels{};
};

struct ShotChange {
  std::string stream;
  uint64_t frame = 0;
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  double distance = 0.0;
};

struct RunResult {
  uint64_t frames = 0;      // frames that passed through cudacedd
  uint64_t descriptors = 0; // descriptors attached to them (frame and ROIs)
  bool have_first = false;  // `first` holds the first frame's whole-frame descriptor
  FrameDescriptor first;
};

enum class RunError {
  kNone,
  kInput,    // the file: unreadable, not a media file, no decodable video stream
  kAnalysis, // cudacedd or the pipeline itself: backend unavailable, index failure, ...
};

/* Decodes `path` through cudacedd. Returns kNone on success; otherwise `error` holds one line
 * (no trailing newline). `on_shot`, when set, is called (on the calling thread) for every
 * "cvis-shot-change" message. Requires gst_init() and the cudacedd element. */
RunError run_file(const std::string& path, const RunOptions& options, RunResult* result,
                  const std::function<void(const ShotChange&)>& on_shot, std::string* error);

} // namespace cvis::tool
