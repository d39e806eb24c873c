/* cvisstore: writes everything the elements found on each buffer (CEDD descriptors, shot
 * changes, boxes, tracks, recognised actions) to a store (SQLite or PostgreSQL). See
 * gstcvisstore.cpp for the element documentation. */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_CVIS_STORE (gst_cvis_store_get_type ())
G_DECLARE_FINAL_TYPE (GstCvisStore, gst_cvis_store, GST, CVIS_STORE, GstBaseTransform)

#define GST_TYPE_CVIS_STORE_RECORDS (gst_cvis_store_records_get_type ())
GType gst_cvis_store_records_get_type (void);

/* Which records are written (flags). */
typedef enum {
  GST_CVIS_STORE_RECORDS_DESCRIPTORS = 1 << 0,  /* CEDD descriptors (GstCvisCeddMeta) */
  GST_CVIS_STORE_RECORDS_SHOTS = 1 << 1,        /* shot changes marked on the CEDD meta */
  GST_CVIS_STORE_RECORDS_BOXES = 1 << 2,        /* every GstVideoRegionOfInterestMeta */
  GST_CVIS_STORE_RECORDS_TRACKS = 1 << 3,       /* span of each track (ROI type "track") */
  GST_CVIS_STORE_RECORDS_ACTIONS = 1 << 4,      /* GstCvisActionMeta */
} GstCvisStoreRecords;

#define GST_CVIS_STORE_RECORDS_ALL ((GstCvisStoreRecords) 0x1f)

G_END_DECLS
