// cpu suite: the definitions of cuda/rcdtrack against independent computations. Exact integer
// sums (integral images of every plane at every cell size) against sums taken pixel by pixel;
// covariances against a float64 two-pass brute force (1e-9 relative); 128-bit numerators against
// __int128; logarithm, log-determinants, JBLD (Eq. 7 vs the cached form Eq. 10) and Foerstner
// against long-double and eigenvalue computations; parsing; model files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

#include "rcdtrack_engine.hpp"
#include "rcdtrack_plan.hpp"
#include "rcdtrack_scene.hpp"

namespace cvis::rcdtrack {
namespace {

using test::HostImage;

// Float64 two-pass covariance of box b under layout L (spatial rows in window-normalised
// coordinates), from the pixels.
std::vector<double> brute_covariance(const ImageView& v, const Layout& L, const Box& b) {
  const PixelSource src = make_pixel_source(v);
  const int n = L.n;
  std::vector<std::vector<double>> z;
  int f[kMaxFeatures];
  for (int y = b.y; y < b.y + b.h; ++y)
    for (int x = b.x; x < b.x + b.w; ++x) {
      pixel_features(src, L, x, y, f);
      std::vector<double> row(n);
      for (int i = 0; i < n; ++i) {
        if (i < L.ns)
          row[i] = L.coord[i] == 0 ? static_cast<double>(x - b.x) / b.w
                                   : static_cast<double>(y - b.y) / b.h;
        else
          row[i] = f[i - L.ns];
      }
      z.push_back(row);
    }
  std::vector<double> mean(n, 0.0), c(static_cast<size_t>(n) * n, 0.0);
  for (const auto& r : z)
    for (int i = 0; i < n; ++i)
      mean[i] += r[i];
  for (double& m : mean)
    m /= static_cast<double>(z.size());
  for (const auto& r : z)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        c[i * n + j] += (r[i] - mean[i]) * (r[j] - mean[j]);
  for (double& x : c)
    x /= static_cast<double>(z.size() - 1);
  return c;
}

// Runs one describe-style pass of the given windows (no model) on the CPU engine.
std::vector<GroupResult> describe(const ImageView& v, const Layout& L, const IntegralSpec& is,
                                  const std::vector<Box>& boxes) {
  std::unique_ptr<Engine> e = make_cpu_engine();
  EXPECT_TRUE(e->configure(L, Distance::kJbld, v.width, v.height, v.format).ok());
  EXPECT_TRUE(e->set_frame(v, nullptr).ok());
  Pass pass;
  pass.integrals.push_back(is);
  for (const Box& b : boxes) {
    GridSpec g;
    g.x0 = b.x;
    g.y0 = b.y;
    g.ww = b.w;
    g.wh = b.h;
    GroupSpec gs;
    gs.first_grid = static_cast<int>(pass.grids.size());
    gs.grid_count = 1;
    pass.grids.push_back(g);
    pass.groups.push_back(gs);
  }
  std::vector<GroupResult> out;
  const Status st = e->run(pass, &out, nullptr);
  EXPECT_TRUE(st.ok()) << st.to_string();
  return out;
}

struct ExactCase {
  PixelFormat format;
  int w, h;
  size_t pad;
  const char* features;
};

class Exactness : public ::testing::TestWithParam<ExactCase> {};

// Integral images at cell sizes 1, 2, 4, 8 over a region: every window's plane sums equal the
// pixel-by-pixel sums exactly, and its covariance the float64 brute force to 1e-9 relative.
TEST_P(Exactness, WindowSumsAndCovariances) {
  const ExactCase c = GetParam();
  FeatureSet fs;
  std::string err;
  ASSERT_TRUE(parse_features(c.features, &fs, &err)) << err;
  const Layout L = make_layout(fs, 1.0, 1);
  HostImage img = test::make_random(c.format, c.w, c.h, c.pad, 1234u + c.w);
  std::mt19937 rng(99u + c.h);
  int checked = 0;
  for (int cell : {1, 2, 4, 8}) {
    // A region not touching the origin, whole cells inside the frame.
    const int rx = cell == 1 ? 3 : 1, ry = 2;
    IntegralSpec is{rx, ry, (c.w - rx) / cell, (c.h - ry) / cell, cell};
    if (is.cols < 2 || is.rows < 2)
      continue;
    std::vector<Box> boxes;
    for (int k = 0; k < 12; ++k) {
      // Windows of at least 2 x 2 pixels (the engine's minimum).
      const int m = cell == 1 ? 2 : 1;
      const int cw = m + static_cast<int>(rng() % (is.cols - m + 1));
      const int ch = m + static_cast<int>(rng() % (is.rows - m + 1));
      const int cx = static_cast<int>(rng() % (is.cols - cw + 1)),
                cy = static_cast<int>(rng() % (is.rows - ch + 1));
      Box b{rx + cx * cell, ry + cy * cell, cw * cell, ch * cell};
      boxes.push_back(b);
    }
    boxes.push_back({rx, ry, is.cols * cell, is.rows * cell}); // the whole region
    const std::vector<GroupResult> r = describe(img.view(), L, is, boxes);
    ASSERT_EQ(r.size(), boxes.size());
    for (size_t k = 0; k < boxes.size(); ++k) {
      const Box& b = boxes[k];
      ASSERT_EQ(r[k].top.size(), 1u);
      EXPECT_EQ(r[k].top[0].box, b);
      EXPECT_EQ(r[k].sums, brute_force_sums(img.view(), L, b, rx, ry))
          << "cell " << cell << " box " << b.x << "," << b.y << "," << b.w << "," << b.h;
      const std::vector<double> ref = brute_covariance(img.view(), L, b);
      for (int i = 0; i < L.n; ++i)
        for (int j = 0; j < L.n; ++j) {
          // Relative to the entry's natural scale sqrt(C_ii C_jj) (covariances can cross zero).
          const double scale = std::sqrt(ref[i * L.n + i] * ref[j * L.n + j]);
          EXPECT_LE(std::fabs(r[k].cov[i * L.n + j] - ref[i * L.n + j]), 1e-9 * scale + 1e-300)
              << "entry " << i << "," << j << " cell " << cell;
        }
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, Exactness,
    ::testing::Values(ExactCase{PixelFormat::kRGBA, 61, 43, 13, "thesis"},
                      ExactCase{PixelFormat::kBGR, 37, 29, 5, "tuzel"},
                      ExactCase{PixelFormat::kNV12, 45, 31, 7, "x,y,r,g,b,ix,iy"},
                      ExactCase{PixelFormat::kI420, 33, 35, 3, "y,i,|ixx|,|iyy|"},
                      ExactCase{PixelFormat::kGRAY8, 40, 27, 0, "x,i,ix,iy"},
                      ExactCase{PixelFormat::kxRGB, 50, 19, 9, "x,y,r,g,b,i,ix,iy,|ix|"}));

// A flat window (zero variance) and a constant-plus-one-pixel window: covariances that a
// one-pass float formula gets wrong are exact here.
TEST(Exactness, DegenerateWindows) {
  HostImage img(PixelFormat::kRGBA, 24, 20);
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 24; ++x)
      img.set_rgb(x, y, 200, 201, 202);
  img.set_rgb(20, 15, 203, 201, 199);
  const Layout L = make_layout(thesis_features(), 1.0, 1);
  const IntegralSpec is{0, 0, 24, 20, 1};
  const std::vector<GroupResult> r = describe(img.view(), L, is, {{2, 2, 8, 8}, {0, 0, 24, 20}});
  ASSERT_EQ(r.size(), 2u);
  for (double v : r[0].cov)
    EXPECT_EQ(v, 0.0);
  const std::vector<double> ref = brute_covariance(img.view(), L, {0, 0, 24, 20});
  for (int i = 0; i < 25; ++i)
    EXPECT_NEAR(r[1].cov[i], ref[i], 1e-12 * (1 + std::fabs(ref[i])));
}

TEST(Int128, MatchesNativeArithmetic) {
  std::mt19937_64 rng(7);
  for (int k = 0; k < 20000; ++k) {
    const int shift_a = static_cast<int>(rng() % 63), shift_b = static_cast<int>(rng() % 63);
    const int64_t a = static_cast<int64_t>(rng()) >> shift_a,
                  b = static_cast<int64_t>(rng()) >> shift_b;
    const int64_t c = static_cast<int64_t>(rng()) >> 40, d = static_cast<int64_t>(rng()) >> 30;
    const I128 v = sub128(mul128(a, b), mul128(c, d));
    const __int128 ref = static_cast<__int128>(a) * b - static_cast<__int128>(c) * d;
    EXPECT_EQ(v.lo, static_cast<uint64_t>(ref));
    EXPECT_EQ(v.hi, static_cast<int64_t>(ref >> 64));
    const long double lref = static_cast<long double>(ref);
    const double dv = to_double(v);
    EXPECT_LE(std::fabs(static_cast<long double>(dv) - lref), std::fabs(lref) * 2.3e-16L);
  }
}

TEST(Logs, HdLogMatchesStdLog) {
  std::mt19937_64 rng(11);
  for (int k = 0; k < 100000; ++k) {
    const double x = std::ldexp(1.0 + static_cast<double>(rng() >> 11) / 9007199254740992.0,
                                static_cast<int>(rng() % 400) - 200);
    const double a = hd_log(x), b = std::log(x);
    EXPECT_LE(std::fabs(a - b), 4e-16 * std::fabs(b) + 1e-300) << x;
  }
  EXPECT_EQ(hd_log(1.0), 0.0);
}

// Symmetric positive definite n x n with a spread of eigenvalues.
std::vector<double> random_spd(int n, std::mt19937& rng, double spread) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> q(static_cast<size_t>(n) * n), a(static_cast<size_t>(n) * n, 0.0);
  for (double& v : q)
    v = g(rng);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k)
        a[i * n + j] += q[i * n + k] * q[j * n + k];
  for (int i = 0; i < n; ++i)
    a[i * n + i] += 0.1 + spread * (i + 1);
  return a;
}

long double det_ld(int n, std::vector<double> m) { // Gaussian elimination with partial pivoting
  std::vector<long double> a(m.begin(), m.end());
  long double det = 1;
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[p * n + c]))
        p = r;
    if (p != c) {
      for (int k = 0; k < n; ++k)
        std::swap(a[p * n + k], a[c * n + k]);
      det = -det;
    }
    det *= a[c * n + c];
    for (int r = c + 1; r < n; ++r) {
      const long double f = a[r * n + c] / a[c * n + c];
      for (int k = c; k < n; ++k)
        a[r * n + k] -= f * a[c * n + k];
    }
  }
  return det;
}

