/* cvis-action: the action dictionary and the exact hypergraph matcher from the command line.
 *
 *   cvis-action inspect [--json] DICT
 *   cvis-action match [--json] [--backend auto|cpu|cuda] [--distance energy|appearance]
 *                     [--threads N] DICT SCENE
 *
 * DICT is a dictionary file, SCENE a scene-graph text file (cuda/actionmatch/FORMAT.md).
 * Exit status: 0 success, 1 bad input or failure, 2 bad command line. Every failure is one line on
 * stderr, "cvis-action: <reason>".
 */
#include <cstdio>
#include <cstring>
#include <string>

#include "action-commands.h"

namespace {

const char* kUsage =
    "Usage: cvis-action COMMAND [OPTION...] ARGS...\n"
    "\n"
    "Action recognition by exact hypergraph matching (cuda/actionmatch).\n"
    "\n"
    "Commands:\n"
    "  inspect [--json] DICT           print a dictionary: parameters and models\n"
    "  match [--json] DICT SCENE       match every scene block of SCENE against every model\n"
    "        [--backend auto|cpu|cuda] (default auto: CUDA when a device is usable)\n"
    "        [--distance energy|appearance]  ranking: the full energy or its appearance part\n"
    "        [--threads N]             CPU backend threads (default: all cores)\n"
    "\n"
    "DICT: dictionary file; SCENE: scene-graph text file (formats: cuda/actionmatch/FORMAT.md).\n"
    "Exit status: 0 success, 1 bad input or failure, 2 bad command line.\n";

} // namespace

int main(int argc, char** argv) {
  using namespace cvis::action_tool;
  if (argc < 2) {
    std::fprintf(stderr, "cvis-action: missing command (inspect or match); try --help\n");
    return kExitUsage;
  }
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  char** sub_argv = argv + 1;
  sub_argv[0] = argv[0];
  if (command == "inspect")
    return cmd_inspect(argc - 1, sub_argv);
  if (command == "match")
    return cmd_match(argc - 1, sub_argv);
  std::fprintf(stderr, "cvis-action: unknown command '%s' (inspect or match); try --help\n",
               command.c_str());
  return kExitUsage;
}
