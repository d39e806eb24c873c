/* cvis-action: the action dictionary and the exact hypergraph matcher from the command line.
 *
 *   cvis-action inspect [--json] DICT
 *   cvis-action match [--json] [--backend auto|cpu|cuda] [--distance energy|appearance]
 *                     [--threads N] DICT SCENE
 *
 * DICT is a dictionary file, SCENE a scene-graph text file (cuda/actionlearn/FORMAT.md).
 * Exit status: 0 success, 1 bad input or failure, 2 bad command line. Every failure is one line on
 * stderr, "cvis-action: <reason>".
 */
#include <cstdio>
#include <cstring>
#include <string>

#include <gst/gst.h>

#include "action-commands.h"

namespace {

// Each command's part of the usage (also `cvis-action COMMAND --help`).
const char* kInspectUsage =
    "  inspect [--json] DICT           print a dictionary: parameters and models\n";
const char* kMatchUsage =
    "  match [--json] DICT SCENE       match every scene block of SCENE against every model\n"
    "        [--backend auto|cpu|cuda] (default auto: CUDA when a device is usable)\n"
    "        [--distance energy|appearance]  ranking: the full energy or its appearance part\n"
    "        [--threads N]             CPU backend threads (default: all cores)\n";
const char* kLearnUsage =
    "  train DIR -o DICT [OPTIONS]     learn a dictionary from a KTH-like dataset: prototypes,\n"
    "        or with --classifier ridge every candidate and the ridge classifier (version 4\n"
    "        over class means; 3 with a weight per candidate)\n"
    "        [--hold-out S] (leave subject S out: the element's leave-one-subject-out folds;\n"
    "        --distances still names the whole dataset's table)\n"
    "  eval DIR [OPTIONS]              leave-one-subject-out accuracy on a KTH-like dataset\n"
    "        DIR/<action>/personNN_<action>_dK_*.<ext> (any format GStreamer decodes)\n"
    "        [--backend auto|cpu|cuda] [--distance appearance|energy] [--threads N]\n"
    "        [--cache DIR] (points of each clip, keyed by the front-end parameters)\n"
    "        [--distances FILE] (the clip x candidate distances: read when FILE holds those of\n"
    "        the same clips and settings, else written)\n"
    "        [--sigma S] [--tau T] [--threshold R] [--max-points K] [--cell-size P]\n"
    "        [--cell-frames F] [--model-frames F] [--windows N] [--prototypes N]\n"
    "        [--flow-histogram paper|speed] [--speed-split V] (HoF bins split at V pixels/frame)\n"
    "        [--detector periodic|harris] [--harris-k K] [--harris-scale S]\n"
    "        [--block-frames F] [--overlap F] [--dummy-cost W] [--lambda2 L] [--T T]\n"
    "        [--aggregate mean|min] (a clip's distance to a model over its blocks)\n"
    "        [--classifier prototypes|knn|ridge] (nearest selected prototype, the k-nearest\n"
    "        class mean over all training candidates (eval only), or ridge regression over the\n"
    "        distances to all training candidates) [--knn K] (0: K chosen per fold by\n"
    "        leave-one-subject-out on the training subjects) [--ridge A] (0: A chosen per fold,\n"
    "        or for train over all subjects, by cross-validation on the training subjects)\n"
    "        [--ridge-features auto|class-mean|distance] (ridge's features: the mean distance\n"
    "        to each class's candidates, or the distance to every candidate; auto (default):\n"
    "        the one that wins leave-one-subject-out on the training subjects, per fold)\n"
    "  eval DIR --test DIR2 [--test-cache DIR] [--test-distances FILE] [OPTIONS]\n"
    "        the classifier trained on every subject of DIR, tested on every clip of DIR2\n"
    "        (e.g. another renderer's); DIR2's clip x candidate distances cached in FILE\n"
    "  eval --clip-list LIST --distances FILE [OPTIONS]\n"
    "        eval from a distances file alone: LIST names the clips, one path a line ending in\n"
    "        <action>/personNN_<action>_dK_*.<ext>; nothing is decoded; the options must be those\n"
    "        of the run that wrote FILE\n"
    "        [--verbose] (eval: per-subject accuracy)\n";
const char* kFooter =
    "\n"
    "DICT: dictionary file; SCENE: scene-graph text file (formats: cuda/actionlearn/FORMAT.md).\n"
    "Exit status: 0 success, 1 bad input or failure, 2 bad command line.\n";

void print_usage(const char* commands) {
  std::printf("Usage: cvis-action COMMAND [OPTION...] ARGS...\n\n"
              "Action recognition by exact hypergraph matching (cuda/actionmatch).\n\n"
              "Commands:\n%s%s",
              commands, kFooter);
}

// `cvis-action COMMAND ... --help`: that command's usage, exit status 0.
bool wants_help(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
      return true;
  }
  return false;
}

} // namespace

int main(int argc, char** argv) {
  using namespace cvis::action_tool;
  if (argc < 2) {
    std::fprintf(stderr,
                 "cvis-action: missing command (inspect, match, train or eval); try --help\n");
    return kExitUsage;
  }
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    print_usage((std::string(kInspectUsage) + kMatchUsage + kLearnUsage).c_str());
    return kExitOk;
  }
  if (wants_help(argc, argv)) {
    const char* part = command == "inspect"                        ? kInspectUsage
                       : command == "match"                        ? kMatchUsage
                       : (command == "train" || command == "eval") ? kLearnUsage
                                                                   : nullptr;
    if (part) {
      print_usage(part);
      return kExitOk;
    }
  }
  char** sub_argv = argv + 1;
  sub_argv[0] = argv[0];
  if (command == "inspect")
    return cmd_inspect(argc - 1, sub_argv);
  if (command == "match")
    return cmd_match(argc - 1, sub_argv);
  if (command == "train" || command == "eval") {
    gst_init(nullptr, nullptr);
    return command == "train" ? cmd_train(argc - 1, sub_argv) : cmd_eval(argc - 1, sub_argv);
  }
  std::fprintf(stderr,
               "cvis-action: unknown command '%s' (inspect, match, train or eval); try --help\n",
               command.c_str());
  return kExitUsage;
}