template <int N> void check_distances(std::mt19937& rng) {
  const auto A = random_spd(N, rng, 2.0), B = random_spd(N, rng, 5.0);
  double pa[kMaxPacked], pb[kMaxPacked];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j <= i; ++j) {
      pa[packed(i, j)] = A[i * N + j];
      pb[packed(i, j)] = B[i * N + j];
    }
  double ld = 0, tmp[kMaxPacked];
  std::copy(pa, pa + kMaxPacked, tmp);
  ASSERT_TRUE(ldl_logdet<N>(tmp, &ld));
  EXPECT_NEAR(ld, std::log(static_cast<double>(det_ld(N, A))), 1e-12 * (1 + std::fabs(ld)));
  // Eq. 7 with determinants against the cached form Eq. 10.
  std::vector<double> M(static_cast<size_t>(N) * N);
  for (int k = 0; k < N * N; ++k)
    M[k] = 0.5 * (A[k] + B[k]);
  std::vector<double> AB(static_cast<size_t>(N) * N, 0.0);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        AB[i * N + j] += A[i * N + k] * B[k * N + j];
  const double eq7 = static_cast<double>(std::log(det_ld(N, M)) - 0.5L * std::log(det_ld(N, AB)));
  std::copy(pb, pb + kMaxPacked, tmp);
  const double eq10 = jbld<N>(pa, ld, tmp);
  EXPECT_NEAR(eq10, eq7, 1e-9 * (1 + std::fabs(eq7)));
  // Foerstner against the eigenvalues of A^-1/2 B A^-1/2 (a different factorisation).
  std::vector<double> w, v;
  sym_eigen(N, A, &w, &v);
  std::vector<double> S(static_cast<size_t>(N) * N, 0.0); // A^-1/2
  for (int k = 0; k < N; ++k)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        S[i * N + j] += v[i * N + k] * v[j * N + k] / std::sqrt(w[k]);
  std::vector<double> T(static_cast<size_t>(N) * N, 0.0), U(static_cast<size_t>(N) * N, 0.0);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        T[i * N + j] += S[i * N + k] * B[k * N + j];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < N; ++k)
        U[i * N + j] += T[i * N + k] * S[k * N + j];
  std::vector<double> lam, vv;
  sym_eigen(N, U, &lam, &vv);
  double ref = 0;
  for (double l : lam)
    ref += std::log(l) * std::log(l);
  ref = std::sqrt(ref);
  const Layout L = [] {
    FeatureSet f;
    const Feature all[] = {Feature::kR,     Feature::kG,     Feature::kB,
                           Feature::kI,     Feature::kIx,    Feature::kIy,
                           Feature::kAbsIx, Feature::kAbsIy, Feature::kAbsIxx};
    for (int i = 0; i < N; ++i)
      f.list[f.count++] = all[i];
    return make_layout(f, 1e-300, 1);
  }();
  ModelData md;
  std::vector<double> Araw = A;
  for (int i = 0; i < N; ++i)
    Araw[i * N + i] -= L.ridge[i];
  ASSERT_TRUE(prepare_model(L, Araw, &md));
  EXPECT_NEAR(foerstner<N>(md.k[0], pb), ref, 1e-9 * (1 + ref));
  // Identity of indiscernibles and symmetry.
  std::copy(pa, pa + kMaxPacked, tmp);
  EXPECT_NEAR(jbld<N>(pa, ld, tmp), 0.0, 1e-12);
  EXPECT_NEAR(foerstner<N>(md.k[0], pa), 0.0, 1e-6);
}

