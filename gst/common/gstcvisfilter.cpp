/* GstCvisFilter: GObject glue, settings, start/stop, caps, the per-buffer dispatch and events.
 * The device part is gstcvisdevice.cpp, the frame mapper gstcvisframe.cpp, caps and configuration
 * gstcviscaps.cpp, the per-buffer dispatch and error mapping gstcvisdispatch.cpp, allocation
 * gstcvisalloc.cpp. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>

#include "gstcvisfilter_priv.h"
#include "gstcvisutils.h"

#ifdef CVIS_HAVE_CUDA
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#endif

GST_DEBUG_CATEGORY (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

enum { PROP_0, PROP_BACKEND, PROP_CUDA_DEVICE_ID, PROP_ANALYTICS_META };

#define DEFAULT_BACKEND cvis::Backend::kAuto
#define DEFAULT_DEVICE_ID -1

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCvisFilter, gst_cvis_filter, GST_TYPE_BASE_TRANSFORM,
    G_ADD_PRIVATE (GstCvisFilter);
    GST_DEBUG_CATEGORY_INIT (gst_cvis_filter_debug, "cvisfilter", 0, "gst-cuda-vision base class"));

GstCvisFilterPrivate *
gst_cvis_filter_priv (GstCvisFilter * self)
{
  return static_cast<GstCvisFilterPrivate *> (gst_cvis_filter_get_instance_private (self));
}

gint
gst_cvis_filter_device_id (GstCvisFilter * self)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  std::lock_guard<std::mutex> lk (priv->lock);
  return priv->device_id;
}

/* *INDENT-OFF* */
GST_CVIS_DEFINE_ENUM_TYPE (gst_cvis_backend_get_type, "GstCvisBackend",
    {(gint) cvis::Backend::kAuto, "CUDA when a usable device exists, else the CPU reference",
        "auto"},
    {(gint) cvis::Backend::kCpu, "CPU reference", "cpu"},
    {(gint) cvis::Backend::kCuda, "CUDA (error when no usable device)", "cuda"})
/* *INDENT-ON* */

void
gst_cvis_filter_plugin_init (void)
{
#ifdef CVIS_HAVE_CUDA
  /* gst_cuda_memory_init_once is needed before any GstCudaBufferPool::set_config, also where
   * nvcodec did not register (no GPU, stale registry). Neither call needs a driver. */
  gst_cuda_load_library ();
  gst_cuda_memory_init_once ();
#endif
}

/* --------------------------------------------------------------------------------------------- */

cvis::Backend
gst_cvis_filter_get_backend (GstCvisFilter * self)
{
  return gst_cvis_filter_priv (self)->dev.backend;
}

const GstVideoInfo *
gst_cvis_filter_get_in_info (GstCvisFilter * self)
{
  return &gst_cvis_filter_priv (self)->in_info;
}

const GstVideoInfo *
gst_cvis_filter_get_out_info (GstCvisFilter * self)
{
  return &gst_cvis_filter_priv (self)->out_info;
}

gboolean
gst_cvis_filter_input_is_cuda (GstCvisFilter * self)
{
  return gst_cvis_filter_priv (self)->in_cuda;
}

cvis::StreamHandle
gst_cvis_filter_get_stream (GstCvisFilter * self)
{
  return gst_cvis_filter_priv (self)->dev.stream;
}

cvis::Status
gst_cvis_filter_sync (GstCvisFilter * self)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  if (priv->dev.backend != cvis::Backend::kCuda)
    return cvis::Status::Ok ();
  return cvis::stream_synchronize (priv->dev.stream);
}

cvis::Status
gst_cvis_filter_with_context (GstCvisFilter * self, cvis::Status (*fn) (gpointer), gpointer data)
{
  GstCvisContextScope scope (&gst_cvis_filter_priv (self)->dev);
  if (!scope.ok ())
    return GstCvisContextScope::push_failed ();
  return gst_cvis_guarded ([&] { return fn (data); });
}

static GstCaps *
template_caps (const gchar * cuda_formats, const gchar * sys_formats, gint min_size,
    gint max_size)
{
  GstCaps *caps = gst_caps_new_empty ();
  gchar *range = g_strdup_printf ("width=(int)[%d,%d], height=(int)[%d,%d]", min_size, max_size,
      min_size, max_size);
#ifdef CVIS_HAVE_CUDA
  if (cuda_formats) {
    gchar *s = g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), "
        "format=(string)%s, %s, framerate=(fraction)[0/1,max]", cuda_formats, range);
    gst_caps_append (caps, gst_caps_from_string (s));
    g_free (s);
  }
