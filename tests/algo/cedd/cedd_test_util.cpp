#include "cedd_test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "common/color.hpp"

namespace cvis::cedd::test {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    out.push_back(cur);
  return out;
}

bool read_rows(const std::string& name, std::vector<std::vector<std::string>>* rows,
               std::string* error) {
  const std::string path = cvis::test::testdata_dir() + "/cedd/" + name;
  std::ifstream f(path);
  if (!f) {
    *error = "cannot open " + path;
    return false;
  }
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    rows->push_back(split(line, '\t'));
  }
  return true;
}

} // namespace

bool load_expected(std::vector<Expected>* out, std::string* error) {
  std::vector<std::vector<std::string>> lv, nv;
  if (!read_rows("expected.tsv", &lv, error) || !read_rows("expected_normalized.tsv", &nv, error)) {
    return false;
  }
  for (const auto& row : lv) {
    if (row.size() != 4 + kBins) {
      *error = "expected.tsv: bad column count";
      return false;
    }
    Expected e;
    e.file = row[0];
    e.width = std::atoi(row[1].c_str());
    e.height = std::atoi(row[2].c_str());
    for (int i = 0; i < kBins; ++i)
      e.levels[i] = static_cast<uint8_t>(std::atoi(row[4 + i].c_str()));
    bool found = false;
    for (const auto& n : nv) {
      if (n.size() == 1 + kBins && n[0] == e.file) {
        for (int i = 0; i < kBins; ++i)
          e.normalized[i] = std::strtod(n[1 + i].c_str(), nullptr);
        found = true;
      }
    }
    if (!found) {
      *error = "expected_normalized.tsv has no row for " + e.file;
      return false;
    }
    out->push_back(e);
  }
  return !out->empty();
}

bool load_debug_blocks(const std::string& stem, std::vector<ExpectedBlock>* out,
                       std::string* error) {
  std::vector<std::vector<std::string>> rows;
  if (!read_rows("debug_blocks_" + stem + ".tsv", &rows, error))
    return false;
  for (const auto& r : rows) {
    if (r.size() != 15) {
      *error = "debug_blocks_" + stem + ".tsv: bad column count";
      return false;
    }
    ExpectedBlock b{};
    b.x0 = std::atoi(r[0].c_str());
    b.y0 = std::atoi(r[1].c_str());
    for (int q = 0; q < 4; ++q)
      b.area[q] = std::atoi(r[2 + q].c_str());
    b.max_mask = std::strtod(r[6].c_str(), nullptr);
    for (const std::string& c : split(r[7], ','))
      b.classes |= static_cast<uint8_t>(1u << std::atoi(c.c_str()));
    b.r = std::atoi(r[8].c_str());
    b.g = std::atoi(r[9].c_str());
    b.b = std::atoi(r[10].c_str());
    b.h = std::atoi(r[11].c_str());
    b.s = std::atoi(r[12].c_str());
    b.v = std::atoi(r[13].c_str());
    const auto f = split(r[14], ',');
    if (f.size() != 10) {
      *error = "debug_blocks_" + stem + ".tsv: fuzzy10 needs 10 values";
      return false;
    }
    for (int i = 0; i < 10; ++i)
      b.fuzzy10[i] = std::strtod(f[i].c_str(), nullptr);
    out->push_back(b);
  }
  return !out->empty();
}

// ---- the specification, literally
// ----------------------------------------------------------------

namespace {

double trapezoid(double x, const double t[4]) { // §7
  double m = 0.0;
  if (x >= t[1] && x <= t[2])
    m = 1.0;
  if (x >= t[0] && x < t[1])
    m = (x - t[0]) / (t[1] - t[0]);
  if (x > t[2] && x <= t[3])
    m = (x - t[2]) / (t[2] - t[3]) + 1.0;
  return m;
}

const double kHue[8][4] = {{0, 0, 5, 10},        {5, 10, 35, 50},      {35, 50, 70, 85},
                           {70, 85, 150, 165},   {150, 165, 195, 205}, {195, 205, 265, 280},
                           {265, 280, 315, 330}, {315, 330, 360, 360}};
const double kSat10[2][4] = {{0, 0, 10, 75}, {10, 75, 255, 255}};
const double kVal10[3][4] = {{0, 0, 10, 75}, {10, 75, 180, 220}, {180, 220, 255, 255}};
const double kSV24[2][4] = {{0, 0, 68, 188}, {68, 188, 255, 255}};

const double kQ[4][8] = {
    {180.19686541079636, 23730.024499150866, 61457.152912541605, 113918.55437576842,
     179122.46400035513, 260980.3325940354, 341795.93301552488, 554729.98648386425},
    {209.25176965926232, 22490.5872862417345, 60250.8935141849988, 120705.788057580583,
     181128.08709063051, 234132.081356900555, 325660.617733105708, 520702.175858657472},
    {405.4642173212585, 4877.9763319071481, 10882.170090625908, 18167.239081219657,
     27043.385568785292, 38129.413201299016, 52675.221316293857, 79555.402607004813},
    {968.88475977695578, 10725.159033657819, 24161.205360376698, 41555.917344385321,
     62895.628446402261, 93066.271379694881, 136976.13317822068, 262897.86056221306}};

} // namespace

