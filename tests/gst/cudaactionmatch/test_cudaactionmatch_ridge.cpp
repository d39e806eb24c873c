// cudaactionmatch with a ridge dictionary (versions 3 and 4; cpu suite): trained as `cvis-action
// train --classifier ridge` trains it (every candidate of generated training clips a model; the
// ridge classifier over each clip's mean distance to every candidate, or over their class means),
// the element's label, model and score of every block equal what the library computes the tool's
// way: the mean over the blocks so far (at most ridge_blocks, 3) of the distances to every model,
// ridge_class, the nearest model of that class. The clip has three blocks, so its last block
// carries the tool's clip label.
#include <algorithm>

#include "actionlearn_ridge.hpp"
#include "actionmatch_elem_util.hpp"

namespace {

using namespace am_elem;

class ActionMatchRidge : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

// The distances of every block of `cp` to every model (node_distance, appearance); `matched`
// (optional): whether that optimum assigns a model node a scene point.
std::vector<std::vector<double>>
block_distances(am::Matcher& matcher, const al::ClipPoints& cp,
                const std::vector<am::Model>& models,
                std::vector<std::vector<bool>>* matched = nullptr) {
  const std::vector<am::Graph> blocks = al::cut_blocks(cp, al::LearnParams());
  std::vector<am::MatchResult> res;
  EXPECT_TRUE(
      matcher.match(blocks.data(), static_cast<int>(blocks.size()), &res, nullptr, nullptr).ok());
  std::vector<std::vector<double>> d(blocks.size(), std::vector<double>(models.size()));
  if (matched)
    matched->assign(blocks.size(), std::vector<bool>(models.size()));
  for (size_t b = 0; b < blocks.size(); ++b) {
    EXPECT_GE(blocks[b].size(), 3) << "block " << b << " below the element's min-points";
    for (size_t m = 0; m < models.size(); ++m) {
      const am::MatchResult& r = res[b * models.size() + m];
      d[b][m] = al::node_distance(r, am::Distance::kAppearance, models[m].graph.size());
      if (matched)
        (*matched)[b][m] = r.dummies < static_cast<int>(r.assignment.size());
    }
  }
  return d;
}

// The element (CPU backend) with the dictionary file at `path` over GRAY8 `frames`; removes the
// file.
std::vector<Got> run_and_remove(const std::string& path, const std::vector<Gray>& frames) {
  GstHarness* hs =
      gst_harness_new_parse(("cudaactionmatch backend=cpu model-location=" + path).c_str());
  gst_harness_set_caps_str(hs, caps(GST_VIDEO_FORMAT_GRAY8).c_str(),
                           caps(GST_VIDEO_FORMAT_GRAY8).c_str());
  const std::vector<Got> got = run(hs, frames, true);
  gst_harness_teardown(hs);
  std::remove(path.c_str());
  return got;
}

std::vector<double> mean_of(const std::vector<std::vector<double>>& rows, size_t first,
                            size_t end) {
  std::vector<double> m(rows[0].size(), 0.0);
  for (size_t b = first; b < end; ++b)
    for (size_t k = 0; k < m.size(); ++k)
      m[k] += rows[b][k];
  for (double& v : m)
    v /= static_cast<double>(end - first);
  return m;
}

TEST_F(ActionMatchRidge, BlocksEqualTheToolsRidgeClassifier) {
  const stip::FrontEndParams fp;
  const int actions[] = {0, 1, 5}; // boxing, handclapping, walking
  al::Dictionary d;
  al::describe(fp, &d);
  d.params.dummy_cost = 0.6; // as cvis-action train
  d.classes = {"boxing", "handclapping", "walking"};
  std::vector<al::ClipPoints> train;
  std::vector<int> clip_class, clip_subject, cand_subject;
  for (int subject = 1; subject <= 3; ++subject)
    for (int k = 0; k < 3; ++k) {
      const std::vector<Gray> frames = clip(subject, actions[k], 70, 100 * subject + actions[k]);
      al::ClipPoints cp = points(frames, fp);
      cp.frames = static_cast<int>(frames.size());
      cp.label = d.classes[k];
      cp.subject = subject;
      for (am::Model& m : al::cut_models(cp, al::LearnParams(), 2)) {
        m.label = cp.label;
        d.models.push_back(std::move(m));
        cand_subject.push_back(subject);
      }
      train.push_back(std::move(cp));
      clip_class.push_back(k);
      clip_subject.push_back(subject);
    }
  ASSERT_GE(d.models.size(), 9u);
  cvis::Status st;
  auto matcher = am::make_matcher(cvis::Backend::kCpu, &st);
  ASSERT_TRUE(matcher && matcher->configure(d.params, d.models).ok());
  std::vector<std::vector<double>> dist; // the tool's table: clip x candidate, mean over blocks
  for (const al::ClipPoints& cp : train) {
    const auto b = block_distances(*matcher, cp, d.models);
    dist.push_back(mean_of(b, 0, b.size()));
  }
  std::vector<int> rows(train.size()), cands(d.models.size());
  for (size_t i = 0; i < rows.size(); ++i)
    rows[i] = static_cast<int>(i);
  for (size_t i = 0; i < cands.size(); ++i)
    cands[i] = static_cast<int>(i);
  std::vector<int> cand_class; // the class of every model (class-mean features)
  for (const am::Model& m : d.models)
    cand_class.push_back(static_cast<int>(std::find(d.classes.begin(), d.classes.end(), m.label) -
                                          d.classes.begin()));
  // Both kinds of features (dictionary versions 3 and 4): the element classifies as ridge_class.
  for (const al::RidgeFeatures features :
       {al::RidgeFeatures::kDistance, al::RidgeFeatures::kClassMean}) {
    SCOPED_TRACE(features == al::RidgeFeatures::kClassMean ? "class means" : "distances");
    ASSERT_TRUE(al::train_ridge(dist, rows, clip_class, clip_subject, cands, cand_subject, 3, 1.0,
                                &d.ridge, features, &cand_class));
    d.ridge_alpha = 1.0;
    d.prototypes = {0, 2, 4};
    const std::string path =
        std::string(g_get_tmp_dir()) + "/cvis-test-ridge-" + std::to_string(getpid()) + ".cvad";
    ASSERT_TRUE(al::save_dictionary(path, d).ok());

    // Another subject's clip of 100 frames: blocks 0..59, 30..89 and the tail 40..99.
    const std::vector<Gray> frames = clip(4, 1, 100, 401);
    al::ClipPoints cp = points(frames, fp);
    cp.frames = static_cast<int>(frames.size());
    std::vector<std::vector<bool>> matched;
    const auto b = block_distances(*matcher, cp, d.models, &matched);
    ASSERT_EQ(b.size(), 3u);
    const std::vector<Got> got = run_and_remove(path, frames);
    ASSERT_EQ(got.size(), 3u) << "a block without a result";
    const int64_t firsts[] = {0, 30, 40};
    for (size_t k = 0; k < 3; ++k) {
      SCOPED_TRACE("block " + std::to_string(k));
      std::vector<double> s;
      const int q = al::ridge_class(d.ridge, mean_of(b, 0, k + 1), &s);
      ASSERT_GE(q, 0);
      double second = -1e300;
      for (int c = 0; c < 3; ++c)
        if (c != q)
          second = std::max(second, s[c]);
      // The nearest model of the class among those matching a scene point, else the nearest.
      int model = -1;
      for (int pass = 0; pass < 2 && model < 0; ++pass)
        for (size_t m = 0; m < d.models.size(); ++m)
          if (d.models[m].label == d.classes[q] && (pass == 1 || matched[k][m]) &&
              (model < 0 || b[k][m] < b[k][model]))
            model = static_cast<int>(m);
      EXPECT_EQ(got[k].info.first_frame, static_cast<guint64>(firsts[k]));
      EXPECT_EQ(got[k].label, d.classes[q]);
      EXPECT_EQ(got[k].info.model_id, model);
      EXPECT_EQ(got[k].info.distance, b[k][model]);
      EXPECT_EQ(got[k].info.score, std::min(1.0, 0.5 * (s[q] - second))); // the same arithmetic
    }
    // The last block is the tool's clip: every block's distances averaged.
    EXPECT_EQ(got[2].label, d.classes[al::ridge_class(d.ridge, mean_of(b, 0, 3))]);
  }
}

// The ridge classifier weighs all-dummy optima too (the tool does), so a class none of whose models
// matches a scene point still names the block: "walking" models are "boxing" models with negated
// descriptors (every node then costs more than the dummy), and a classifier whose bias alone picks
// walking (constant features) must report walking, with its nearest model and no points, not "no
// action". Every block also matches some boxing model, so it is no block without evidence.
TEST_F(ActionMatchRidge, ClassWithoutMatchesStillNamesTheBlock) {
  const stip::FrontEndParams fp;
  al::Dictionary d;
  al::describe(fp, &d);
  d.params.dummy_cost = 0.6;
  const std::vector<Gray> frames = clip(1, 0, 100, 11);
  al::ClipPoints cp = points(frames, fp);
  cp.frames = static_cast<int>(frames.size());
  for (am::Model& m : al::cut_models(cp, al::LearnParams(), 2)) {
    m.label = "boxing";
    d.models.push_back(std::move(m));
  }
  const size_t B = d.models.size();
  ASSERT_GE(B, 1u);
  for (size_t k = 0; k < B; ++k) {
    am::Model m = d.models[k];
    for (float& v : m.graph.desc)
      v = -v;
    m.label = "walking";
    d.models.push_back(std::move(m));
  }
  const size_t M = d.models.size();
  d.classes = {"boxing", "walking"};
  al::RidgeClassifier& r = d.ridge;
  r.classes = 2;
  for (size_t m = 0; m < M; ++m) {
    r.cands.push_back(static_cast<int>(m));
    r.fill.push_back(1.0);
    r.mean.push_back(0.0);
    r.inv_sd.push_back(0.0); // constant features: the bias decides
    r.weights.insert(r.weights.end(), {0.0, 0.0});
  }
  r.bias = {0.0, 1.0};
  d.ridge_alpha = 1.0;
  d.prototypes = {0};
  cvis::Status st;
  auto matcher = am::make_matcher(cvis::Backend::kCpu, &st);
  ASSERT_TRUE(matcher && matcher->configure(d.params, d.models).ok());
  std::vector<std::vector<bool>> matched;
  const auto b = block_distances(*matcher, cp, d.models, &matched);
  ASSERT_EQ(b.size(), 3u);
  for (size_t k = 0; k < b.size(); ++k) {
    bool boxing = false;
    for (size_t m = 0; m < M; ++m) {
      if (m < B)
        boxing = boxing || matched[k][m];
      else
        ASSERT_FALSE(matched[k][m]) << "block " << k << ": walking model " << m << " matched";
    }
    ASSERT_TRUE(boxing) << "block " << k << ": no boxing model matched";
  }
  const std::string path =
      std::string(g_get_tmp_dir()) + "/cvis-test-ridge-dummy-" + std::to_string(getpid()) + ".cvad";
  ASSERT_TRUE(al::save_dictionary(path, d).ok());
  const std::vector<Got> got = run_and_remove(path, frames);
  ASSERT_EQ(got.size(), 3u) << "a block reported no action";
  for (size_t k = 0; k < got.size(); ++k) {
    SCOPED_TRACE("block " + std::to_string(k));
    int model = -1; // the nearest walking model (all of them all-dummy)
    for (size_t m = B; m < M; ++m)
      if (model < 0 || b[k][m] < b[k][model])
        model = static_cast<int>(m);
    EXPECT_EQ(got[k].label, "walking");
    EXPECT_EQ(got[k].info.model_id, model);
    EXPECT_TRUE(got[k].pts.empty());
    EXPECT_EQ(got[k].info.score, 0.5); // half the bias difference, exactly
  }
}

} // namespace
