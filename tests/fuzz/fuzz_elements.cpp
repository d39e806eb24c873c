// Element fuzzer: for each seed, one element between an appsrc and a fakesink, random property
// values set in a random order, random caps (every format of the element's template, sizes
// 1..4096, mostly small), renegotiation at random frames, random property changes while playing,
// random frame contents; then EOS. Every run must end (EOS or an error): a run that does no work
// for 60 s is a hang, one that takes more than 600 CPU seconds a failure too. The element must post
// at most one error, never an internal one, and every error must say what went wrong. Crashes and
// leaks are the sanitizers' to find (scripts/fuzz.sh builds with them).
//
// Usage: fuzz_elements [--seeds N] [--first S] [--backend cpu|cuda] [--element NAME] [--verbose]
// cudaactionmatch reads a dictionary of random models written at start (its matching is not what is
// fuzzed here: the dictionary file itself is fuzz_files.py's).
// Exit status 0 when every seed passed; the failing seeds are printed (rerun one with
// --first S --seeds 1 --verbose).
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "actionlearn/actionlearn_recognise.hpp"

namespace {

struct Options {
  int seeds = 100;
  long first = 1;
  std::string backend = "cpu";
  std::string element;
  bool verbose = false;
};

using Rng = std::mt19937_64;

int uniform(Rng& r, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(r);
}

double uniform_real(Rng& r, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(r);
}

// Sizes 1..4096, mostly small (CPU time), sometimes at the templates' limits.
int random_side(Rng& r) {
  const int k = uniform(r, 0, 99);
  if (k < 60)
    return uniform(r, 1, 64);
  if (k < 90)
    return uniform(r, 65, 320);
  if (k < 97)
    return uniform(r, 321, 1024);
  return uniform(r, 1025, 4096);
}

// Properties never fuzzed: the GObject/GstObject ones, and the backend (--backend sets it).
bool skipped(const char* name) {
  for (const char* s :
       {"name", "parent", "qos", "backend", "cuda-device-id", "model-location", "index-location"}) {
    if (std::strcmp(name, s) == 0)
      return true;
  }
  return false;
}

// Strings for string properties: well-formed, edge and malformed values.
std::string random_string(Rng& r, const char* prop) {
  if (std::strcmp(prop, "roi") == 0) {
    const char* fixed[] = {"",  "0,0,4,4", "1,1,8,8;2,2,10,10",         "-1,0,5,5", "0,0,0,0",
                           "x", "1,2,3",   "0,0,2147483647,2147483647", "5,5,5,5;", ";;;"};
    if (uniform(r, 0, 1))
      return fixed[uniform(r, 0, 9)];
    std::string s;
    for (int i = uniform(r, 1, 3); i > 0; --i) {
      s += std::to_string(uniform(r, -4, 300)) + "," + std::to_string(uniform(r, -4, 300)) + "," +
           std::to_string(uniform(r, 0, 200)) + "," + std::to_string(uniform(r, 0, 200));
      if (i > 1)
        s += ";";
    }
    return s;
  }
  if (std::strcmp(prop, "features") == 0) {
    const char* fixed[] = {"rgb,i,ix,iy", "x,y,i", "ixx,iyy,ix,iy,mag,ori",    "",
                           "nonsense",    "i",     "r,g,b,i,ix,iy,ixx,iyy,mag"};
    return fixed[uniform(r, 0, 6)];
  }
  const char* fixed[] = {"", "foreground", "track", "detection", "a,b,c", "\xff\xfe", "frame"};
  return fixed[uniform(r, 0, 6)];
}

// Sets `pspec` to a random value of its type (ranges as the pspec declares, edges included).
void set_random(GstElement* e, GParamSpec* ps, Rng& r, bool verbose) {
  GValue v = G_VALUE_INIT;
  g_value_init(&v, ps->value_type);
  const bool edge = uniform(r, 0, 3) == 0;
  if (G_IS_PARAM_SPEC_INT(ps)) {
    auto* p = G_PARAM_SPEC_INT(ps);
    const int hi = p->maximum > p->minimum + 1000 && !edge ? p->minimum + 1000 : p->maximum;
    g_value_set_int(&v, edge ? (uniform(r, 0, 1) ? p->minimum : p->maximum)
                             : uniform(r, p->minimum, hi));
  } else if (G_IS_PARAM_SPEC_UINT(ps)) {
    auto* p = G_PARAM_SPEC_UINT(ps);
    const guint hi = p->maximum > p->minimum + 1000 && !edge ? p->minimum + 1000 : p->maximum;
    g_value_set_uint(
        &v, edge ? (uniform(r, 0, 1) ? p->minimum : p->maximum)
                 : static_cast<guint>(std::uniform_int_distribution<guint64>(p->minimum, hi)(r)));
  } else if (G_IS_PARAM_SPEC_DOUBLE(ps)) {
    auto* p = G_PARAM_SPEC_DOUBLE(ps);
    const double hi = p->maximum > p->minimum + 100 && !edge ? p->minimum + 100 : p->maximum;
    g_value_set_double(&v, edge ? (uniform(r, 0, 1) ? p->minimum : p->maximum)
                                : uniform_real(r, p->minimum, hi));
  } else if (G_IS_PARAM_SPEC_FLOAT(ps)) {
    auto* p = G_PARAM_SPEC_FLOAT(ps);
    const double hi = p->maximum > p->minimum + 100 && !edge ? p->minimum + 100 : p->maximum;
    g_value_set_float(&v, static_cast<float>(edge ? (uniform(r, 0, 1) ? p->minimum : p->maximum)
                                                  : uniform_real(r, p->minimum, hi)));
  } else if (G_IS_PARAM_SPEC_BOOLEAN(ps)) {
    g_value_set_boolean(&v, uniform(r, 0, 1));
  } else if (G_IS_PARAM_SPEC_ENUM(ps)) {
    GEnumClass* ec = G_PARAM_SPEC_ENUM(ps)->enum_class;
    g_value_set_enum(&v, ec->values[uniform(r, 0, static_cast<int>(ec->n_values) - 1)].value);
  } else if (G_IS_PARAM_SPEC_STRING(ps)) {
    g_value_set_string(&v, random_string(r, ps->name).c_str());
  } else {
    g_value_unset(&v);
    return;
  }
  if (verbose) {
    gchar* s = g_strdup_value_contents(&v);
    std::printf("  %s=%s\n", ps->name, s);
    g_free(s);
  }
  g_object_set_property(G_OBJECT(e), ps->name, &v);
  g_value_unset(&v);
}

// Writable properties of the element's own classes (not GstObject's), in a random order.
std::vector<GParamSpec*> fuzzable(GstElement* e, Rng& r, bool running) {
  guint n = 0;
  GParamSpec** all = g_object_class_list_properties(G_OBJECT_GET_CLASS(e), &n);
  std::vector<GParamSpec*> out;
  for (guint i = 0; i < n; ++i) {
    GParamSpec* ps = all[i];
    if (!(ps->flags & G_PARAM_WRITABLE) || (ps->flags & G_PARAM_CONSTRUCT_ONLY) ||
        skipped(ps->name))
      continue;
    if (running && !(ps->flags & GST_PARAM_MUTABLE_PLAYING) && uniform(r, 0, 3) != 0)
      continue; // mostly those that may change while playing, sometimes the others (refused)
    out.push_back(ps);
  }
  g_free(all);
  std::shuffle(out.begin(), out.end(), r);
  return out;
}

// The formats of the element's sink template (system memory).
std::vector<std::string> template_formats(GstElement* e) {
  std::vector<std::string> out;
  GstPad* pad = gst_element_get_static_pad(e, "sink");
  GstCaps* caps = gst_pad_get_pad_template_caps(pad);
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures* f = gst_caps_get_features(caps, i);
    if (f && gst_caps_features_contains(f, "memory:CUDAMemory"))
      continue;
    const GValue* list = gst_structure_get_value(gst_caps_get_structure(caps, i), "format");
    if (GST_VALUE_HOLDS_LIST(list)) {
      for (guint k = 0; k < gst_value_list_get_size(list); ++k)
        out.push_back(g_value_get_string(gst_value_list_get_value(list, k)));
    } else if (list && G_VALUE_HOLDS_STRING(list)) {
      out.push_back(g_value_get_string(list));
    }
  }
  gst_caps_unref(caps);
  gst_object_unref(pad);
  return out;
}