#else
  (void) cuda_formats;
#endif
  gchar *s = g_strdup_printf ("video/x-raw, format=(string)%s, %s, framerate=(fraction)[0/1,max]",
      sys_formats, range);
  gst_caps_append (caps, gst_caps_from_string (s));
  g_free (s);
  g_free (range);
  return caps;
}

static void
add_pad_templates (GstElementClass * klass, const gchar * sink_cuda_formats,
    const gchar * sink_sys_formats, const gchar * src_cuda_formats, const gchar * src_sys_formats,
    gint min_size, gint max_size)
{
  GstCaps *sink = template_caps (sink_cuda_formats, sink_sys_formats, min_size, max_size);
  GstCaps *src = template_caps (src_cuda_formats, src_sys_formats, min_size, max_size);
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src));
  gst_caps_unref (sink);
  gst_caps_unref (src);
}

void
gst_cvis_filter_class_add_pad_templates_full (GstElementClass * klass,
    const gchar * sink_cuda_formats, const gchar * sink_sys_formats,
    const gchar * src_cuda_formats, const gchar * src_sys_formats)
{
  add_pad_templates (klass, sink_cuda_formats, sink_sys_formats, src_cuda_formats,
      src_sys_formats, 1, G_MAXINT);
}

void
gst_cvis_filter_class_add_pad_templates_sized (GstElementClass * klass,
    const gchar * cuda_formats, const gchar * sys_formats, gint min_size, gint max_size)
{
  add_pad_templates (klass, cuda_formats, sys_formats, cuda_formats, sys_formats, min_size,
      max_size);
}

void
gst_cvis_filter_class_add_pad_templates (GstElementClass * klass, const gchar * cuda_formats,
    const gchar * sys_formats)
{
  gst_cvis_filter_class_add_pad_templates_full (klass, cuda_formats, sys_formats, cuda_formats,
      sys_formats);
}

/* --------------------------------------------------------------------------------------------- */
/* Properties */

static void
gst_cvis_filter_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (GST_CVIS_FILTER (object));
  if (!gst_cvis_filter_property_settable (GST_CVIS_FILTER (object), pspec))
    return;
  std::lock_guard<std::mutex> lk (priv->lock);
  switch (prop_id) {
    case PROP_BACKEND:
      priv->backend_setting = static_cast<cvis::Backend> (g_value_get_enum (value));
      break;
    case PROP_CUDA_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    case PROP_ANALYTICS_META:
      if (g_value_get_boolean (value) && !gst_cvis_filter_analytics_supported ()) {
        GST_WARNING_OBJECT (object, "analytics-meta needs GStreamer >= 1.24 with "
            "gstreamer-analytics-1.0 at build time; this build has none: stays FALSE");
        break;
      }
      priv->analytics = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cvis_filter_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (GST_CVIS_FILTER (object));
  std::lock_guard<std::mutex> lk (priv->lock);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, static_cast<gint> (priv->backend_setting));
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    case PROP_ANALYTICS_META:
      g_value_set_boolean (value, priv->analytics);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* --------------------------------------------------------------------------------------------- */
/* Context sharing, start / stop */

static void
gst_cvis_filter_set_context (GstElement * element, GstContext * context)
{
  GstCvisFilter *self = GST_CVIS_FILTER (element);
  gst_cvis_device_set_context (&gst_cvis_filter_priv (self)->dev, element, context,
      gst_cvis_filter_device_id (self));
  GST_ELEMENT_CLASS (gst_cvis_filter_parent_class)->set_context (element, context);
}

static gboolean
gst_cvis_filter_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  if (gst_cvis_device_context_query (&gst_cvis_filter_priv (GST_CVIS_FILTER (trans))->dev,
          GST_ELEMENT (trans), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_cvis_filter_parent_class)->query (trans, direction, query);
}

