/* cudaroioverlay internals shared by the element's source files. */
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "gstcudaroioverlay.h"
#include "overlay/overlay.hpp"

#define DEFAULT_LABELS TRUE
#define DEFAULT_LABEL_LAYOUT TRUE
#define DEFAULT_LABEL_FULL_AREA (1.0 / 400)
#define DEFAULT_LABEL_MIN_AREA (1.0 / 5000)
#define DEFAULT_MASK TRUE
#define DEFAULT_MASK_COLOR 0x60ff00ffu   /* ARGB: alpha = tint strength (96), magenta */
#define DEFAULT_TRAILS TRUE
#define DEFAULT_TRAIL_LENGTH 30
#define DEFAULT_LINE_WIDTH 2
#define DEFAULT_FONT_SCALE 0            /* auto: frame height / 360, at least 1 */
#define DEFAULT_COLOR_BY GST_CUDA_ROI_OVERLAY_COLOR_BY_AUTO

/* roi_type of the tracker's boxes (cudarcdtrack): trails are drawn for these. */
#define GST_CUDA_ROI_OVERLAY_TRACK_TYPE "track"

/* Properties (under `lock`). */
struct Settings {
  std::set<std::string> types;  /* empty: every roi_type */
  std::string types_text;       /* as set */
  gboolean labels = DEFAULT_LABELS;
  gboolean label_layout = DEFAULT_LABEL_LAYOUT;
  gdouble label_full_area = DEFAULT_LABEL_FULL_AREA;
  gdouble label_min_area = DEFAULT_LABEL_MIN_AREA;
  gboolean mask = DEFAULT_MASK;
  guint mask_color = DEFAULT_MASK_COLOR;
  gboolean trails = DEFAULT_TRAILS;
  guint trail_length = DEFAULT_TRAIL_LENGTH;
  guint line_width = DEFAULT_LINE_WIDTH;
  guint font_scale = DEFAULT_FONT_SCALE;
  GstCudaRoiOverlayColorBy color_by = DEFAULT_COLOR_BY;
  guint version = 0;            /* bumped by every property change */
};

/* A track's recent centres (frame-relative, oldest first). */
struct Trail {
  std::deque<cvis::overlay::Point> points;
  guint64 last_seen = 0;  /* frame counter of the last frame the track was on */
  cvis::overlay::Rgb color;
};

/* Streaming state (streaming thread, state changes). */
struct State {
  Settings settings;                            /* copy of the properties, refreshed on change */
  gboolean have_settings = FALSE;
  std::unique_ptr<cvis::overlay::Drawer> cpu;   /* system-memory frames */
  std::unique_ptr<cvis::overlay::Drawer> cuda;  /* CUDA-memory frames (CUDA backend) */
  cvis::overlay::Scene scene;                   /* reused: no per-frame growth */
  std::map<gint, Trail> trails;                 /* by track id */
  guint64 frame = 0;
  gboolean warned_mask = FALSE;
};

struct _GstCudaRoiOverlay {
  GstCvisFilter parent;
  std::mutex *lock;
  Settings *settings;
  State *state;
};

/* gstcudaroioverlay_scene.cpp */
/* Fills st->scene.boxes and .trails from `buf`'s GstVideoRegionOfInterestMetas (and updates the
 * trails), for a `width` x `height` frame. */
void gst_cuda_roi_overlay_build_scene (GstCudaRoiOverlay * self, const Settings & s, State * st,
    GstBuffer * buf, gint width, gint height);
/* The colour of a box (palette entry of its id or roi_type). */
cvis::overlay::Rgb gst_cuda_roi_overlay_color (const Settings & s, const gchar * roi_type,
    gint id, gboolean is_track);
/* Label layout priority of a box: tracks 3 (lost ones 1), other roi_types 2, foreground 0. */
gint gst_cuda_roi_overlay_priority (const gchar * roi_type, gboolean is_track, gboolean lost);
