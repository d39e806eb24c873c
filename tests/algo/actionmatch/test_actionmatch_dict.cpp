// CPU tests of the dictionary file (round trip; every truncation, every flipped header bit and
// random payload corruptions rejected with a message naming the problem) and of input validation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>

#include "actionlearn.hpp"
#include "actionmatch_test_util.hpp"

namespace cvis::actionmatch {
namespace {

using namespace cvis::actionlearn;
using namespace cvis::stip;

using test::Rng;

Dictionary small_dictionary(Rng& rng, int models, int dim) {
  Dictionary d;
  d.dim = dim;
  d.params.lambda1 = 0.5;
  d.params.T = 7;
  d.params.causality = Causality::kIncreasing;
  d.params.dummies = false;
  d.params.dummy_cost = 0.75;
  const char* labels[] = {"walking", "boxing", "handwaving"};
  for (int k = 0; k < models; ++k) {
    Model m = test::random_model(rng, {3 + k, dim, 2}, labels[k % 3]);
    m.source = k % 2 ? "" : "person0" + std::to_string(k) + "_walking_d1 frames 3-40";
    d.models.push_back(std::move(m));
  }
  return d;
}

bool same(const Dictionary& a, const Dictionary& b) {
  if (a.dim != b.dim || a.models.size() != b.models.size() || a.flow != b.flow ||
      a.speed_split != b.speed_split)
    return false;
  const Params &p = a.params, &q = b.params;
  if (p.lambda1 != q.lambda1 || p.lambda2 != q.lambda2 || p.lambda3 != q.lambda3 ||
      p.dummy_cost != q.dummy_cost || p.T != q.T || p.causality != q.causality ||
      p.dummies != q.dummies)
    return false;
  for (size_t i = 0; i < a.models.size(); ++i) {
    const Model &m = a.models[i], &n = b.models[i];
    if (m.label != n.label || m.source != n.source || m.graph.dim != n.graph.dim ||
        m.graph.frame != n.graph.frame || m.graph.x != n.graph.x || m.graph.y != n.graph.y ||
        m.graph.desc != n.graph.desc)
      return false;
  }
  return true;
}

TEST(ActionMatchDictionary, RoundTrip) {
  Rng rng(21);
  const Dictionary d = small_dictionary(rng, 5, kPaperDescriptorDim);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serialize_dictionary(d, &bytes).ok());
  Dictionary back;
  Status s = parse_dictionary(bytes.data(), bytes.size(), &back);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_TRUE(same(d, back));
  // Through a file, and the layout of FORMAT.md: magic, version, header size, file size.
  const std::string path = testing::TempDir() + "actionmatch_dict_" + std::to_string(getpid());
  ASSERT_TRUE(save_dictionary(path, d).ok());
  Dictionary loaded;
  s = load_dictionary(path, &loaded);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_TRUE(same(d, loaded));
  std::remove(path.c_str());
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "CVISACTD");
  EXPECT_EQ(bytes[8], 1); // the paper's flow histogram: version 1, readable by older builds
  EXPECT_EQ(bytes[12], 80);
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i)
    size |= uint64_t{bytes[16 + i]} << (8 * i);
  EXPECT_EQ(size, bytes.size());
}

// The speed flow histogram needs version 2 (96-byte header): round trip, layout, every flipped
// bit of the added fields rejected, and the fields' validation.
TEST(ActionMatchDictionary, Version2FlowHistogram) {
  Rng rng(25);
  Dictionary d = small_dictionary(rng, 3, kSpeedDescriptorDim);
  d.flow = FlowHistogram::kSpeed;
  d.speed_split = 1.5;
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serialize_dictionary(d, &bytes).ok());
  EXPECT_EQ(bytes[8], 2);
  EXPECT_EQ(bytes[12], 96);
  EXPECT_EQ(bytes[80], 1); // flow histogram
  Dictionary back;
  Status s = parse_dictionary(bytes.data(), bytes.size(), &back);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_TRUE(same(d, back));
  for (size_t byte = 80; byte < 96; ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = bytes;
      bad[byte] ^= static_cast<uint8_t>(1u << bit);
      Dictionary x;
      s = parse_dictionary(bad.data(), bad.size(), &x);
      ASSERT_FALSE(s.ok()) << "byte " << byte << " bit " << bit << " accepted";
      // A field check names the header; a split still in range is caught by the checksum.
      EXPECT_TRUE(s.message().find("header") != std::string::npos ||
                  s.message().find("checksum") != std::string::npos)
          << s.message();
    }
  Dictionary wrong = d;
  wrong.dim = kPaperDescriptorDim;
  for (Model& m : wrong.models) {
    m.graph.dim = wrong.dim;
    m.graph.desc.resize(static_cast<size_t>(m.graph.size()) * wrong.dim);
  }
  EXPECT_FALSE(validate(wrong).ok()) << "speed histogram with 162 values";
  wrong = d;
  wrong.speed_split = 0;
  EXPECT_FALSE(validate(wrong).ok());
  wrong = d;
  wrong.flow = FlowHistogram::kPaper;
  EXPECT_FALSE(validate(wrong).ok()) << "paper histogram with a speed split";
}

