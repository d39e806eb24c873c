#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvisfilter.h"

#include <exception>
#include <mutex>
#include <new>
#include <string>

#include "gstcvisutils.h"

#ifdef CVIS_HAVE_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

enum { PROP_0, PROP_BACKEND, PROP_CUDA_DEVICE_ID };

#define DEFAULT_BACKEND cvis::Backend::kAuto
#define DEFAULT_DEVICE_ID -1

struct GstCvisFilterPrivate {
  /* Settings (properties), under `lock`. */
  std::mutex lock;
  cvis::Backend backend_setting = DEFAULT_BACKEND;
  gint device_id = DEFAULT_DEVICE_ID;

  /* State, streaming thread / state changes only. */
  cvis::Backend backend = cvis::Backend::kCpu;
  gboolean started = FALSE;
  gboolean configured = FALSE;
  gboolean in_cuda = FALSE, out_cuda = FALSE;
  GstVideoInfo in_info, out_info;
  cvis::StreamHandle stream = nullptr;
  gboolean warned_foreign = FALSE;
#ifdef CVIS_HAVE_CUDA
  GstCudaContext *ctx = nullptr;
#endif
};

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCvisFilter, gst_cvis_filter, GST_TYPE_BASE_TRANSFORM,
    G_ADD_PRIVATE (GstCvisFilter);
    GST_DEBUG_CATEGORY_INIT (gst_cvis_filter_debug, "cvisfilter", 0, "gst-cuda-vision base class"));

static GstCvisFilterPrivate *
get_priv (GstCvisFilter * self)
{
  return static_cast<GstCvisFilterPrivate *> (gst_cvis_filter_get_instance_private (self));
}

GType
gst_cvis_backend_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {(gint) cvis::Backend::kAuto, "CUDA when a usable device exists, else the CPU reference", "auto"},
    {(gint) cvis::Backend::kCpu, "CPU reference", "cpu"},
    {(gint) cvis::Backend::kCuda, "CUDA (error when no usable device)", "cuda"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCvisBackend", values);
    g_once_init_leave (&type, t);
  }
  return (GType) type;
}

/* ---------------------------------------------------------------------------------------------
 * CUDA availability. GStreamer 1.22 deadlocks on the second context creation after a failed
 * cuInit (its g_once stores FALSE), so nothing may reach the gst-cuda context helpers before this
 * process-wide check has passed. */
static gboolean
cuda_usable (void)
{
#ifdef CVIS_HAVE_CUDA
  static gsize once = 0;
  static gboolean ok = FALSE;
  if (g_once_init_enter (&once)) {
    int n = 0;
    ok = gst_cuda_load_library () && CuInit (0) == CUDA_SUCCESS &&
        CuDeviceGetCount (&n) == CUDA_SUCCESS && n > 0;
    GST_INFO ("CUDA %s (%d device(s))", ok ? "usable" : "not usable", n);
    g_once_init_leave (&once, 1);
  }
  return ok;
#else
  return FALSE;
#endif
}

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

namespace {

/* Pushes the filter's CUDA context for the scope (no-op for the CPU backend). */
class ContextScope {
 public:
  explicit ContextScope (GstCvisFilterPrivate * p) {
#ifdef CVIS_HAVE_CUDA
    if (p->backend == cvis::Backend::kCuda && p->ctx)
      pushed_ = gst_cuda_context_push (p->ctx);
    ok_ = pushed_ || p->backend != cvis::Backend::kCuda;
#else
    (void) p;
#endif
  }
  ~ContextScope () {
#ifdef CVIS_HAVE_CUDA
    if (pushed_)
      gst_cuda_context_pop (NULL);
#endif
  }
  bool ok () const { return ok_; }
  ContextScope (const ContextScope &) = delete;
  ContextScope & operator= (const ContextScope &) = delete;

