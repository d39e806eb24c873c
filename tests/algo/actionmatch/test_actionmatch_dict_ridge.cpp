// CPU tests of the dictionary file's versions: files of the older versions (1 and 2), written here
// byte by byte from FORMAT.md, still load as nearest-prototype dictionaries; versions 3 (the ridge
// classifier over the distances to every model) and 4 (over the class means) round-trip, reject
// every truncation and every corrupt byte of their section, and validate their fields.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "actionlearn.hpp"
#include "actionmatch_test_util.hpp"

namespace cvis::actionmatch {
namespace {

using namespace cvis::actionlearn;
using namespace cvis::stip;

using test::Rng;

// zlib's CRC-32, as FORMAT.md names it.
uint32_t crc32(const std::vector<uint8_t>& b) {
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t x : b) {
    c ^= x;
    for (int k = 0; k < 8; ++k)
      c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

// A writer of versions 1 and 2 as FORMAT.md describes them (what builds before version 3 wrote),
// independent of the library's writer.
struct OldWriter {
  std::vector<uint8_t> b;
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void f32(float v) {
    uint32_t x;
    std::memcpy(&x, &v, 4);
    u32(x);
  }
  void f64(double v) {
    uint64_t x;
    std::memcpy(&x, &v, 8);
    u64(x);
  }
  std::vector<uint8_t> file(const Dictionary& d, int version) {
    b.clear();
    for (char c : std::string("CVISACTD"))
      b.push_back(static_cast<uint8_t>(c));
    u32(version);
    u32(version == 1 ? 80 : 96);
    u64(0);
    u32(0);
    u32(d.dim);
    u32(static_cast<uint32_t>(d.models.size()));
    u32(d.params.dummies ? 1 : 0);
    u32(static_cast<uint32_t>(d.params.T));
    u32(static_cast<uint32_t>(d.params.causality));
    f64(d.params.lambda1);
    f64(d.params.lambda2);
    f64(d.params.lambda3);
    f64(d.params.dummy_cost);
    if (version == 2) {
      u32(static_cast<uint32_t>(d.flow));
      u32(0);
      f64(d.speed_split);
    }
    for (const Model& m : d.models) {
      u32(static_cast<uint32_t>(m.label.size()));
      b.insert(b.end(), m.label.begin(), m.label.end());
      u32(static_cast<uint32_t>(m.source.size()));
      b.insert(b.end(), m.source.begin(), m.source.end());
      u32(static_cast<uint32_t>(m.graph.size()));
      for (int i = 0; i < m.graph.size(); ++i) {
        u32(static_cast<uint32_t>(m.graph.frame[i]));
        f32(m.graph.x[i]);
        f32(m.graph.y[i]);
      }
      for (float v : m.graph.desc)
        f32(v);
    }
    const uint64_t size = b.size();
    for (int i = 0; i < 8; ++i)
      b[16 + i] = static_cast<uint8_t>(size >> (8 * i));
    const uint32_t crc = crc32(b); // the checksum bytes are still zero here
    for (int i = 0; i < 4; ++i)
      b[24 + i] = static_cast<uint8_t>(crc >> (8 * i));
    return b;
  }
};

Dictionary models_only(Rng& rng, int models, int dim) {
  Dictionary d;
  d.dim = dim;
  d.params.T = 9;
  d.params.dummy_cost = 0.6;
  const char* labels[] = {"walking", "boxing", "handwaving"};
  for (int k = 0; k < models; ++k) {
    Model m = test::random_model(rng, {3 + k, dim, 2}, labels[k % 3]);
    m.source = "person0" + std::to_string(k) + " frames 3-40";
    d.models.push_back(std::move(m));
  }
  return d;
}

// A ridge dictionary over `models` models of three classes, with values of every sign.
Dictionary ridge_dictionary(Rng& rng, int models, int dim) {
  Dictionary d = models_only(rng, models, dim);
  d.classes = {"boxing", "handwaving", "walking"};
  RidgeClassifier& r = d.ridge;
  r.classes = 3;
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int m = 0; m < models; ++m) {
    r.cands.push_back(m);
    r.fill.push_back(1.0 + std::fabs(u(rng)));
    r.mean.push_back(u(rng));
    r.inv_sd.push_back(m == 1 ? 0.0 : std::fabs(u(rng)) + 0.1);
    for (int q = 0; q < 3; ++q)
      r.weights.push_back(u(rng));
  }
  r.bias = {u(rng), u(rng), u(rng)};
  d.ridge_distance = Distance::kAppearance;
  d.ridge_alpha = 3;
  d.prototypes = {0, 2};
  return d;
}

// The same over the class means (version 4): one feature per class, each model's class its label's.
Dictionary class_mean_dictionary(Rng& rng, int models, int dim) {
  Dictionary d = ridge_dictionary(rng, models, dim);
  RidgeClassifier& r = d.ridge;
  r.features = RidgeFeatures::kClassMean;
  for (const Model& m : d.models)
    r.cand_class.push_back(m.label == "boxing" ? 0 : m.label == "handwaving" ? 1 : 2);
  r.mean.resize(3);
  r.inv_sd.resize(3);
  r.weights.resize(9);
  return d;
}

bool same_models(const Dictionary& a, const Dictionary& b) {
  if (a.dim != b.dim || a.models.size() != b.models.size() || a.flow != b.flow ||
      a.speed_split != b.speed_split || a.params.T != b.params.T ||
      a.params.dummy_cost != b.params.dummy_cost)
    return false;
  for (size_t i = 0; i < a.models.size(); ++i) {
    const Model &m = a.models[i], &n = b.models[i];
    if (m.label != n.label || m.source != n.source || m.graph.frame != n.graph.frame ||
        m.graph.x != n.graph.x || m.graph.y != n.graph.y || m.graph.desc != n.graph.desc)
      return false;
  }
  return true;
}

bool same_ridge(const Dictionary& a, const Dictionary& b) {
  const RidgeClassifier &r = a.ridge, &s = b.ridge;
  return a.classes == b.classes && a.ridge_distance == b.ridge_distance &&
         a.ridge_alpha == b.ridge_alpha && a.prototypes == b.prototypes && r.classes == s.classes &&
         r.features == s.features && r.cands == s.cands && r.cand_class == s.cand_class &&
         r.fill == s.fill && r.mean == s.mean && r.inv_sd == s.inv_sd && r.weights == s.weights &&
         r.bias == s.bias;
}

// Files of versions 1 and 2 load as before: the models, no classifier (the nearest model decides),
// and the library still writes such a dictionary as the same version-1 bytes.
// The ridge classifiers of `d` and `back` give the same class and scores (bit-exact doubles) for
// one distance row, a match missing (infinite distance) included.
void expect_same_scores(const Dictionary& d, const Dictionary& back) {
  std::vector<double> dist(d.models.size());
  for (size_t m = 0; m < dist.size(); ++m)
    dist[m] = m == 3 ? std::numeric_limits<double>::infinity() : 0.1 * static_cast<double>(m);
  std::vector<double> s1, s2;
  EXPECT_EQ(ridge_class(d.ridge, dist, &s1), ridge_class(back.ridge, dist, &s2));
  EXPECT_EQ(s1, s2);
}

// `d` changed by `change` fails validate() with a message naming `word`.
void expect_refused(const Dictionary& d, const char* what,
                    const std::function<void(Dictionary&)>& change, const char* word) {
  Dictionary x = d;
  change(x);
  const Status s = validate(x);
  EXPECT_FALSE(s.ok()) << what;
  EXPECT_NE(s.message().find(word), std::string::npos) << what << ": " << s.message();
}

TEST(ActionMatchDictionaryVersions, OldFilesLoadAsPrototypeDictionaries) {
  Rng rng(31);
  const Dictionary d1 = models_only(rng, 4, kPaperDescriptorDim);
  OldWriter w;
  const std::vector<uint8_t> v1 = w.file(d1, 1);
  Dictionary back;
  Status s = parse_dictionary(v1.data(), v1.size(), &back);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_TRUE(same_models(d1, back));
  EXPECT_FALSE(back.has_ridge());
  EXPECT_TRUE(back.classes.empty() && back.prototypes.empty());
  std::vector<uint8_t> ours;
  ASSERT_TRUE(serialize_dictionary(d1, &ours).ok());
  EXPECT_EQ(ours, v1);
  EXPECT_EQ(dictionary_version(d1), 1u);

  Dictionary d2 = models_only(rng, 3, kSpeedDescriptorDim);
  d2.flow = FlowHistogram::kSpeed;
  d2.speed_split = 2.5;
  const std::vector<uint8_t> v2 = w.file(d2, 2);
  s = parse_dictionary(v2.data(), v2.size(), &back);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_TRUE(same_models(d2, back));
  EXPECT_FALSE(back.has_ridge());
  ASSERT_TRUE(serialize_dictionary(d2, &ours).ok());
  EXPECT_EQ(ours, v2);
}

TEST(ActionMatchDictionaryVersions, Version3RoundTrip) {
  Rng rng(32);
  for (bool speed : {false, true}) {
    Dictionary d = ridge_dictionary(rng, 5, speed ? kSpeedDescriptorDim : kPaperDescriptorDim);
    if (speed) {
      d.flow = FlowHistogram::kSpeed;
      d.speed_split = 1.5;
      d.ridge_distance = Distance::kEnergy;
    }
    ASSERT_TRUE(validate(d).ok()) << validate(d).to_string();
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(serialize_dictionary(d, &bytes).ok());
    EXPECT_EQ(bytes[8], 3);
    EXPECT_EQ(bytes[12], 96);
    EXPECT_EQ(bytes[80], speed ? 1 : 0); // the flow histogram field of version 2
    Dictionary back;
    const Status s = parse_dictionary(bytes.data(), bytes.size(), &back);
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_TRUE(same_models(d, back));
    EXPECT_TRUE(back.has_ridge());
    EXPECT_TRUE(same_ridge(d, back));
    expect_same_scores(d, back); // the classifier from the file (bit-exact doubles)
  }
}

// Every prefix is a truncation; every flipped bit after the models is caught by a field check or
// the checksum.
TEST(ActionMatchDictionaryVersions, Version3CorruptionRejected) {
  Rng rng(33);
  const Dictionary d = ridge_dictionary(rng, 3, 4);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serialize_dictionary(d, &bytes).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    Dictionary x;
    const Status s = parse_dictionary(bytes.data(), n, &x);
    ASSERT_FALSE(s.ok()) << "accepted " << n << " of " << bytes.size() << " bytes";
    EXPECT_TRUE(s.message().find("truncated") != std::string::npos || s.message() == "empty file")
        << n << " bytes: " << s.message();
    EXPECT_TRUE(x.models.empty() && !x.has_ridge());
  }
  // The section starts after the last model's descriptors.
  std::vector<uint8_t> without;
  Dictionary plain = d;
  plain.ridge = RidgeClassifier();
  plain.classes.clear();
  plain.prototypes.clear();
  ASSERT_TRUE(serialize_dictionary(plain, &without).ok());
  const size_t section = without.size() - 80 + 96; // version 1 header -> version 3 header
  ASSERT_LT(section, bytes.size());
  for (size_t byte = section; byte < bytes.size(); ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = bytes;
      bad[byte] ^= static_cast<uint8_t>(1u << bit);
      Dictionary x;
      const Status s = parse_dictionary(bad.data(), bad.size(), &x);
      ASSERT_FALSE(s.ok()) << "byte " << byte << " bit " << bit << " accepted";
      EXPECT_EQ(s.code(), StatusCode::kIoError);
    }
  // A later version is refused, not guessed.
  std::vector<uint8_t> v5 = bytes;
  v5[8] = 5;
  Dictionary x;
  const Status s = parse_dictionary(v5.data(), v5.size(), &x);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unsupported dictionary version 5 (this build reads versions 1..4)"),
            std::string::npos)
      << s.message();
}

