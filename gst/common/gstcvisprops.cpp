/* GstCvisFilter: property contracts shared by every element (gstcvisfilter.h): what may change in
 * which state, settings that are valid only together, settings the current mode ignores, and the
 * start-time checks of the settings and of the sizes upstream offers. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string>
#include <utility>
#include <vector>

#include "gstcvisfilter_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

/* A warning the user sees (gst-launch-1.0 prints it on stderr) and the debug log keeps. */
static void
warn (GstCvisFilter * self, const std::string & what)
{
  GST_WARNING_OBJECT (self, "%s", what.c_str ());
  g_warning ("%s: %s", GST_OBJECT_NAME (self), what.c_str ());
}

static gboolean
running (GstCvisFilter * self)
{
  GST_OBJECT_LOCK (self);
  const gboolean r = GST_STATE (self) > GST_STATE_READY;
  GST_OBJECT_UNLOCK (self);
  return r;
}

gboolean
gst_cvis_filter_property_settable (GstCvisFilter * self, GParamSpec * pspec)
{
  if (!(pspec->flags & GST_PARAM_MUTABLE_READY) || !running (self))
    return TRUE;
  warn (self, std::string ("'") + pspec->name + "' can only be changed in the NULL or READY "
      "state: the value in use stays");
  return FALSE;
}

gboolean
gst_cvis_filter_accept_change (GstCvisFilter * self, GParamSpec * pspec,
    const cvis::Status & check)
{
  if (check.ok () || !running (self))
    return TRUE;
  warn (self, std::string ("'") + pspec->name + "' refused while running: " + check.message () +
      " (the previous value stays; change the other value of the pair first)");
  return FALSE;
}

/* GObject::notify: remembers which properties were set (gst_cvis_filter_warn_ignored). */
void
gst_cvis_filter_notify (GObject * object, GParamSpec * pspec)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (GST_CVIS_FILTER (object));
  std::lock_guard<std::mutex> lk (priv->lock);
  priv->set_props.insert (pspec->name);
}

void
gst_cvis_filter_warn_ignored (GstCvisFilter * self, const gchar * const *names, const gchar * why)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  std::string list;
  {
    std::lock_guard<std::mutex> lk (priv->lock);
    for (const gchar * const *n = names; *n; n++) {
      if (priv->set_props.count (*n))
        list += (list.empty ()? "" : ", ") + std::string (*n);
    }
  }
  if (!list.empty ())
    warn (self, "ignored with " + std::string (why) + ": " + list);
}

/* The fixed sizes of `caps`, or FALSE when one of its structures leaves the size open. */
static gboolean
fixed_sizes (GstCaps * caps, std::vector<std::pair<gint, gint>> * sizes)
{
  if (!caps || gst_caps_is_any (caps) || gst_caps_is_empty (caps))
    return FALSE;
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    gint w, h;
    if (!gst_structure_get_int (s, "width", &w) || !gst_structure_get_int (s, "height", &h))
      return FALSE;
    sizes->push_back ({w, h});
  }
  return TRUE;
}

cvis::Status
gst_cvis_filter_check_start (GstCvisFilter * self)
{
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  if (klass->check_settings)
    CVIS_RETURN_IF_ERROR (gst_cvis_guarded ([&] { return klass->check_settings (self); }));
  if (!klass->check_size)
    return cvis::Status::Ok ();
  /* Upstream is still in READY, and answers the caps query: a capsfilter of one size, say. */
  GstCaps *peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SINK_PAD (self), NULL);
  std::vector<std::pair<gint, gint>> sizes;
  const gboolean fixed = fixed_sizes (peer, &sizes);
  if (peer)
    gst_caps_unref (peer);
  if (!fixed)
    return cvis::Status::Ok ();
  cvis::Status first;
  for (const auto & wh : sizes) {
    const cvis::Status s = gst_cvis_guarded ([&] { return klass->check_size (self, wh.first,
              wh.second); });
    if (s.ok ())
      return s;
    if (first.ok ())
      first = s;
  }
  return first;
}
