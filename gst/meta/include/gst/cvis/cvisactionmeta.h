/* gst-cuda-vision metadata library: recognised action meta.
 *
 * Attached by cudaactionmatch to the last frame of each scene block in which it recognised an
 * action: the nearest model of the dictionary, how near, when (the block's frames and times) and
 * where (the interest points the model matched). A GstCustomMeta (name
 * GST_CVIS_ACTION_META_NAME), readable from Python:
 *
 *   m = buf.get_custom_meta("GstCvisActionMeta")
 *   s = m.get_structure()
 *   label, score = s.get_string("label"), s.get_double("score")[1]
 *   ok, info = GstCvis.action_meta_get(m)                 # the same as a struct
 *   ok, frame, x, y = GstCvis.action_meta_get_point(m, 0)  # matched point 0
 *
 * Fields: "label" (string: the model's class), "model-id" (gint: index of the model in the
 * dictionary), "model-source" (string: where the model was cut from), "distance" (gdouble: the
 * classifier's distance per model node, smaller is nearer), "energy", "appearance" (gdouble: the
 * optimum's energy and its appearance part), "score" (gdouble 0..1: margin to the nearest model
 * of another class, (d_other - d) / d_other), "dummies" (gint: model nodes left unmatched),
 * "nodes" (gint: interest points in the block), "first-frame", "last-frame" (guint64: the block's
 * frames, counted from 0 at the stream's start or the last flush), "start", "end" (guint64
 * GstClockTime: running from the first frame's PTS to the last frame's PTS plus its duration;
 * GST_CLOCK_TIME_NONE when unknown), "complete" (gboolean: FALSE for a stream shorter than one
 * block), "points" (GST_TYPE_ARRAY of GstStructure "point" with "frame" guint64, "x", "y"
 * gdouble: the matched interest points, in model order; scaled with the frame by scalers).
 * The box of the matched points is also on the buffer: a GstVideoRegionOfInterestMeta of
 * roi_type GST_CVIS_ACTION_ROI_TYPE with a param structure "action" ("label", "model-id",
 * "score", "distance").
 */
#ifndef __GST_CVIS_ACTION_META_H__
#define __GST_CVIS_ACTION_META_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_CVIS_ACTION_META_NAME "GstCvisActionMeta"
#define GST_CVIS_ACTION_ROI_TYPE "action"

/**
 * GstCvisActionInfo:
 * @label: (transfer none): the model's class, owned by the meta
 * @model_source: (transfer none): where the model came from, owned by the meta
 *
 * The meta's scalar fields (see the header's description).
 */
typedef struct {
  const gchar *label;
  const gchar *model_source;
  gint model_id;
  gdouble distance, energy, appearance, score;
  gint dummies, nodes;
  guint64 first_frame, last_frame;
  GstClockTime start, end;
  gboolean complete;
  guint n_points;
} GstCvisActionInfo;

const GstMetaInfo *gst_cvis_action_meta_get_info (void);

/* Adds the meta with `info`'s fields (n_points ignored) and no points; the buffer must be
 * writable. Add the points with gst_cvis_action_meta_add_point. */
GstCustomMeta *gst_buffer_add_cvis_action_meta (GstBuffer * buffer,
    const GstCvisActionInfo * info);

/* Appends a matched point (frame number, pixel position). */
void gst_cvis_action_meta_add_point (GstCustomMeta * meta, guint64 frame, gdouble x, gdouble y);

GstCustomMeta *gst_buffer_get_cvis_action_meta (GstBuffer * buffer);

/* Reads the meta's fields; FALSE when a field is missing. */
gboolean gst_cvis_action_meta_get (GstCustomMeta * meta, GstCvisActionInfo * info);

/* Matched point `index` (0 .. n_points - 1); FALSE when out of range. */
gboolean gst_cvis_action_meta_get_point (GstCustomMeta * meta, guint index, guint64 * frame,
    gdouble * x, gdouble * y);

G_END_DECLS

#endif /* __GST_CVIS_ACTION_META_H__ */