Result literal_cedd(const ImageView& image) {
  Result res{};
  const int W = image.width, H = image.height;
  if (W < 2 || H < 2)
    return res; // §2: no blocks
  // §2 block layout.
  int nx, ny, sx, sy;
  const int m = std::min(W, H);
  if (m >= 40) {
    const int n = m >= 80 ? 40 : 20;
    nx = ny = n;
    sx = W / n;
    sy = H / n;
    if (sx % 2 == 1)
      sx = sx - 1;
    if (sy % 2 == 1)
      sy = sy - 1;
  } else {
    nx = W / 2;
    ny = H / 2;
    sx = sy = 2;
  }
  // §8.1 rule table: (hue set, saturation set, value set, output bin).
  int rules[48][4];
  for (int h = 0; h < 8; ++h) {
    const int base[4][3] = {{0, 0, 2}, {1, 0, 2}, {0, 2, 0}, {0, 1, 1}};
    for (int k = 0; k < 4; ++k) {
      rules[4 * h + k][0] = h;
      rules[4 * h + k][1] = base[k][0];
      rules[4 * h + k][2] = base[k][1];
      rules[4 * h + k][3] = base[k][2];
    }
    const int C[8] = {3, 4, 5, 6, 7, 8, 9, 3};
    rules[32 + 2 * h][0] = h;
    rules[32 + 2 * h][1] = 1;
    rules[32 + 2 * h][2] = 1;
    rules[32 + 2 * h][3] = C[h];
    rules[33 + 2 * h][0] = h;
    rules[33 + 2 * h][1] = 1;
    rules[33 + 2 * h][2] = 2;
    rules[33 + 2 * h][3] = C[h];
  }
  const PixelSource src = make_pixel_source(image);
  const double c = 4.0 / (sx * sy);
  const double s2 = std::sqrt(2.0);
  double hist[144] = {};
  for (int by = 0; by < ny; ++by) {
    for (int bx = 0; bx < nx; ++bx) {
      double S[4] = {0, 0, 0, 0};
      long R = 0, G = 0, B = 0;
      for (int dy = 0; dy < sy; ++dy) {
        for (int dx = 0; dx < sx; ++dx) {
          const Rgb8 p = fetch_rgb(src, bx * sx + dx, by * sy + dy);
          const double Y = 0.114 * p.b + 0.587 * p.g + 0.299 * p.r; // §3
          const int q = (dy < sy / 2 ? 0 : 2) + (dx < sx / 2 ? 0 : 1);
          S[q] += Y;
          R += p.r;
          G += p.g;
          B += p.b;
        }
      }
      // §4
      double A[4];
      for (int q = 0; q < 4; ++q)
        A[q] = static_cast<int>(S[q] * c);
      const double M[5] = {std::fabs(2 * A[0] - 2 * A[1] - 2 * A[2] + 2 * A[3]),
                           std::fabs(A[0] + A[1] - A[2] - A[3]),
                           std::fabs(A[0] - A[1] + A[2] - A[3]), std::fabs(A[0] * s2 - A[3] * s2),
                           std::fabs(A[1] * s2 - A[2] * s2)};
      double Mx = M[0];
      for (int k = 1; k < 5; ++k)
        Mx = std::max(Mx, M[k]);
      bool cls[6] = {false, false, false, false, false, false};
      if (Mx < 14) {
        cls[0] = true;
      } else {
        const double T[5] = {0.68, 0.98, 0.98, 0.98, 0.98};
        for (int k = 0; k < 5; ++k)
          cls[k + 1] = M[k] / Mx > T[k];
      }
      // §5, §6
      const int r = static_cast<int>(R / (sx * sy)), g = static_cast<int>(G / (sx * sy)),
                b = static_cast<int>(B / (sx * sy));
      const int mx = std::max(r, std::max(g, b)), mn = std::min(r, std::min(g, b));
      int Hh = 0, Ss = 0;
      const int Vv = mx;
      if (mx != 0)
        Ss = static_cast<int>(255 - 255 * (static_cast<double>(mn) / mx));
      if (mx != mn) {
        const double d = mx - mn;
        if (mx == r && g >= b)
          Hh = static_cast<int>(60 * (g - b) / d);
        else if (mx == r)
          Hh = static_cast<int>(359 + 60 * (g - b) / d);
        else if (mx == g)
          Hh = static_cast<int>(119 + 60 * (b - r) / d);
        else
          Hh = static_cast<int>(239 + 60 * (r - g) / d);
      }
      // §7, §8.1
      double mh[8], ms[2], mv[3];
      for (int k = 0; k < 8; ++k)
        mh[k] = trapezoid(Hh, kHue[k]);
      for (int k = 0; k < 2; ++k)
        ms[k] = trapezoid(Ss, kSat10[k]);
      for (int k = 0; k < 3; ++k)
        mv[k] = trapezoid(Vv, kVal10[k]);
      double F10[10] = {};
      for (const auto& rule : rules) {
        const double a = mh[rule[0]], bb = ms[rule[1]], cc = mv[rule[2]];
        if (a > 0 && bb > 0 && cc > 0)
          F10[rule[3]] += std::min(a, std::min(bb, cc));
      }
      // §8.2
      const double s24[2] = {trapezoid(Ss, kSV24[0]), trapezoid(Ss, kSV24[1])};
      const double v24[2] = {trapezoid(Vv, kSV24[0]), trapezoid(Vv, kSV24[1])};
      double Wt[3] = {0, 0, 0};
      double t = 0;
      for (int i = 3; i < 10; ++i)
        t += F10[i];
      if (t > 0) {
        const int shade_rules[4][3] = {{1, 1, 1}, {0, 0, 2}, {0, 1, 0}, {1, 0, 2}};
        for (const auto& sr : shade_rules) {
          if (s24[sr[0]] > 0 && v24[sr[1]] > 0)
            Wt[sr[2]] += std::min(s24[sr[0]], v24[sr[1]]);
        }
      }
      double F24[24];
      for (int j = 0; j < 3; ++j)
        F24[j] = F10[j];
      for (int i = 3; i < 10; ++i) {
        for (int k = 0; k < 3; ++k)
          F24[3 * (i - 2) + k] = F10[i] * Wt[k];
      }
      // §9
      for (int k = 0; k < 6; ++k) {
        if (!cls[k])
          continue;
        for (int j = 0; j < 24; ++j) {
          if (F24[j] > 0)
            hist[24 * k + j] += F24[j];
        }
      }
    }
  }
  double total = 0;
  for (double v : hist)
    total += v;
  for (int i = 0; i < 144; ++i) {
    const double v = total > 0 ? hist[i] / total : 0.0;
    const int table = i < 24 ? 0 : i < 48 ? 1 : i < 96 ? 2 : 3;
    double best = 1.0;
    int level = 0;
    for (int j = 0; j < 8; ++j) {
      const double d = std::fabs(v - kQ[table][j] / 1000000);
      if (d < best) {
        best = d;
        level = j;
      }
    }
    res.normalized[i] = v;
    res.levels[i] = static_cast<uint8_t>(level);
  }
  return res;
}

