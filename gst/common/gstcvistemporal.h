/* GstCvisTemporalFilter: base class of filters whose outputs lag their inputs (a centered temporal
 * window: cudamedian3d; later cudaactionmatch). It schedules the outputs itself, on top of
 * GstBaseTransform's submit_input_buffer / generate_output:
 * - one owed output per input frame, oldest first: the frame itself (frame outputs) or an empty
 *   buffer with its timestamps, flags and metadata (new outputs: a pool buffer gets them);
 * - serialised events (SEGMENT, GAP, STREAM_START, TAG, ...) arriving while outputs are owed wait
 *   behind them and leave right after the output they followed; the input side's segment updates
 *   at once;
 * - what is owed is drained (the window closes, `ready` is asked with draining = TRUE) at EOS,
 *   before a caps change (upstream or downstream renegotiation) and before moving to another CUDA
 *   context; a flush drops it (sticky events still leave, after FLUSH_STOP);
 * - latency: get_lag frames of the input's frame rate are added to the LATENCY query, and a
 *   LATENCY message is posted when that latency becomes known or changes (new caps);
 * - frame outputs hold up to lag + 1 upstream buffers: propose_allocation asks for that many more
 *   (bounded upstream pools would otherwise stall).
 * Subclasses implement get_lag, push, ready and produce below, and GstCvisFilter's configure,
 * reset and release (not analyse / process / drain). Every vfunc but get_lag runs on the streaming
 * thread with the CUDA context pushed; the base class waits for the stream before a buffer leaves
 * or an input is released.
 */
#pragma once

#include "gstcvisfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CVIS_TEMPORAL_FILTER (gst_cvis_temporal_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCvisTemporalFilter, gst_cvis_temporal_filter, GST,
    CVIS_TEMPORAL_FILTER, GstCvisFilter)

struct _GstCvisTemporalFilterClass {
  GstCvisFilterClass parent_class;

  /* Frames by which outputs lag inputs with the current settings (0: none). Any thread. */
  guint (*get_lag) (GstCvisTemporalFilter * self);

  /* Frame `inbuf` enters the window; `in` is a read-only view of it, valid during the call (the
   * kernels may still read it afterwards: the base class keeps the buffer until the stream is
   * synchronised). New outputs (not frame outputs): the view stays mapped until the outputs that
   * became ready after this push were produced (a subclass without lag may read it in produce). */
  cvis::Status (*push) (GstCvisTemporalFilter * self, GstBuffer * inbuf,
      const cvis::ImageView & in, cvis::StreamHandle stream);

  /* Sets *ready when the output of the oldest owed frame can be computed now. `draining`: no
   * frame follows (the window is clipped at its end). Asked until it answers FALSE; each TRUE is
   * followed by one produce. */
  cvis::Status (*ready) (GstCvisTemporalFilter * self, gboolean draining, gboolean * ready);

  /* Computes the output of the oldest owed frame. Frame outputs: `outbuf` is that frame
   * (writable) and `out` is NULL: attach metadata. New outputs: `outbuf` comes from the output
   * pool with the frame's timestamps, flags and metadata, `out` is a writable view of it. */
  cvis::Status (*produce) (GstCvisTemporalFilter * self, GstBuffer * outbuf,
      const cvis::ImageView * out, cvis::StreamHandle stream);
};

/* From configure: TRUE when the outputs are the input frames themselves (held until due), FALSE
 * (default) when they are new buffers of the output caps. */
void gst_cvis_temporal_filter_set_frame_output (GstCvisTemporalFilter * self, gboolean frames);

G_END_DECLS
