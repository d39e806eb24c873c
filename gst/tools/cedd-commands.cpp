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
#include "cedd/cedd.hpp"
#include "cedd/cedd_search.hpp"
#include "store/search.hpp"

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
  g_autofree gchar* stream = nullptr;
  g_autofree gchar* from = nullptr;
  g_autofree gchar* to = nullptr;
  gint64 row_id = -1;
  gint k = 10;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
      {"db", 'd', 0, G_OPTION_ARG_FILENAME, &db,
       "the index: a SQLite file or a PostgreSQL URI / connection string", "PATH|URI"},
      {"k", 'k', 0, G_OPTION_ARG_INT, &k, "how many rows to print (default 10, at most 256)", "N"},
      {"row", 'r', 0, G_OPTION_ARG_INT64, &row_id,
       "search with the descriptor of this stored row (its id) instead of an IMAGE", "ID"},
      {"stream", 's', 0, G_OPTION_ARG_STRING, &stream, "only rows of this stream", "NAME"},
      {"from", 0, 0, G_OPTION_ARG_STRING, &from,
       "only rows at or after this stream time (seconds, or h:mm:ss.fff)", "TIME"},
      {"to", 0, 0, G_OPTION_ARG_STRING, &to, "only rows at or before this stream time", "TIME"},
      {"roi-type", 't', 0, G_OPTION_ARG_STRING, &roi_type,
       "only rows of regions of this roi_type, e.g. track ('frame': whole-frame descriptors)",
       "TYPE"},
      {"json", 'j', 0, G_OPTION_ARG_NONE, &json,
       "a JSON array of {distance, id, stream, frame, pts, roi_id, roi_type, box}", nullptr},
      {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
       "auto (default: CUDA when usable, else CPU), cpu or cuda: describes IMAGE and ranks the "
       "rows",
       "B"},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  std::vector<std::string> args;
  int rc = parse_options(
      &argc, &argv, "IMAGE --db PATH|URI  |  --row ID --db PATH|URI",
      "Prints the N index rows nearest to IMAGE (or to a stored row) by Tanimoto distance "
      "(0 = same descriptor .. 100), nearest first; equal distances in row order.",
      "Output, one row per line, tab-separated:\n"
      "  distance  stream  frame=N  pts=h:mm:ss.nnnnnnnnn|-  roi=frame|ID[:TYPE]  box=X,Y,WxH  "
      "id=ID",
      entries, &args);
  if (rc >= 0)
    return rc;
  if (!backend)
    backend = g_strdup("auto");
  if (!check_choice("--backend", backend, kBackendChoices))
    return kExitUsage;
  if (!db)
    return fail("search: --db PATH is required (try --help)", kExitUsage);
  if (k < 1 || k > cedd::kMaxSearchK)
    return fail("search: -k must be within 1.." + std::to_string(cedd::kMaxSearchK), kExitUsage);
  if (row_id >= 0 ? !args.empty() : args.size() != 1)
    return fail("search: give exactly one IMAGE, or --row ID (try --help)", kExitUsage);
  store::Filter filter;
  filter.stream = stream ? stream : "";
  filter.roi_type = roi_type ? roi_type : "";
  if ((from && !parse_time(from, &filter.pts_from)) || (to && !parse_time(to, &filter.pts_to)))
    return fail("search: --from / --to take seconds or h:mm:ss.fff", kExitUsage);
  std::string error;
  const std::string image = args.empty() ? std::string() : args[0];
  if (!image.empty() && !readable_file(image, &error))
    return fail(error);

  // The index first: a wrong --db is reported before any decoding.
  store::Location location;
  Status s = store::parse_location(db, &location);
  if (!s.ok())
    return fail(s.message(), kExitUsage);
  struct stat st;
  if (location.kind == store::Kind::kSqlite && stat(db, &st) != 0)
    return fail(std::string("cannot open index '") + db + "': " + strerror(errno));
  {
    std::unique_ptr<store::Store> probe;
    s = store::open_store(location, store::Access::kRead, &probe);
    if (!s.ok())
      return fail(s.message());
  }
  cedd::Levels query{};
  if (row_id >= 0) {
    store::DescriptorRow r;
    s = store::read_row(db, row_id, &r);
    if (!s.ok())
      return fail(s.message());
    std::copy(r.levels, r.levels + cedd::kBins, query.begin());
  } else {
    if (!init_gstreamer(&error))
      return fail(error);
    FrameDescriptor d;
    rc = describe_one(image, backend, &d);
    if (rc != kExitOk)
      return rc;
    query = d.levels;
  }
  store::SearchOptions opt;
  cvis::parse_backend(backend, &opt.backend);
  std::vector<store::SearchResult> ranked;
  size_t rows = 0;
  s = store::search_once(db, filter, query.data(), k, opt, &ranked, &rows);
  if (!s.ok())
    return fail(s.message());

  if (json)
    printf("[");
  for (size_t i = 0; i < ranked.size(); i++) {
    const store::DescriptorRow& r = ranked[i].row;
    const double d = ranked[i].distance;
    if (json) {
      printf("%s\n  {\"distance\": %s, \"id\": %lld, \"stream\": %s, \"frame\": %lld, "
             "\"pts\": %s, \"roi_id\": %d, \"roi_type\": %s, \"box\": [%d, %d, %d, %d]}",
             i ? "," : "", format_double(d).c_str(), static_cast<long long>(r.id),
             json_string(r.key.stream).c_str(), static_cast<long long>(r.key.frame),
             r.pts >= 0 ? std::to_string(r.pts).c_str() : "null", r.roi_id,
             r.roi_id >= 0 ? json_string(r.roi_type).c_str() : "null", r.x, r.y, r.w, r.h);
    } else {
      std::string roi = r.roi_id < 0 ? "frame" : std::to_string(r.roi_id);
      if (r.roi_id >= 0 && !r.roi_type.empty())
        roi += ":" + r.roi_type;
      printf(
          "%.4f\t%s\tframe=%lld\tpts=%s\troi=%s\tbox=%d,%d,%dx%d\tid=%lld\n", d,
          r.key.stream.c_str(), static_cast<long long>(r.key.frame),
          format_time(r.pts >= 0 ? static_cast<GstClockTime>(r.pts) : GST_CLOCK_TIME_NONE).c_str(),
          roi.c_str(), r.x, r.y, r.w, r.h, static_cast<long long>(r.id));
    }
  }
  if (json)
    printf("%s]\n", ranked.empty() ? "" : "\n");
  if (rows == 0) {
    const bool filtered = stream || from || to || roi_type;
    fprintf(stderr, "cvis-cedd: note: %s '%s'\n",
            filtered ? "no row matches the filters in the index" : "the index is empty:",
            location.display.c_str());
  }
  return kExitOk;
}

} // namespace cvis::tool
