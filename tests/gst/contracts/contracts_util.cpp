#include "contracts_util.hpp"

namespace contracts {

namespace {

struct Counter {
  std::mutex lock;
  std::string element;
  Outcome* out;
};

GstBusSyncReply count_errors(GstBus*, GstMessage* msg, gpointer data) {
  auto* c = static_cast<Counter*>(data);
  if (GST_MESSAGE_TYPE(msg) != GST_MESSAGE_ERROR)
    return GST_BUS_PASS;
  GError* err = nullptr;
  gst_message_parse_error(msg, &err, nullptr);
  std::lock_guard<std::mutex> lk(c->lock);
  c->out->errors++;
  if (c->out->errors == 1) {
    c->out->first_error = err->message;
    c->out->domain = err->domain;
    c->out->code = err->code;
  }
  if (GST_MESSAGE_SRC(msg) && c->element == GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)))
    c->out->errors_from++;
  g_error_free(err);
  return GST_BUS_PASS;
}

} // namespace

Outcome run_pipeline(const std::string& desc, const char* element, double timeout_s) {
  Outcome out;
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &err);
  if (err) {
    out.parse_error = err->message;
    g_error_free(err);
    if (pipeline)
      gst_object_unref(pipeline);
    return out;
  }
  out.parsed = true;
  Counter counter;
  counter.element = element;
  counter.out = &out;
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_bus_set_sync_handler(bus, count_errors, &counter, nullptr);
  if (gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
    out.start_failed = true;
  } else {
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstMessage* m = gst_bus_timed_pop_filtered(
        bus, static_cast<GstClockTime>(timeout_s * GST_SECOND),
        static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    if (m) {
      out.ended = true;
      out.eos = GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
      gst_message_unref(m);
    }
  }
  // Stopping joins the streaming threads: every error they were going to post has been counted.
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return out;
}

WarningCapture::WarningCapture() {
  id_ = g_log_set_handler(nullptr, static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING), handler, this);
}

WarningCapture::~WarningCapture() {
  g_log_remove_handler(nullptr, id_);
}

void WarningCapture::handler(const gchar*, GLogLevelFlags, const gchar* msg, gpointer self) {
  auto* c = static_cast<WarningCapture*>(self);
  std::lock_guard<std::mutex> lk(c->lock_);
  c->messages_.push_back(msg);
}

std::vector<std::string> WarningCapture::take() {
  std::lock_guard<std::mutex> lk(lock_);
  std::vector<std::string> out;
  out.swap(messages_);
  return out;
}

int WarningCapture::count(const std::string& word) {
  std::lock_guard<std::mutex> lk(lock_);
  int n = 0;
  for (const std::string& m : messages_)
    n += m.find(word) != std::string::npos;
  return n;
}

} // namespace contracts