struct Verdict {
  std::mutex lock;
  int element_errors = 0;
  std::vector<std::string> problems;
};

GstBusSyncReply on_message(GstBus*, GstMessage* msg, gpointer data) {
  auto* v = static_cast<Verdict*>(data);
  if (GST_MESSAGE_TYPE(msg) != GST_MESSAGE_ERROR)
    return GST_BUS_PASS;
  GError* err = nullptr;
  gchar* dbg = nullptr;
  gst_message_parse_error(msg, &err, &dbg);
  std::lock_guard<std::mutex> lk(v->lock);
  const char* src = GST_MESSAGE_SRC(msg) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)) : "";
  if (std::strcmp(src, "e") == 0) {
    v->element_errors++;
    const std::string m = err->message;
    // An internal error is a broken invariant, an exception a bug: neither is a clear message.
    if (m.empty() || m.rfind("Internal error", 0) == 0 || m.find("exception") != std::string::npos)
      v->problems.push_back("unclear error: " + m + " (" + (dbg ? dbg : "") + ")");
  }
  g_error_free(err);
  g_free(dbg);
  return GST_BUS_PASS;
}

// A valid dictionary for the element's default front end: two models of random nodes.
std::string write_dictionary() {
  namespace am = cvis::actionmatch;
  namespace al = cvis::actionlearn;
  al::Dictionary d;
  al::describe(cvis::stip::FrontEndParams(), &d);
  Rng r(7);
  for (const char* label : {"walking", "boxing"}) {
    am::Model m;
    m.label = label;
    m.graph.dim = d.dim;
    std::vector<float> desc(static_cast<size_t>(d.dim));
    for (int n = 0; n < 6; ++n) {
      for (float& v : desc)
        v = static_cast<float>(uniform_real(r, 0.0, 1.0));
      m.graph.add(n * 3, static_cast<float>(uniform_real(r, 0, 64)),
                  static_cast<float>(uniform_real(r, 0, 48)), desc.data());
    }
    d.models.push_back(std::move(m));
  }
  const std::string path =
      std::string(g_get_tmp_dir()) + "/cvis-fuzz-dict-" + std::to_string(getpid()) + ".cvad";
  const cvis::Status st = al::save_dictionary(path, d);
  if (!st.ok()) {
    std::fprintf(stderr, "fuzz_elements: %s\n", st.to_string().c_str());
    std::exit(1);
  }
  return path;
}

