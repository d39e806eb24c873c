/* cvis-cedd: shared helpers, and the describe and search commands (index: cedd-index.cpp). */
#include "cedd-commands.h"

#include <gst/cvis/cvisceddmeta.h>
#include <gst/gst.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

#include "cedd-format.h"
#include "cedd-pipeline.h"
#include "ceddindex.h"

namespace cvis::tool {

int fail(const std::string& message, int code) {
  fflush(stdout);
  fprintf(stderr, "cvis-cedd: %s\n", message.c_str());
  return code;
}

int parse_options(int* argc, char*** argv, const char* parameters, const char* summary,
                  const char* description, const GOptionEntry* entries,
                  std::vector<std::string>* args) {
  GOptionContext* ctx = g_option_context_new(parameters);
  g_option_context_set_summary(ctx, summary);
  if (description)
    g_option_context_set_description(ctx, description);
  g_option_context_add_main_entries(ctx, entries, nullptr);
  GError* err = nullptr;
  const gboolean ok = g_option_context_parse(ctx, argc, argv, &err); // --help exits here
  g_option_context_free(ctx);
  if (!ok) {
    std::string reason = err ? err->message : "bad options";
    g_clear_error(&err);
    return fail(reason + " (try --help)", kExitUsage);
  }
  args->assign(*argv + 1, *argv + *argc);
  return -1;
}

bool check_choice(const char* option, const char* value, const char* choices) {
  gchar** list = g_strsplit(choices, ",", -1);
  const bool ok = value && g_strv_contains(list, value);
  g_strfreev(list);
  if (!ok) {
    fail(std::string("invalid value '") + (value ? value : "") + "' for " + option + " (one of " +
             choices + ")",
         kExitUsage);
  }
  return ok;
}

bool readable_file(const std::string& path, std::string* error) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = "cannot read '" + path + "': " + strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = "cannot read '" + path + "': is a directory";
    return false;
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), R_OK) != 0) {
    *error = "cannot read '" + path +
             "': " + (S_ISREG(st.st_mode) ? strerror(errno) : "not a regular file");
    return false;
  }
  return true;
}

bool init_gstreamer(std::string* error) {
  GError* err = nullptr;
  if (!gst_init_check(nullptr, nullptr, &err)) {
    *error = std::string("cannot initialise GStreamer: ") + (err ? err->message : "unknown");
    g_clear_error(&err);
    return false;
  }
  GstElementFactory* f = gst_element_factory_find("cudacedd");
  if (!f) {
    *error = "the cudacedd element is not available (is the cudavision plugin on GST_PLUGIN_PATH?)";
    return false;
  }
  gst_object_unref(f);
  return true;
}

namespace {

// Describes the first frame of `path`; returns an exit status (0: ok).
int describe_one(const std::string& path, const std::string& backend, FrameDescriptor* out) {
  std::string error;
  if (!readable_file(path, &error))
    return fail(error);
  RunOptions opt;
  opt.backend = backend;
  opt.first_frame_only = true;
  RunResult result;
  if (run_file(path, opt, &result, nullptr, &error) != RunError::kNone)
    return fail(path + ": " + error);
  *out = result.first;
  return kExitOk;
}

const char* kBackendChoices = "auto,cpu,cuda";

} // namespace

