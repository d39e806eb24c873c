/* GstCvisFilter: caps (CUDA memory only with the CUDA backend) and configuration on new caps
 * (drain what is owed, reset, configure). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvisfilter_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

gboolean
gst_cvis_caps_is_cuda (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, "memory:CUDAMemory");
}

gboolean
gst_cvis_filter_cuda_caps_allowed (GstCvisFilter * self)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  if (priv->started)
    return priv->dev.backend == cvis::Backend::kCuda;
  std::lock_guard<std::mutex> lk (priv->lock);
  return priv->backend_setting != cvis::Backend::kCpu && gst_cvis_cuda_usable ();
}

GstCaps *
gst_cvis_filter_restrict_caps (GstCvisFilter * self, GstCaps * caps)
{
  if (gst_cvis_filter_cuda_caps_allowed (self))
    return caps;
  GstCaps *out = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    if (f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, "memory:CUDAMemory"))
      continue;
    gst_caps_append_structure_full (out, gst_structure_copy (gst_caps_get_structure (caps, i)),
        f ? gst_caps_features_copy (f) : NULL);
  }
  gst_caps_unref (caps);
  return out;
}

GstCaps *
gst_cvis_filter_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  /* Identity keeps the memory feature: CUDA in -> CUDA out, system in -> system out. */
  GstCaps *out = gst_cvis_parent_class (GST_TYPE_CVIS_FILTER)->transform_caps (trans,
      direction, caps, filter);
  return gst_cvis_filter_restrict_caps (GST_CVIS_FILTER (trans), out);
}

/* Pushes what a temporal subclass still owes under the current configuration. */
void
gst_cvis_filter_drain_owed (GstCvisFilter * self)
{
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  if (!gst_cvis_filter_priv (self)->configured || !klass->drain)
    return;
  GstFlowReturn ret = klass->drain (self);
  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "drain: %s", gst_flow_get_name (ret));
}

/* reset (when configured) then configure, with the context pushed. */
cvis::Status
gst_cvis_filter_reconfigure (GstCvisFilter * self)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  GstCvisContextScope scope (&priv->dev);
  if (!scope.ok ())
    return GstCvisContextScope::push_failed ();
  return gst_cvis_guarded ([&] {
        if (klass->reset && priv->configured)
          klass->reset (self);
        return klass->configure ? klass->configure (self, &priv->in_info, &priv->out_info,
            priv->dev.backend) : cvis::Status::Ok ();
      });
}

gboolean
gst_cvis_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstVideoInfo in_info, out_info;

  if (!gst_video_info_from_caps (&in_info, incaps) ||
      !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Invalid caps"), ("in %" GST_PTR_FORMAT
            ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  cvis::PixelFormat pf;
  if (!gst_cvis_pixel_format_from_video (GST_VIDEO_INFO_FORMAT (&in_info), &pf)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Unsupported format %s",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&in_info))), (NULL));
    return FALSE;
  }
  const gboolean in_cuda = gst_cvis_caps_is_cuda (incaps), out_cuda = gst_cvis_caps_is_cuda (outcaps);
  if ((in_cuda || out_cuda) && priv->dev.backend != cvis::Backend::kCuda) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("CUDA memory needs backend=cuda or auto with a GPU"),
        (NULL));
    return FALSE;
  }
  /* GstBaseTransform calls this only when the input or the output caps change (upstream caps, or
   * downstream renegotiating): what is owed leaves under the old caps, with the old pool. */
  gst_cvis_filter_drain_owed (self);
  priv->in_cuda = in_cuda;
  priv->out_cuda = out_cuda;
  priv->in_info = in_info;
  priv->out_info = out_info;
  GST_DEBUG_OBJECT (self, "caps in %" GST_PTR_FORMAT " out %" GST_PTR_FORMAT, incaps, outcaps);

  cvis::Status st = gst_cvis_filter_reconfigure (self);
  if (!st.ok ()) {
    GST_CVIS_FILTER_ERROR (self, st);
    priv->configured = FALSE;
    return FALSE;
  }
  priv->configured = TRUE;
  return TRUE;
}