TEST(ActionMatchDictionary, EveryTruncationRejected) {
  Rng rng(22);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serialize_dictionary(small_dictionary(rng, 3, 4), &bytes).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    Dictionary d;
    const Status s = parse_dictionary(bytes.data(), n, &d);
    ASSERT_FALSE(s.ok()) << "accepted " << n << " of " << bytes.size() << " bytes";
    EXPECT_EQ(s.code(), StatusCode::kIoError);
    const std::string& msg = s.message();
    EXPECT_TRUE(msg.find("truncated") != std::string::npos || msg == "empty file")
        << n << " bytes: " << msg;
    EXPECT_TRUE(d.models.empty());
  }
}

// Each of the 640 bits of the header flipped in turn: rejected, with a specific message for the
// field where one exists and the checksum otherwise.
TEST(ActionMatchDictionary, EveryFlippedHeaderBitRejected) {
  Rng rng(23);
  std::vector<uint8_t> good;
  ASSERT_TRUE(serialize_dictionary(small_dictionary(rng, 3, 4), &good).ok());
  const struct {
    size_t begin, end;
    const char* word; // expected in the message
  } fields[] = {{0, 8, "magic"},      {8, 12, "version"},   {12, 16, "header size"},
                {16, 24, "declares"}, {24, 28, "checksum"}, {28, 32, ""},
                {32, 36, ""},         {36, 40, ""},         {40, 44, ""},
                {44, 48, ""},         {48, 80, ""}};
  int by_checksum = 0;
  for (const auto& f : fields) {
    for (size_t byte = f.begin; byte < f.end; ++byte) {
      for (int bit = 0; bit < 8; ++bit) {
        std::vector<uint8_t> bad = good;
        bad[byte] ^= static_cast<uint8_t>(1u << bit);
        Dictionary d;
        const Status s = parse_dictionary(bad.data(), bad.size(), &d);
        ASSERT_FALSE(s.ok()) << "byte " << byte << " bit " << bit << " accepted";
        EXPECT_NE(s.message().find(f.word), std::string::npos) << s.message();
        by_checksum += s.message().find("checksum") != std::string::npos;
      }
    }
  }
  std::printf("header bits: %d of 640 caught by the checksum, the rest by a field check\n",
              by_checksum);
}

TEST(ActionMatchDictionary, CorruptPayloadRejected) {
  Rng rng(24);
  std::vector<uint8_t> good;
  ASSERT_TRUE(serialize_dictionary(small_dictionary(rng, 3, 6), &good).ok());
  for (int it = 0; it < 2000; ++it) {
    std::vector<uint8_t> bad = good;
    const size_t at = 80 + rng() % (good.size() - 80);
    bad[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    Dictionary d;
    ASSERT_FALSE(parse_dictionary(bad.data(), bad.size(), &d).ok()) << "byte " << at;
  }
  // Trailing data and a foreign file.
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  Dictionary d;
  Status s = parse_dictionary(longer.data(), longer.size(), &d);
  EXPECT_NE(s.message().find("trailing"), std::string::npos) << s.message();
  const std::string png = "\x89PNG\r\n\x1a\n0000000000000000";
  s = parse_dictionary(reinterpret_cast<const uint8_t*>(png.data()), png.size(), &d);
  EXPECT_NE(s.message().find("magic"), std::string::npos) << s.message();
  s = load_dictionary("/nonexistent/dict.bin", &d);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("/nonexistent/dict.bin: cannot open"), std::string::npos);
}

// A valid checksum over invalid content (a writer bug): the content checks still apply.
TEST(ActionMatchDictionary, ContentValidatedAfterChecksum) {
  Rng rng(25);
  Dictionary d = small_dictionary(rng, 2, 4);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serialize_dictionary(d, &bytes).ok());
  d.models[0].graph.frame[1] = d.models[0].graph.frame[0]; // not strictly increasing
  EXPECT_FALSE(serialize_dictionary(d, &bytes).ok());
}