TEST(Distances, AgainstDeterminantsAndEigenvalues) {
  std::mt19937 rng(5);
  for (int k = 0; k < 20; ++k) {
    check_distances<2>(rng);
    check_distances<5>(rng);
    check_distances<7>(rng);
    check_distances<9>(rng);
  }
}

// JBLD is invariant under a joint congruence A -> D A D^T (features in other units).
TEST(Distances, JbldAffineInvariant) {
  std::mt19937 rng(8);
  const auto A = random_spd(5, rng, 1.0), B = random_spd(5, rng, 3.0);
  const double d[5] = {3.0, 0.5, 7.0, 1.25, 0.1};
  auto pack = [](const std::vector<double>& m, const double* s, double* out) {
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j <= i; ++j)
        out[packed(i, j)] = m[i * 5 + j] * s[i] * s[j];
  };
  const double one[5] = {1, 1, 1, 1, 1};
  double pa[15], pb[15], qa[15], qb[15], t[15];
  pack(A, one, pa);
  pack(B, one, pb);
  pack(A, d, qa);
  pack(B, d, qb);
  double la, lq;
  std::copy(pa, pa + 15, t);
  ldl_logdet<5>(t, &la);
  std::copy(qa, qa + 15, t);
  ldl_logdet<5>(t, &lq);
  EXPECT_NEAR(jbld<5>(pa, la, pb), jbld<5>(qa, lq, qb), 1e-12);
}