static gboolean
gst_cvis_filter_start (GstBaseTransform * trans)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  cvis::Backend requested;
  gint device_id;
  {
    std::lock_guard<std::mutex> lk (priv->lock);
    requested = priv->backend_setting;
    device_id = priv->device_id;
  }
  priv->configured = FALSE;
  priv->warned_foreign = FALSE;
  priv->error_posted = false;
  /* Errors the settings alone (or with the one size upstream offers) show fail the state change
   * itself: the application learns of them before any frame flows. */
  cvis::Status st = gst_cvis_filter_check_start (self);
  if (!st.ok ()) {
    GST_CVIS_FILTER_ERROR (self, st);
    return FALSE;
  }
  st = gst_cvis_device_open (&priv->dev, GST_ELEMENT (self), requested, device_id);
  if (!st.ok ()) {
    GST_CVIS_FILTER_ERROR (self, st);
    return FALSE;
  }
  priv->started = TRUE;
  gst_cvis_profile_start (self);
  return TRUE;
}

/* reset + release with the context pushed (stop, and before a context switch). */
void
gst_cvis_filter_release_backend (GstCvisFilter * self)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  GstCvisContextScope scope (&priv->dev);
  cvis::Status st = gst_cvis_guarded ([&] {
        if (klass->reset)
          klass->reset (self);
        if (klass->release)
          klass->release (self);
        return cvis::Status::Ok ();
      });
  if (!st.ok ())
    GST_WARNING_OBJECT (self, "release failed: %s", st.to_string ().c_str ());
}

static gboolean
gst_cvis_filter_stop (GstBaseTransform * trans)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  {
    GstCvisContextScope scope (&priv->dev);
    gst_cvis_profile_stop (self);
  }
  gst_cvis_filter_release_backend (self);
  gst_cvis_device_close (&priv->dev);
  priv->started = FALSE;
  priv->configured = FALSE;
  return TRUE;
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cvis_filter_finalize (GObject * object)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (GST_CVIS_FILTER (object));
  /* A context handed over by set_context to an element that never started (or failed to). */
  gst_cvis_device_release_context (&priv->dev);
  priv->~GstCvisFilterPrivate ();
  G_OBJECT_CLASS (gst_cvis_filter_parent_class)->finalize (object);
}

static void
gst_cvis_filter_constructed (GObject * object)
{
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (object);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (object);
  gst_base_transform_set_in_place (trans, klass->in_place);
  gst_base_transform_set_passthrough (trans, FALSE);
  G_OBJECT_CLASS (gst_cvis_filter_parent_class)->constructed (object);
}

static void
gst_cvis_filter_class_init (GstCvisFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cvis_filter_set_property;
  gobject_class->get_property = gst_cvis_filter_get_property;
  gobject_class->finalize = gst_cvis_filter_finalize;
  gobject_class->constructed = gst_cvis_filter_constructed;
  gobject_class->notify = gst_cvis_filter_notify;

  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the algorithm runs: auto (CUDA when a usable device exists, else the CPU "
          "reference), cpu, or cuda (element error without a device). Takes effect at the next "
          "READY->PAUSED", GST_TYPE_CVIS_BACKEND, (gint) DEFAULT_BACKEND,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1 = auto: the device of the neighbours' shared context, else 0)",
          -1, G_MAXINT, DEFAULT_DEVICE_ID,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));

  g_object_class_install_property (gobject_class, PROP_ANALYTICS_META,
      g_param_spec_boolean ("analytics-meta", "Analytics metadata",
          "Also write the boxes this element attaches as GStreamer analytics metadata "
          "(GstAnalyticsRelationMeta: object-detection mtds, tracking mtds for tracks, "
          "relations between tracks and blobs). Needs a build against GStreamer >= 1.24",
          FALSE, (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
              GST_PARAM_MUTABLE_PLAYING)));

  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cvis_filter_set_context);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cvis_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cvis_filter_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cvis_filter_query);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cvis_filter_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cvis_filter_set_caps);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cvis_filter_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cvis_filter_decide_allocation);
  trans_class->before_transform = GST_DEBUG_FUNCPTR (gst_cvis_filter_before_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_cvis_filter_transform_ip);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cvis_filter_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cvis_filter_sink_event);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_cvis_filter_transform_meta);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_CVIS_FILTER, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CVIS_BACKEND, (GstPluginAPIFlags) 0);
}

static void
gst_cvis_filter_init (GstCvisFilter * self)
{
  new (gst_cvis_filter_get_instance_private (self)) GstCvisFilterPrivate ();
}
