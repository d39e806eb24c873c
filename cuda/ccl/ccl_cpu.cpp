// CPU connected-component labelling: union-find over the runs of foreground pixels of each row;
// 8-connectivity joins runs of consecutive rows that overlap once widened by one pixel.
#include <algorithm>

#include "ccl.hpp"

namespace cvis::ccl {

namespace {

struct Run {
  int x0, x1, label;
};

int find_root(std::vector<int>& parent, int a) {
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}

} // namespace

void connected_blobs(const uint8_t* mask, size_t pitch, int width, int height, int min_area,
                     std::vector<Blob>* blobs, int64_t* foreground) {
  blobs->clear();
  std::vector<int> parent;
  std::vector<Run> prev, cur, all;
  std::vector<int> run_row;
  int64_t fg = 0;
  for (int y = 0; y < height; ++y) {
    const uint8_t* row = mask + static_cast<size_t>(y) * pitch;
    cur.clear();
    for (int x = 0; x < width;) {
      if (!row[x]) {
        ++x;
        continue;
      }
      const int x0 = x;
      while (x < width && row[x])
        ++x;
      const int label = static_cast<int>(parent.size());
      parent.push_back(label);
      cur.push_back({x0, x - 1, label});
      fg += x - x0;
    }
    size_t j = 0;
    for (const Run& r : cur) {
      while (j < prev.size() && prev[j].x1 < r.x0 - 1)
        ++j;
      for (size_t k = j; k < prev.size() && prev[k].x0 <= r.x1 + 1; ++k) {
        const int a = find_root(parent, r.label), b = find_root(parent, prev[k].label);
        if (a != b)
          parent[std::max(a, b)] = std::min(a, b);
      }
      all.push_back(r);
      run_row.push_back(y);
    }
    prev.swap(cur);
  }
  if (foreground)
    *foreground = fg;
  // Roots are the smallest label of their component, i.e. its first run in raster order.
  std::vector<int> slot(parent.size(), -1);
  std::vector<Blob> found;
  for (size_t i = 0; i < all.size(); ++i) {
    const Run& r = all[i];
    const int root = find_root(parent, r.label);
    if (slot[root] < 0) {
      slot[root] = static_cast<int>(found.size());
      Blob b;
      b.x = r.x0;
      b.y = run_row[i];
      b.width = 0;  // used as x-max + 1 until the end
      b.height = 0; // used as y-max + 1
      found.push_back(b);
    }
    Blob& b = found[slot[root]];
    b.x = std::min(b.x, r.x0);
    b.width = std::max(b.width, r.x1 + 1);
    b.height = std::max(b.height, run_row[i] + 1);
    b.area += r.x1 - r.x0 + 1;
  }
  for (Blob& b : found) {
    b.width -= b.x;
    b.height -= b.y;
    if (b.area >= min_area)
      blobs->push_back(b);
  }
}

uint32_t auto_min_area(int width, int height) {
  const uint64_t area = static_cast<uint64_t>(std::max(width, 0)) * std::max(height, 0);
  return std::max<uint32_t>(25, static_cast<uint32_t>(std::min<uint64_t>(area / 3000, UINT32_MAX)));
}

void keep_largest(std::vector<Blob>* blobs, size_t max_blobs) {
  if (blobs->size() <= max_blobs)
    return;
  std::vector<size_t> keep(blobs->size());
  for (size_t i = 0; i < keep.size(); ++i)
    keep[i] = i;
  std::stable_sort(keep.begin(), keep.end(),
                   [&](size_t a, size_t b) { return (*blobs)[a].area > (*blobs)[b].area; });
  keep.resize(max_blobs);
  std::sort(keep.begin(), keep.end());
  std::vector<Blob> out;
  out.reserve(max_blobs);
  for (size_t i : keep)
    out.push_back((*blobs)[i]);
  blobs->swap(out);
}

} // namespace cvis::ccl
