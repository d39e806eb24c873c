// Models: region covariances taken from images, saved to and loaded from files, and the symmetric
// matrix functions of the log-Euclidean model update.
#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

#include "rcdtrack_engine.hpp"

namespace cvis::rcdtrack {

namespace {

constexpr const char* kMagic = "cvis-rcdtrack-model";

Status read_png(const std::string& path, std::vector<uint8_t>* rgba, int* w, int* h) {
  png_image img;
  std::memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, path.c_str()))
    return io_error("'" + path + "': " + img.message);
  img.format = PNG_FORMAT_RGBA;
  rgba->resize(PNG_IMAGE_SIZE(img));
  if (!png_image_finish_read(&img, nullptr, rgba->data(), 0, nullptr)) {
    const std::string msg = img.message;
    png_image_free(&img);
    return io_error("'" + path + "': " + msg);
  }
  *w = static_cast<int>(img.width);
  *h = static_cast<int>(img.height);
  return Status::Ok();
}

// Binary PPM (P6, maxval 255) into RGBA.
Status read_ppm(std::istream& in, const std::string& path, std::vector<uint8_t>* rgba, int* w,
                int* h) {
  std::string magic;
  int maxval = 0;
  in >> magic;
  auto skip = [&] {
    for (;;) {
      in >> std::ws;
      if (in.peek() != '#')
        return;
      std::string line;
      std::getline(in, line);
    }
  };
  skip();
  in >> *w;
  skip();
  in >> *h;
  skip();
  in >> maxval;
  in.get();
  if (!in || magic != "P6" || *w < 1 || *h < 1 || *w > kMaxDimension || *h > kMaxDimension ||
      maxval != 255)
    return io_error("'" + path + "': not a binary 8-bit PPM");
  std::vector<uint8_t> rgb(static_cast<size_t>(*w) * *h * 3);
  in.read(reinterpret_cast<char*>(rgb.data()), static_cast<std::streamsize>(rgb.size()));
  if (!in)
    return io_error("'" + path + "': truncated PPM");
  rgba->resize(static_cast<size_t>(*w) * *h * 4);
  for (size_t i = 0; i < rgb.size() / 3; ++i) {
    std::copy(rgb.data() + i * 3, rgb.data() + i * 3 + 3, rgba->data() + i * 4);
    (*rgba)[i * 4 + 3] = 255;
  }
  return Status::Ok();
}

Status parse_model(std::istream& in, const std::string& path, Model* m) {
  std::string line, key;
  auto bad = [&](const std::string& why) {
    return io_error("'" + path + "': not a valid model file (" + why + ")");
  };
  std::getline(in, line);
  if (line.rfind(kMagic, 0) != 0 || line.substr(std::strlen(kMagic)) != " 1")
    return bad("unknown version");
  std::string features;
  in >> key >> features;
  std::string err;
  if (!in || key != "features" || !parse_features(features, &m->features, &err))
    return bad("features: " + err);
  in >> key >> m->parts;
  if (!in || key != "parts" || (m->parts != 1 && m->parts != 5))
    return bad("parts");
  in >> key >> m->width >> m->height;
  if (!in || key != "size" || m->width < 4 || m->height < 4 || m->width > kMaxDimension ||
      m->height > kMaxDimension)
    return bad("size");
  const int n = m->features.count;
  m->cov.assign(static_cast<size_t>(m->parts) * n * n, 0.0);
  for (double& v : m->cov) {
    in >> v;
    if (!in || !std::isfinite(v))
      return bad("covariance");
  }
  for (int p = 0; p < m->parts; ++p)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < i; ++j)
        if (m->cov[(p * n + i) * n + j] != m->cov[(p * n + j) * n + i])
          return bad("covariance not symmetric");
  return Status::Ok();
}

} // namespace

Status model_from_image(const ImageView& image, const FeatureSet& features, int parts, Model* m) {
  CVIS_RETURN_IF_ERROR(validate_features(features));
  CVIS_RETURN_IF_ERROR(validate_view(image, "template image"));
  if (image.space != MemorySpace::kHost)
    return invalid_argument("template image: a host view is needed");
  if (image.width < 4 || image.height < 4 || image.width > kMaxDimension ||
      image.height > kMaxDimension)
    return invalid_argument("template image: size must be 4..16384 on each side");
  if (parts != 1 && parts != 5)
    return invalid_argument("parts must be 1 or 5");
  const Layout layout = make_layout(features, 1.0, parts);
  std::unique_ptr<Engine> e = make_cpu_engine();
  CVIS_RETURN_IF_ERROR(
      e->configure(layout, Distance::kJbld, image.width, image.height, image.format));
  CVIS_RETURN_IF_ERROR(e->set_frame(image, nullptr));
  Pass pass;
  pass.integrals.push_back({0, 0, image.width, image.height, 1});
  GridSpec g;
  g.ww = image.width;
  g.wh = image.height;
  pass.grids.push_back(g);
  GroupSpec gs;
  gs.grid_count = 1;
  pass.groups.push_back(gs);
  std::vector<GroupResult> r;
  CVIS_RETURN_IF_ERROR(e->run(pass, &r, nullptr));
  m->features = features;
  m->parts = parts;
  m->width = image.width;
  m->height = image.height;
  m->cov = r[0].cov;
  return Status::Ok();
}

