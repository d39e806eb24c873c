// Backend-independent parts: feature sets, parameter checks, box parsing, the plane layout, pass
// checks, model preparation and the factories.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "rcdtrack_engine.hpp"

namespace cvis::rcdtrack {

namespace {

const char* const kFeatureNames[kFeatureKinds] = {"x",  "y",  "r",    "g",    "b",     "i",
                                                  "ix", "iy", "|ix|", "|iy|", "|ixx|", "|iyy|"};

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\n\r"), b = s.find_last_not_of(" \t\n\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

} // namespace

bool FeatureSet::operator==(const FeatureSet& o) const {
  return count == o.count && std::equal(list, list + count, o.list);
}

FeatureSet thesis_features() {
  FeatureSet f;
  for (Feature k : {Feature::kR, Feature::kG, Feature::kB, Feature::kIx, Feature::kIy})
    f.list[f.count++] = k;
  return f;
}

FeatureSet tuzel_features() {
  FeatureSet f;
  for (Feature k : {Feature::kX, Feature::kY, Feature::kI, Feature::kAbsIx, Feature::kAbsIy,
                    Feature::kAbsIxx, Feature::kAbsIyy})
    f.list[f.count++] = k;
  return f;
}

Status validate_features(const FeatureSet& f) {
  if (f.count < 2 || f.count > kMaxFeatures)
    return invalid_argument("features: " + std::to_string(f.count) + " given, 2.." +
                            std::to_string(kMaxFeatures) + " needed");
  bool seen[kFeatureKinds] = {};
  bool spatial_done = false;
  int nonspatial = 0;
  for (int i = 0; i < f.count; ++i) {
    const int k = static_cast<int>(f.list[i]);
    if (k < 0 || k >= kFeatureKinds)
      return invalid_argument("features: unknown feature");
    if (seen[k])
      return invalid_argument(std::string("features: '") + kFeatureNames[k] + "' twice");
    seen[k] = true;
    if (is_spatial(k)) {
      if (spatial_done)
        return invalid_argument("features: x and y must come first");
    } else {
      spatial_done = true;
      ++nonspatial;
    }
  }
  if (nonspatial == 0)
    return invalid_argument("features: at least one non-spatial feature is needed");
  return Status::Ok();
}

bool parse_features(const std::string& text, FeatureSet* out, std::string* error) {
  const std::string t = trim(text);
  if (t == "thesis") {
    *out = thesis_features();
    return true;
  }
  if (t == "tuzel") {
    *out = tuzel_features();
    return true;
  }
  FeatureSet spatial, other;
  std::stringstream ss(t);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    std::transform(item.begin(), item.end(), item.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    int k = -1;
    for (int i = 0; i < kFeatureKinds; ++i)
      if (item == kFeatureNames[i])
        k = i;
    if (k < 0) {
      *error = "unknown feature '" + item +
               "' (known: x, y, r, g, b, i, ix, iy, |ix|, |iy|, "
               "|ixx|, |iyy|, or the sets thesis, tuzel)";
      return false;
    }
    FeatureSet& dst = is_spatial(k) ? spatial : other;
    if (dst.count >= kMaxFeatures) {
      *error = "too many features (at most " + std::to_string(kMaxFeatures) + ")";
      return false;
    }
    dst.list[dst.count++] = static_cast<Feature>(k);
  }
  FeatureSet f = spatial;
  for (int i = 0; i < other.count; ++i) {
    if (f.count >= kMaxFeatures) {
      *error = "too many features (at most " + std::to_string(kMaxFeatures) + ")";
      return false;
    }
    f.list[f.count++] = other.list[i];
  }
  const Status st = validate_features(f);
  if (!st.ok()) {
    *error = st.message();
    return false;
  }
  *out = f;
  return true;
}

std::string feature_names(const FeatureSet& f) {
  if (f == thesis_features())
    return "thesis";
  if (f == tuzel_features())
    return "tuzel";
  std::string s;
  for (int i = 0; i < f.count; ++i) {
    const int k = static_cast<int>(f.list[i]);
    s += (i ? "," : "") + std::string(k >= 0 && k < kFeatureKinds ? kFeatureNames[k] : "?");
  }
  return s;
}

const char* distance_name(Distance d) {
  return d == Distance::kJbld ? "jbld" : d == Distance::kFoerstner ? "foerstner" : "unknown";
}

Status validate(const Params& p) {
  CVIS_RETURN_IF_ERROR(validate_features(p.features));
  if (p.distance != Distance::kJbld && p.distance != Distance::kFoerstner)
    return invalid_argument("unknown distance");
  if (p.scales < 1 || p.scales > 16)
    return invalid_argument("scales " + std::to_string(p.scales) + " not in 1..16");
  if (!(p.scale_min > 0.0) || !(p.scale_max >= p.scale_min) || p.scale_max > 16.0 ||
      p.scale_min < 1.0 / 16.0)
    return invalid_argument("scale range must satisfy 1/16 <= scale-min <= scale-max <= 16");
  if (p.step < 0 || p.step > 256)
    return invalid_argument("step " + std::to_string(p.step) + " not in 0..256");
  if (!(p.search_radius < 100.0) || std::isnan(p.search_radius))
    return invalid_argument("search radius must be below 100 target sizes");
  if (!(p.update_rate >= 0.0 && p.update_rate <= 1.0))
    return invalid_argument("update rate must be in 0..1");
  if (!(p.lost_threshold > 0.0))
    return invalid_argument("lost threshold must be positive");
  if (p.parts != 1 && p.parts != 5)
    return invalid_argument("parts must be 1 or 5");
  if (!(p.ridge > 0.0 && p.ridge <= 1e6))
    return invalid_argument("ridge must be in (0, 1e6]");
  if (!(p.motion_weight >= 0.0 && p.motion_weight <= 1e6) ||
      !(p.scale_weight >= 0.0 && p.scale_weight <= 1e6) ||
      !(p.context_weight >= 0.0 && p.context_weight <= 1e6))
    return invalid_argument("prior weights must be in 0..1e6");
  if (!(p.scale_prediction >= 0.0 && p.scale_prediction <= 1.0))
    return invalid_argument("scale_prediction not in 0..1");
  if (!(p.scale_gain > 0.0 && p.scale_gain <= 1.0))
    return invalid_argument("scale_gain not in (0, 1]");
  if (!(p.model_anchor >= 0.0 && p.model_anchor <= 1.0))
    return invalid_argument("model_anchor not in 0..1");
  if (!(p.occlusion_ratio >= 0.0 && p.occlusion_ratio <= 1e6))
    return invalid_argument("occlusion_ratio not in 0..1e6");
  if (!(p.coast_frames >= 0 && p.coast_frames <= 100000))
    return invalid_argument("coast_frames not in 0..100000");
  if (static_cast<int>(p.rotation_source) < 0 || static_cast<int>(p.rotation_source) > 3)
    return invalid_argument("rotation_source not in 0..3");
  if (p.top_k < 1 || p.top_k > kMaxTopK)
    return invalid_argument("top-k must be in 1.." + std::to_string(kMaxTopK));
  if (!(p.threshold > 0.0))
    return invalid_argument("threshold must be positive");
  if (!(p.nms_iou >= 0.0 && p.nms_iou <= 1.0))
    return invalid_argument("NMS overlap must be in 0..1");
  if (p.max_detections < 1 || p.max_detections > 4096)
    return invalid_argument("max detections must be in 1..4096");
  return Status::Ok();
}

double iou(const Box& a, const Box& b) {
  const int64_t x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
  const int64_t x1 = std::min(a.x + a.w, b.x + b.w), y1 = std::min(a.y + a.h, b.y + b.h);
  const int64_t in = std::max<int64_t>(0, x1 - x0) * std::max<int64_t>(0, y1 - y0);
  const int64_t un = static_cast<int64_t>(a.w) * a.h + static_cast<int64_t>(b.w) * b.h - in;
  return un > 0 ? static_cast<double>(in) / static_cast<double>(un) : 0.0;
}

Box clip_box(const Box& box, int width, int height) {
  const int x0 = std::max(0, box.x), y0 = std::max(0, box.y);
  const int x1 = std::min(width, box.x + box.w), y1 = std::min(height, box.y + box.h);
  return {x0, y0, x1 - x0, y1 - y0};
}

bool parse_boxes(const std::string& text, std::vector<Box>* out, std::string* error) {
  std::vector<Box> boxes;
  std::stringstream ss(text);
  std::string item;
  int n = 0;
  while (std::getline(ss, item, ';')) {
    ++n;
    item = trim(item);
    if (item.empty()) {
      if (ss.eof())
        break; // trailing ';'
      *error = "box " + std::to_string(n) + " is empty";
      return false;
    }
    long v[4];
    const char* p = item.c_str();
    for (int k = 0; k < 4; ++k) {
      char* end = nullptr;
      while (*p == ' ' || *p == '\t')
        ++p;
      v[k] = std::strtol(p, &end, 10);
      if (end == p || v[k] < -1000000 || v[k] > 1000000) {
        *error = "box " + std::to_string(n) + " '" + item + "': expected x,y,w,h (integers)";
        return false;
      }
      p = end;
      while (*p == ' ' || *p == '\t')
        ++p;
      if (k < 3) {
        if (*p != ',') {
          *error = "box " + std::to_string(n) + " '" + item + "': expected x,y,w,h";
          return false;
        }
        ++p;
      }
    }
    if (*p != '\0') {
      *error = "box " + std::to_string(n) + " '" + item + "': unexpected '" + std::string(p) + "'";
      return false;
    }
    if (v[2] < 1 || v[3] < 1) {
      *error = "box " + std::to_string(n) + " '" + item + "': width and height must be >= 1";
      return false;
    }
    boxes.push_back({static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]),
                     static_cast<int>(v[3])});
  }
  if (boxes.empty()) {
    *error = "no box given";
    return false;
  }
  *out = boxes;
  return true;
}