int cmd_describe(int argc, char** argv) {
  g_autofree gchar* backend = nullptr;
  g_autofree gchar* format = nullptr;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
      {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
       "auto (default: CUDA when usable, else CPU), cpu or cuda", "B"},
      {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
       "values (default): the 144 levels 0..7; packed: the 54-byte 3-bit packed form as hex; "
       "lire: LIRE's byte serialisation as hex",
       "F"},
      {"json", 'j', 0, G_OPTION_ARG_NONE, &json,
       "a JSON array of {file, width, height, levels, packed, lire}", nullptr},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  std::vector<std::string> files;
  int rc = parse_options(&argc, &argv, "IMAGE...",
                         "Prints one CEDD descriptor per image, in argument order (for a video: "
                         "its first frame).",
                         nullptr, entries, &files);
  if (rc >= 0)
    return rc;
  if (!backend)
    backend = g_strdup("auto");
  if (!format)
    format = g_strdup("values");
  if (!check_choice("--backend", backend, kBackendChoices) ||
      !check_choice("--format", format, "values,packed,lire"))
    return kExitUsage;
  if (files.empty())
    return fail("describe: no IMAGE given (try --help)", kExitUsage);
  std::string error;
  for (const std::string& f : files)
    if (!readable_file(f, &error))
      return fail(error);
  if (!init_gstreamer(&error))
    return fail(error);

  std::vector<FrameDescriptor> descs(files.size());
  for (size_t i = 0; i < files.size(); i++) {
    rc = describe_one(files[i], backend, &descs[i]);
    if (rc != kExitOk)
      return rc;
  }
  if (json)
    printf("[\n");
  for (size_t i = 0; i < files.size(); i++) {
    const FrameDescriptor& d = descs[i];
    uint8_t packed[GST_CVIS_CEDD_PACKED_SIZE];
    uint8_t lire[GST_CVIS_CEDD_LIRE_MAX_BYTES];
    gst_cvis_cedd_pack(d.levels.data(), packed);
    const guint nlire = gst_cvis_cedd_to_lire_bytes(d.levels.data(), lire);
    std::string values;
    for (size_t b = 0; b < d.levels.size(); b++) {
      if (b)
        values += json ? ", " : " ";
      values += std::to_string(d.levels[b]);
    }
    if (json) {
      printf("  {\"file\": %s, \"width\": %d, \"height\": %d, \"levels\": [%s], "
             "\"packed\": \"%s\", \"lire\": \"%s\"}%s\n",
             json_string(files[i]).c_str(), d.width, d.height, values.c_str(),
             hex(packed, sizeof packed).c_str(), hex(lire, nlire).c_str(),
             i + 1 < files.size() ? "," : "");
    } else if (strcmp(format, "packed") == 0) {
      printf("%s\n", hex(packed, sizeof packed).c_str());
    } else if (strcmp(format, "lire") == 0) {
      printf("%s\n", hex(lire, nlire).c_str());
    } else {
      printf("%s\n", values.c_str());
    }
  }
  if (json)
    printf("]\n");
  return kExitOk;
}

