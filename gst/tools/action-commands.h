/* cvis-action commands (part 1: inspect and match). Each returns the process exit status and
 * prints every failure as one line "cvis-action: <reason>" on stderr. */
#pragma once

namespace cvis::action_tool {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1; // bad input, matching failed
inline constexpr int kExitUsage = 2;   // bad command line

// argv[0] is the program name, the rest the command's arguments (without the command word).
int cmd_inspect(int argc, char** argv);
int cmd_match(int argc, char** argv);
// Part 2 (action-learn.cpp): need GStreamer to decode clips.
int cmd_train(int argc, char** argv);
int cmd_eval(int argc, char** argv);

} // namespace cvis::action_tool