TEST(ActionMatchDictionaryVersions, RidgeFieldsValidated) {
  Rng rng(34);
  const Dictionary d = ridge_dictionary(rng, 4, 4);
  ASSERT_TRUE(validate(d).ok());
  auto refused = [&](const char* what, const std::function<void(Dictionary&)>& change,
                     const char* word) { expect_refused(d, what, change, word); };
  refused(
      "a model of no class", [](Dictionary& x) { x.models[1].label = "running"; }, "of no class");
  refused(
      "class named twice", [](Dictionary& x) { x.classes[2] = "boxing"; }, "named twice");
  refused(
      "names and classes differ", [](Dictionary& x) { x.classes.pop_back(); }, "class names");
  refused(
      "features not the models",
      [](Dictionary& x) { std::swap(x.ridge.cands[0], x.ridge.cands[1]); },
      "candidates are the models");
  refused(
      "weights short", [](Dictionary& x) { x.ridge.weights.pop_back(); }, "array sizes");
  refused(
      "weight not finite",
      [](Dictionary& x) { x.ridge.weights[3] = std::numeric_limits<double>::quiet_NaN(); },
      "not finite");
  refused(
      "negative inverse deviation", [](Dictionary& x) { x.ridge.inv_sd[0] = -1; }, "negative");
  refused(
      "alpha 0", [](Dictionary& x) { x.ridge_alpha = 0; }, "alpha");
  refused(
      "no prototypes", [](Dictionary& x) { x.prototypes.clear(); }, "no prototypes");
  refused(
      "prototypes unsorted",
      [](Dictionary& x) {
        x.prototypes = {2, 0};
      },
      "not increasing");
  refused(
      "prototype out of range",
      [](Dictionary& x) {
        x.prototypes = {0, 4};
      },
      "out of range");
  refused(
      "classifier fields without classifier",
      [](Dictionary& x) {
        x.ridge = RidgeClassifier();
        x.prototypes = {0};
      },
      "without a ridge classifier");
}

