// The metadata library alone (libgstcvis-1.0): packing, LIRE serialisation, Tanimoto distance,
// and the CEDD / foreground metas on buffers (add, get, copy and scale transforms).
#include <gst/cvis/cvis.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_images.hpp"

namespace {

using Levels = std::vector<guint8>;

// expected.tsv: filename, width, height, sha256, 144 levels.
std::map<std::string, Levels> load_expected_levels() {
  std::map<std::string, Levels> out;
  std::ifstream f(cvis::test::testdata_dir() + "/cedd/expected.tsv");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, w, h, sha;
    ss >> name >> w >> h >> sha;
    Levels l(144);
    for (int i = 0; i < 144; ++i) {
      int v;
      ss >> v;
      l[i] = static_cast<guint8>(v);
    }
    out[name] = l;
  }
  return out;
}

std::vector<guint8> from_hex(const std::string& hex) {
  std::vector<guint8> b;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    b.push_back(static_cast<guint8>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return b;
}

Levels random_levels(std::mt19937& rng) {
  Levels l(144);
  for (auto& v : l) v = static_cast<guint8>(rng() % 8);
  return l;
}

class MetaTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

TEST_F(MetaTest, PackUnpackRoundTripAndBitLayout) {
  std::mt19937 rng(1234);
  for (int t = 0; t < 1000; ++t) {
    Levels l = random_levels(rng), back(144);
    guint8 packed[GST_CVIS_CEDD_PACKED_SIZE];
    gst_cvis_cedd_pack(l.data(), packed);
    gst_cvis_cedd_unpack(packed, back.data());
    ASSERT_EQ(l, back) << "trial " << t;
  }
  // Documented layout: level i at bits 3i..3i+2, little-endian bit string.
  Levels one(144, 0);
  one[3] = 5;  // bits 9..11 -> byte 1, bits 1..3
  guint8 packed[GST_CVIS_CEDD_PACKED_SIZE];
  gst_cvis_cedd_pack(one.data(), packed);
  EXPECT_EQ(packed[1], 5u << 1);
  for (int i = 0; i < GST_CVIS_CEDD_PACKED_SIZE; ++i) {
    if (i != 1) {
      EXPECT_EQ(packed[i], 0u) << i;
    }
  }
  one.assign(144, 0);
  one[143] = 7;  // bits 429..431 -> byte 53, bits 5..7
  gst_cvis_cedd_pack(one.data(), packed);
  EXPECT_EQ(packed[53], 7u << 5);
}

TEST_F(MetaTest, LireSerialisationMatchesReference) {
  auto expected = load_expected_levels();
  ASSERT_GE(expected.size(), 6u) << "test data not found under " << cvis::test::testdata_dir();
  std::ifstream f(cvis::test::testdata_dir() + "/cedd/expected_serialized.tsv");
  std::string line;
  int checked = 0;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, hex;
    unsigned n;
    ss >> name >> n >> hex;
    ASSERT_TRUE(expected.count(name)) << name;
    guint8 out[GST_CVIS_CEDD_LIRE_MAX_BYTES];
    guint got = gst_cvis_cedd_to_lire_bytes(expected[name].data(), out);
    ASSERT_EQ(got, n) << name;
    EXPECT_EQ(std::vector<guint8>(out, out + got), from_hex(hex)) << name;
    Levels back(144);
    ASSERT_TRUE(gst_cvis_cedd_from_lire_bytes(out, got, back.data()));
    EXPECT_EQ(back, expected[name]) << name;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST_F(MetaTest, LireSerialisationEdgeCases) {
  Levels zeros(144, 0), back(144);
  guint8 out[GST_CVIS_CEDD_LIRE_MAX_BYTES];
  EXPECT_EQ(gst_cvis_cedd_to_lire_bytes(zeros.data(), out), 1u);  // p = 0 -> one byte
  EXPECT_EQ(out[0], 0x80);
  Levels last(144, 0);
  last[143] = 3;
  EXPECT_EQ(gst_cvis_cedd_to_lire_bytes(last.data(), out), 72u);
  ASSERT_TRUE(gst_cvis_cedd_from_lire_bytes(out, 72, back.data()));
  EXPECT_EQ(back, last);
  EXPECT_FALSE(gst_cvis_cedd_from_lire_bytes(out, 73, back.data()));
}

TEST_F(MetaTest, TanimotoBitExactWithReference) {
  auto expected = load_expected_levels();
  std::ifstream f(cvis::test::testdata_dir() + "/cedd/expected_pairs.tsv");
  std::string line;
  int checked = 0;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string a, b, dec, hex;
    ss >> a >> b >> dec >> hex;
    ASSERT_TRUE(expected.count(a) && expected.count(b));
    const double d = gst_cvis_cedd_tanimoto(expected[a].data(), expected[b].data());
    guint64 bits;
    std::memcpy(&bits, &d, sizeof bits);
    // The file writes the bits without leading zeros ("0" for 0.0).
    EXPECT_EQ(bits, std::stoull(hex, nullptr, 16)) << a << " vs " << b << ": " << d << " expected " << dec;
    // Symmetric (spec section 11) up to rounding of the sums.
    EXPECT_NEAR(gst_cvis_cedd_tanimoto(expected[b].data(), expected[a].data()), d, 1e-9);
    ++checked;
  }
  EXPECT_EQ(checked, 7);
}

TEST_F(MetaTest, TanimotoSpecialCases) {
  Levels z(144, 0), a(144, 0);
  a[5] = 3;
  EXPECT_EQ(gst_cvis_cedd_tanimoto(z.data(), z.data()), 0.0);
  EXPECT_EQ(gst_cvis_cedd_tanimoto(z.data(), a.data()), 100.0);
  EXPECT_EQ(gst_cvis_cedd_tanimoto(a.data(), z.data()), 100.0);
  EXPECT_NEAR(gst_cvis_cedd_tanimoto(a.data(), a.data()), 0.0, 1e-12);
}

TEST_F(MetaTest, CeddMetaAddGetCopyScale) {
  std::mt19937 rng(7);
  GstBuffer* buf = gst_buffer_new();
  const GstCvisCeddRegion regs[3] = {{GST_CVIS_CEDD_FRAME_ID, 0, 0, 640, 480},
                                     {4, 10, 20, 100, 50}, {9, 600, 400, 40, 80}};
  Levels all;
  for (int i = 0; i < 3; ++i) {
    Levels l = random_levels(rng);
    all.insert(all.end(), l.begin(), l.end());
  }
  GstCustomMeta* m = gst_buffer_add_cvis_cedd_meta(buf, 3, regs, all.data());
  ASSERT_NE(m, nullptr);
  gst_cvis_cedd_meta_set_shot(m, 42.5, TRUE);

  GstCustomMeta* got = gst_buffer_get_cvis_cedd_meta(buf);
  ASSERT_EQ(got, m);
  ASSERT_EQ(gst_cvis_cedd_meta_get_count(got), 3u);
  for (guint i = 0; i < 3; ++i) {
    GstCvisCeddEntry e;
    ASSERT_TRUE(gst_cvis_cedd_meta_get_entry(got, i, &e));
    EXPECT_EQ(e.roi_id, regs[i].roi_id);
    EXPECT_EQ(e.x, regs[i].x);
    EXPECT_EQ(e.height, regs[i].height);
    EXPECT_EQ(0, std::memcmp(e.levels, all.data() + i * 144, 144));
    guint8 packed[GST_CVIS_CEDD_PACKED_SIZE];
    gst_cvis_cedd_pack(e.levels, packed);
    EXPECT_EQ(0, std::memcmp(e.packed, packed, sizeof packed));
  }
  GstCvisCeddEntry e;
  EXPECT_FALSE(gst_cvis_cedd_meta_get_entry(got, 3, &e));
  ASSERT_TRUE(gst_cvis_cedd_meta_find(got, 9, &e));
  EXPECT_EQ(e.x, 600);
  EXPECT_FALSE(gst_cvis_cedd_meta_find(got, 5, &e));
  gdouble dist;
  gboolean shot;
  ASSERT_TRUE(gst_cvis_cedd_meta_get_shot(got, &dist, &shot));
  EXPECT_EQ(dist, 42.5);
  EXPECT_TRUE(shot);

  // Copy transform (gst_buffer_copy): same descriptors.
  GstBuffer* copy = gst_buffer_copy(buf);
  GstCustomMeta* cm = gst_buffer_get_cvis_cedd_meta(copy);
  ASSERT_NE(cm, nullptr);
  ASSERT_TRUE(gst_cvis_cedd_meta_find(cm, 4, &e));
  EXPECT_EQ(0, std::memcmp(e.levels, all.data() + 144, 144));

  // Scale transform 640x480 -> 320x240 halves the boxes and keeps the descriptors.
  GstVideoInfo in, out;
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_RGBA, 640, 480);
  gst_video_info_set_format(&out, GST_VIDEO_FORMAT_RGBA, 320, 240);
  GstVideoMetaTransform t = {&in, &out};
  GstBuffer* scaled = gst_buffer_new();
  const GstMetaInfo* info = gst_cvis_cedd_meta_get_info();
  ASSERT_TRUE(info->transform_func(scaled, reinterpret_cast<GstMeta*>(m), buf,
                                   gst_video_meta_transform_scale_get_quark(), &t));
  GstCustomMeta* sm = gst_buffer_get_cvis_cedd_meta(scaled);
  ASSERT_NE(sm, nullptr);
  ASSERT_TRUE(gst_cvis_cedd_meta_find(sm, 4, &e));
  EXPECT_EQ(e.x, 5);
  EXPECT_EQ(e.y, 10);
  EXPECT_EQ(e.width, 50);
  EXPECT_EQ(e.height, 25);
  EXPECT_EQ(0, std::memcmp(e.levels, all.data() + 144, 144));
  // The original is untouched.
  ASSERT_TRUE(gst_cvis_cedd_meta_find(m, 4, &e));
  EXPECT_EQ(e.x, 10);

  gst_buffer_unref(scaled);
  gst_buffer_unref(copy);
  gst_buffer_unref(buf);
}

