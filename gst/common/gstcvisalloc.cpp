/* GstCvisFilter: allocation. Upstream is offered a pool on our CUDA context (so decoders and
 * cudaupload write straight into it); outputs come from a GstCudaBufferPool on our context for
 * CUDA caps, a GstVideoBufferPool otherwise. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvisfilter_priv.h"

#ifdef CVIS_HAVE_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#endif

GST_DEBUG_CATEGORY_EXTERN (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

gboolean
gst_cvis_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
#ifdef CVIS_HAVE_CUDA
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCaps *caps = NULL;
  gboolean need_pool = FALSE;

  /* In-place analysers proxy the query downstream (GstBaseTransform), so this runs only for
   * filters with their own output: offer a pool on our context so CUDA producers (nvh264dec,
   * cudaupload) write straight into our context's memory. */
  if (!gst_cvis_parent_class (GST_TYPE_CVIS_FILTER)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  if (decide_query == NULL)
    return TRUE;  /* passthrough */
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_cvis_caps_is_cuda (caps) || !priv->dev.ctx)
    return TRUE;
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) == 0 && need_pool) {
    GstBufferPool *pool = gst_cuda_buffer_pool_new (priv->dev.ctx);
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info), 0, 0);
    if (!gst_buffer_pool_set_config (pool, config)) {
      GST_WARNING_OBJECT (self, "CUDA pool rejected its config");
      gst_object_unref (pool);
      return FALSE;
    }
    config = gst_buffer_pool_get_config (pool);
    guint size = 0;
    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_structure_free (config);
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
#else
  return gst_cvis_parent_class (GST_TYPE_CVIS_FILTER)->propose_allocation (trans,
      decide_query, query);
#endif
}

gboolean
gst_cvis_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  GstCaps *caps = NULL;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  GstVideoInfo info;

  if (klass->in_place)
    return gst_cvis_parent_class (GST_TYPE_CVIS_FILTER)->decide_allocation (trans,
        query);

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  gboolean cuda = gst_cvis_caps_is_cuda (caps);
  gboolean update = gst_query_get_n_allocation_pools (query) > 0;
  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
#ifdef CVIS_HAVE_CUDA
  if (cuda && pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
          GST_CUDA_BUFFER_POOL (pool)->context != priv->dev.ctx))
    gst_clear_object (&pool);
  if (cuda && !pool)
    pool = gst_cuda_buffer_pool_new (priv->dev.ctx);
#else
  (void) priv;
#endif
  if (!cuda && pool && !GST_IS_VIDEO_BUFFER_POOL (pool))
    gst_clear_object (&pool);
  if (!pool)
    pool = gst_video_buffer_pool_new ();
  size = MAX (size, (guint) GST_VIDEO_INFO_SIZE (&info));
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Output buffer pool rejected its configuration"),
        ("caps %" GST_PTR_FORMAT, caps));
    gst_object_unref (pool);
    return FALSE;
  }
  /* The CUDA pool rewrites the size to the pitched allocation's size. */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return gst_cvis_parent_class (GST_TYPE_CVIS_FILTER)->decide_allocation (trans, query);
}

