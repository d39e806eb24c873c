/* GstCvisFilter: the base class of every gst-cuda-vision element.
 *
 * It owns everything about backends and CUDA that elements should not see:
 * - properties `backend` (auto/cpu/cuda) and `cuda-device-id` (-1 = auto);
 * - the GstCudaContext shared with neighbours (cudaupload, nvh264dec, cudaconvert, our elements)
 *   through set_context / the CONTEXT query / gst_cuda_ensure_element_context, and one CUDA stream
 *   per instance (gstcvisdevice.cpp); CUDA memory of another context: the element moves to that
 *   context (cuda-device-id -1 or that context's device), as GStreamer's CUDA base transform does;
 * - mapping buffers to cvis::ImageView (GstCvisFrame below, gstcvisframe.cpp: device views for
 *   memory:CUDAMemory, host views otherwise: the CUDA backends upload host frames themselves);
 * - calling the subclass with the context pushed, synchronising the stream before a buffer leaves;
 * - output buffers from pools (GstCudaBufferPool on our context for CUDA caps);
 * - cvis::Status -> element error mapping, state reset on flush, caps change and PAUSED->READY;
 * - metadata of outputs that are other images than the input (masks, background images): the
 *   metadata computed from the input's pixels (CEDD descriptors, foreground masks) is not copied
 *   onto them; the rest follows GstBaseTransform's rule (untagged metadata is copied);
 * - no C++ exception leaving a GObject callback.
 *
 * Subclasses are either in-place analysers (frames pass unchanged, metadata is attached:
 * set `in_place` in class_init and implement `analyse`) or filters producing another frame (masks,
 * background images: implement `process`, and `transform_caps` / `fixate_caps` of GstBaseTransform
 * when the output caps differ). Filters whose outputs lag their inputs derive from
 * GstCvisTemporalFilter (gstcvistemporal.h). All vfuncs below run with the CUDA context pushed
 * when the resolved backend is CUDA.
 */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "common/backend.hpp"
#include "common/image.hpp"
#include "common/status.hpp"

G_BEGIN_DECLS

#define GST_TYPE_CVIS_BACKEND (gst_cvis_backend_get_type ())
GType gst_cvis_backend_get_type (void);

/* Once per process, from plugin_init: prepares GStreamer's CUDA library (loads the driver when
 * there is one, registers the CUDA allocator). Safe and quick without a driver or GPU. */
void gst_cvis_filter_plugin_init (void);

#define GST_TYPE_CVIS_FILTER (gst_cvis_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCvisFilter, gst_cvis_filter, GST, CVIS_FILTER, GstBaseTransform)

struct _GstCvisFilterClass {
  GstBaseTransformClass parent_class;

  /* TRUE: in-place analyser (transform_ip -> analyse); FALSE: transform -> process. */
  gboolean in_place;
  /* In-place only. TRUE: `analyse` may write the frame's pixels (an overlay): the buffer is mapped
   * for reading and writing (GstBaseTransform hands over a writable buffer; memory shared with
   * another buffer is copied by the map). FALSE: read-only, pixels pass unchanged. */
  gboolean writable;

  /* New caps (also after a reset of the backend): build or rebuild the algorithm for `backend`
   * (kCpu or kCuda, already resolved). Called on every caps change, and again after the element
   * moved to another CUDA context (the objects of the old one were released first). */
  cvis::Status (*configure) (GstCvisFilter * self, const GstVideoInfo * in_info,
      const GstVideoInfo * out_info, cvis::Backend backend);

  /* In-place: analyse `frame` (a view of `buf`'s pixels, read-only unless `writable`) and attach
   * metadata to `buf` (writable). */
  cvis::Status (*analyse) (GstCvisFilter * self, GstBuffer * buf, const cvis::ImageView & frame,
      cvis::StreamHandle stream);

  /* Not in-place: compute `out` (a writable view of `outbuf`) from `in`. */
  cvis::Status (*process) (GstCvisFilter * self, GstBuffer * inbuf, const cvis::ImageView & in,
      GstBuffer * outbuf, const cvis::ImageView & out, cvis::StreamHandle stream);

