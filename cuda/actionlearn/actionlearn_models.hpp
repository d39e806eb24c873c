// Learning and recognition on top of the matcher (Sect. 4 of the paper): model graphs cut from
// labelled clips (one most salient point per frame over a window of frames), scene blocks of a
// stream, the nearest-prototype classifier, and prototype selection on validation subjects
// (a floating forward search, as the paper's SFFS). No GStreamer: cvis-action train/eval and the
// cudaactionmatch element call it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actionlearn.hpp"

namespace cvis::actionlearn {

// The interest points of a whole clip: a scene graph (sorted by frame) with each node's detector
// response, and the labels of the clip.
struct ClipPoints {
  std::string name;   // e.g. person01_boxing_d1
  std::string label;  // action
  int subject = 0;    // person number
  int scenario = 0;   // d number
  int frames = 0;     // frames in the clip
  actionmatch::Graph graph; // all points (the front end's descriptor_dim())
  std::vector<float> response;
};

// Appends the points of final frames (FrontEnd output) to a clip; the clip's graph takes the
// frames' descriptor dimension.
void append_points(const std::vector<stip::FramePoints>& frames, ClipPoints* clip);

// Model-making and block parameters.
struct LearnParams {
  int model_frames = 24;   // frames spanned by a model window (paper: 20 to 30)
  int min_model_nodes = 8; // a window needs at least this many frames with points
  int windows_per_clip = 2; // candidate models cut from each training clip
  int block_frames = 60;   // scene blocks (the element's block-frames)
  int block_step = 30;     // block start step (block_frames - overlap)
  int prototypes_per_class = 6; // prototypes kept per class by the selection (upper bound)
};

// Model windows of a clip: the `count` windows of `model_frames` frames with the highest summed
// best-point response, not overlapping by more than half, each giving one node (the most salient
// point) per frame that has points. Windows with fewer than min_model_nodes nodes are skipped.
std::vector<actionmatch::Model> cut_models(const ClipPoints& clip, const LearnParams& lp,
                                           int count);

// Scene blocks of a clip: frames [s, s + block_frames) for s = 0, step, 2 step, ... (the last block
// ends at the clip's end; a clip shorter than a block is one block).
std::vector<actionmatch::Graph> cut_blocks(const ClipPoints& clip, const LearnParams& lp);

// The distance used for classification: distance(result, d) divided by the model's node count (so
// that models of different lengths compare), +infinity when infeasible.
double node_distance(const actionmatch::MatchResult& r, actionmatch::Distance d, int model_nodes);

// Nearest prototype (Sect. 4): the class of the allowed candidate with the smallest distance
// (ties: the lower candidate index); -1 when none is allowed or all are infinite.
// dist[candidate]; `allowed` lists candidate indices.
int nearest_class(const std::vector<double>& dist, const std::vector<int>& allowed,
                  const std::vector<int>& cand_class);

// k-nearest class mean: each class scores the mean of its k smallest finite distances among the
// allowed candidates (all of them when it has fewer than k; +infinity when none), and the class of
// the smallest score wins (ties: the lower class). k = 1 is the nearest neighbour over `allowed`.
// Unlike the nearest prototype, one chance match of a wrong class's candidate is outvoted by the
// right class's next k - 1 candidates. -1 when no class has a finite score.
// dist[candidate]; `allowed` lists candidate indices; cand_class[c] in 0..classes-1; k >= 1.
int knn_class(const std::vector<double>& dist, const std::vector<int>& allowed,
              const std::vector<int>& cand_class, int classes, int k);

// Chooses k for knn_class from `ks` by leave-one-subject-out over the validation clips alone:
// clip v is classified among the candidates whose subject differs from clip_subject[v]. Returns
// the k with the most correct clips (ties: the earlier in `ks`). dist[clip][candidate] as
// select_prototypes; `ks` not empty.
int choose_knn_k(const std::vector<std::vector<double>>& clip_dist,
                 const std::vector<int>& clip_class, const std::vector<int>& clip_subject,
                 const std::vector<int>& cand_class, const std::vector<int>& cand_subject,
                 int classes, const std::vector<int>& ks);

// Prototype selection (sequential floating forward search): from candidate prototypes (with class
// and subject), choose at most `per_class` per class maximising the nearest-prototype accuracy on
// validation clips. dist[clip][candidate] = distance of the clip's block set to that candidate
// (mean over blocks); validation clips never use candidates of their own subject. Returns the
// chosen candidate indices (sorted).
std::vector<int> select_prototypes(const std::vector<std::vector<double>>& clip_dist,
                                   const std::vector<int>& clip_class,
                                   const std::vector<int>& clip_subject,
                                   const std::vector<int>& cand_class,
                                   const std::vector<int>& cand_subject, int classes,
                                   int per_class);

} // namespace cvis::actionlearn