Layout make_layout(const FeatureSet& f, double ridge, int parts) {
  Layout l;
  l.parts = parts;
  l.n = f.count;
  for (int i = 0; i < f.count; ++i) {
    const int k = static_cast<int>(f.list[i]);
    l.kind[i] = static_cast<uint8_t>(k);
    l.ridge[i] = ridge * feature_ridge_scale(k);
    if (is_spatial(k)) {
      l.coord[l.ns] = k == static_cast<int>(Feature::kX) ? 0 : 1;
      ++l.ns;
    }
  }
  l.nf = l.n - l.ns;
  int p = 0;
  for (int a = 0; a < l.nf; ++a)
    l.plane[p++] = {kFirst, static_cast<uint8_t>(a), 0};
  for (int b = 0; b < l.nf; ++b)
    for (int a = 0; a <= b; ++a)
      l.plane[p++] = {kSecond, static_cast<uint8_t>(a), static_cast<uint8_t>(b)};
  for (int s = 0; s < l.ns; ++s)
    for (int a = 0; a < l.nf; ++a)
      l.plane[p++] = {kCross, l.coord[s], static_cast<uint8_t>(a)};
  l.planes = p;
  return l;
}

int64_t group_windows(const Pass& pass, const GroupSpec& g) {
  int64_t n = 0;
  for (int k = g.first_grid; k < g.first_grid + g.grid_count; ++k)
    n += static_cast<int64_t>(pass.grids[k].nx) * pass.grids[k].ny;
  return n;
}

