/* The device half of GstCvisFilter (gst/common internal; elements use gstcvisfilter.h): backend
 * resolution, the GstCudaContext shared with the neighbours, the instance's CUDA stream, pushing
 * the context around calls, and what to do with CUDA memory of another context. */
#pragma once

#include <gst/gst.h>

#include <exception>
#include <new>
#include <string>

#include "common/backend.hpp"
#include "common/status.hpp"

struct _GstCudaContext;
typedef struct _GstCudaContext GstCudaContext;

/* Once per process: GStreamer's CUDA library loads, cuInit succeeds and a device exists.
 * GStreamer 1.22 deadlocks on the second context creation after a failed cuInit, so nothing may
 * reach the gst-cuda context helpers before this check has passed. */
gboolean gst_cvis_cuda_usable (void);

struct GstCvisDevice {
  cvis::Backend backend = cvis::Backend::kCpu;  /* resolved (kCpu or kCuda) */
  GstCudaContext *ctx = nullptr;                /* a reference; CUDA builds only */
  cvis::StreamHandle stream = nullptr;          /* created in ctx */
  gint cuda_device = -1;                        /* ctx's device (its turns: cvisturns.h) */
};

/* set_context vfunc: keeps the pipeline's context (a reference) unless one is held already. */
void gst_cvis_device_set_context (GstCvisDevice * dev, GstElement * element, GstContext * context,
    gint device_id);
/* CONTEXT query: TRUE when answered with our context. */
gboolean gst_cvis_device_context_query (GstCvisDevice * dev, GstElement * element,
    GstQuery * query);

/* start(): resolves `requested` into dev->backend; for CUDA finds or creates the shared context
 * (neighbours first) and creates the stream. On failure everything obtained is released again. */
cvis::Status gst_cvis_device_open (GstCvisDevice * dev, GstElement * element,
    cvis::Backend requested, gint device_id);
/* Destroys the stream (context pushed) and drops the context reference. */
void gst_cvis_device_close (GstCvisDevice * dev);
/* Drops the context reference only (finalize; after close this does nothing). */
void gst_cvis_device_release_context (GstCvisDevice * dev);

/* What to do with CUDA memory whose context is not ours. */
enum class GstCvisForeign {
  kNone,      /* not CUDA memory, or our context */
  kSwitch,    /* adopt the memory's context (device_id -1 or the memory's device) */
  kDevice,    /* read it as device memory: another context that ours can reach (peer access) */
  kHost,      /* another device ours cannot reach: map it in system memory (downloaded) */
};
GstCvisForeign gst_cvis_device_classify (const GstCvisDevice * dev, GstMemory * mem,
    gint device_id);
/* Moves `dev` to the context of CUDA memory `mem`: the old stream is destroyed (old context
 * pushed), the new context referenced and a stream created in it. The caller has released every
 * object of the old context before. */
cvis::Status gst_cvis_device_adopt (GstCvisDevice * dev, GstMemory * mem);

/* Pushes dev's CUDA context for the scope (nothing for the CPU backend). */
class GstCvisContextScope {
 public:
  explicit GstCvisContextScope (const GstCvisDevice * dev);
  ~GstCvisContextScope ();
  bool ok () const { return ok_; }
  /* The Status a caller returns when ok() is false. */
  static cvis::Status push_failed ();
  GstCvisContextScope (const GstCvisContextScope &) = delete;
  GstCvisContextScope & operator= (const GstCvisContextScope &) = delete;

 private:
  bool pushed_ = false;
  bool ok_ = true;
};

/* A turn on the device's GPU (gst/cvis/cvisturns.h) for one frame's work and the wait for it,
 * held for the object's life; nothing for the CPU backend or a device without a limit. Take it
 * only around the work itself, never around anything that can block on another element (a pad
 * push, a buffer pool): that element may be waiting for a turn. */
class GstCvisGpuTurn {
 public:
  explicit GstCvisGpuTurn (const GstCvisDevice * dev);
  ~GstCvisGpuTurn ();
  GstCvisGpuTurn (const GstCvisGpuTurn &) = delete;
  GstCvisGpuTurn & operator= (const GstCvisGpuTurn &) = delete;

 private:
  gint device_ = -1;
  bool held_ = false;
};

/* Runs `fn` and turns any C++ exception into a Status: no exception leaves a GObject callback. */
template <typename F>
cvis::Status
gst_cvis_guarded (F && fn)
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
