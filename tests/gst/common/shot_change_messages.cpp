#include "shot_change_messages.hpp"

namespace cvis_test {

std::vector<ShotChange> pop_shot_changes(GstBus* bus) {
  std::vector<ShotChange> out;
  while (GstMessage* msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure* s = gst_message_get_structure(msg);
    if (s && gst_structure_has_name(s, "cvis-shot-change")) {
      ShotChange c;
      c.has_frame = gst_structure_get_uint64(s, "frame", &c.frame) != FALSE;
      c.has_pts = gst_structure_get_uint64(s, "pts", &c.pts) != FALSE;
      c.has_running_time = gst_structure_get_uint64(s, "running-time", &c.running_time) != FALSE;
      out.push_back(c);
    }
    gst_message_unref(msg);
  }
  return out;
}

ShotChangeBus::ShotChangeBus(GstElement* element)
    : element_(GST_ELEMENT(gst_object_ref(element))), bus_(gst_bus_new()) {
  gst_element_set_bus(element_, bus_);
}

ShotChangeBus::~ShotChangeBus() {
  gst_element_set_bus(element_, nullptr);
  gst_object_unref(bus_);
  gst_object_unref(element_);
}

std::vector<ShotChange> ShotChangeBus::pop() {
  return pop_shot_changes(bus_);
}

} // namespace cvis_test
