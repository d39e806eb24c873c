// The overlay's label layout (cvis::overlay::layout_labels) as a filter, so that the street
// evaluation's scorer measures the labels the element draws, not a copy of its geometry.
//
// stdin: a first line "WIDTH HEIGHT FONT_SCALE [LABEL_LAYOUT]" (LABEL_LAYOUT 1, the default, or
// 0: Params::label_layout), then one box per line, tab-separated:
//   x  y  w  h  priority  label  short_label
// (a frame ends at a line "end"; frames follow one another). stdout: one line per box,
// "x y w h text" of its label (text to the end of the line), or "-" for no label; "end" after
// each frame. Every other field of Params keeps its default.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "overlay/overlay.hpp"

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, '\t'))
    out.push_back(field);
  if (!line.empty() && line.back() == '\t')
    out.emplace_back();
  return out;
}

} // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    int width = 0, height = 0;
    cvis::overlay::Params params;
    std::istringstream head(line);
    if (!(head >> width >> height >> params.font_scale)) {
      std::cerr << "overlay_layout: expected \"WIDTH HEIGHT FONT_SCALE\", got \"" << line << "\"\n";
      return 2;
    }
    int label_layout = 1;
    if (head >> label_layout)
      params.label_layout = label_layout != 0;
    std::vector<cvis::overlay::Box> boxes;
    while (std::getline(std::cin, line) && line != "end") {
      const std::vector<std::string> f = split_tabs(line);
      if (f.size() != 7) {
        std::cerr << "overlay_layout: expected 7 tab-separated fields, got \"" << line << "\"\n";
        return 2;
      }
      cvis::overlay::Box b;
      b.x = std::stoi(f[0]), b.y = std::stoi(f[1]), b.w = std::stoi(f[2]), b.h = std::stoi(f[3]);
      b.priority = std::stoi(f[4]);
      b.label = f[5];
      b.short_label = f[6];
      boxes.push_back(b);
    }
    std::vector<cvis::overlay::LabelPlacement> labels;
    const cvis::Status st = cvis::overlay::layout_labels(boxes, width, height, params, &labels);
    if (!st.ok()) {
      std::cerr << "overlay_layout: " << st.message() << "\n";
      return 1;
    }
    for (const cvis::overlay::LabelPlacement& l : labels) {
      if (l.text.empty())
        std::cout << "-\n";
      else
        std::cout << l.x << ' ' << l.y << ' ' << l.w << ' ' << l.h << ' ' << l.text << '\n';
    }
    std::cout << "end\n" << std::flush;
  }
  return 0;
}