TEST(Matrix, LogExpRoundTrip) {
  std::mt19937 rng(3);
  for (int n : {2, 5, 9}) {
    const auto A = random_spd(n, rng, 4.0);
    const auto back = sym_exp(n, sym_log(n, A));
    for (int k = 0; k < n * n; ++k)
      EXPECT_NEAR(back[k], A[k], 1e-10 * (1 + std::fabs(A[k])));
  }
}

TEST(Parse, Features) {
  FeatureSet f;
  std::string err;
  ASSERT_TRUE(parse_features("thesis", &f, &err));
  EXPECT_EQ(f, thesis_features());
  EXPECT_EQ(feature_names(f), "thesis");
  ASSERT_TRUE(parse_features(" R, g,b , x ,ix", &f, &err)) << err;
  EXPECT_EQ(feature_names(f), "x,r,g,b,ix"); // spatial first
  ASSERT_TRUE(parse_features("tuzel", &f, &err));
  EXPECT_EQ(f.count, 7);
  EXPECT_FALSE(parse_features("r,g,q", &f, &err));
  EXPECT_NE(err.find("'q'"), std::string::npos);
  EXPECT_FALSE(parse_features("x,y", &f, &err));                         // no non-spatial feature
  EXPECT_FALSE(parse_features("r,r", &f, &err));                         // twice
  EXPECT_FALSE(parse_features("r", &f, &err));                           // one feature
  EXPECT_FALSE(parse_features("x,y,r,g,b,i,ix,iy,|ix|,|iy|", &f, &err)); // ten
}

