/* GRAY8 foreground masks (gstcvismask.h) and the GRAY8 pools of gstcvisfilter.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvismask.h"

#include <algorithm>
#include <string>

#include "gstcvisfilter_priv.h"

#ifdef CVIS_HAVE_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#endif

/* Not GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY: the caps are the same in builds without CUDA. */
#define CUDA_FEATURE "memory:CUDAMemory"

GST_DEBUG_CATEGORY_EXTERN (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

GstBufferPool *
gst_cvis_filter_new_gray8_pool (GstCvisFilter * self, gint width, gint height, gboolean cuda)
{
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstCaps *caps = NULL;
  if (cuda) {
#ifdef CVIS_HAVE_CUDA
    GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
    if (!priv->dev.ctx)
      return NULL;
    /* GStreamer's CUDA allocator has no GRAY8 (1.22 aborts, 1.24 to 1.26 refuse it): allocate
     * NV12 of the same size, whose plane 0 is a width x height byte plane, and describe only that
     * plane (see acquire). */
    pool = gst_cuda_buffer_pool_new (priv->dev.ctx);
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, width, height);
    caps = gst_video_info_to_caps (&info);
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
#else
    return NULL;
#endif
  } else {
    pool = gst_video_buffer_pool_new ();
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, width, height);
    caps = gst_video_info_to_caps (&info);
  }
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info), 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_caps_unref (caps);
  if (!gst_buffer_pool_set_config (pool, config) || !gst_buffer_pool_set_active (pool, TRUE)) {
    GST_WARNING_OBJECT (self, "could not set up a pool of %dx%d GRAY8 %s buffers", width,
        height, cuda ? "CUDA" : "system-memory");
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

GstFlowReturn
gst_cvis_gray8_pool_acquire (GstBufferPool * pool, GstBuffer ** buf)
{
  GstFlowReturn ret = gst_buffer_pool_acquire_buffer (pool, buf, NULL);
  if (ret != GST_FLOW_OK)
    return ret;
  GstVideoMeta *vm = gst_buffer_get_video_meta (*buf);
  if (vm && vm->format != GST_VIDEO_FORMAT_GRAY8) {
    /* The pool marks the meta POOLED, so the change stays with the buffer when it is recycled. */
    vm->format = GST_VIDEO_FORMAT_GRAY8;
    vm->n_planes = 1;
  }
  return ret;
}

/* --------------------------------------------------------------------------------------------- */

static gboolean
is_cuda_features (GstCapsFeatures * f)
{
  return f && !gst_caps_features_is_any (f) &&
      gst_caps_features_contains (f, CUDA_FEATURE);
}

GstCaps *
gst_cvis_mask_transform_caps (GstCvisFilter * self, GstPadDirection direction, GstCaps * caps,
    GstCaps * filter, gboolean cuda_masks)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCaps *res = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
    const gboolean cuda = is_cuda_features (gst_caps_get_features (caps, i));
    gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
    if (direction == GST_PAD_SINK) {
      gst_structure_set (s, "format", G_TYPE_STRING, "GRAY8", NULL);
      if (cuda && cuda_masks)
        res = gst_caps_merge_structure_full (res, gst_structure_copy (s),
            gst_caps_features_new (CUDA_FEATURE, NULL));
      res = gst_caps_merge_structure (res, s);  /* system memory (downloaded when CUDA in) */
    } else {
      gst_structure_remove_field (s, "format");
      res = gst_caps_merge_structure_full (res, gst_structure_copy (s),
          gst_caps_features_new (CUDA_FEATURE, NULL));
      if (!cuda)
        res = gst_caps_merge_structure (res, s);
      else
        gst_structure_free (s);
    }
  }
  res = gst_cvis_filter_restrict_caps (self, res);
  GstCaps *tmpl = gst_pad_get_pad_template_caps (direction == GST_PAD_SINK ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans));
  GstCaps *both = gst_caps_intersect_full (res, tmpl, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (tmpl);
  gst_caps_unref (res);
  res = both;
  if (filter) {
    GstCaps *f = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = f;
  }
  GST_DEBUG_OBJECT (self, "mask caps, %s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* --------------------------------------------------------------------------------------------- */

static void
clear_pool (GstBufferPool ** pool)
{
  if (*pool) {
    gst_buffer_pool_set_active (*pool, FALSE);
    gst_clear_object (pool);
  }
}

void
gst_cvis_masks_clear (GstCvisMasks * masks)
{
  clear_pool (&masks->pool);
  clear_pool (&masks->out_pool);
}

cvis::Status
gst_cvis_masks_configure (GstCvisMasks * masks, GstCvisFilter * self, gint width, gint height,
    gboolean side_masks)
{
  gst_cvis_masks_clear (masks);
  gst_video_info_set_format (&masks->info, GST_VIDEO_FORMAT_GRAY8, width, height);
  masks->cuda = FALSE;
  if (!side_masks)
    return cvis::Status::Ok ();
  masks->cuda = gst_cvis_filter_get_backend (self) == cvis::Backend::kCuda &&
      gst_cvis_filter_input_is_cuda (self);
  masks->pool = gst_cvis_filter_new_gray8_pool (self, width, height, masks->cuda);
  if (!masks->pool)
    return cvis::Status (cvis::StatusCode::kOutOfMemory, "could not create the mask pool");
  return cvis::Status::Ok ();
}

cvis::Status
gst_cvis_masks_acquire (GstCvisMasks * masks, GstBuffer ** mask, GstFlowReturn * flow)
{
  *mask = NULL;
  *flow = GST_FLOW_OK;
  if (!masks->pool)
    return cvis::internal_error ("a foreground mask is needed but there is no mask pool");
  *flow = gst_cvis_gray8_pool_acquire (masks->pool, mask);
  if (*flow == GST_FLOW_OK && *mask)
    return cvis::Status::Ok ();
  if (*flow == GST_FLOW_FLUSHING)
    return cvis::Status::Ok ();
  return cvis::Status (cvis::StatusCode::kOutOfMemory, std::string ("no mask buffer: ") +
      gst_flow_get_name (*flow));
}

GstCustomMeta *
gst_cvis_masks_attach (GstCvisMasks * masks, GstBuffer * frame, GstBuffer * mask, gint stride,
    gdouble fraction, guint boxes)
{
  GST_BUFFER_PTS (mask) = GST_BUFFER_PTS (frame);
  GST_BUFFER_DTS (mask) = GST_BUFFER_DTS (frame);
  GST_BUFFER_DURATION (mask) = GST_BUFFER_DURATION (frame);
  return gst_buffer_add_cvis_foreground_meta (frame, mask, GST_VIDEO_INFO_WIDTH (&masks->info),
      GST_VIDEO_INFO_HEIGHT (&masks->info), stride, std::min (1.0, std::max (0.0, fraction)),
      masks->cuda, boxes);
}

gboolean
gst_cvis_masks_decide_allocation (GstCvisMasks * masks, GstCvisFilter * self, GstQuery * query,
    gboolean * handled)
{
  GstCaps *caps = NULL;
  *handled = FALSE;
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !is_cuda_features (gst_caps_get_features (caps, 0)))
    return TRUE;
  *handled = TRUE;
  clear_pool (&masks->out_pool);
  masks->out_pool = gst_cvis_filter_new_gray8_pool (self, GST_VIDEO_INFO_WIDTH (&masks->info),
      GST_VIDEO_INFO_HEIGHT (&masks->info), TRUE);
  if (!masks->out_pool) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Could not allocate GRAY8 masks in CUDA "
            "memory"), (NULL));
    return FALSE;
  }
  while (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_remove_nth_allocation_pool (query, 0);
  GstStructure *config = gst_buffer_pool_get_config (masks->out_pool);
  guint size = 0;
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  gst_query_add_allocation_pool (query, masks->out_pool, size, 0, 0);
  return TRUE;
}

GstFlowReturn
gst_cvis_masks_prepare_output_buffer (GstCvisMasks * masks, GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstFlowReturn ret = gst_cvis_gray8_pool_acquire (masks->out_pool, outbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS (trans);
  if (klass->copy_metadata && !klass->copy_metadata (trans, inbuf, *outbuf)) {
    GST_ELEMENT_WARNING (trans, STREAM, NOT_IMPLEMENTED, ("Could not copy metadata"), (NULL));
  }
  return GST_FLOW_OK;
}