 private:
  bool pushed_ = false;
  bool ok_ = true;
};

/* Runs `fn` and turns any C++ exception into a Status. */
template <typename F>
cvis::Status
guarded (F && fn)
{
  try {
    return fn ();
  } catch (const std::bad_alloc &) {
    return cvis::Status (cvis::StatusCode::kOutOfMemory, "out of host memory");
  } catch (const std::exception & e) {
    return cvis::internal_error (std::string ("unexpected exception: ") + e.what ());
  } catch (...) {
    return cvis::internal_error ("unexpected exception");
  }
}

}  // namespace

/* --------------------------------------------------------------------------------------------- */

void
gst_cvis_filter_post_error (GstCvisFilter * self, const cvis::Status & status, const gchar * file,
    const gchar * function, gint line)
{
  GQuark domain = GST_RESOURCE_ERROR;
  gint code = GST_RESOURCE_ERROR_FAILED;
  const gchar *what = "Processing failed";
  switch (status.code ()) {
    case cvis::StatusCode::kOk:
      return;
    case cvis::StatusCode::kUnsupportedFormat:
      domain = GST_CORE_ERROR;
      code = GST_CORE_ERROR_NEGOTIATION;
      what = "Unsupported input";
      break;
    case cvis::StatusCode::kInvalidArgument:
      domain = GST_LIBRARY_ERROR;
      code = GST_LIBRARY_ERROR_SETTINGS;
      what = "Invalid settings";
      break;
    case cvis::StatusCode::kIoError:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_READ;
      what = "Could not access a file";
      break;
    case cvis::StatusCode::kNoDevice:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_NOT_FOUND;
      what = "No usable CUDA device";
      break;
    case cvis::StatusCode::kCudaError:
    case cvis::StatusCode::kOutOfMemory:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_FAILED;
      what = "CUDA failure";
      break;
    case cvis::StatusCode::kInternal:
      domain = GST_CORE_ERROR;
      code = GST_CORE_ERROR_FAILED;
      what = "Internal error";
      break;
  }
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, domain, code,
      g_strdup_printf ("%s: %s", what, status.message ().c_str ()),
      g_strdup (status.to_string ().c_str ()), file, function, line);
}

cvis::Backend
gst_cvis_filter_get_backend (GstCvisFilter * self)
{
  return get_priv (self)->backend;
}

const GstVideoInfo *
gst_cvis_filter_get_in_info (GstCvisFilter * self)
{
  return &get_priv (self)->in_info;
}

const GstVideoInfo *
gst_cvis_filter_get_out_info (GstCvisFilter * self)
{
  return &get_priv (self)->out_info;
}

gboolean
gst_cvis_filter_input_is_cuda (GstCvisFilter * self)
{
  return get_priv (self)->in_cuda;
}

cvis::Status
gst_cvis_filter_with_context (GstCvisFilter * self, cvis::Status (*fn) (gpointer), gpointer data)
{
  GstCvisFilterPrivate *priv = get_priv (self);
  ContextScope scope (priv);
  if (!scope.ok ())
    return cvis::Status (cvis::StatusCode::kCudaError, "could not push the CUDA context");
  return guarded ([&] { return fn (data); });
}

void
gst_cvis_filter_class_add_pad_templates (GstElementClass * klass, const gchar * cuda_formats,
    const gchar * sys_formats)
{
  GstCaps *caps = gst_caps_new_empty ();
#ifdef CVIS_HAVE_CUDA
  if (cuda_formats) {
    gchar *s = g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), "
        "format=(string)%s, width=(int)[1,max], height=(int)[1,max], framerate=(fraction)[0/1,max]",
        cuda_formats);
    gst_caps_append (caps, gst_caps_from_string (s));
    g_free (s);
  }
#else
  (void) cuda_formats;
#endif
  gchar *s = g_strdup_printf ("video/x-raw, format=(string)%s, width=(int)[1,max], "
      "height=(int)[1,max], framerate=(fraction)[0/1,max]", sys_formats);
  gst_caps_append (caps, gst_caps_from_string (s));
  g_free (s);
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

/* --------------------------------------------------------------------------------------------- */
/* Properties */

