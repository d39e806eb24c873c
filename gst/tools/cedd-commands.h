/* cvis-cedd commands. Each takes the command's arguments (argv[0] = program name), parses its
 * options and returns the process exit status. */
#pragma once

#include <glib.h>

#include <string>
#include <vector>

namespace cvis::tool {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1; // bad input, decoding or analysis failure
inline constexpr int kExitUsage = 2;   // bad command line

int cmd_describe(int argc, char** argv);
int cmd_index(int argc, char** argv);
int cmd_search(int argc, char** argv);

// --- shared by the commands (cedd-commands.cpp) ------------------------------------------------

// Prints "cvis-cedd: <message>" on stderr and returns `code`.
int fail(const std::string& message, int code = kExitFailure);

// Parses `argv` with `entries`; on success leaves the positional arguments in `args`. Returns -1 to
// go on, else the exit status (after --help: 0; on an error: the one-line reason was printed).
int parse_options(int* argc, char*** argv, const char* parameters, const char* summary,
                  const char* description, const GOptionEntry* entries,
                  std::vector<std::string>* args);

// Whether `value` is one of `choices` (comma-separated); else prints the reason.
bool check_choice(const char* option, const char* value, const char* choices);

// Whether `path` is a readable regular file; else `error` says why.
bool readable_file(const std::string& path, std::string* error);

// gst_init and the check that the cudacedd element can be loaded.
bool init_gstreamer(std::string* error);

} // namespace cvis::tool
