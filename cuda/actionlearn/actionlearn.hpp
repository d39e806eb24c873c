// Dictionaries and the files of the action recogniser: the models to recognise with the matching
// parameters and descriptor kind they were made for (FORMAT.md: the binary dictionary file and the
// scene-graph text file). The rest of the folder builds on it: model cutting, classifiers and
// prototype selection (actionlearn_models.hpp), the ridge classifier (actionlearn_ridge.hpp) and
// streaming recognition (actionlearn_recognise.hpp). No GStreamer, no CUDA header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
};
// Every model valid and of dimension `dim`, params valid; with FlowHistogram::kSpeed, dim
// kSpeedDescriptorDim and speed_split in kMinSpeedSplit..kMaxSpeedSplit, with kPaper speed_split 0.
Status validate(const Dictionary& d);
// The flow histogram fields alone (flow, speed_split, and dim against them).
Status validate_descriptor_kind(const Dictionary& d);

// The binary dictionary file (FORMAT.md): little-endian, CRC-32 protected. Version 2 adds the flow
// histogram to the header; the writer writes version 1 when the flow histogram is the paper's (so
// older builds read those files), the reader reads both.
inline constexpr uint32_t kDictionaryVersion = 2;
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