TEST_F(MetaTest, CeddMetaRejectsBadLevels) {
  GstBuffer* buf = gst_buffer_new();
  const GstCvisCeddRegion r = {GST_CVIS_CEDD_FRAME_ID, 0, 0, 8, 8};
  Levels bad(144, 0);
  bad[100] = 8;
  // g_return_val_if_fail logs a critical and returns NULL.
  EXPECT_EQ(gst_buffer_add_cvis_cedd_meta(buf, 1, &r, bad.data()), nullptr);
  EXPECT_EQ(gst_buffer_get_cvis_cedd_meta(buf), nullptr);
  gst_buffer_unref(buf);
}

TEST_F(MetaTest, ForegroundMetaAddGetCopy) {
  GstBuffer* frame = gst_buffer_new();
  GstBuffer* mask = gst_buffer_new_allocate(nullptr, 64 * 48, nullptr);
  ASSERT_NE(gst_buffer_add_cvis_foreground_meta(frame, mask, 64, 48, 64, 0.25, FALSE, 3), nullptr);
  GstCustomMeta* m = gst_buffer_get_cvis_foreground_meta(frame);
  ASSERT_NE(m, nullptr);
  GstCvisForegroundInfo fi;
  ASSERT_TRUE(gst_cvis_foreground_meta_get(m, &fi));
  EXPECT_EQ(fi.mask, mask);
  EXPECT_EQ(fi.width, 64);
  EXPECT_EQ(fi.stride, 64);
  EXPECT_EQ(fi.fraction, 0.25);
  EXPECT_FALSE(fi.cuda_memory);
  EXPECT_EQ(fi.blobs, 3u);
  GstBuffer* copy = gst_buffer_copy(frame);
  GstCustomMeta* cm = gst_buffer_get_cvis_foreground_meta(copy);
  ASSERT_NE(cm, nullptr);
  ASSERT_TRUE(gst_cvis_foreground_meta_get(cm, &fi));
  EXPECT_EQ(fi.mask, mask);  // the copy references the same mask buffer
  gst_buffer_unref(copy);
  gst_buffer_unref(frame);
  gst_buffer_unref(mask);
}