static void
gst_cvis_filter_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCvisFilter *self = GST_CVIS_FILTER (object);
  GstCvisFilterPrivate *priv = get_priv (self);
  std::lock_guard<std::mutex> lk (priv->lock);
  switch (prop_id) {
    case PROP_BACKEND:
      priv->backend_setting = static_cast<cvis::Backend> (g_value_get_enum (value));
      break;
    case PROP_CUDA_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cvis_filter_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCvisFilter *self = GST_CVIS_FILTER (object);
  GstCvisFilterPrivate *priv = get_priv (self);
  std::lock_guard<std::mutex> lk (priv->lock);
  switch (prop_id) {
    case PROP_BACKEND:
      g_value_set_enum (value, static_cast<gint> (priv->backend_setting));
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* --------------------------------------------------------------------------------------------- */
/* Context sharing */

static void
gst_cvis_filter_set_context (GstElement * element, GstContext * context)
{
#ifdef CVIS_HAVE_CUDA
  GstCvisFilter *self = GST_CVIS_FILTER (element);
  GstCvisFilterPrivate *priv = get_priv (self);
  gint device_id;
  {
    std::lock_guard<std::mutex> lk (priv->lock);
    device_id = priv->device_id;
  }
  if (cuda_usable ())
    gst_cuda_handle_set_context (element, context, device_id, &priv->ctx);
#endif
  GST_ELEMENT_CLASS (gst_cvis_filter_parent_class)->set_context (element, context);
}

static gboolean
gst_cvis_filter_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
#ifdef CVIS_HAVE_CUDA
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT && cuda_usable () &&
      gst_cuda_handle_context_query (GST_ELEMENT (trans), query,
          get_priv (GST_CVIS_FILTER (trans))->ctx))
    return TRUE;
#endif
  return GST_BASE_TRANSFORM_CLASS (gst_cvis_filter_parent_class)->query (trans, direction, query);
}

/* --------------------------------------------------------------------------------------------- */
/* Start / stop */

static gboolean
gst_cvis_filter_start (GstBaseTransform * trans)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = get_priv (self);
  cvis::Backend requested;
  gint device_id;
  {
    std::lock_guard<std::mutex> lk (priv->lock);
    requested = priv->backend_setting;
    device_id = priv->device_id;
  }

  priv->configured = FALSE;
  if (requested == cvis::Backend::kCpu) {
    priv->backend = cvis::Backend::kCpu;
  } else if (cuda_usable ()) {
    priv->backend = cvis::Backend::kCuda;
  } else if (requested == cvis::Backend::kCuda) {
    GST_CVIS_FILTER_ERROR (self, cvis::Status (cvis::StatusCode::kNoDevice,
            cvis::cuda_compiled ()? "backend=cuda but no usable CUDA device or driver "
            "(libcuda.so.1 missing, no GPU, or cuInit failed)" :
            "backend=cuda but this build has no CUDA support"));
    return FALSE;
  } else {
    priv->backend = cvis::Backend::kCpu;
  }
  GST_INFO_OBJECT (self, "backend %s (requested %s)", cvis::backend_name (priv->backend),
      cvis::backend_name (requested));

#ifdef CVIS_HAVE_CUDA
  if (priv->backend == cvis::Backend::kCuda) {
    if (!gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id, &priv->ctx)) {
      GST_CVIS_FILTER_ERROR (self, cvis::Status (cvis::StatusCode::kNoDevice,
              "could not obtain a CUDA context for cuda-device-id=" + std::to_string (device_id)));
      return FALSE;
    }
    ContextScope scope (priv);
    cvis::Status st = scope.ok ()? cvis::stream_create (&priv->stream) :
        cvis::Status (cvis::StatusCode::kCudaError, "could not push the CUDA context");
    if (!st.ok ()) {
      GST_CVIS_FILTER_ERROR (self, st);
      return FALSE;
    }
  }
#else
  (void) device_id;
#endif
  priv->started = TRUE;
  return TRUE;
}

