// Helpers for the property and error contracts of every element (cpu suite): pipelines run to
// their end with the element errors counted, and the warnings the elements print collected.
#pragma once

#include <gst/gst.h>

#include <mutex>
#include <string>
#include <vector>

namespace contracts {

// How a pipeline description ended.
struct Outcome {
  bool parsed = false;       // gst_parse_launch built and linked it
  std::string parse_error;   // otherwise why (a link refused at parse time)
  bool start_failed = false; // set_state(PAUSED) returned FAILURE (an error at start)
  bool ended = false;        // an ERROR or EOS reached the application before the timeout
  bool eos = false;
  int errors_from = 0;     // ERROR messages posted by the element named `element`
  int errors = 0;          // ERROR messages in all
  std::string first_error; // the first one's message
  GQuark domain = 0;       // and its domain and code
  int code = 0;
};

// Runs `desc` to PLAYING and waits (at most `timeout_s`) for an ERROR or EOS, then stops it and
// counts every ERROR message posted meanwhile (a bus sync handler sees them all).
Outcome run_pipeline(const std::string& desc, const char* element, double timeout_s = 20.0);

// GLib warnings printed while alive (g_warning of the default domain, as the elements warn).
class WarningCapture {
public:
  WarningCapture();
  ~WarningCapture();
  std::vector<std::string> take();
  // Warnings that contain `word`.
  int count(const std::string& word);

private:
  static void handler(const gchar* domain, GLogLevelFlags level, const gchar* msg, gpointer self);
  guint id_;
  std::mutex lock_;
  std::vector<std::string> messages_;
};

} // namespace contracts
