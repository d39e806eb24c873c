// Streaming recognition (the cudaactionmatch element's algorithm): frames in, one result
// per scene block out. The front end turns frames into interest points; every `block_frames`
// frames (blocks start every block_frames - overlap frames) the block's points are matched against
// every model of a dictionary and the nearest model (by the chosen distance per model node, as
// `cvis-action eval` compares) is the block's action. Blocks are those of cut_blocks() on the
// whole stream, so a stream gives the blocks `cvis-action eval` would cut from it as a clip:
// complete blocks as soon as their last frame is final, and at the end of the stream either the
// one short block of a stream shorter than a block or a last full-length block ending at the
// stream's end (when the regular blocks leave frames uncovered). A dictionary with a ridge
// classifier (actionlearn.hpp) names the action by the classifier instead: over the mean of the
// block's distances to every model and those of the `ridge_blocks` - 1 blocks before it (what
// `cvis-action eval --classifier ridge` does over a clip's blocks). No GStreamer here.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "actionlearn.hpp"

namespace cvis::actionlearn {

struct RecogniserParams {
  stip::FrontEndParams frontend; // must be the parameters the dictionary was trained with
  int block_frames = 60;    // frames per scene block, 10..10000
  int overlap = 30;         // frames shared by consecutive blocks, 0..block_frames - 1
  actionmatch::Distance distance = actionmatch::Distance::kAppearance;
  int min_nodes = 3;        // blocks with fewer interest points give no action (model -1)
  // Ridge dictionaries: blocks whose distances are averaged, this one and the ones before it
  // (since the stream's start or reset), 1..1000. 3 at the defaults spans 120 frames, and a clip of
  // up to three blocks (100 frames at the defaults) gets the tool's clip label at its last block.
  int ridge_blocks = 3;
  actionmatch::CudaOptions matcher_options; // the CUDA matcher's limits (e.g. under racecheck)
};
// Errors: kInvalidArgument naming the field (also: block_frames x max_points above the scene
// graph's node limit kMaxSceneNodes).
Status validate(const RecogniserParams& p);

// A matched scene node: stream frame number and pixel position.
struct MatchedPoint {
  int64_t frame = 0;
  float x = 0, y = 0;
};

// The result of one scene block.
struct BlockResult {
  int64_t first_frame = 0, last_frame = 0; // the block's frames (inclusive), stream numbering
  bool complete = true;  // false: a stream shorter than one block (fewer than block_frames)
  int nodes = 0;         // interest points in the block
  int model = -1;        // index of the nearest model in the dictionary (with a ridge classifier:
                         // the nearest of the class it chose that matches a scene point, else
                         // the nearest of that class); -1: none (too few points, no feasible
                         // match, or that model matches no scene point: every model node
                         // assigned the dummy; with a ridge classifier: no model matches one)
  std::string label;     // its class
  double distance = 0;   // its distance per model node (the classifier's value)
  double energy = 0, appearance = 0; // its optimum's energy and appearance part
  int dummies = 0;       // model nodes it left unmatched
  // Margin to the nearest model of another class: (d_other - d) / d_other in 0..1 (1 when no
  // other class matched; 0: a tie). With a ridge classifier: half the difference of the two best
  // class scores, at most 1. The element's `min-score` compares it.
  double score = 0;
  std::vector<MatchedPoint> points; // scene nodes the model's nodes were assigned to, model order
};

// One stream at a time. The front end runs on `frontend_backend`, the matcher on
// `matcher_backend` (both resolved: kCpu or kCuda; the CUDA ones work in the CUDA context current
// on the calling thread and on the stream passed).
class Recogniser {
public:
  // Frame size, parameters, dictionary (validated; models uploaded by the CUDA matcher). May be
  // called again; forgets the stream. Errors: kInvalidArgument, kNoDevice (CUDA backend not
  // built), kCudaError / kOutOfMemory.
  Status configure(Backend frontend_backend, Backend matcher_backend, int width, int height,
                   const RecogniserParams& p, const Dictionary& dict);
  // Frames between a push and the last result that frame can complete (the front end's lag).
  int lag() const;
  // The same for parameters (before configure; any thread).
  static int lag_of(const RecogniserParams& p);
  // Enters the next frame (as FrontEnd::push takes it) and appends the blocks it completed.
  Status push(const ImageView& frame, StreamHandle stream, std::vector<BlockResult>* out);
  // End of the stream: appends the remaining blocks (see the top), then forgets the stream.
  Status finish(StreamHandle stream, std::vector<BlockResult>* out);
  // Forgets the stream (frame numbers restart at 0); keeps configuration and models.
  void reset();
  // Frames of the stream that are final so far.
  int64_t final_frames() const { return final_; }
  const Dictionary& dictionary() const { return dict_; }
  Backend frontend_backend() const { return fe_backend_; }

private:
  Status take(const std::vector<stip::FramePoints>& frames, StreamHandle stream,
              std::vector<BlockResult>* out);
  Status block(int64_t first, int64_t end, bool complete, StreamHandle stream,
               std::vector<BlockResult>* out);
  // The model that names block distances `d` (ridge: of the class the classifier chooses) and the
  // score; -1 when none.
  int choose(const std::vector<double>& d, double* score);
  // Whether an optimum assigns at least one model node a scene point.
  static bool matched_any(const actionmatch::MatchResult& r);

  std::unique_ptr<stip::FrontEnd> fe_;
  std::unique_ptr<actionmatch::Matcher> matcher_;
  Backend fe_backend_ = Backend::kCpu, matcher_backend_ = Backend::kCpu;
  RecogniserParams p_;
  Dictionary dict_;
  std::deque<stip::FramePoints> frames_; // final frames still needed by a block
  int64_t final_ = 0;              // frames final so far
  int64_t next_start_ = 0;         // first frame of the next regular block
  int64_t last_end_ = -1;          // end (exclusive) of the last block reported; -1: none
  std::vector<stip::FramePoints> ready_;
  std::vector<actionmatch::MatchResult> results_;
  std::deque<std::vector<double>> ridge_history_; // distances of the last ridge_blocks blocks
};

} // namespace cvis::actionlearn