static gboolean
gst_cvis_filter_stop (GstBaseTransform * trans)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = get_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  {
    ContextScope scope (priv);
    cvis::Status st = guarded ([&] {
          if (klass->reset)
            klass->reset (self);
          if (klass->release)
            klass->release (self);
          return cvis::Status::Ok ();
        });
    if (!st.ok ())
      GST_WARNING_OBJECT (self, "release failed: %s", st.to_string ().c_str ());
    if (priv->stream) {
      cvis::stream_destroy (priv->stream);
      priv->stream = nullptr;
    }
  }
#ifdef CVIS_HAVE_CUDA
  gst_clear_object (&priv->ctx);
#endif
  priv->started = FALSE;
  priv->configured = FALSE;
  priv->backend = cvis::Backend::kCpu;
  return TRUE;
}

/* --------------------------------------------------------------------------------------------- */
/* Caps */

static gboolean
caps_is_cuda (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, "memory:CUDAMemory");
}

/* With the CPU backend (chosen, or auto without a GPU) CUDA memory is not offered. */
static gboolean
cuda_caps_allowed (GstCvisFilter * self)
{
  GstCvisFilterPrivate *priv = get_priv (self);
  if (priv->started)
    return priv->backend == cvis::Backend::kCuda;
  std::lock_guard<std::mutex> lk (priv->lock);
  return priv->backend_setting != cvis::Backend::kCpu && cuda_usable ();
}

static GstCaps *
remove_cuda_structures (GstCaps * caps)
{
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

static GstCaps *
gst_cvis_filter_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  /* Identity keeps the memory feature: CUDA in -> CUDA out, system in -> system out. */
  GstCaps *out = GST_BASE_TRANSFORM_CLASS (gst_cvis_filter_parent_class)->transform_caps (trans,
      direction, caps, filter);
  if (!cuda_caps_allowed (GST_CVIS_FILTER (trans)))
    out = remove_cuda_structures (out);
  return out;
}

static gboolean
gst_cvis_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = get_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
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
  priv->in_cuda = caps_is_cuda (incaps);
  priv->out_cuda = caps_is_cuda (outcaps);
  if ((priv->in_cuda || priv->out_cuda) && priv->backend != cvis::Backend::kCuda) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("CUDA memory needs backend=cuda or auto with a GPU"),
        (NULL));
    return FALSE;
  }
  priv->in_info = in_info;
  priv->out_info = out_info;
  GST_DEBUG_OBJECT (self, "caps in %" GST_PTR_FORMAT " out %" GST_PTR_FORMAT, incaps, outcaps);

  ContextScope scope (priv);
  cvis::Status st = scope.ok ()? guarded ([&] {
        if (klass->reset && priv->configured)
          klass->reset (self);
        return klass->configure ? klass->configure (self, &priv->in_info, &priv->out_info,
            priv->backend) : cvis::Status::Ok ();
      }) : cvis::Status (cvis::StatusCode::kCudaError, "could not push the CUDA context");
  if (!st.ok ()) {
    GST_CVIS_FILTER_ERROR (self, st);
    priv->configured = FALSE;
    return FALSE;
  }
  priv->configured = TRUE;
  return TRUE;
}

/* --------------------------------------------------------------------------------------------- */
/* Allocation */

static gboolean
gst_cvis_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
#ifdef CVIS_HAVE_CUDA
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = get_priv (self);
  GstCaps *caps = NULL;
  gboolean need_pool = FALSE;

  /* In-place analysers proxy the query downstream (GstBaseTransform), so this runs only for
   * filters with their own output: offer a pool on our context so CUDA producers (nvh264dec,
   * cudaupload) write straight into our context's memory. */
  if (!GST_BASE_TRANSFORM_CLASS (gst_cvis_filter_parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  if (decide_query == NULL)
    return TRUE;  /* passthrough */
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !caps_is_cuda (caps) || !priv->ctx)
    return TRUE;
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) == 0 && need_pool) {
    GstBufferPool *pool = gst_cuda_buffer_pool_new (priv->ctx);
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
  return GST_BASE_TRANSFORM_CLASS (gst_cvis_filter_parent_class)->propose_allocation (trans,
      decide_query, query);
#endif
}

