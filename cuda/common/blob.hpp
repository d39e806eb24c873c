// A connected foreground region of a mask: the one blob type of every method (cuda/ccl labels
// masks into blobs; bgsub and median3d report them).
#pragma once

namespace cvis {

// 8-connected component: its bounding box (x, y, width, height) and its pixel count.
struct Blob {
  int x = 0, y = 0, width = 0, height = 0;
  int area = 0;
  bool operator==(const Blob& o) const {
    return x == o.x && y == o.y && width == o.width && height == o.height && area == o.area;
  }
  bool operator!=(const Blob& o) const { return !(*this == o); }
};

} // namespace cvis