// Version 4: the features field after the classifier kind, the fills per model, then mean,
// inverse deviation and weights per class; every truncation and flipped bit of the file refused.
TEST(ActionMatchDictionaryVersions, Version4ClassMeans) {
  Rng rng(35);
  const Dictionary d = class_mean_dictionary(rng, 5, 4);
  ASSERT_TRUE(validate(d).ok()) << validate(d).to_string();
  EXPECT_EQ(dictionary_version(d), 4u);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serialize_dictionary(d, &bytes).ok());
  EXPECT_EQ(bytes[8], 4);
  Dictionary plain = d;
  plain.ridge = RidgeClassifier();
  plain.classes.clear();
  plain.prototypes.clear();
  std::vector<uint8_t> without;
  ASSERT_TRUE(serialize_dictionary(plain, &without).ok());
  const size_t section = without.size() - 80 + 96;
  EXPECT_EQ(bytes[section], 1);     // classifier: ridge
  EXPECT_EQ(bytes[section + 4], 1); // features: class means
  // kind, features, distance, alpha, classes, the names, biases, fills, per class 2 + 3 values,
  // prototype count and indices.
  EXPECT_EQ(bytes.size(), section + 4 + 4 + 4 + 8 + 4 + (4 + 6) + (4 + 10) + (4 + 7) + 3 * 8 +
                              5 * 8 + 3 * 5 * 8 + 4 + 2 * 4);
  Dictionary back;
  const Status s = parse_dictionary(bytes.data(), bytes.size(), &back);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_TRUE(same_models(d, back));
  EXPECT_TRUE(same_ridge(d, back));
  expect_same_scores(d, back);
  for (size_t n = 0; n < bytes.size(); ++n) {
    Dictionary x;
    ASSERT_FALSE(parse_dictionary(bytes.data(), n, &x).ok()) << "accepted " << n << " bytes";
  }
  for (size_t byte = section; byte < bytes.size(); ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = bytes;
      bad[byte] ^= static_cast<uint8_t>(1u << bit);
      Dictionary x;
      const Status st = parse_dictionary(bad.data(), bad.size(), &x);
      ASSERT_FALSE(st.ok()) << "byte " << byte << " bit " << bit << " accepted";
      EXPECT_TRUE(x.models.empty() && !x.has_ridge());
    }
  auto refused = [&](const char* what, const std::function<void(Dictionary&)>& change,
                     const char* word) { expect_refused(d, what, change, word); };
  refused(
      "a model's class not its label's", [](Dictionary& x) { x.ridge.cand_class[0] = 0; },
      "differs from its label");
  refused(
      "a class without a model",
      [](Dictionary& x) {
        for (int m : {1, 4})
          x.models[m].label = "walking"; // the boxing models
        for (int m : {1, 4})
          x.ridge.cand_class[m] = 2;
      },
      "no model to average");
  refused(
      "weights per model", [](Dictionary& x) { x.ridge.weights.resize(15); }, "array sizes");
  refused(
      "model classes with distance features",
      [](Dictionary& x) { x.ridge.features = RidgeFeatures::kDistance; }, "without class-mean");
}

} // namespace
} // namespace cvis::actionmatch