bool same_result(const Result& a, const Result& b, std::string* why) {
  for (int i = 0; i < kBins; ++i) {
    if (a.levels[i] != b.levels[i] ||
        std::memcmp(&a.normalized[i], &b.normalized[i], sizeof(double)) != 0) {
      std::ostringstream o;
      o.precision(17);
      o << "bin " << i << ": level " << int(a.levels[i]) << " vs " << int(b.levels[i])
        << ", normalized " << a.normalized[i] << " vs " << b.normalized[i];
      if (why)
        *why = o.str();
      return false;
    }
  }
  return true;
}

HostImage make_image(PixelFormat format, Pattern pattern, int width, int height, uint32_t seed,
                     size_t pad, bool random_alpha) {
  HostImage rgba = cvis::test::make_rgba(pattern, width, height, seed);
  std::mt19937 rng(seed ^ 0x9e3779b9u);
  if (is_yuv(format)) {
    HostImage out(format, width, height, pad);
    const PackedLayout l = packed_layout(PixelFormat::kRGBA);
    auto px = [&](int x, int y) {
      return rgba.view().data[0] + static_cast<size_t>(y) * rgba.pitch(0) + 4 * x;
    };
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        out.plane(0)[y * out.pitch(0) + x] = px(x, y)[l.r];
    const int cw = (width + 1) / 2, ch = (height + 1) / 2;
    for (int y = 0; y < ch; ++y) {
      for (int x = 0; x < cw; ++x) {
        const uint8_t u = px(2 * x, 2 * y)[l.g], v = px(2 * x, 2 * y)[l.b];
        if (format == PixelFormat::kNV12) {
          out.plane(1)[y * out.pitch(1) + 2 * x] = u;
          out.plane(1)[y * out.pitch(1) + 2 * x + 1] = v;
        } else {
          out.plane(1)[y * out.pitch(1) + x] = u;
          out.plane(2)[y * out.pitch(2) + x] = v;
        }
      }
    }
    return out;
  }
  HostImage out = rgba.converted(format, pad);
  if (random_alpha && has_alpha(format)) {
    const PackedLayout l = packed_layout(format);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        uint8_t* p = out.plane(0) + static_cast<size_t>(y) * out.pitch(0) + 4 * x;
        const uint32_t r = rng();
        // Mostly opaque or transparent extremes plus arbitrary values.
        p[l.a] = (r & 3) == 0 ? 255 : (r & 3) == 1 ? 0 : static_cast<uint8_t>(r >> 8);
      }
  }
  return out;
}

std::string image_name(const ImageView& v) {
  std::ostringstream o;
  o << pixel_format_name(v.format) << " " << v.width << "x" << v.height << " pitch " << v.pitch[0]
    << (v.space == MemorySpace::kDevice ? " (device)" : " (host)");
  return o.str();
}

} // namespace cvis::cedd::test