  /* Forget temporal state (flush, caps change, PAUSED->READY); keep allocations if wanted. */
  void (*reset) (GstCvisFilter * self);

  /* Free every backend object (stop, and before moving to another CUDA context): the last call
   * with that context pushed. */
  void (*release) (GstCvisFilter * self);

  /* Added with GstCvisTemporalFilter (which implements it; other subclasses leave it NULL):
   * pushes every output still owed under the current configuration, before the caps or the CUDA
   * context change. Called on the streaming thread without the context pushed. */
  GstFlowReturn (*drain) (GstCvisFilter * self);

  /* Settings that are valid only together (sigma-min <= sigma-max, overlap < block-frames...):
   * property setters store each value as given in NULL and READY, so the order of setting never
   * matters, and this judges the whole at start. An error status is one element error (LIBRARY,
   * SETTINGS) and the start fails. NULL: nothing to check. */
  cvis::Status (*check_settings) (GstCvisFilter * self);

  /* Can frames of width x height be processed with the current settings (e.g. boxes inside the
   * frame)? Asked at start for the sizes upstream offers when they are all fixed: when it refuses
   * every one, the start fails with the first refusal, an error no negotiation could get past.
   * configure still checks the negotiated size. NULL: any size the templates allow. */
  cvis::Status (*check_size) (GstCvisFilter * self, gint width, gint height);
};

/* Adds "sink" and "src" templates: CUDA memory with `cuda_formats` first (NULL: none; CUDA builds
 * only), then system memory with `sys_formats`, e.g. "{ RGBA, BGRx, NV12 }" (the lists:
 * GST_CVIS_CUDA_FORMATS / GST_CVIS_SYS_FORMATS in gstcvisutils.h). */
void gst_cvis_filter_class_add_pad_templates (GstElementClass * klass,
    const gchar * cuda_formats, const gchar * sys_formats);
/* The same with other formats on the source pad (e.g. GRAY8 masks added). */
void gst_cvis_filter_class_add_pad_templates_full (GstElementClass * klass,
    const gchar * sink_cuda_formats, const gchar * sink_sys_formats,
    const gchar * src_cuda_formats, const gchar * src_sys_formats);
/* The same as gst_cvis_filter_class_add_pad_templates with width and height limited to
 * min_size..max_size on both pads (what the algorithm accepts: negotiation then picks a size it
 * can process, or fails at link time). */
void gst_cvis_filter_class_add_pad_templates_sized (GstElementClass * klass,
    const gchar * cuda_formats, const gchar * sys_formats, gint min_size, gint max_size);

/* The backend resolved at start (kCpu before start). */
cvis::Backend gst_cvis_filter_get_backend (GstCvisFilter * self);
const GstVideoInfo *gst_cvis_filter_get_in_info (GstCvisFilter * self);
const GstVideoInfo *gst_cvis_filter_get_out_info (GstCvisFilter * self);
/* TRUE when the negotiated input caps are memory:CUDAMemory. */
gboolean gst_cvis_filter_input_is_cuda (GstCvisFilter * self);

/* For subclasses' transform_caps: removes the memory:CUDAMemory structures of `caps` when the
 * backend cannot use them (CPU backend, chosen or auto without a GPU). Takes `caps`, returns the
 * result (GstCvisFilter's own transform_caps does this after the identity). */
GstCaps *gst_cvis_filter_restrict_caps (GstCvisFilter * self, GstCaps * caps);

/* Posts the element error that `status` maps to (see docs/design/architecture.md). Once: after
 * an error, the next ones (a caps event retried for every buffer, buffers while not configured)
 * are only logged, until the next start, flush or successful configuration. */
void gst_cvis_filter_post_error (GstCvisFilter * self, const cvis::Status & status,
    const gchar * file, const gchar * function, gint line);
#define GST_CVIS_FILTER_ERROR(self, status) \
  gst_cvis_filter_post_error (GST_CVIS_FILTER (self), (status), __FILE__, GST_FUNCTION, __LINE__)

