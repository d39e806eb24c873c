#include "rows.hpp"

#include <cstring>
#include <iterator>

namespace cvis::store {

namespace {

template <typename T> void move_append(std::vector<T>* to, std::vector<T>* from) {
  if (to->empty()) {
    to->swap(*from);
  } else {
    to->insert(to->end(), std::make_move_iterator(from->begin()),
               std::make_move_iterator(from->end()));
  }
  from->clear();
}

// Format: "CVISB" + version byte, then the five tables, each a count followed by its rows; every
// number in native byte order (a queue is replayed on the host that wrote it), strings as a
// 32-bit length and the bytes.
constexpr char kMagic[] = "CVISB";
constexpr uint8_t kVersion = 1;

class Out {
public:
  template <typename T> void num(T v) { s_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(const std::string& v) {
    num(static_cast<uint32_t>(v.size()));
    s_.append(v);
  }
  void key(const RowKey& k) {
    str(k.stream);
    str(k.run_id);
    num(k.frame);
    num(k.region);
  }
  void box(int32_t x, int32_t y, int32_t w, int32_t h) {
    num(x);
    num(y);
    num(w);
    num(h);
  }
  std::string& bytes() { return s_; }

private:
  std::string s_;
};

class In {
public:
  explicit In(const std::string& s) : s_(s) {}
  template <typename T> bool num(T* v) {
    if (s_.size() - pos_ < sizeof(T))
      return false;
    std::memcpy(v, s_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool str(std::string* v) {
    uint32_t n = 0;
    if (!num(&n) || s_.size() - pos_ < n)
      return false;
    v->assign(s_, pos_, n);
    pos_ += n;
    return true;
  }
  bool key(RowKey* k) {
    return str(&k->stream) && str(&k->run_id) && num(&k->frame) && num(&k->region);
  }
  bool box(int32_t* x, int32_t* y, int32_t* w, int32_t* h) {
    return num(x) && num(y) && num(w) && num(h);
  }
  bool raw(void* p, size_t n) {
    if (s_.size() - pos_ < n)
      return false;
    std::memcpy(p, s_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  // A count of rows that must each take at least `min_row` more bytes (guards against huge
  // allocations from a damaged file).
  bool count(uint64_t* n, size_t min_row) { return num(n) && *n <= (s_.size() - pos_) / min_row; }
  bool done() const { return pos_ == s_.size(); }
  size_t pos() const { return pos_; }

private:
  const std::string& s_;
  size_t pos_ = 0;
};

constexpr size_t kMinKey = 4 + 4 + 8 + 4;

} // namespace

void Batch::clear() {
  descriptors.clear();
  shots.clear();
  boxes.clear();
  tracks.clear();
  actions.clear();
}

void Batch::append(Batch&& other) {
  move_append(&descriptors, &other.descriptors);
  move_append(&shots, &other.shots);
  move_append(&boxes, &other.boxes);
  move_append(&tracks, &other.tracks);
  move_append(&actions, &other.actions);
}

size_t Batch::bytes() const {
  size_t n = 0;
  for (const DescriptorRow& r : descriptors)
    n += 240 + r.key.stream.size() + r.key.run_id.size() + r.roi_type.size();
  for (const ShotRow& r : shots)
    n += 64 + r.key.stream.size() + r.key.run_id.size() + r.source.size();
  for (const BoxRow& r : boxes)
    n += 80 + r.key.stream.size() + r.key.run_id.size() + r.roi_type.size() + r.attrs.size();
  for (const TrackRow& r : tracks)
    n += 64 + r.stream.size() + r.run_id.size();
  for (const ActionRow& r : actions)
    n += 120 + r.key.stream.size() + r.key.run_id.size() + r.label.size();
  return n;
}

std::string serialize(const Batch& b) {
  Out o;
  o.bytes().append(kMagic, 5);
  o.num(kVersion);
  o.num(static_cast<uint64_t>(b.descriptors.size()));
  for (const DescriptorRow& r : b.descriptors) {
    o.key(r.key);
    o.num(r.pts);
    o.num(r.roi_id);
    o.str(r.roi_type);
    o.box(r.x, r.y, r.w, r.h);
    o.num(static_cast<uint8_t>(r.shot_change));
    o.num(r.distance);
    o.bytes().append(reinterpret_cast<const char*>(r.levels), kLevels);
  }
  o.num(static_cast<uint64_t>(b.shots.size()));
  for (const ShotRow& r : b.shots) {
    o.key(r.key);
    o.num(r.pts);
    o.num(r.distance);
    o.str(r.source);
  }
  o.num(static_cast<uint64_t>(b.boxes.size()));
  for (const BoxRow& r : b.boxes) {
    o.key(r.key);
    o.num(r.pts);
    o.str(r.roi_type);
    o.num(r.roi_id);
    o.num(r.parent_id);
    o.box(r.x, r.y, r.w, r.h);
    o.str(r.attrs);
  }
  o.num(static_cast<uint64_t>(b.tracks.size()));
  for (const TrackRow& r : b.tracks) {
    o.str(r.stream);
    o.str(r.run_id);
    o.num(r.track_id);
    o.num(r.first_frame);
    o.num(r.last_frame);
    o.num(r.first_pts);
    o.num(r.last_pts);
  }
  o.num(static_cast<uint64_t>(b.actions.size()));
  for (const ActionRow& r : b.actions) {
    o.key(r.key);
    o.num(r.pts);
    o.str(r.label);
    o.num(r.model_id);
    o.num(r.score);
    o.num(r.distance);
    o.num(r.first_frame);
    o.num(r.last_frame);
    o.num(r.start);
    o.num(r.end);
    o.box(r.x, r.y, r.w, r.h);
  }
  return std::move(o.bytes());
}

bool deserialize(const std::string& bytes, Batch* b) {
  b->clear();
  In in(bytes);
  char magic[5];
  uint8_t version = 0;
  if (!in.raw(magic, 5) || std::memcmp(magic, kMagic, 5) != 0 || !in.num(&version) ||
      version != kVersion)
    return false;
  uint64_t n = 0;
  if (!in.count(&n, kMinKey + kLevels))
    return false;
  b->descriptors.resize(n);
  for (DescriptorRow& r : b->descriptors) {
    uint8_t shot = 0;
    if (!in.key(&r.key) || !in.num(&r.pts) || !in.num(&r.roi_id) || !in.str(&r.roi_type) ||
        !in.box(&r.x, &r.y, &r.w, &r.h) || !in.num(&shot) || !in.num(&r.distance) ||
        !in.raw(r.levels, kLevels))
      return false;
    r.shot_change = shot != 0;
  }
  if (!in.count(&n, kMinKey))
    return false;
  b->shots.resize(n);
  for (ShotRow& r : b->shots)
    if (!in.key(&r.key) || !in.num(&r.pts) || !in.num(&r.distance) || !in.str(&r.source))
      return false;
  if (!in.count(&n, kMinKey))
    return false;
  b->boxes.resize(n);
  for (BoxRow& r : b->boxes)
    if (!in.key(&r.key) || !in.num(&r.pts) || !in.str(&r.roi_type) || !in.num(&r.roi_id) ||
        !in.num(&r.parent_id) || !in.box(&r.x, &r.y, &r.w, &r.h) || !in.str(&r.attrs))
      return false;
  if (!in.count(&n, 8))
    return false;
  b->tracks.resize(n);
  for (TrackRow& r : b->tracks)
    if (!in.str(&r.stream) || !in.str(&r.run_id) || !in.num(&r.track_id) ||
        !in.num(&r.first_frame) || !in.num(&r.last_frame) || !in.num(&r.first_pts) ||
        !in.num(&r.last_pts))
      return false;
  if (!in.count(&n, kMinKey))
    return false;
  b->actions.resize(n);
  for (ActionRow& r : b->actions)
    if (!in.key(&r.key) || !in.num(&r.pts) || !in.str(&r.label) || !in.num(&r.model_id) ||
        !in.num(&r.score) || !in.num(&r.distance) || !in.num(&r.first_frame) ||
        !in.num(&r.last_frame) || !in.num(&r.start) || !in.num(&r.end) ||
        !in.box(&r.x, &r.y, &r.w, &r.h))
      return false;
  return in.done();
}

} // namespace cvis::store