TEST_F(MetaTest, ActionMetaAddGetCopyScale) {
  GstBuffer* buf = gst_buffer_new();
  GstCvisActionInfo in = {};
  in.label = "boxing";
  in.model_source = "person01_boxing_d1 frames 10-33";
  in.model_id = 3;
  in.distance = 0.125;
  in.energy = 4.5;
  in.appearance = 3.25;
  in.score = 0.5;
  in.dummies = 2;
  in.nodes = 117;
  in.first_frame = 60;
  in.last_frame = 119;
  in.start = 2 * GST_SECOND;
  in.end = 4 * GST_SECOND;
  in.complete = TRUE;
  GstCustomMeta* m = gst_buffer_add_cvis_action_meta(buf, &in);
  ASSERT_NE(m, nullptr);
  gst_cvis_action_meta_add_point(m, 61, 100.0, 50.0);
  gst_cvis_action_meta_add_point(m, 64, 110.5, 48.0);
  GstCvisActionInfo out;
  ASSERT_TRUE(gst_cvis_action_meta_get(gst_buffer_get_cvis_action_meta(buf), &out));
  EXPECT_STREQ(out.label, "boxing");
  EXPECT_STREQ(out.model_source, in.model_source);
  EXPECT_EQ(out.model_id, 3);
  EXPECT_EQ(out.distance, 0.125);
  EXPECT_EQ(out.energy, 4.5);
  EXPECT_EQ(out.appearance, 3.25);
  EXPECT_EQ(out.score, 0.5);
  EXPECT_EQ(out.dummies, 2);
  EXPECT_EQ(out.nodes, 117);
  EXPECT_EQ(out.first_frame, 60u);
  EXPECT_EQ(out.last_frame, 119u);
  EXPECT_EQ(out.start, 2 * GST_SECOND);
  EXPECT_EQ(out.end, 4 * GST_SECOND);
  EXPECT_TRUE(out.complete);
  EXPECT_EQ(out.n_points, 2u);
  guint64 f;
  gdouble x, y;
  ASSERT_TRUE(gst_cvis_action_meta_get_point(m, 1, &f, &x, &y));
  EXPECT_EQ(f, 64u);
  EXPECT_EQ(x, 110.5);
  EXPECT_EQ(y, 48.0);
  EXPECT_FALSE(gst_cvis_action_meta_get_point(m, 2, &f, &x, &y));

  GstBuffer* copy = gst_buffer_copy(buf);
  ASSERT_TRUE(gst_cvis_action_meta_get(gst_buffer_get_cvis_action_meta(copy), &out));
  EXPECT_EQ(out.n_points, 2u);
  EXPECT_EQ(out.model_id, 3);

  // Scale 640x480 -> 320x240: the points follow the frame, the rest is kept.
  GstVideoInfo vi, vo;
  gst_video_info_set_format(&vi, GST_VIDEO_FORMAT_NV12, 640, 480);
  gst_video_info_set_format(&vo, GST_VIDEO_FORMAT_NV12, 320, 240);
  GstVideoMetaTransform t = {&vi, &vo};
  GstBuffer* scaled = gst_buffer_new();
  ASSERT_TRUE(gst_cvis_action_meta_get_info()->transform_func(
      scaled, reinterpret_cast<GstMeta*>(m), buf, gst_video_meta_transform_scale_get_quark(), &t));
  GstCustomMeta* sm = gst_buffer_get_cvis_action_meta(scaled);
  ASSERT_TRUE(gst_cvis_action_meta_get(sm, &out));
  EXPECT_EQ(out.last_frame, 119u);
  ASSERT_TRUE(gst_cvis_action_meta_get_point(sm, 1, &f, &x, &y));
  EXPECT_EQ(f, 64u);
  EXPECT_EQ(x, 55.25);
  EXPECT_EQ(y, 24.0);
  ASSERT_TRUE(gst_cvis_action_meta_get_point(m, 1, &f, &x, &y));
  EXPECT_EQ(x, 110.5);  // the original is untouched
  gst_buffer_unref(scaled);
  gst_buffer_unref(copy);
  gst_buffer_unref(buf);
}

TEST_F(MetaTest, ForegroundBoxIsARegionOfInterestWithItsArea) {
  GstBuffer* frame = gst_buffer_new();
  GstVideoRegionOfInterestMeta* roi = gst_buffer_add_cvis_foreground_box(frame, 3, 4, 10, 7, 2, 55);
  ASSERT_NE(roi, nullptr);
  GstVideoRegionOfInterestMeta* got =
      gst_buffer_get_video_region_of_interest_meta_id(frame, roi->id);
  ASSERT_EQ(got, roi);
  EXPECT_EQ(got->id, 2);
  EXPECT_STREQ(g_quark_to_string(got->roi_type), GST_CVIS_FOREGROUND_ROI_TYPE);
  EXPECT_EQ(got->x, 3u);
  EXPECT_EQ(got->y, 4u);
  EXPECT_EQ(got->w, 10u);
  EXPECT_EQ(got->h, 7u);
  GstStructure* p = gst_video_region_of_interest_meta_get_param(got, "foreground");
  ASSERT_NE(p, nullptr);
  guint area = 0;
  EXPECT_TRUE(gst_structure_get_uint(p, "area", &area));
  EXPECT_EQ(area, 55u);
  gst_buffer_unref(frame);
}

}  // namespace
