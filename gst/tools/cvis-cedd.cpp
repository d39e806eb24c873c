/* cvis-cedd: CEDD descriptors of images and videos from the command line, over GStreamer decoding
 * and the cudacedd element.
 *
 *   cvis-cedd describe [--backend B] [--format values|packed|lire] [--json] IMAGE...
 *   cvis-cedd index DIR|FILE... --db PATH|URI [--backend B] [--regions frame|rois|both]
 *                   [--shot-threshold X]
 *   cvis-cedd search IMAGE|--row ID --db PATH|URI [-k N] [--stream S] [--from T] [--to T]
 *                    [--roi-type T] [--json] [--backend B]
 *
 * --db: a SQLite file or a PostgreSQL URI / libpq connection string (store/location.hpp).
 *
 * Exit status: 0 success, 1 bad input or failure, 2 bad command line. Every failure is one line on
 * stderr, "cvis-cedd: <reason>".
 */
#include <glib.h>

#include <clocale>
#include <cstdio>
#include <string>

#include "cedd-commands.h"

namespace {

const char* kUsage =
    "Usage: cvis-cedd COMMAND [OPTION...] ARGS...\n"
    "\n"
    "CEDD (Color and Edge Directivity Descriptor) of images and videos, computed by the\n"
    "cudacedd GStreamer element (CUDA or the bit-exact CPU reference).\n"
    "\n"
    "Commands:\n"
    "  describe IMAGE...             print the descriptor of each image (a video: its first "
    "frame)\n"
    "  index DIR|FILE... --db PATH   add every frame of images and videos to an index\n"
    "  search IMAGE --db PATH        the index rows nearest to IMAGE by Tanimoto distance\n"
    "\n"
    "PATH: a SQLite file, or a PostgreSQL URI (postgresql://user@host/db) or connection\n"
    "string ('host=... dbname=...'); passwords from the URI, PGPASSWORD or ~/.pgpass.\n"
    "\n"
    "Run 'cvis-cedd COMMAND --help' for the options of a command.\n";

} // namespace

int main(int argc, char** argv) {
  setlocale(LC_ALL, "");
  // Messages and file names follow the user's locale; numbers never do (JSON, parsable text).
  setlocale(LC_NUMERIC, "C");
  g_set_prgname("cvis-cedd");
  if (argc < 2) {
    fprintf(stderr, "cvis-cedd: missing command (describe, index or search); try --help\n");
    return cvis::tool::kExitUsage;
  }
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help" || command == "-?") {
    fputs(kUsage, stdout);
    return 0;
  }
  // The command's own parser sees "cvis-cedd" as its program name and the rest as arguments.
  int sub_argc = argc - 1;
  char** sub_argv = argv + 1;
  sub_argv[0] = argv[0];
  g_set_prgname(("cvis-cedd " + command).c_str());
  if (command == "describe")
    return cvis::tool::cmd_describe(sub_argc, sub_argv);
  if (command == "index")
    return cvis::tool::cmd_index(sub_argc, sub_argv);
  if (command == "search")
    return cvis::tool::cmd_search(sub_argc, sub_argv);
  fprintf(stderr, "cvis-cedd: unknown command '%s' (describe, index or search); try --help\n",
          command.c_str());
  return cvis::tool::kExitUsage;
}
