#include "search.hpp"

#include <algorithm>

namespace cvis::store {

namespace {

// Rows read from the store and handed to a set at a time.
constexpr size_t kLoadRows = 1 << 16;

// Reads the selected rows with after < id <= up_to into `set`, kLoadRows at a time; `each`
// (optional) runs after every piece.
Status load(Store* store, const Filter& filter, int64_t after, int64_t up_to,
            cedd::DescriptorSet* set, StreamHandle stream, size_t* rows,
            const std::function<Status()>& each = nullptr) {
  std::vector<uint8_t> packed;
  std::vector<int64_t> ids;
  packed.reserve(kLoadRows * cedd::kPackedBytes);
  ids.reserve(kLoadRows);
  Status st;
  auto flush = [&]() {
    if (ids.empty())
      return Status::Ok();
    CVIS_RETURN_IF_ERROR(set->append(packed.data(), ids.data(), ids.size(), stream));
    *rows += ids.size();
    packed.clear();
    ids.clear();
    return each ? each() : Status::Ok();
  };
  Status read = store->for_each_descriptor(
      filter, after, up_to, /*levels_only=*/true, [&](const DescriptorRow& r) {
        uint8_t p[cedd::kPackedBytes] = {};
        for (int i = 0; i < kLevels; ++i) {
          const int bit = 3 * i;
          const uint32_t v = static_cast<uint32_t>(r.levels[i] & 7u) << (bit & 7);
          p[bit >> 3] |= static_cast<uint8_t>(v);
          if (v > 0xffu)
            p[(bit >> 3) + 1] |= static_cast<uint8_t>(v >> 8);
        }
        packed.insert(packed.end(), p, p + cedd::kPackedBytes);
        ids.push_back(r.id);
        if (ids.size() == kLoadRows)
          st = flush();
        return st.ok();
      });
  CVIS_RETURN_IF_ERROR(read);
  CVIS_RETURN_IF_ERROR(st);
  return flush();
}

Status make_set(const SearchOptions& options, Backend* backend,
                std::unique_ptr<cedd::DescriptorSet>* set, StreamHandle* stream) {
  CVIS_RETURN_IF_ERROR(resolve_backend(options.backend, backend));
  Status st;
  *set = cedd::make_descriptor_set(*backend, &st);
  CVIS_RETURN_IF_ERROR(st);
  CVIS_RETURN_IF_ERROR((*set)->configure(options.params));
  if (*backend == Backend::kCuda)
    CVIS_RETURN_IF_ERROR(stream_create(stream));
  return Status::Ok();
}

// Hits (ids) -> results with their rows, in rank order.
Status fill(Store* store, const std::vector<cedd::SearchHit>& hits,
            std::vector<SearchResult>* results) {
  results->clear();
  std::vector<int64_t> ids;
  for (const cedd::SearchHit& h : hits)
    ids.push_back(h.id);
  std::vector<DescriptorRow> rows;
  CVIS_RETURN_IF_ERROR(store->descriptors_by_id(ids, &rows));
  for (const cedd::SearchHit& h : hits) {
    auto it = std::lower_bound(rows.begin(), rows.end(), h.id,
                               [](const DescriptorRow& r, int64_t id) { return r.id < id; });
    if (it == rows.end() || it->id != h.id)
      continue; // deleted since it was loaded
    results->push_back({cedd::tanimoto_distance(h.similarity), h.similarity, *it});
  }
  return Status::Ok();
}

} // namespace

Searcher::~Searcher() {
  release();
}

void Searcher::release() {
  set_.reset();
  if (stream_)
    stream_destroy(stream_);
  stream_ = nullptr;
  store_.reset();
}

Status Searcher::open(const std::string& location, const Filter& filter,
                      const SearchOptions& options) {
  release();
  filter_ = filter;
  loaded_ = 0;
  CVIS_RETURN_IF_ERROR(open_store(location, Access::kRead, &store_));
  Status st = make_set(options, &backend_, &set_, &stream_);
  if (st.ok())
    st = refresh();
  if (!st.ok())
    release();
  return st;
}

Status Searcher::refresh() {
  if (!store_)
    return internal_error("searcher not open");
  int64_t settled = 0;
  CVIS_RETURN_IF_ERROR(store_->settled_last_id(&settled));
  if (settled <= loaded_)
    return Status::Ok();
  size_t rows = 0;
  CVIS_RETURN_IF_ERROR(load(store_.get(), filter_, loaded_, settled, set_.get(), stream_, &rows));
  loaded_ = settled;
  return Status::Ok();
}

Status Searcher::search(const uint8_t* levels, int k, std::vector<SearchResult>* results) {
  CVIS_RETURN_IF_ERROR(refresh());
  std::vector<cedd::SearchHit> hits;
  CVIS_RETURN_IF_ERROR(set_->search(levels, k, &hits, stream_));
  return fill(store_.get(), hits, results);
}

Status Searcher::row(int64_t id, DescriptorRow* row) {
  if (!store_)
    return internal_error("searcher not open");
  std::vector<DescriptorRow> rows;
  CVIS_RETURN_IF_ERROR(store_->descriptors_by_id({id}, &rows));
  if (rows.empty())
    return io_error("'" + store_->location().display + "' has no descriptor row " +
                    std::to_string(id));
  *row = rows[0];
  return Status::Ok();
}

Status search_once(const std::string& location, const Filter& filter, const uint8_t* levels, int k,
                   const SearchOptions& options, std::vector<SearchResult>* results, size_t* rows) {
  *rows = 0;
  if (k < 1 || k > cedd::kMaxSearchK)
    return invalid_argument("k must be within 1.." + std::to_string(cedd::kMaxSearchK));
  std::unique_ptr<Store> store;
  CVIS_RETURN_IF_ERROR(open_store(location, Access::kRead, &store));
  Backend backend = Backend::kCpu;
  std::unique_ptr<cedd::DescriptorSet> set;
  StreamHandle stream = nullptr;
  Status st = make_set(options, &backend, &set, &stream);
  std::vector<cedd::SearchHit> best;
  if (st.ok() && backend == Backend::kCpu) {
    // A chunk at a time: rank it, keep the k best so far, forget the chunk.
    st = load(store.get(), filter, 0, -1, set.get(), stream, rows, [&]() {
      std::vector<cedd::SearchHit> hits;
      CVIS_RETURN_IF_ERROR(set->search(levels, k, &hits, stream));
      best.insert(best.end(), hits.begin(), hits.end());
      std::sort(best.begin(), best.end(), cedd::ranks_before);
      if (best.size() > static_cast<size_t>(k))
        best.resize(static_cast<size_t>(k));
      set->clear();
      return Status::Ok();
    });
  } else if (st.ok()) {
    st = load(store.get(), filter, 0, -1, set.get(), stream, rows);
    if (st.ok())
      st = set->search(levels, k, &best, stream);
  }
  if (st.ok())
    st = fill(store.get(), best, results);
  set.reset();
  if (stream)
    stream_destroy(stream);
  return st;
}

Status read_row(const std::string& location, int64_t id, DescriptorRow* row) {
  std::unique_ptr<Store> store;
  CVIS_RETURN_IF_ERROR(open_store(location, Access::kRead, &store));
  std::vector<DescriptorRow> rows;
  CVIS_RETURN_IF_ERROR(store->descriptors_by_id({id}, &rows));
  if (rows.empty())
    return io_error("'" + store->location().display + "' has no descriptor row " +
                    std::to_string(id));
  *row = rows[0];
  return Status::Ok();
}

} // namespace cvis::store
