/* GStreamer side of the store (store/): what every element that writes to a store needs.
 *
 *   GstCvisStoreLink     a store Writer owned by an element: opening it is an element error when
 *                        the store cannot be used; the writer's events (store unreachable, rows
 *                        waiting on disk, reachable again, refused) become element warnings and
 *                        infos; EOS waits for the rows and says which are not stored.
 *   stream name          the upstream source's location when the element has no stream-name.
 *   frame numbers        the same numbering in every element (from 0; after a seek, from the
 *                        stream position).
 *
 * Used by cudacedd (index-location) and cvisstore. No CUDA here. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>

#include "store/writer.hpp"

/* The name rows are stored under when the element has no stream-name: the location of the
 * upstream source (GST_QUERY_URI on `sinkpad`'s peer: a local path for file:// URIs, other URIs
 * without a password), else the STREAM_START event's stream id, else "stream". */
std::string gst_cvis_store_stream_name (GstPad * sinkpad, GstEvent * stream_start);

/* The number of the frame at `stream_time` when the frame rate is known (after a seek the
 * numbering continues where the stream is), else 0. */
guint64 gst_cvis_frame_number (const GstVideoInfo * info, GstClockTime stream_time);

/* Frame numbers and stream times of the buffers an element sees (streaming thread). */
struct GstCvisFramePosition {
  guint64 next = 0;
  bool resync = false;  /* after a flush: number from the stream time */

  void start () { next = 0; resync = false; }  /* at start: from 0 (live sources too) */
  void flushed () { resync = true; }
  /* The buffer's frame number and stream time (GST_CLOCK_TIME_NONE when unknown). */
  guint64 advance (GstBuffer * buf, const GstSegment * segment, const GstVideoInfo * info,
      GstClockTime * stream_time);
};

/* How long EOS waits for a store that cannot be reached before the element posts an error
 * (cudacedd's index-location; cvisstore has a property). */
#define GST_CVIS_STORE_DEFAULT_EOS_TIMEOUT_S 30

class GstCvisStoreLink {
public:
  ~GstCvisStoreLink () { (void) writer_.close (0); }

  /* Opens `location` (given to the element as `property`); posts an element error and returns
   * FALSE when it cannot be used. */
  gboolean open (GstElement * element, const char *property, const std::string & location,
      const cvis::store::WriterOptions & options);
  bool is_open () const { return writer_.is_open (); }
  const std::string & run_id () const { return writer_.run_id (); }
  const std::string & display () const { return writer_.location ().display; }

  /* Queues rows (never waits for the store); fails only when the writer is not open. */
  cvis::Status add (cvis::store::Batch && batch) { return writer_.add (std::move (batch)); }
  /* At EOS: waits up to `timeout_s` for every row to be stored; otherwise posts an element
   * error saying how many rows are not stored and where they are kept. */
  gboolean drain (GstElement * element, guint timeout_s);
  /* At stop: stores what is queued (waiting up to `timeout_s` while the store is reachable),
   * then closes; rows not stored are reported as an element error (they stay in the disk
   * queue for the next writer of this store). */
  void close (GstElement * element, guint timeout_s);

  cvis::store::WriterStats stats () const { return writer_.stats (); }
  cvis::store::Writer & writer () { return writer_; }

private:
  cvis::store::Writer writer_;
  bool reported_ = false;       /* drain() posted the rows not stored already */
};
