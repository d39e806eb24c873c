/* Internal helpers of the metadata library's modules (not installed). */
#ifndef __GST_CVIS_META_PRIV_H__
#define __GST_CVIS_META_PRIV_H__

#include <gst/gst.h>

/* Copies every field of `from` into `to` (values are copied: buffers and GBytes are shared by
 * reference, as immutable payloads). */
static inline void
cvis_meta_copy_fields (const GstStructure * from, GstStructure * to)
{
  gint i, n = gst_structure_n_fields (from);
  for (i = 0; i < n; i++) {
    const gchar *name = gst_structure_nth_field_name (from, i);
    gst_structure_set_value (to, name, gst_structure_get_value (from, name));
  }
}

#endif /* __GST_CVIS_META_PRIV_H__ */