Box window_box(const Pass& pass, const GroupSpec& g, int64_t index, int* grid) {
  for (int k = g.first_grid; k < g.first_grid + g.grid_count; ++k) {
    const GridSpec& gr = pass.grids[k];
    const int64_t n = static_cast<int64_t>(gr.nx) * gr.ny;
    if (index < n) {
      *grid = k;
      return {gr.x0 + static_cast<int>(index % gr.nx) * gr.step,
              gr.y0 + static_cast<int>(index / gr.nx) * gr.step, gr.ww, gr.wh};
    }
    index -= n;
  }
  *grid = -1;
  return {};
}

Status validate_pass(const Pass& pass, const Layout& layout, int width, int height) {
  for (const IntegralSpec& s : pass.integrals) {
    if ((s.cell != 1 && s.cell != 2 && s.cell != 4 && s.cell != 8) || s.cols < 1 || s.rows < 1 ||
        s.x < 0 || s.y < 0 || s.x + s.cols * s.cell > width || s.y + s.rows * s.cell > height)
      return internal_error("pass: integral region outside the frame or bad cell size");
  }
  for (const GroupSpec& g : pass.groups) {
    if (g.integral < 0 || g.integral >= static_cast<int>(pass.integrals.size()) ||
        g.model >= static_cast<int>(pass.models.size()) || g.first_grid < 0 || g.grid_count < 1 ||
        g.first_grid + g.grid_count > static_cast<int>(pass.grids.size()) || g.top_k < 1 ||
        g.top_k > kMaxTopK)
      return internal_error("pass: inconsistent group");
    const IntegralSpec& s = pass.integrals[g.integral];
    for (int k = g.first_grid; k < g.first_grid + g.grid_count; ++k) {
      const GridSpec& gr = pass.grids[k];
      const int c = s.cell;
      const int x1 = gr.x0 + (gr.nx - 1) * gr.step + gr.ww,
                y1 = gr.y0 + (gr.ny - 1) * gr.step + gr.wh;
      if (gr.nx < 1 || gr.ny < 1 || gr.step < 1 || gr.ww < 2 || gr.wh < 2 ||
          ((gr.nx > 1 || gr.ny > 1) && gr.step % c) || gr.ww % c || gr.wh % c ||
          (gr.x0 - s.x) % c || (gr.y0 - s.y) % c || gr.x0 < s.x || gr.y0 < s.y ||
          x1 > s.x + s.cols * c || y1 > s.y + s.rows * c)
        return internal_error("pass: grid " + std::to_string(k) + " does not fit its integral");
      if (layout.parts > 1 && g.model >= 0 && (gr.ww < 2 * c || gr.wh < 2 * c))
        return internal_error("pass: grid " + std::to_string(k) + " too small for halves");
    }
  }
  return Status::Ok();
}