TEST(Parse, Boxes) {
  std::vector<Box> b;
  std::string err;
  ASSERT_TRUE(parse_boxes("10,20,30,40", &b, &err)) << err;
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0], (Box{10, 20, 30, 40}));
  ASSERT_TRUE(parse_boxes(" 1, 2, 3, 4 ; -5,6,7,8;", &b, &err)) << err;
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1], (Box{-5, 6, 7, 8}));
  for (const char* bad : {"", "1,2,3", "1,2,3,4,5", "a,b,c,d", "1,2,0,4", "1,2,3,4;;5,6,7,8",
                          "1 2 3 4", "1,2,3,-4", "1.5,2,3,4"}) {
    EXPECT_FALSE(parse_boxes(bad, &b, &err)) << bad;
    EXPECT_FALSE(err.empty());
  }
}

TEST(Params, Validation) {
  Params p;
  EXPECT_TRUE(validate(p).ok());
  p.scales = 0;
  EXPECT_FALSE(validate(p).ok());
  p = Params();
  p.scale_min = 3.0;
  EXPECT_FALSE(validate(p).ok());
  p = Params();
  p.top_k = 9;
  EXPECT_FALSE(validate(p).ok());
  p = Params();
  p.update_rate = 1.5;
  EXPECT_FALSE(validate(p).ok());
  p = Params();
  p.scale_prediction = -0.1;
  EXPECT_FALSE(validate(p).ok());
  p.scale_prediction = 1.1;
  EXPECT_FALSE(validate(p).ok());
  p.scale_prediction = 1.0;
  EXPECT_TRUE(validate(p).ok());
  p = Params();
  p.scale_gain = 0.0;
  EXPECT_FALSE(validate(p).ok());
  p.scale_gain = 1.1;
  EXPECT_FALSE(validate(p).ok());
  p.scale_gain = 1.0;
  EXPECT_TRUE(validate(p).ok());
  p = Params();
  p.model_anchor = -0.1;
  EXPECT_FALSE(validate(p).ok());
  p.model_anchor = 1.5;
  EXPECT_FALSE(validate(p).ok());
  p.model_anchor = 1.0;
  EXPECT_TRUE(validate(p).ok());
}

std::string temp_path(const char* name) {
  return ::testing::TempDir() + "/rcdtrack_" + std::to_string(getpid()) + "_" + name;
}

TEST(Model, SaveLoadRoundTripAndImages) {
  HostImage tex = test::make_texture(31, 23, 4, 1);
  Model m;
  ASSERT_TRUE(model_from_image(tex.view(), thesis_features(), 1, &m).ok());
  EXPECT_EQ(m.width, 31);
  EXPECT_EQ(m.cov.size(), 25u);
  const std::string path = temp_path("model.txt");
  ASSERT_TRUE(save_model(path, m).ok());
  Model back;
  ASSERT_TRUE(load_model(path, tuzel_features(), 5, &back).ok()); // the file's settings win
  EXPECT_EQ(back.features, m.features);
  EXPECT_EQ(back.width, 31);
  EXPECT_EQ(back.height, 23);
  EXPECT_EQ(back.cov, m.cov); // %.17g round-trips doubles
  // A binary PPM of the same pixels gives the same model.
  const std::string ppm = temp_path("t.ppm");
  {
    std::ofstream o(ppm, std::ios::binary);
    o << "P6\n# comment\n31 23\n255\n";
    for (int y = 0; y < 23; ++y)
      for (int x = 0; x < 31; ++x)
        o.write(reinterpret_cast<const char*>(tex.view().data[0] + y * tex.pitch(0) + x * 4), 3);
  }
  Model fromppm;
  ASSERT_TRUE(load_model(ppm, thesis_features(), 1, &fromppm).ok());
  EXPECT_EQ(fromppm.cov, m.cov);
  // Unreadable and malformed files are I/O errors.
  Model x;
  EXPECT_EQ(load_model(temp_path("missing"), thesis_features(), 1, &x).code(),
            StatusCode::kIoError);
  const std::string junk = temp_path("junk.txt");
  { std::ofstream(junk) << "hello\n"; }
  EXPECT_EQ(load_model(junk, thesis_features(), 1, &x).code(), StatusCode::kIoError);
  { std::ofstream(junk) << "cvis-rcdtrack-model 1\nfeatures r,g\nparts 1\nsize 4 4\n1 2\n3 1\n"; }
  EXPECT_EQ(load_model(junk, thesis_features(), 1, &x).code(), StatusCode::kIoError); // asymmetric
  std::remove(path.c_str());
  std::remove(ppm.c_str());
  std::remove(junk.c_str());
}

