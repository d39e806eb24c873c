/* cvis-action train/eval: the KTH-like dataset layout, decoding clips through GStreamer, the
 * front end over every frame, and an on-disk cache of the points (so that a second run with the
 * same front-end parameters skips decoding). */
#pragma once

#include <string>
#include <vector>

#include "actionlearn_models.hpp"
#include "stip.hpp"
#include "common/backend.hpp"

namespace cvis::action_tool {

/* A clip of DIR/<action>/personNN_<action>_dK_*.<ext>. */
struct ClipFile {
  std::string path, name, label;
  int subject = 0, scenario = 0;
};

/* Lists the clips of DIR (sorted by label, subject, scenario, name). Files whose names do not
 * follow the layout are skipped with a warning on stderr; *err is set when DIR cannot be read or
 * holds no clip. `classes` receives the sorted action names. */
bool scan_dataset(const std::string& dir, std::vector<ClipFile>* clips,
                  std::vector<std::string>* classes, std::string* err);

/* The clips named in a text file, one path per line ending in <action>/personNN_<action>_dK_*.<ext>
 * (as gen_actions lists them; nothing is opened), sorted as scan_dataset sorts them. *err is set
 * for an unreadable file, a line that does not follow the layout, or no clip. */
bool read_clip_list(const std::string& list, std::vector<ClipFile>* clips,
                    std::vector<std::string>* classes, std::string* err);

/* Decodes `clip` (any container/codec GStreamer reads, converted to GRAY8 at its own size) and
 * runs the front end over it; with `cache_dir`, points are read from / written to a cache file
 * keyed by the front-end parameters. */
bool clip_points(const ClipFile& clip, const stip::FrontEndParams& fp, Backend backend,
                 const std::string& cache_dir, actionlearn::ClipPoints* out, std::string* err);

/* clip_points for every clip on `threads` threads; progress on stderr. */
bool all_clip_points(const std::vector<ClipFile>& clips, const stip::FrontEndParams& fp,
                     Backend backend, const std::string& cache_dir, int threads,
                     std::vector<actionlearn::ClipPoints>* out, std::string* err);

} // namespace cvis::action_tool
