// Search: factory and the functions both backends share.
#include "cedd/cedd_search.hpp"

#include "cedd/cedd_search_core.hpp"
#include "cedd/cedd_search_internal.hpp"

namespace cvis::cedd {

double tanimoto_similarity(const uint8_t* a, const uint8_t* b) {
  uint8_t pa[kPackedBytes], pb[kPackedBytes];
  search::pack_levels(a, pa);
  search::pack_levels(b, pb);
  uint16_t ha[search::kHalfwords], hb[search::kHalfwords];
  uint32_t na = 0, nb = 0;
  search::planes_from_packed(pa, ha, &na);
  search::planes_from_packed(pb, hb, &nb);
  search::Planes wa, wb;
  search::words_of(ha, &wa);
  search::words_of(hb, &wb);
  return search::similarity(search::dot(wa, wb), na, nb & 0xffffu, nb >> 16);
}

bool ranks_before(const SearchHit& a, const SearchHit& b) {
  return search::before(a.similarity, a.id, b.similarity, b.id);
}

std::unique_ptr<DescriptorSet> make_descriptor_set(Backend backend, Status* status) {
  auto set = [status](Status s) {
    if (status != nullptr)
      *status = std::move(s);
  };
  switch (backend) {
  case Backend::kCpu:
    set(Status::Ok());
    return search::make_cpu_set();
  case Backend::kCuda:
#if defined(CVIS_HAVE_CUDA)
    if (cuda_device_count() <= 0) {
      set(Status(StatusCode::kNoDevice,
                 "cedd search: no usable CUDA device: " + cuda_device_description(0)));
      return nullptr;
    }
    set(Status::Ok());
    return search::make_cuda_set();
#else
    set(Status(StatusCode::kNoDevice, "cedd search: this build has no CUDA backend"));
    return nullptr;
#endif
  case Backend::kAuto:
    break;
  }
  set(invalid_argument("cedd search: make_descriptor_set needs kCpu or kCuda"));
  return nullptr;
}

namespace search {

void pack_levels(const uint8_t* levels, uint8_t* packed) {
  for (int i = 0; i < kPackedBytes; ++i)
    packed[i] = 0;
  for (int i = 0; i < 144; ++i) {
    const int bit = 3 * i;
    const uint32_t v = static_cast<uint32_t>(levels[i] & 7u) << (bit & 7);
    packed[bit >> 3] |= static_cast<uint8_t>(v & 0xffu);
    if (v > 0xffu)
      packed[(bit >> 3) + 1] |= static_cast<uint8_t>(v >> 8);
  }
}

Status check_k(int k) {
  if (k < 1 || k > kMaxSearchK)
    return invalid_argument("cedd search: k must be within 1.." + std::to_string(kMaxSearchK) +
                            ", not " + std::to_string(k));
  return Status::Ok();
}

} // namespace search

} // namespace cvis::cedd
