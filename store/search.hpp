// Search over a store's descriptors: the nearest stored rows to a descriptor by Tanimoto distance,
// ranked by cuda/cedd's search (CPU or GPU: the same result, the same tie rule: higher similarity
// first, then the smaller row id). What `cvis-cedd search` calls, and what an application calls.
//
//   Searcher       cached: the rows selected by a filter are loaded once (into GPU memory with the
//                  CUDA backend) and extended by the rows stored since, at every search. For a
//                  program that searches again and again (a service).
//   search_once    one search, streamed: with the CPU backend memory does not grow with the
//                  number of rows (they are ranked a chunk at a time).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cedd/cedd_search.hpp"
#include "common/backend.hpp"
#include "store/store.hpp"

namespace cvis::store {

struct SearchResult {
  double distance = 0.0;   // LIRE's scale: 0 (the same descriptor) .. 100
  double similarity = 0.0; // the Tanimoto coefficient ranked by, 0..1
  DescriptorRow row;
};

struct SearchOptions {
  Backend backend = Backend::kAuto; // kAuto: CUDA when a device is usable, else the CPU
  cedd::SearchParams params;
};

class Searcher {
public:
  Searcher() = default;
  ~Searcher();
  Searcher(const Searcher&) = delete;
  Searcher& operator=(const Searcher&) = delete;

  // Opens the store for reading and loads the rows of `filter`. Errors: the store's (open_store),
  // kNoDevice for kCuda without a device.
  Status open(const std::string& location, const Filter& filter, const SearchOptions& options);
  // Loads the rows stored since the last load (every search does it first).
  Status refresh();
  // The k (1..cedd::kMaxSearchK) rows nearest to `levels` (144 values 0..7), nearest first.
  Status search(const uint8_t* levels, int k, std::vector<SearchResult>* results);
  // A stored row by id (to search with a stored descriptor). kIoError when there is none.
  Status row(int64_t id, DescriptorRow* row);

  size_t size() const { return set_ ? set_->size() : 0; }
  Backend backend() const { return backend_; }
  Store* store() { return store_.get(); }

private:
  void release();

  std::unique_ptr<Store> store_;
  std::unique_ptr<cedd::DescriptorSet> set_;
  Filter filter_;
  Backend backend_ = Backend::kCpu;
  StreamHandle stream_ = nullptr;
  int64_t loaded_ = 0; // every selected row with id <= loaded_ is in the set
};

// One search of the rows of `filter` in the store at `location`; *rows gets how many were ranked.
Status search_once(const std::string& location, const Filter& filter, const uint8_t* levels, int k,
                   const SearchOptions& options, std::vector<SearchResult>* results, size_t* rows);

// The stored row `id` of the store at `location`.
Status read_row(const std::string& location, int64_t id, DescriptorRow* row);

} // namespace cvis::store