// CPU time of the process so far.
double cpu_seconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

// Seeds whose run ended with an error (settings or sizes refused) rather than EOS.
int ended_in_error = 0;

// One seed; returns the problems found (empty: passed).
std::vector<std::string> run_seed(const Options& o, const std::string& dictionary, long seed) {
  Rng r(static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull + 1);
  const std::vector<std::string> elements = {"cudabgsub", "cudamedian3d",   "cudarcdtrack",
                                             "cudacedd",  "cudaroioverlay", "cudaactionmatch"};
  const std::string name = o.element.empty()
                               ? elements[uniform(r, 0, static_cast<int>(elements.size()) - 1)]
                               : o.element;
  GstElement* pipeline = gst_pipeline_new(nullptr);
  GstElement* src = gst_element_factory_make("appsrc", "src");
  GstElement* e = gst_element_factory_make(name.c_str(), "e");
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  if (!src || !e || !sink)
    return {"cannot create " + name};
  gst_bin_add_many(GST_BIN(pipeline), src, e, sink, nullptr);
  gst_element_link_many(src, e, sink, nullptr);
  g_object_set(src, "format", GST_FORMAT_TIME, "block", FALSE, nullptr);
  g_object_set(sink, "sync", FALSE, nullptr);
  gst_util_set_object_arg(G_OBJECT(e), "backend", o.backend.c_str());
  if (name == "cudaactionmatch")
    g_object_set(e, "model-location", dictionary.c_str(), nullptr);
  std::string db;
  if (name == "cudacedd" && uniform(r, 0, 3) == 0) {
    db = std::string(g_get_tmp_dir()) + "/cvis-fuzz-" + std::to_string(getpid()) + ".db";
    g_object_set(e, "index-location", db.c_str(), nullptr);
  }
  if (o.verbose)
    std::printf("seed %ld: %s\n", seed, name.c_str());
  for (GParamSpec* ps : fuzzable(e, r, false)) {
    if (uniform(r, 0, 2) == 0)
      set_random(e, ps, r, o.verbose);
  }
  const std::vector<std::string> formats = template_formats(e);
  Verdict verdict;
  GstBus* bus = gst_element_get_bus(pipeline);
  gst_bus_set_sync_handler(bus, on_message, &verdict, nullptr);

  std::vector<std::string> problems;
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE) {
    const int frames = uniform(r, 1, 12);
    int w = 0, h = 0;
    GstVideoInfo info;
    for (int f = 0; f < frames; ++f) {
      if (f == 0 || uniform(r, 0, 5) == 0) { // renegotiation at random frames
        w = random_side(r);
        h = random_side(r);
        if (static_cast<gint64>(w) * h > 1024 * 1024) // one large frame is enough
          f = std::max(f, frames - 1);
        const std::string fmt = formats[uniform(r, 0, static_cast<int>(formats.size()) - 1)];
        gchar* cs = g_strdup_printf("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1",
                                    fmt.c_str(), w, h);
        if (o.verbose)
          std::printf("  frame %d: %s\n", f, cs);
        GstCaps* caps = gst_caps_from_string(cs);
        g_free(cs);
        gst_video_info_from_caps(&info, caps);
        gst_app_src_set_caps(GST_APP_SRC(src), caps);
        gst_caps_unref(caps);
      }
      if (uniform(r, 0, 7) == 0) { // a change while playing
        std::vector<GParamSpec*> ps = fuzzable(e, r, true);
        if (!ps.empty())
          set_random(e, ps[0], r, o.verbose);
      }
      GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
      GstMapInfo map;
      gst_buffer_map(buf, &map, GST_MAP_WRITE);
      const int pattern = uniform(r, 0, 2);
      for (gsize i = 0; i < map.size; ++i)
        map.data[i] = pattern == 0 ? static_cast<guint8>(r()) : pattern == 1 ? 0 : 255;
      gst_buffer_unmap(buf, &map);
      GST_BUFFER_PTS(buf) = f * GST_SECOND / 30;
      GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
      if (gst_app_src_push_buffer(GST_APP_SRC(src), buf) != GST_FLOW_OK)
        break;
    }
    gst_app_src_end_of_stream(GST_APP_SRC(src));
    // A hang is a run that stops using the CPU without ending (a deadlock, a lost EOS); a slow
    // one (a search over a whole large frame on the CPU backend) keeps computing. The process's
    // CPU time tells them apart on a loaded machine, where wall time cannot.
    GstMessage* m = nullptr;
    double cpu = cpu_seconds(), idle_s = 0, used_s = 0;
    while (!m && idle_s < 60 && used_s < 600) {
      m = gst_bus_timed_pop_filtered(
          bus, 5 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
      const double now = cpu_seconds();
      idle_s = now - cpu < 0.05 ? idle_s + 5 : 0;
      used_s += now - cpu;
      cpu = now;
    }
    if (!m) {
      problems.push_back(idle_s >= 60 ? "no EOS or error and no work for 60 s (a hang)"
                                      : "no EOS or error after 600 CPU seconds");
    } else {
      ended_in_error += GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR;
      gst_message_unref(m);
    }
  } else {
    ended_in_error++;
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  if (!db.empty())
    std::remove(db.c_str());
  if (verdict.element_errors > 1)
    problems.push_back(std::to_string(verdict.element_errors) + " errors from the element");
  problems.insert(problems.end(), verdict.problems.begin(), verdict.problems.end());
  for (std::string& p : problems)
    p = "seed " + std::to_string(seed) + " (" + name + "): " + p;
  return problems;
}

} // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--seeds")
      o.seeds = std::atoi(next().c_str());
    else if (a == "--first")
      o.first = std::atol(next().c_str());
    else if (a == "--backend")
      o.backend = next();
    else if (a == "--element")
      o.element = next();
    else if (a == "--verbose")
      o.verbose = true;
    else {
      std::fprintf(stderr, "fuzz_elements: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  const std::string dictionary = write_dictionary();
  int failed = 0;
  for (long s = o.first; s < o.first + o.seeds; ++s) {
    for (const std::string& p : run_seed(o, dictionary, s)) {
      std::printf("FAIL %s\n", p.c_str());
      failed++;
    }
  }
  std::printf("%d seeds from %ld, backend %s: %d ended with an error, %d problems\n", o.seeds,
              o.first, o.backend.c_str(), ended_in_error, failed);
  std::remove(dictionary.c_str());
  gst_deinit();
  return failed ? 1 : 0;
}
