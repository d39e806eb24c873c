// The records the store holds, one struct per table (schema: docs/store.md, "Schema").
//
// Every record carries a key: the stream, the writer's run_id, the frame number and the
// record's index within that frame ("region"). A store keeps one row per key, so a batch written
// twice (sent again after a reconnection whose first COMMIT did in fact succeed) is stored once.
// The run_id (a random id per writer start) keeps the rows of a stream that is started again
// (frame numbers from 0 once more) apart from the earlier run's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cvis::store {

inline constexpr int kLevels = 144; // CEDD bins, each 0..7

struct RowKey {
  std::string stream;
  std::string run_id;
  int64_t frame = 0;  // frame number within the stream, from 0
  int32_t region = 0; // index of the record within its frame
};

// A CEDD descriptor of a frame or of a region of interest (table `descriptors`).
struct DescriptorRow {
  RowKey key;
  int64_t pts = -1;     // stream time in ns; -1: unknown (NULL)
  int32_t roi_id = -1;  // -1: the whole frame, else the ROI meta's id
  std::string roi_type; // the ROI's type (empty for frames: NULL)
  int32_t x = 0, y = 0, w = 0, h = 0;
  bool shot_change = false;
  double distance = -1.0; // Tanimoto distance to the previous frame; < 0: none (NULL)
  uint8_t levels[kLevels] = {};
  int64_t id = 0; // the store's row id (set by reads; ignored by writes)
};

// A shot change (table `shots`; key.region is 0).
struct ShotRow {
  RowKey key;
  int64_t pts = -1;
  double distance = -1.0; // the detector's measure (CEDD: Tanimoto distance); < 0: none
  std::string source;     // what detected it, e.g. "cedd"
};

// A box on a frame: foreground blob, track, detection, action (table `boxes`).
struct BoxRow {
  RowKey key;
  int64_t pts = -1;
  std::string roi_type;
  int32_t roi_id = 0;
  int32_t parent_id = -1;
  int32_t x = 0, y = 0, w = 0, h = 0;
  std::string attrs; // the ROI's parameters as text (GStreamer structures, ';'-separated)
};

// A track: its id, first and last frame (table `tracks`; a writer sends the span seen so far and
// the store keeps the union of what it was sent).
struct TrackRow {
  std::string stream;
  std::string run_id;
  int64_t track_id = 0;
  int64_t first_frame = 0, last_frame = 0;
  int64_t first_pts = -1, last_pts = -1;
};

// A recognised action (table `actions`).
struct ActionRow {
  RowKey key;
  int64_t pts = -1;
  std::string label;
  int32_t model_id = -1;
  double score = 0.0, distance = 0.0;
  int64_t first_frame = 0, last_frame = 0; // the frames the action spans
  int64_t start = -1, end = -1;            // their times in ns; -1: unknown
  int32_t x = 0, y = 0, w = 0, h = 0;      // the box of the matched points
};

// Rows written together (one transaction).
struct Batch {
  std::vector<DescriptorRow> descriptors;
  std::vector<ShotRow> shots;
  std::vector<BoxRow> boxes;
  std::vector<TrackRow> tracks;
  std::vector<ActionRow> actions;

  size_t rows() const {
    return descriptors.size() + shots.size() + boxes.size() + tracks.size() + actions.size();
  }
  bool empty() const { return rows() == 0; }
  void clear();
  // Moves `other`'s rows to the end of this batch.
  void append(Batch&& other);
  // Approximate memory / disk size in bytes (queue bounds).
  size_t bytes() const;
};

// Which descriptors a reader or a search selects. Empty / negative fields select everything.
struct Filter {
  std::string stream;    // exact stream name
  int64_t pts_from = -1; // stream time in ns, inclusive
  int64_t pts_to = -1;   // inclusive
  std::string roi_type;  // "frame": whole-frame descriptors only; else this ROI type only
};

// Serialisation of a batch (the disk queue's files): a versioned, native-endian byte string.
std::string serialize(const Batch& batch);
// False when `bytes` is not a complete batch of this format version.
bool deserialize(const std::string& bytes, Batch* batch);

} // namespace cvis::store