int cmd_search(int argc, char** argv) {
  g_autofree gchar* backend = nullptr;
  g_autofree gchar* db = nullptr;
  g_autofree gchar* roi_type = nullptr;
  gint k = 10;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
      {"db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "the index (written by 'cvis-cedd index')",
       "PATH"},
      {"k", 'k', 0, G_OPTION_ARG_INT, &k, "how many rows to print (default 10)", "N"},
      {"roi-type", 't', 0, G_OPTION_ARG_STRING, &roi_type,
       "only rows of regions of this roi_type, e.g. track ('frame': whole-frame descriptors)",
       "TYPE"},
      {"json", 'j', 0, G_OPTION_ARG_NONE, &json,
       "a JSON array of {distance, stream, frame, pts, roi_id, roi_type, box}", nullptr},
      {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
       "auto (default: CUDA when usable, else CPU), cpu or cuda", "B"},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  std::vector<std::string> args;
  int rc = parse_options(
      &argc, &argv, "IMAGE --db PATH",
      "Describes IMAGE and prints the N index rows nearest to it by Tanimoto distance (0 = same "
      "descriptor .. 100), nearest first.",
      "Output, one row per line, tab-separated:\n"
      "  distance  stream  frame=N  pts=h:mm:ss.nnnnnnnnn|-  roi=frame|ID[:TYPE]  box=X,Y,WxH",
      entries, &args);
  if (rc >= 0)
    return rc;
  if (!backend)
    backend = g_strdup("auto");
  if (!check_choice("--backend", backend, kBackendChoices))
    return kExitUsage;
  if (!db)
    return fail("search: --db PATH is required (try --help)", kExitUsage);
  if (k < 1)
    return fail("search: -k must be at least 1", kExitUsage);
  if (args.size() != 1)
    return fail("search: give exactly one IMAGE (try --help)", kExitUsage);
  const std::string image = args[0];
  std::string error;
  if (!readable_file(image, &error))
    return fail(error);

  // The index first: a wrong --db is reported before any decoding.
  struct stat st;
  if (stat(db, &st) != 0)
    return fail(std::string("cannot open index '") + db + "': " + strerror(errno));
  cedd::CeddIndex index;
  Status s = index.open(db, /*create=*/false);
  if (!s.ok())
    return fail(s.message());
  if (!init_gstreamer(&error))
    return fail(error);
  FrameDescriptor query;
  rc = describe_one(image, backend, &query);
  if (rc != kExitOk)
    return rc;

  // The k nearest rows, streamed: one row at a time from SQLite, the k best kept in a max-heap
  // ordered by (distance, id), i.e. nearest first and, at equal distance, in insertion order.
  struct Hit {
    double distance;
    cedd::IndexRow row;
  };
  auto nearer = [](const Hit& a, const Hit& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.row.id < b.row.id);
  };
  std::vector<Hit> ranked;
  ranked.reserve(static_cast<size_t>(k) + 1);
  size_t rows = 0;
  const std::string only = roi_type ? roi_type : "";
  s = index.for_each([&](const cedd::IndexRow& r) {
    rows++;
    if (!only.empty() && (only == "frame" ? r.roi_id >= 0 : (r.roi_id < 0 || r.roi_type != only)))
      return true;
    const double d = gst_cvis_cedd_tanimoto(query.levels.data(), r.levels);
    // Rows come in id order: a row as far as the farthest kept one is not nearer.
    if (ranked.size() == static_cast<size_t>(k) && d >= ranked.front().distance)
      return true;
    ranked.push_back({d, r});
    std::push_heap(ranked.begin(), ranked.end(), nearer);
    if (ranked.size() > static_cast<size_t>(k)) {
      std::pop_heap(ranked.begin(), ranked.end(), nearer);
      ranked.pop_back();
    }
    return true;
  });
  (void)index.close();
  if (!s.ok())
    return fail(s.message());
  std::sort_heap(ranked.begin(), ranked.end(), nearer);

  if (json)
    printf("[");
  for (size_t i = 0; i < ranked.size(); i++) {
    const cedd::IndexRow& r = ranked[i].row;
    const double d = ranked[i].distance;
    if (json) {
      printf("%s\n  {\"distance\": %s, \"stream\": %s, \"frame\": %lld, \"pts\": %s, "
             "\"roi_id\": %d, \"roi_type\": %s, \"box\": [%d, %d, %d, %d]}",
             i ? "," : "", format_double(d).c_str(), json_string(r.stream).c_str(),
             static_cast<long long>(r.frame), r.pts >= 0 ? std::to_string(r.pts).c_str() : "null",
             r.roi_id, r.roi_id >= 0 ? json_string(r.roi_type).c_str() : "null", r.x, r.y, r.w,
             r.h);
    } else {
      std::string roi = r.roi_id < 0 ? "frame" : std::to_string(r.roi_id);
      if (r.roi_id >= 0 && !r.roi_type.empty())
        roi += ":" + r.roi_type;
      printf(
          "%.4f\t%s\tframe=%lld\tpts=%s\troi=%s\tbox=%d,%d,%dx%d\n", d, r.stream.c_str(),
          static_cast<long long>(r.frame),
          format_time(r.pts >= 0 ? static_cast<GstClockTime>(r.pts) : GST_CLOCK_TIME_NONE).c_str(),
          roi.c_str(), r.x, r.y, r.w, r.h);
    }
  }
  if (json)
    printf("%s]\n", ranked.empty() ? "" : "\n");
  if (rows == 0)
    fprintf(stderr, "cvis-cedd: note: the index '%s' is empty\n", db);
  return kExitOk;
}

} // namespace cvis::tool