// The engine's top-k is the k best windows of the whole grid in (score, index) order, and the
// threshold list holds exactly the windows under it.
TEST(Engine, TopKAndThresholdAreExhaustive) {
  HostImage img = test::make_background(90, 70, 21);
  const Layout L = make_layout(thesis_features(), 1.0, 1);
  std::unique_ptr<Engine> e = make_cpu_engine();
  ASSERT_TRUE(e->configure(L, Distance::kJbld, 90, 70, PixelFormat::kRGBA).ok());
  ASSERT_TRUE(e->set_frame(img.view(), nullptr).ok());
  Model m;
  HostImage tex = test::make_texture(20, 16, 2, 0);
  ASSERT_TRUE(model_from_image(tex.view(), thesis_features(), 1, &m).ok());
  Pass pass;
  pass.models.resize(1);
  ASSERT_TRUE(prepare_model(L, m.cov, &pass.models[0]));
  pass.integrals.push_back({2, 2, 40, 32, 2});
  GridSpec g1{2, 2, 20, 12, 2, 20, 16, 1.0, 0.0}, g2{4, 4, 14, 8, 4, 24, 20, 1.2, std::log(1.2)};
  pass.grids = {g1, g2};
  GroupSpec gs;
  gs.model = 0;
  gs.grid_count = 2;
  gs.top_k = 5;
  gs.threshold = 1e300;
  gs.prior = {40, 30, 20, 16, 0.3, 1.0, 0.4};
  pass.groups.push_back(gs);
  std::vector<GroupResult> r;
  ASSERT_TRUE(e->run(pass, &r, nullptr).ok());
  ASSERT_EQ(r[0].below.size(), static_cast<size_t>(20 * 12 + 14 * 8));
  ASSERT_EQ(r[0].top.size(), 5u);
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(r[0].top[k].index, r[0].below[k].index);
    EXPECT_EQ(r[0].top[k].score, r[0].below[k].score);
  }
  for (size_t k = 1; k < r[0].below.size(); ++k)
    EXPECT_TRUE(hit_before(r[0].below[k - 1].score, r[0].below[k - 1].index, r[0].below[k].score,
                           r[0].below[k].index));
  int grid = -1;
  const Hit& b = r[0].top[0];
  EXPECT_EQ(window_box(pass, pass.groups[0], b.index, &grid), b.box);
  EXPECT_EQ(grid, b.grid);
}

// Aligned auto steps (targets a detector starts) are never coarser than the exact ones, and from 4
// pixels their integral's cell is at least 2 (4 from 8); a given step is kept.
TEST(Plan, AlignedStepsAreFinerAndOnCoarserCells) {
  EXPECT_EQ(coarse_step(0, 56, 100, true), 6); // 7 -> 6
  EXPECT_EQ(coarse_step(0, 88, 200, true), 8); // 11 -> 8
  EXPECT_EQ(coarse_step(0, 20, 20, true), 3);  // 3: kept
  EXPECT_EQ(coarse_step(5, 88, 200, true), 5); // a given step: kept
  for (int side = 4; side <= 400; side += 3) {
    const int exact = coarse_step(0, side, 2 * side), a = coarse_step(0, side, 2 * side, true);
    EXPECT_LE(a, exact) << side;
    EXPECT_GE(a, exact * 3 / 4) << side; // at most one multiple of 4 finer
    if (exact >= 4) {
      EXPECT_GE(cell_for_step(a), exact >= 8 ? 4 : 2) << side;
    }
  }
}

