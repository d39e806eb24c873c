// Dictionaries and the files of the action recogniser: the models to recognise with the matching
// parameters and descriptor kind they were made for (FORMAT.md: the binary dictionary file and the
// scene-graph text file). The rest of the folder builds on it: model cutting, classifiers and
// prototype selection (actionlearn_models.hpp), the ridge classifier (actionlearn_ridge.hpp) and
// streaming recognition (actionlearn_recognise.hpp). No GStreamer, no CUDA header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actionlearn_ridge.hpp"
#include "actionmatch.hpp"
#include "stip.hpp"

namespace cvis::actionlearn {

// A dictionary: the models to recognise and the parameters they were made for.
struct Dictionary {
  int dim = actionmatch::kPaperDescriptorDim;
  actionmatch::Params params;
  std::vector<actionmatch::Model> models;
  // The descriptors' flow histogram and its speed split (pixels/frame; 0 with kPaper).
  stip::FlowHistogram flow = stip::FlowHistogram::kPaper;
  double speed_split = 0;
  // The ridge classifier over the distances to every model (versions 3, 4; actionlearn_ridge.hpp):
  // ridge.classes == 0 without one (the nearest model decides). With one, the models are every
  // training candidate, ridge.cands is 0..models-1, `classes` names the classes in the order of
  // the weights, `ridge_distance` is the distance its features were computed with, and
  // `prototypes` lists the models the nearest-prototype rule would use (sorted, not empty).
  RidgeClassifier ridge;
  std::vector<std::string> classes;
  actionmatch::Distance ridge_distance = actionmatch::Distance::kAppearance;
  double ridge_alpha = 0; // the strength it was trained with (for inspection)
  std::vector<int> prototypes;

  bool has_ridge() const { return ridge.classes > 0; }
};
// Every model valid and of dimension `dim`, params valid; with FlowHistogram::kSpeed, dim
// kSpeedDescriptorDim and speed_split in kMinSpeedSplit..kMaxSpeedSplit, with kPaper speed_split 0;
// a ridge classifier with 1..255 distinct classes naming every model's label, one candidate per
// model (cands 0..models-1; with class-mean features cand_class the class of each model's label,
// every class with a model), finite values, prototypes sorted and in range.
Status validate(const Dictionary& d);
// The flow histogram fields alone (flow, speed_split, and dim against them).
Status validate_descriptor_kind(const Dictionary& d);

// The binary dictionary file (FORMAT.md): little-endian, CRC-32 protected. Version 2 adds the flow
// histogram to the header, version 3 the ridge classifier after the models, version 4 its kind of
// features. The writer writes the lowest version that holds the content (1: the paper's flow
// histogram and no classifier; 2: the speed split; 3: a ridge classifier over the distances to
// every model; 4: over the class means), so older builds read what they can use; the reader reads
// all four (a version 1 or 2 file is a nearest-prototype dictionary).
inline constexpr uint32_t kDictionaryVersion = 4;
// The version serialize_dictionary() writes for `d`.
uint32_t dictionary_version(const Dictionary& d);
// Serialises a valid dictionary. Errors: those of validate().
Status serialize_dictionary(const Dictionary& d, std::vector<uint8_t>* out);
// Parses and validates a whole file image. On error *out is left empty and the message names what
// is wrong (bad magic, unsupported version, truncation with the offsets, a field out of range, a
// checksum mismatch, ...). Errors: kIoError.
Status parse_dictionary(const uint8_t* data, size_t size, Dictionary* out);
// File versions of the two above; messages start with the path. Errors: kIoError.
Status save_dictionary(const std::string& path, const Dictionary& d);
Status load_dictionary(const std::string& path, Dictionary* out);

// The scene-graph text file (FORMAT.md): "cvis-action-scene 1", "dim N", then one line per node
// "frame x y d_0 .. d_{N-1}" sorted by frame, "block" lines separating scene blocks, '#' comments.
// Errors: kInvalidArgument with the line number ("line 7: ..."), kIoError; file versions prefix
// the path. The writer prints floats with 9 significant digits (exact round trip).
Status parse_scene_text(const std::string& text, std::vector<actionmatch::Graph>* blocks);
Status load_scene_file(const std::string& path, std::vector<actionmatch::Graph>* blocks);
Status save_scene_file(const std::string& path, const std::vector<actionmatch::Graph>& blocks);

// The flow histogram fields of a dictionary made with these front-end parameters (dim, flow;
// speed_split 0 for kPaper).
void describe(const stip::FrontEndParams& p, Dictionary* d);

} // namespace cvis::actionlearn