Status save_model(const std::string& path, const Model& m) {
  CVIS_RETURN_IF_ERROR(validate_features(m.features));
  const int n = m.features.count;
  if ((m.parts != 1 && m.parts != 5) || static_cast<int>(m.cov.size()) != m.parts * n * n)
    return invalid_argument("model: covariance size does not match the features and parts");
  std::ofstream out(path);
  if (!out)
    return io_error("cannot write '" + path + "'");
  out.imbue(std::locale::classic());
  out << kMagic << " 1\nfeatures " << feature_names(m.features) << "\nparts " << m.parts
      << "\nsize " << m.width << " " << m.height << "\n";
  char buf[64];
  for (int r = 0; r < m.parts * n; ++r) {
    for (int j = 0; j < n; ++j) {
      std::snprintf(buf, sizeof buf, "%s%.17g", j ? " " : "", m.cov[r * n + j]);
      out << buf;
    }
    out << "\n";
  }
  out.flush();
  if (!out)
    return io_error("error writing '" + path + "'");
  return Status::Ok();
}

Status load_model(const std::string& path, const FeatureSet& features, int parts, Model* m) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return io_error("cannot open '" + path + "': " + std::strerror(errno));
  in.imbue(std::locale::classic());
  char head[8] = {};
  in.read(head, sizeof head);
  in.clear();
  in.seekg(0);
  if (std::strncmp(head, kMagic, 8) == 0)
    return parse_model(in, path, m);
  std::vector<uint8_t> rgba;
  int w = 0, h = 0;
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (std::memcmp(head, kPng, 8) == 0) {
    CVIS_RETURN_IF_ERROR(read_png(path, &rgba, &w, &h));
  } else if (head[0] == 'P' && head[1] == '6') {
    CVIS_RETURN_IF_ERROR(read_ppm(in, path, &rgba, &w, &h));
  } else {
    return io_error("'" + path + "' is not a model file, a PNG or a binary PPM image");
  }
  ImageView v;
  v.format = PixelFormat::kRGBA;
  v.width = w;
  v.height = h;
  v.data[0] = rgba.data();
  v.pitch[0] = static_cast<size_t>(w) * 4;
  return model_from_image(v, features, parts, m);
}

void sym_eigen(int n, const std::vector<double>& a0, std::vector<double>* values,
               std::vector<double>* vectors) {
  std::vector<double> a = a0, v(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    v[i * n + i] = 1.0;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0.0, diag = 0.0;
    for (int p = 0; p < n; ++p) {
      diag += a[p * n + p] * a[p * n + p];
      for (int q = p + 1; q < n; ++q)
        off += a[p * n + q] * a[p * n + q];
    }
    if (!(off > 1e-32 * diag))
      break;
    for (int p = 0; p < n - 1; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0.0)
          continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; ++k) {
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < n; ++k) {
          const double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  values->resize(n);
  for (int i = 0; i < n; ++i)
    (*values)[i] = a[i * n + i];
  *vectors = v;
}

namespace {

std::vector<double> sym_apply(int n, const std::vector<double>& a, double (*fn)(double)) {
  std::vector<double> w, v;
  sym_eigen(n, a, &w, &v);
  std::vector<double> r(static_cast<size_t>(n) * n, 0.0);
  for (int k = 0; k < n; ++k) {
    const double f = fn(w[k]);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        r[i * n + j] += v[i * n + k] * f * v[j * n + k];
  }
  for (int i = 0; i < n; ++i) // exactly symmetric
    for (int j = 0; j < i; ++j)
      r[i * n + j] = r[j * n + i] = 0.5 * (r[i * n + j] + r[j * n + i]);
  return r;
}

double safe_log(double x) {
  return std::log(std::max(x, 1e-300));
}
double plain_exp(double x) {
  return std::exp(x);
}

} // namespace

std::vector<double> sym_log(int n, const std::vector<double>& a) {
  return sym_apply(n, a, safe_log);
}
std::vector<double> sym_exp(int n, const std::vector<double>& l) {
  return sym_apply(n, l, plain_exp);
}

} // namespace cvis::rcdtrack