static gboolean
gst_cvis_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = get_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  GstCaps *caps = NULL;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  GstVideoInfo info;

  if (klass->in_place)
    return GST_BASE_TRANSFORM_CLASS (gst_cvis_filter_parent_class)->decide_allocation (trans,
        query);

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  gboolean cuda = caps_is_cuda (caps);
  gboolean update = gst_query_get_n_allocation_pools (query) > 0;
  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
#ifdef CVIS_HAVE_CUDA
  if (cuda && pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
          GST_CUDA_BUFFER_POOL (pool)->context != priv->ctx))
    gst_clear_object (&pool);
  if (cuda && !pool)
    pool = gst_cuda_buffer_pool_new (priv->ctx);
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
  return GST_BASE_TRANSFORM_CLASS (gst_cvis_filter_parent_class)->decide_allocation (trans, query);
}

/* --------------------------------------------------------------------------------------------- */
/* Per buffer */

/* Maps `buf` for the resolved backend: a device view of CUDA memory with the CUDA backend, else a
 * host view. *mapped says whether `frame` must be unmapped (also when an error is returned). */
static cvis::Status
map_for_backend (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
    GstMapFlags flags, GstVideoFrame * frame, cvis::ImageView * view, bool *mapped)
{
  GstCvisFilterPrivate *priv = get_priv (self);
  gboolean cuda = FALSE;
  *mapped = false;
#ifdef CVIS_HAVE_CUDA
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  cuda = priv->backend == cvis::Backend::kCuda && gst_buffer_n_memory (buf) == 1 &&
      gst_is_cuda_memory (mem);
  if (cuda && GST_CUDA_MEMORY_CAST (mem)->context != priv->ctx && !priv->warned_foreign) {
    /* Same-device contexts interoperate (verified on the H100); it only costs ordering. */
    GST_WARNING_OBJECT (self, "CUDA memory from another context %" GST_PTR_FORMAT
        " (ours %" GST_PTR_FORMAT "); using it anyway",
        GST_CUDA_MEMORY_CAST (mem)->context, priv->ctx);
    priv->warned_foreign = TRUE;
  }
  if (cuda)
    flags = (GstMapFlags) (flags | GST_MAP_CUDA);
#if GST_CHECK_VERSION (1, 24, 0)
  /* From 1.24 memory can carry pending work on its producer's stream (cudaupload, nvcodec):
   * a CUDA map does not wait for it, and our stream would not be ordered after it. */
  if (cuda)
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#endif
#else
  (void) priv;
#endif
  /* NO_REF: an extra ref would make the buffer non-writable while the subclass attaches
   * metadata; the buffer outlives the mapping anyway. */
  flags = (GstMapFlags) (flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF);
  if (!gst_video_frame_map (frame, info, buf, flags))
    return cvis::Status (cvis::StatusCode::kInvalidArgument,
        "could not map the buffer (size or layout does not match the caps)");
  *mapped = true;
  if (!gst_cvis_view_from_frame (frame, cuda ? cvis::MemorySpace::kDevice :
          cvis::MemorySpace::kHost, view))
    return cvis::unsupported_format (std::string ("format ") +
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
  return cvis::Status::Ok ();
}

namespace {

/* A mapped buffer and its view; unmaps on destruction. */
class MappedFrame {
 public:
  ~MappedFrame () {
    if (mapped_)
      gst_video_frame_unmap (&frame_);
  }
  cvis::Status map (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
      GstMapFlags flags) {
    return map_for_backend (self, buf, info, flags, &frame_, &view_, &mapped_);
  }
  const cvis::ImageView & view () const { return view_; }

 private:
  GstVideoFrame frame_;
  bool mapped_ = false;
  cvis::ImageView view_;
};

}  // namespace

static GstFlowReturn
finish (GstCvisFilter * self, const cvis::Status & st)
{
  if (st.ok ())
    return GST_FLOW_OK;
  GST_CVIS_FILTER_ERROR (self, st);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_cvis_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = get_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);

  if (!priv->configured || !klass->analyse)
    return finish (self, cvis::internal_error ("buffer before caps were configured"));
  ContextScope scope (priv);
  if (!scope.ok ())
    return finish (self, cvis::Status (cvis::StatusCode::kCudaError, "could not push the CUDA context"));
  return finish (self, guarded ([&] {
        MappedFrame in;
        CVIS_RETURN_IF_ERROR (in.map (self, buf, &priv->in_info, GST_MAP_READ));
        CVIS_RETURN_IF_ERROR (klass->analyse (self, buf, in.view (), priv->stream));
        /* 1.22 buffers carry no stream: finish our work before the buffer leaves. */
        return priv->backend == cvis::Backend::kCuda ? cvis::stream_synchronize (priv->stream) :
            cvis::Status::Ok ();
      }));
}

