/* gst-cuda-vision metadata library: foreground (motion) mask meta.
 *
 * Attached by the segmentation elements (cudabgsub, cudamedian3d) in output=frame mode: the frame
 * passes through and carries a reference to its foreground mask. It is a GstCustomMeta (name
 * GST_CVIS_FOREGROUND_META_NAME), readable from Python:
 *
 *   m = buf.get_custom_meta("GstCvisForegroundMeta")
 *   s = m.get_structure()
 *   mask = s.get_value("mask")          # Gst.Buffer, GRAY8, 0 = background, 255 = foreground
 *   w, h = s.get_value("width"), s.get_value("height")
 *   stride = s.get_value("stride")      # bytes per mask row in `mask`
 *   fraction = s.get_value("fraction")  # foreground pixels / all pixels, 0..1
 *
 * Fields: "mask" (GstBuffer), "width", "height", "stride" (gint), "fraction" (gdouble),
 * "cuda-memory" (gboolean: the mask buffer holds memory:CUDAMemory, like its frame; map it with
 * GST_MAP_CUDA for a device pointer, or plainly to download it), "blobs" (guint: number of
 * foreground GstVideoRegionOfInterestMeta boxes the element attached to the frame).
 * Foreground boxes themselves are GstVideoRegionOfInterestMeta with roi_type "foreground".
 */
#ifndef __GST_CVIS_FOREGROUND_META_H__
#define __GST_CVIS_FOREGROUND_META_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_CVIS_FOREGROUND_META_NAME "GstCvisForegroundMeta"
#define GST_CVIS_FOREGROUND_ROI_TYPE "foreground"

typedef struct {
  GstBuffer *mask;      /* transfer none: owned by the meta */
  gint width, height, stride;
  gdouble fraction;
  gboolean cuda_memory;
  guint blobs;
} GstCvisForegroundInfo;

const GstMetaInfo *gst_cvis_foreground_meta_get_info (void);

/* Adds the meta; takes a reference on `mask`. The buffer must be writable. */
GstCustomMeta *gst_buffer_add_cvis_foreground_meta (GstBuffer * buffer, GstBuffer * mask,
    gint width, gint height, gint stride, gdouble fraction, gboolean cuda_memory, guint blobs);

GstCustomMeta *gst_buffer_get_cvis_foreground_meta (GstBuffer * buffer);

/* Reads the meta's fields; FALSE when a field is missing. */
gboolean gst_cvis_foreground_meta_get (GstCustomMeta * meta, GstCvisForegroundInfo * info);

/* Adds one foreground blob box: a GstVideoRegionOfInterestMeta of roi_type "foreground" with
 * id `id` and a param structure "foreground" holding the blob's pixel count "area" (guint). The
 * buffer must be writable. Returns the ROI meta. */
GstVideoRegionOfInterestMeta *gst_buffer_add_cvis_foreground_box (GstBuffer * buffer, guint x,
    guint y, guint width, guint height, gint id, guint area);

G_END_DECLS

#endif /* __GST_CVIS_FOREGROUND_META_H__ */