/* Property contracts, for subclasses' set_property.
 * gst_cvis_filter_property_settable: FALSE when `pspec` only applies in NULL and READY
 * (GST_PARAM_MUTABLE_READY) and the element is in PAUSED or PLAYING: a warning names it, the
 * value is not taken. Call it first; the base class's own properties follow the same rule.
 * gst_cvis_filter_accept_change: for a value of settings that are valid only together, with
 * `check` the element's check of the whole including the new value. In NULL and READY every
 * value is taken (TRUE; check_settings judges the whole at start, so any order of setting
 * works); in PAUSED and PLAYING a value that makes the whole invalid is refused with a warning
 * (FALSE), the previous value stays in use. */
gboolean gst_cvis_filter_property_settable (GstCvisFilter * self, GParamSpec * pspec);
gboolean gst_cvis_filter_accept_change (GstCvisFilter * self, GParamSpec * pspec,
    const cvis::Status & check);
/* At start: one warning listing the properties among `names` (NULL-terminated) that were set on
 * this instance although the current settings ignore them; `why` says which setting (e.g.
 * "mode=motion"). Nothing when none of them was set. */
void gst_cvis_filter_warn_ignored (GstCvisFilter * self, const gchar * const *names,
    const gchar * why);

/* Runs `fn` with the CUDA context pushed (plain call for the CPU backend), catching exceptions.
 * For work outside the vfuncs above, e.g. from a property setter or an event handler. */
cvis::Status gst_cvis_filter_with_context (GstCvisFilter * self, cvis::Status (*fn) (gpointer),
    gpointer data);

/* Maps `buf` as transform() does: a device view for CUDA memory with the CUDA backend, a host
 * view otherwise (from GStreamer 1.24 after waiting for the memory's own stream). Call with the
 * CUDA context pushed (inside a vfunc or gst_cvis_filter_with_context); on success unmap with
 * gst_video_frame_unmap. GstCvisFrame below does the same and unmaps by itself. */
cvis::Status gst_cvis_filter_map_frame (GstCvisFilter * self, GstBuffer * buf,
    const GstVideoInfo * info, GstMapFlags flags, GstVideoFrame * frame, cvis::ImageView * view);
/* The instance's CUDA stream (nullptr with the CPU backend); valid between start and stop. */
cvis::StreamHandle gst_cvis_filter_get_stream (GstCvisFilter * self);
/* Waits for the instance's stream (nothing with the CPU backend). */
cvis::Status gst_cvis_filter_sync (GstCvisFilter * self);

/* Mask buffers referenced by metadata (GstCvisForegroundMeta): an active pool of width x height
 * GRAY8 images, in CUDA memory on the element's context (`cuda`, CUDA backend after start only)
 * or in system memory. GStreamer's CUDA allocator has no GRAY8 (1.22 aborts, 1.24 to 1.26 refuse
 * it), so CUDA buffers are
 * allocated as NV12 of the same size and gst_cvis_gray8_pool_acquire() rewrites their video meta
 * to one GRAY8 plane (stride = the allocation's pitch). NULL on failure (logged).
 * (gstcvismask.h has the helpers built on these.) */
GstBufferPool *gst_cvis_filter_new_gray8_pool (GstCvisFilter * self, gint width, gint height,
    gboolean cuda);
GstFlowReturn gst_cvis_gray8_pool_acquire (GstBufferPool * pool, GstBuffer ** buf);

G_END_DECLS

/* A buffer mapped for the algorithm (gst_cvis_filter_map_frame), unmapped when it goes out of scope
 * or by unmap(). Use it with the CUDA context pushed; the buffer must outlive the mapping. */
class GstCvisFrame {
 public:
  GstCvisFrame () = default;
  ~GstCvisFrame ();
  cvis::Status map (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
      GstMapFlags flags);
  /* A host view whatever the memory (CUDA memory is downloaded by the map): for side buffers read
   * by CPU code, e.g. a mask drawn onto a system-memory frame. */
  cvis::Status map_host (GstCvisFilter * self, GstBuffer * buf, const GstVideoInfo * info,
      GstMapFlags flags);
  void unmap ();
  const cvis::ImageView & view () const { return view_; }
  GstCvisFrame (const GstCvisFrame &) = delete;
  GstCvisFrame & operator= (const GstCvisFrame &) = delete;

 private:
  GstVideoFrame frame_;
  bool mapped_ = false;
  cvis::ImageView view_;
};