TEST(ActionMatchValidation, Messages) {
  Rng rng(26);
  Params p;
  p.lambda1 = -1;
  EXPECT_NE(validate(p).message().find("lambda1"), std::string::npos);
  p = Params();
  p.T = -2;
  EXPECT_NE(validate(p).message().find("T -2"), std::string::npos);
  p = Params();
  p.dummy_cost = NAN;
  EXPECT_FALSE(validate(p).ok());

  Model m = test::random_model(rng, {5, 8, 2}, "walk");
  EXPECT_TRUE(validate_model(m).ok());
  Model two = m;
  two.graph.frame.resize(2);
  two.graph.x.resize(2);
  two.graph.y.resize(2);
  two.graph.desc.resize(16);
  EXPECT_NE(validate_model(two).message().find("2 nodes"), std::string::npos);
  Model rep = m;
  rep.graph.frame[3] = rep.graph.frame[2];
  EXPECT_NE(validate_model(rep).message().find("node 3: frame"), std::string::npos);
  Model nan = m;
  nan.graph.desc[9] = NAN;
  EXPECT_NE(validate_model(nan).message().find("node 1: descriptor value 1"), std::string::npos);
  // The descriptor range check compares bit patterns in blocks of eight values (actionmatch.cpp):
  // the limit itself, -0 and a negative limit pass; anything beyond, infinities and a NaN with the
  // sign bit set fail, at the first, a middle and the last position, and in the values after the
  // last block of eight (a model of 5 nodes x 3 values).
  for (const float v : {static_cast<float>(kMaxDescriptorValue), -0.f,
                        -static_cast<float>(kMaxDescriptorValue)}) {
    Model ok = m;
    ok.graph.desc.back() = v;
    EXPECT_TRUE(validate_model(ok).ok()) << v;
  }
  for (const float v : {std::nextafter(static_cast<float>(kMaxDescriptorValue), 1e30f), -2e4f,
                        INFINITY, -INFINITY, -NAN}) {
    for (const size_t at : {size_t{0}, size_t{9}, m.graph.desc.size() - 1}) {
      Model bad = m;
      bad.graph.desc[at] = v;
      EXPECT_NE(validate_model(bad).message().find("descriptor value"), std::string::npos)
          << v << " at " << at;
    }
  }
  Model odd = test::random_model(rng, {5, 3, 2}, "odd");
  ASSERT_TRUE(validate_model(odd).ok());
  odd.graph.desc.back() = INFINITY;
  EXPECT_NE(validate_model(odd).message().find("node 4: descriptor value 2"), std::string::npos);
  Model label = m;
  label.label = "";
  EXPECT_FALSE(validate_model(label).ok());
  label.label = "a\nb";
  EXPECT_NE(validate_model(label).message().find("control"), std::string::npos);

  Graph scene = test::random_graph(rng, {6, 8, 2}, false, 10);
  EXPECT_TRUE(validate_scene(scene).ok());
  std::swap(scene.frame[1], scene.frame[4]);
  if (scene.frame[1] != scene.frame[4]) {
    EXPECT_NE(validate_scene(scene).message().find("sorted by frame"), std::string::npos);
  }

  Status st;
  auto mt = make_matcher(Backend::kCpu, &st);
  std::vector<MatchResult> r;
  const Graph good = test::random_graph(rng, {6, 8, 2}, false);
  EXPECT_NE(mt->match(&good, 1, &r, nullptr, nullptr).message().find("configure"),
            std::string::npos);
  ASSERT_TRUE(mt->configure(Params(), {m}).ok());
  Graph other = test::random_graph(rng, {6, 9, 2}, false);
  const Graph blocks[] = {good, other};
  const Status s = mt->match(blocks, 2, &r, nullptr, nullptr);
  EXPECT_NE(s.message().find("block 1: scene descriptors of dim 9"), std::string::npos)
      << s.message();
  // Oversized trellis: T = 0 with a large scene.
  Params wide;
  wide.T = 0;
  wide.causality = Causality::kNone;
  ASSERT_TRUE(mt->configure(wide, {test::random_model(rng, {300, 1, 1}, "long")}).ok());
  const Graph big = test::random_graph(rng, {4000, 1, 0}, false);
  EXPECT_NE(mt->match(&big, 1, &r, nullptr, nullptr).message().find("trellis"), std::string::npos);
  EXPECT_FALSE(make_matcher(Backend::kAuto, &st));
}

} // namespace
} // namespace cvis::actionmatch