void add_ridge(const Layout& layout, std::vector<double>* cov, double sign) {
  const int n = layout.n;
  for (size_t base = 0; base + static_cast<size_t>(n) * n <= cov->size(); base += n * n)
    for (int i = 0; i < n; ++i)
      (*cov)[base + i * n + i] += sign * layout.ridge[i];
}

namespace {

template <int N> bool logdet_of(const double* packed_a, double* out) {
  double tmp[kMaxPacked];
  std::copy(packed_a, packed_a + kMaxPacked, tmp);
  return ldl_logdet<N>(tmp, out);
}

bool logdet_n(int n, const double* a, double* out) {
  switch (n) {
  case 2:
    return logdet_of<2>(a, out);
  case 3:
    return logdet_of<3>(a, out);
  case 4:
    return logdet_of<4>(a, out);
  case 5:
    return logdet_of<5>(a, out);
  case 6:
    return logdet_of<6>(a, out);
  case 7:
    return logdet_of<7>(a, out);
  case 8:
    return logdet_of<8>(a, out);
  case 9:
    return logdet_of<9>(a, out);
  default:
    return false;
  }
}

// K = L^-1 for packed A = L L^T (Cholesky, then forward substitution column by column). False when
// A is not positive definite.
bool inverse_cholesky(int n, const double* pa, double* K) {
  double L[kMaxFeatures][kMaxFeatures] = {};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      double s = pa[packed(i, j)];
      for (int k = 0; k < j; ++k)
        s -= L[i][k] * L[j][k];
      if (i == j) {
        if (!(s > 0.0))
          return false;
        L[i][i] = std::sqrt(s);
      } else {
        L[i][j] = s / L[j][j];
      }
    }
  }
  for (int j = 0; j < n; ++j) {
    for (int i = j; i < n; ++i) {
      double s = i == j ? 1.0 : 0.0;
      for (int k = j; k < i; ++k)
        s -= L[i][k] * K[packed(k, j)];
      K[packed(i, j)] = s / L[i][i];
    }
  }
  return true;
}

} // namespace

bool prepare_model(const Layout& layout, const std::vector<double>& cov, ModelData* out) {
  const int n = layout.n;
  if (static_cast<int>(cov.size()) != layout.parts * n * n)
    return false;
  std::vector<double> a = cov;
  add_ridge(layout, &a);
  *out = ModelData();
  for (int p = 0; p < layout.parts; ++p) {
    const double* m = &a[static_cast<size_t>(p) * n * n];
    double* pa = out->a[p];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j)
        pa[packed(i, j)] = 0.5 * (m[i * n + j] + m[j * n + i]);
    // ln|A| with the kernels' own LDL^T and logarithm.
    if (!logdet_n(n, pa, &out->logdet[p]))
      return false;
    inverse_cholesky(n, pa, out->k[p]);
  }
  // The context reference: part 0's non-spatial block, identity rows for the spatial features.
  const double* m0 = a.data();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j)
      out->ctx_a[packed(i, j)] =
          j < layout.ns ? (i == j ? 1.0 : 0.0) : 0.5 * (m0[i * n + j] + m0[j * n + i]);
  return logdet_n(n, out->ctx_a, &out->ctx_logdet) && inverse_cholesky(n, out->ctx_a, out->ctx_k);
}

namespace {

// The engine of a resolved backend; null with *status set when there is none.
std::unique_ptr<Engine> make_engine(Backend backend, const char* who, Status* status) {
  std::unique_ptr<Engine> e;
  if (backend == Backend::kCpu) {
    e = make_cpu_engine();
  } else if (backend == Backend::kCuda) {
#ifdef CVIS_HAVE_CUDA
    e = make_cuda_engine();
#else
    if (status)
      *status = Status(StatusCode::kNoDevice, "this build has no CUDA backend");
    return nullptr;
#endif
  } else {
    if (status)
      *status = invalid_argument(std::string(who) + ": resolve the backend first");
    return nullptr;
  }
  if (status)
    *status = Status::Ok();
  return e;
}

} // namespace

std::unique_ptr<Tracker> make_tracker(Backend backend, Status* status) {
  std::unique_ptr<Engine> e = make_engine(backend, "make_tracker", status);
  return e ? std::make_unique<Tracker>(std::move(e)) : nullptr;
}

std::unique_ptr<Detector> make_detector(Backend backend, Status* status) {
  std::unique_ptr<Engine> e = make_engine(backend, "make_detector", status);
  return e ? std::make_unique<Detector>(std::move(e)) : nullptr;
}

} // namespace cvis::rcdtrack
