// The scene-graph text file (FORMAT.md): reader with line-numbered errors, and writer.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "actionlearn.hpp"

namespace cvis::actionlearn {

using namespace actionmatch;
using namespace stip;

namespace {

// Whitespace-separated tokens of a line.
std::vector<std::string> tokens(const std::string& line) {
  std::vector<std::string> t;
  std::istringstream in(line);
  for (std::string w; in >> w;)
    t.push_back(w);
  return t;
}

bool to_long(const std::string& s, long long* v) {
  errno = 0;
  char* end = nullptr;
  *v = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end != s.c_str() && *end == '\0';
}

bool to_float(const std::string& s, float* v) {
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (errno != 0 || end == s.c_str() || *end != '\0' || !std::isfinite(d))
    return false;
  *v = static_cast<float>(d);
  return std::isfinite(*v);
}

} // namespace

Status parse_scene_text(const std::string& text, std::vector<Graph>* blocks) {
  blocks->clear();
  std::istringstream in(text);
  std::string line;
  int lineno = 0, dim = 0;
  bool have_magic = false;
  std::vector<Graph> out;
  std::vector<float> d;
  const auto err = [&](const std::string& why) {
    return invalid_argument("line " + std::to_string(lineno) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    const std::vector<std::string> t = tokens(line);
    if (t.empty() || t[0][0] == '#')
      continue;
    if (!have_magic) {
      if (t.size() != 2 || t[0] != "cvis-action-scene") {
        return err("not a cvis-action scene file (expected \"cvis-action-scene 1\")");
      }
      if (t[1] != "1")
        return err("unsupported scene file version " + t[1] + " (this build reads 1)");
      have_magic = true;
      continue;
    }
    if (dim == 0) {
      long long v = 0;
      if (t.size() != 2 || t[0] != "dim" || !to_long(t[1], &v) || v < 1 || v > kMaxDim) {
        return err("expected \"dim N\" with N in 1.." + std::to_string(kMaxDim));
      }
      dim = static_cast<int>(v);
      out.emplace_back();
      out.back().dim = dim;
      d.resize(dim);
      continue;
    }
    if (t.size() == 1 && t[0] == "block") {
      out.emplace_back();
      out.back().dim = dim;
      continue;
    }
    if (t.size() != static_cast<size_t>(dim) + 3) {
      return err("expected " + std::to_string(dim + 3) + " numbers (frame x y and " +
                 std::to_string(dim) + " descriptor values), found " + std::to_string(t.size()));
    }
    long long f = 0;
    if (!to_long(t[0], &f) || f < -kMaxFrame || f > kMaxFrame) {
      return err("frame '" + t[0] + "' is not an integer within +-" + std::to_string(kMaxFrame));
    }
    float x = 0, y = 0;
    if (!to_float(t[1], &x) || !to_float(t[2], &y))
      return err("bad position '" + t[1] + " " + t[2] + "'");
    for (int k = 0; k < dim; ++k) {
      if (!to_float(t[3 + k], &d[k])) {
        return err("descriptor value " + std::to_string(k) + " '" + t[3 + k] +
                   "' is not a finite number");
      }
    }
    Graph& g = out.back();
    if (g.size() > 0 && f < g.frame.back()) {
      return err("frame " + std::to_string(f) + " after frame " + std::to_string(g.frame.back()) +
                 ": nodes must be sorted by frame");
    }
    g.add(static_cast<int32_t>(f), x, y, d.data());
  }
  if (!have_magic)
    return invalid_argument("empty: no \"cvis-action-scene 1\" line");
  if (dim == 0)
    return invalid_argument("no \"dim N\" line");
  for (size_t b = 0; b < out.size(); ++b) {
    const Status s = validate_scene(out[b]);
    if (!s.ok()) {
      return invalid_argument((out.size() > 1 ? "block " + std::to_string(b) + ": " : "") +
                              s.message());
    }
  }
  *blocks = std::move(out);
  return Status::Ok();
}

Status load_scene_file(const std::string& path, std::vector<Graph>* blocks) {
  blocks->clear();
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return io_error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << f.rdbuf();
  if (f.bad())
    return io_error(path + ": read failed");
  const Status s = parse_scene_text(text.str(), blocks);
  if (!s.ok())
    return Status(s.code(), path + ": " + s.message());
  return Status::Ok();
}

Status save_scene_file(const std::string& path, const std::vector<Graph>& blocks) {
  if (blocks.empty())
    return invalid_argument(path + ": no scene blocks");
  for (const Graph& g : blocks) {
    CVIS_RETURN_IF_ERROR(validate_scene(g));
    if (g.dim != blocks[0].dim)
      return invalid_argument(path + ": blocks of different dims");
  }
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f)
    return io_error(path + ": cannot create: " + std::strerror(errno));
  std::fprintf(f, "cvis-action-scene 1\ndim %d\n# frame x y descriptor[0..%d]\n", blocks[0].dim,
               blocks[0].dim - 1);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const Graph& g = blocks[b];
    if (b > 0)
      std::fputs("block\n", f);
    for (int n = 0; n < g.size(); ++n) {
      // %.9g: floats round-trip exactly.
      std::fprintf(f, "%d %.9g %.9g", g.frame[n], g.x[n], g.y[n]);
      for (int k = 0; k < g.dim; ++k)
        std::fprintf(f, " %.9g", g.descriptor(n)[k]);
      std::fputc('\n', f);
    }
  }
  if (std::fclose(f) != 0)
    return io_error(path + ": write failed");
  return Status::Ok();
}

} // namespace cvis::actionlearn
