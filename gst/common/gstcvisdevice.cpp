#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvisdevice.h"

#include <gst/cvis/cvisturns.h>

#ifdef CVIS_HAVE_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cvis_device_debug);
#define GST_CAT_DEFAULT gst_cvis_device_debug

static void
init_debug (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cvis_device_debug, "cvisdevice", 0,
        "gst-cuda-vision CUDA context and stream");
    g_once_init_leave (&once, 1);
  }
}

gboolean
gst_cvis_cuda_usable (void)
{
#ifdef CVIS_HAVE_CUDA
  static gsize once = 0;
  static gboolean ok = FALSE;
  init_debug ();
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
gst_cvis_device_set_context (GstCvisDevice * dev, GstElement * element, GstContext * context,
    gint device_id)
{
#ifdef CVIS_HAVE_CUDA
  if (gst_cvis_cuda_usable ())
    gst_cuda_handle_set_context (element, context, device_id, &dev->ctx);
#else
  (void) dev;
  (void) element;
  (void) context;
  (void) device_id;
#endif
}

gboolean
gst_cvis_device_context_query (GstCvisDevice * dev, GstElement * element, GstQuery * query)
{
#ifdef CVIS_HAVE_CUDA
  return GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT && gst_cvis_cuda_usable () &&
      gst_cuda_handle_context_query (element, query, dev->ctx);
#else
  (void) dev;
  (void) element;
  (void) query;
  return FALSE;
#endif
}

cvis::Status
gst_cvis_device_open (GstCvisDevice * dev, GstElement * element, cvis::Backend requested,
    gint device_id)
{
  init_debug ();
  if (requested == cvis::Backend::kCpu) {
    dev->backend = cvis::Backend::kCpu;
  } else if (gst_cvis_cuda_usable ()) {
    dev->backend = cvis::Backend::kCuda;
  } else if (requested == cvis::Backend::kCuda) {
    dev->backend = cvis::Backend::kCpu;
    return cvis::Status (cvis::StatusCode::kNoDevice,
        cvis::cuda_compiled ()? "backend=cuda but no usable CUDA device or driver "
        "(libcuda.so.1 missing, no GPU, or cuInit failed)" :
        "backend=cuda but this build has no CUDA support");
  } else {
    dev->backend = cvis::Backend::kCpu;
  }
  GST_INFO_OBJECT (element, "backend %s (requested %s)", cvis::backend_name (dev->backend),
      cvis::backend_name (requested));
  if (dev->backend != cvis::Backend::kCuda) {
    /* A context handed over through set_context is of no use to the CPU backend. */
    gst_cvis_device_release_context (dev);
    return cvis::Status::Ok ();
  }
#ifdef CVIS_HAVE_CUDA
  if (!gst_cuda_ensure_element_context (element, device_id, &dev->ctx)) {
    gst_cvis_device_release_context (dev);
    return cvis::Status (cvis::StatusCode::kNoDevice,
        "could not obtain a CUDA context for cuda-device-id=" + std::to_string (device_id));
  }
  g_object_get (dev->ctx, "cuda-device-id", &dev->cuda_device, NULL);
  cvis::Status st;
  {
    GstCvisContextScope scope (dev);
    st = scope.ok ()? cvis::stream_create (&dev->stream) : GstCvisContextScope::push_failed ();
  }
  if (!st.ok ()) {
    dev->stream = nullptr;
    gst_cvis_device_release_context (dev);
  }
  return st;
#else
  (void) device_id;
  return cvis::internal_error ("CUDA backend in a build without CUDA");
#endif
}

void
gst_cvis_device_close (GstCvisDevice * dev)
{
  if (dev->stream) {
    GstCvisContextScope scope (dev);
    cvis::stream_destroy (dev->stream);
    dev->stream = nullptr;
  }
  gst_cvis_device_release_context (dev);
  dev->backend = cvis::Backend::kCpu;
}

void
gst_cvis_device_release_context (GstCvisDevice * dev)
{
  dev->cuda_device = -1;
#ifdef CVIS_HAVE_CUDA
  gst_clear_object (&dev->ctx);
#else
  (void) dev;
#endif
}

GstCvisForeign
gst_cvis_device_classify (const GstCvisDevice * dev, GstMemory * mem, gint device_id)
{
#ifdef CVIS_HAVE_CUDA
  if (dev->backend != cvis::Backend::kCuda || !dev->ctx || !mem || !gst_is_cuda_memory (mem))
    return GstCvisForeign::kNone;
  GstCudaContext *theirs = GST_CUDA_MEMORY_CAST (mem)->context;
  if (theirs == dev->ctx)
    return GstCvisForeign::kNone;
  guint their_device = 0, our_device = 0;
  g_object_get (theirs, "cuda-device-id", &their_device, NULL);
  g_object_get (dev->ctx, "cuda-device-id", &our_device, NULL);
  if (device_id < 0 || their_device == (guint) device_id)
    return GstCvisForeign::kSwitch;
  /* Contexts of one device share its address space; another device needs peer access. */
  if (their_device == our_device || gst_cuda_context_can_access_peer (dev->ctx, theirs))
    return GstCvisForeign::kDevice;
  return GstCvisForeign::kHost;
#else
  (void) dev;
  (void) mem;
  (void) device_id;
  return GstCvisForeign::kNone;
#endif
}

cvis::Status
gst_cvis_device_adopt (GstCvisDevice * dev, GstMemory * mem)
{
#ifdef CVIS_HAVE_CUDA
  GstCudaContext *theirs = GST_CUDA_MEMORY_CAST (mem)->context;
  if (dev->stream) {
    GstCvisContextScope scope (dev);
    cvis::stream_destroy (dev->stream);
    dev->stream = nullptr;
  }
  gst_object_replace ((GstObject **) & dev->ctx, GST_OBJECT (theirs));
  g_object_get (dev->ctx, "cuda-device-id", &dev->cuda_device, NULL);
  GstCvisContextScope scope (dev);
  if (!scope.ok ())
    return GstCvisContextScope::push_failed ();
  return cvis::stream_create (&dev->stream);
#else
  (void) dev;
  (void) mem;
  return cvis::internal_error ("CUDA memory in a build without CUDA");
#endif
}

GstCvisContextScope::GstCvisContextScope (const GstCvisDevice * dev)
{
#ifdef CVIS_HAVE_CUDA
  if (dev->backend == cvis::Backend::kCuda && dev->ctx)
    pushed_ = gst_cuda_context_push (dev->ctx);
  ok_ = pushed_ || dev->backend != cvis::Backend::kCuda;
#else
  (void) dev;
#endif
}

GstCvisContextScope::~GstCvisContextScope ()
{
#ifdef CVIS_HAVE_CUDA
  if (pushed_)
    gst_cuda_context_pop (NULL);
#endif
}

GstCvisGpuTurn::GstCvisGpuTurn (const GstCvisDevice * dev)
{
  if (dev->backend != cvis::Backend::kCuda || dev->cuda_device < 0)
    return;
  device_ = dev->cuda_device;
  held_ = gst_cvis_gpu_turn_acquire (device_);
}

GstCvisGpuTurn::~GstCvisGpuTurn ()
{
  if (held_)
    gst_cvis_gpu_turn_release (device_);
}

cvis::Status
GstCvisContextScope::push_failed ()
{
  return cvis::Status (cvis::StatusCode::kCudaError, "could not push the CUDA context");
}
