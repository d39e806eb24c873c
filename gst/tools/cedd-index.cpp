/* cvis-cedd index: every frame of images and videos into a store (SQLite file or PostgreSQL),
 * through cudacedd's index-location (one pipeline per file, stream-name = the file's path). */
#include <gst/gst.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cedd-commands.h"
#include "cedd-format.h"
#include "cedd-pipeline.h"
#include "store/store.hpp"

namespace fs = std::filesystem;

namespace cvis::tool {

namespace {

struct Input {
  std::string path;
  bool named = false; // given on the command line (an error when undecodable), else walked
};

// The canonical spelling of `p` for comparisons ("" when it cannot be resolved).
std::string canonical(const std::string& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::path(p), ec);
  return ec ? std::string() : c.string();
}

// Regular files under `dir`, sorted, without the index's own files. Unreadable subdirectories are
// skipped (with a note).
void walk(const std::string& dir, const std::vector<std::string>& exclude,
          std::vector<Input>* out) {
  std::vector<std::string> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code ec2;
    if (it->is_regular_file(ec2))
      found.push_back(it->path().string());
  }
  if (ec)
    fprintf(stderr, "cvis-cedd: note: walking '%s': %s\n", dir.c_str(), ec.message().c_str());
  std::sort(found.begin(), found.end());
  for (const std::string& f : found) {
    const std::string c = canonical(f);
    if (std::find(exclude.begin(), exclude.end(), c) == exclude.end())
      out->push_back({f, false});
  }
}

} // namespace

int cmd_index(int argc, char** argv) {
  g_autofree gchar* backend = nullptr;
  g_autofree gchar* db = nullptr;
  g_autofree gchar* regions = nullptr;
  gdouble threshold = -1.0;
  const GOptionEntry entries[] = {
      {"db", 'd', 0, G_OPTION_ARG_FILENAME, &db,
       "the index to append to: a SQLite file (created when missing) or a PostgreSQL URI / "
       "connection string",
       "PATH|URI"},
      {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
       "auto (default: CUDA when usable, else CPU), cpu or cuda", "B"},
      {"regions", 'r', 0, G_OPTION_ARG_STRING, &regions,
       "frame (default): one descriptor per frame; rois: one per region-of-interest meta; both",
       "R"},
      {"shot-threshold", 't', 0, G_OPTION_ARG_DOUBLE, &threshold,
       "Tanimoto distance 0..100 between consecutive frames above which a shot change is "
       "reported (default: cudacedd's, 35; 100 disables)",
       "X"},
      {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
  std::vector<std::string> args;
  int rc = parse_options(
      &argc, &argv, "DIR|FILE... --db PATH",
      "Adds every frame of the given images and videos (directories: walked recursively) to a "
      "CEDD index, with the file's path as stream name.",
      "Output lines, tab-separated:\n"
      "  shot     STREAM  frame=N  pts=T  distance=D   (a shot change)\n"
      "  indexed  FILE    frames=N descriptors=M      (a file done)\n"
      "  total    files=N skipped=N frames=N descriptors=N shots=N\n"
      "Named files that cannot be decoded are errors; undecodable files found in directories\n"
      "are skipped with a note on stderr. Indexing a file again replaces its rows (once the new\n"
      "run has succeeded; a failed run leaves the old rows).",
      entries, &args);
  if (rc >= 0)
    return rc;
  if (!backend)
    backend = g_strdup("auto");
  if (!regions)
    regions = g_strdup("frame");
  if (!check_choice("--backend", backend, "auto,cpu,cuda") ||
      !check_choice("--regions", regions, "frame,rois,both"))
    return kExitUsage;
  if (threshold != -1.0 && !(threshold >= 0.0 && threshold <= 100.0))
    return fail("index: --shot-threshold must be within 0..100", kExitUsage);
  if (!db)
    return fail("index: --db PATH is required (try --help)", kExitUsage);
  if (args.empty())
    return fail("index: no DIR or FILE given (try --help)", kExitUsage);

  // The index's own files are never indexed, even when they lie in a walked directory.
  std::vector<std::string> exclude;
  store::Location location;
  Status s = store::parse_location(db, &location);
  if (!s.ok())
    return fail(s.message(), kExitUsage);
  if (location.kind == store::Kind::kSqlite)
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      exclude.push_back(canonical(std::string(db) + suffix));

  // Every named path must exist before anything is written.
  std::vector<Input> inputs;
  std::string error;
  for (const std::string& a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      walk(a, exclude, &inputs);
    } else if (readable_file(a, &error)) {
      inputs.push_back({a, true});
    } else {
      return fail(error);
    }
  }
  // A wrong --db (not a database, another kind of database, unwritable) fails here, cleanly.
  // This connection then replaces the rows of re-indexed files (cudacedd writes through its own).
  std::unique_ptr<store::Store> index;
  s = store::open_store(location, store::Access::kWrite, &index);
  if (!s.ok())
    return fail(s.message());
  if (!init_gstreamer(&error))
    return fail(error);

  uint64_t files = 0, skipped = 0, frames = 0, descriptors = 0, shots = 0;
  auto on_shot = [&shots](const ShotChange& s) {
    shots++;
    printf("shot\t%s\tframe=%llu\tpts=%s\tdistance=%.4f\n", s.stream.c_str(),
           static_cast<unsigned long long>(s.frame), format_time(s.pts).c_str(), s.distance);
    fflush(stdout);
  };
  for (const Input& in : inputs) {
    RunOptions opt;
    opt.backend = backend;
    opt.regions = regions;
    opt.index_location = db;
    opt.stream_name = in.path;
    opt.shot_threshold = threshold; // -1: the element's default
    RunResult result;
    int64_t before = 0, after = 0;
    s = index->settled_last_id(&before);
    if (!s.ok())
      return fail(s.message());
    const RunError e = run_file(in.path, opt, &result, on_shot, &error);
    // Idempotent: a successful run replaces the file's older rows; a failed one is undone.
    s = index->settled_last_id(&after);
    if (s.ok())
      s = e == RunError::kNone ? index->delete_descriptors(in.path, 0, before)
                               : index->delete_descriptors(in.path, before, after);
    if (!s.ok())
      return fail(s.message());
    if (e == RunError::kInput && !in.named) {
      skipped++;
      fprintf(stderr, "cvis-cedd: note: skipping '%s': %s\n", in.path.c_str(), error.c_str());
      continue;
    }
    if (e != RunError::kNone)
      return fail(in.path + ": " + error);
    files++;
    frames += result.frames;
    descriptors += result.descriptors;
    printf("indexed\t%s\tframes=%llu\tdescriptors=%llu\n", in.path.c_str(),
           static_cast<unsigned long long>(result.frames),
           static_cast<unsigned long long>(result.descriptors));
    fflush(stdout);
  }
  printf("total\tfiles=%llu\tskipped=%llu\tframes=%llu\tdescriptors=%llu\tshots=%llu\n",
         static_cast<unsigned long long>(files), static_cast<unsigned long long>(skipped),
         static_cast<unsigned long long>(frames), static_cast<unsigned long long>(descriptors),
         static_cast<unsigned long long>(shots));
  return kExitOk;
}

} // namespace cvis::tool
