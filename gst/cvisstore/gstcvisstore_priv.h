/* cvisstore internals shared by the element's source files. */
#pragma once

#include <gst/video/video.h>

#include <map>
#include <mutex>
#include <string>

#include "gstcvisstore.h"
#include "gstcvisstorelink.h"

#define DEFAULT_RECORDS GST_CVIS_STORE_RECORDS_ALL
#define DEFAULT_COMMIT_INTERVAL_MS 1000
#define DEFAULT_QUEUE_SIZE_MB 1024
#define DEFAULT_EOS_TIMEOUT_S GST_CVIS_STORE_DEFAULT_EOS_TIMEOUT_S
/* Track spans are sent every this many frames (the store keeps the union of what it was sent). */
#define TRACK_SPAN_FRAMES 30

/* Properties (under `lock`). */
struct GstCvisStoreSettings {
  std::string location;
  std::string stream_name;
  GstCvisStoreRecords records = DEFAULT_RECORDS;
  std::string queue_location;
  guint queue_size_mb = DEFAULT_QUEUE_SIZE_MB;
  guint commit_interval_ms = DEFAULT_COMMIT_INTERVAL_MS;
  guint eos_timeout_s = DEFAULT_EOS_TIMEOUT_S;
};

/* Streaming state (streaming thread, state changes). */
struct GstCvisStoreState {
  GstCvisStoreLink link;
  std::string stream;
  GstCvisStoreRecords records = DEFAULT_RECORDS;
  guint eos_timeout_s = DEFAULT_EOS_TIMEOUT_S;
  GstVideoInfo info;
  bool have_info = false;
  GstCvisFramePosition position;
  /* Tracks seen since the spans were last sent: id -> span. */
  std::map<gint64, cvis::store::TrackRow> tracks;
  guint64 frames_since_tracks = 0;
};

struct _GstCvisStore {
  GstBaseTransform parent;
  std::mutex *lock;
  GstCvisStoreSettings *settings;
  GstCvisStoreState *state;
};

/* gstcvisstore_rows.cpp: the rows of one buffer (metas -> rows) into `batch`. */
void gst_cvis_store_collect (GstCvisStore * self, GstBuffer * buf, cvis::store::Batch * batch);
/* The track spans gathered so far, into `batch` (then forgotten). */
void gst_cvis_store_take_tracks (GstCvisStore * self, cvis::store::Batch * batch);