// Integrals merged over overlapping search areas give every group the same hits, scores and
// covariances, bit for bit (exact sums; context rings inside each group's own region or clipped
// by the frame in both), with fewer integrals; areas far apart keep their own.
TEST(Plan, MergedIntegralsGiveTheSameResults) {
  const int W = 200, H = 150;
  HostImage img = test::make_background(W, H, 5);
  HostImage tex = test::make_texture(24, 30, 3, 1);
  for (const FeatureSet& fs : {thesis_features(), tuzel_features()}) {
    const Layout L = make_layout(fs, 1.0, 5);
    std::unique_ptr<Engine> e = make_cpu_engine();
    ASSERT_TRUE(e->configure(L, Distance::kJbld, W, H, PixelFormat::kRGBA).ok());
    ASSERT_TRUE(e->set_frame(img.view(), nullptr).ok());
    Model m;
    ASSERT_TRUE(model_from_image(tex.view(), fs, 5, &m).ok());
    Pass pass;
    pass.models.resize(1);
    ASSERT_TRUE(prepare_model(L, m.cov, &pass.models[0]));
    Params p;
    const std::vector<double> factors = scale_factors(p);
    // Three targets close together (two share a step), one far away, one at the frame corner,
    // steps of cells 1, 2 and 4; a whole-frame search of cell 2.
    struct T {
      double cx, cy, w, h;
      int step;
      bool whole;
    } targets[] = {{60, 50, 24, 30, 4, false}, {70, 58, 22, 28, 4, false},
                   {66, 64, 26, 32, 2, false}, {170, 120, 16, 20, 3, false},
                   {12, 10, 20, 20, 4, false}, {100, 75, 20, 24, 2, true}};
    for (const T& t : targets) {
      GroupSpec g;
      g.model = 0;
      g.top_k = 2;
      g.prior = {t.cx, t.cy, t.w, t.h, 0.5, 2.0, 0.5};
      Area a;
      a.cx = t.cx;
      a.cy = t.cy;
      a.rx = t.w;
      a.ry = t.h;
      a.whole_frame = t.whole;
      ASSERT_TRUE(add_search(&pass, a, t.w, t.h, factors, t.step, 5, W, H, g));
    }
    Pass merged = pass;
    merge_integrals(&merged);
    EXPECT_LT(merged.integrals.size(), pass.integrals.size());
    EXPECT_GE(merged.integrals.size(), 3u); // cells 1, 2 and 4 at least
    ASSERT_TRUE(validate_pass(merged, L, W, H).ok());
    const PassStats before = pass_stats(pass), after = pass_stats(merged);
    EXPECT_LT(after.integral_pixels, before.integral_pixels);
    EXPECT_EQ(after.windows, before.windows);
    std::vector<GroupResult> a, b;
    ASSERT_TRUE(e->run(pass, &a, nullptr).ok());
    ASSERT_TRUE(e->run(merged, &b, nullptr).ok());
    ASSERT_EQ(a.size(), b.size());
    for (size_t g = 0; g < a.size(); ++g) {
      ASSERT_EQ(a[g].top.size(), b[g].top.size());
      for (size_t k = 0; k < a[g].top.size(); ++k) {
        EXPECT_EQ(a[g].top[k].index, b[g].top[k].index) << "group " << g;
        EXPECT_EQ(a[g].top[k].box, b[g].top[k].box) << "group " << g;
        EXPECT_EQ(a[g].top[k].score, b[g].top[k].score) << "group " << g;
        EXPECT_EQ(a[g].top[k].distance, b[g].top[k].distance) << "group " << g;
      }
      EXPECT_EQ(a[g].cov, b[g].cov) << "group " << g;
      if (L.ns == 0) { // spatial plane sums are relative to the region's origin
        EXPECT_EQ(a[g].sums, b[g].sums) << "group " << g;
      }
    }
  }
}

} // namespace
} // namespace cvis::rcdtrack