static GstFlowReturn
gst_cvis_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = get_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);

  if (!priv->configured || !klass->process)
    return finish (self, cvis::internal_error ("buffer before caps were configured"));
  ContextScope scope (priv);
  if (!scope.ok ())
    return finish (self, cvis::Status (cvis::StatusCode::kCudaError, "could not push the CUDA context"));
  return finish (self, guarded ([&] {
        MappedFrame in, out;
        CVIS_RETURN_IF_ERROR (in.map (self, inbuf, &priv->in_info, GST_MAP_READ));
        CVIS_RETURN_IF_ERROR (out.map (self, outbuf, &priv->out_info, GST_MAP_WRITE));
        CVIS_RETURN_IF_ERROR (klass->process (self, inbuf, in.view (), outbuf, out.view (),
                priv->stream));
        return priv->backend == cvis::Backend::kCuda ? cvis::stream_synchronize (priv->stream) :
            cvis::Status::Ok ();
      }));
}

static gboolean
gst_cvis_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = get_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP && priv->configured && klass->reset) {
    ContextScope scope (priv);
    cvis::Status st = guarded ([&] {
          klass->reset (self);
          return cvis::Status::Ok ();
        });
    if (!st.ok ())
      GST_WARNING_OBJECT (self, "reset failed: %s", st.to_string ().c_str ());
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cvis_filter_parent_class)->sink_event (trans, event);
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cvis_filter_finalize (GObject * object)
{
  get_priv (GST_CVIS_FILTER (object))->~GstCvisFilterPrivate ();
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

  element_class->set_context = GST_DEBUG_FUNCPTR (gst_cvis_filter_set_context);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cvis_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cvis_filter_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cvis_filter_query);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_cvis_filter_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cvis_filter_set_caps);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_cvis_filter_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_cvis_filter_decide_allocation);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_cvis_filter_transform_ip);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cvis_filter_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cvis_filter_sink_event);
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

/* --------------------------------------------------------------------------------------------- */
/* For subclasses that schedule their own outputs and attach mask buffers */

cvis::Status
gst_cvis_filter_map_frame (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
    GstMapFlags flags, GstVideoFrame * frame, cvis::ImageView * view)
{
  bool mapped = false;
  cvis::Status st = map_for_backend (self, buf, info, flags, frame, view, &mapped);
  if (!st.ok () && mapped)
    gst_video_frame_unmap (frame);
  return st;
}

cvis::StreamHandle
gst_cvis_filter_get_stream (GstCvisFilter * self)
{
  return get_priv (self)->stream;
}

GstBufferPool *
gst_cvis_filter_new_gray8_pool (GstCvisFilter * self, gint width, gint height, gboolean cuda)
{
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstCaps *caps = NULL;
  if (cuda) {
#ifdef CVIS_HAVE_CUDA
    GstCvisFilterPrivate *priv = get_priv (self);
    if (!priv->ctx)
      return NULL;
    /* GStreamer's CUDA allocator has no GRAY8 (1.22 aborts, 1.24 to 1.26 refuse): allocate NV12
     * of the same size, whose plane 0 is a width x height byte plane, and describe only that
     * plane (see acquire). */
    pool = gst_cuda_buffer_pool_new (priv->ctx);
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
