// The writer's bounded on-disk queue: batches the store could not take (server unreachable, file
// busy) wait here, one file per batch, oldest first.
//
// Layout: ROOT/<store>/<run_id>/NNNNNNNNNNNNNNNNNNNN-ROWS.batch, where <store> names the store
// (a hash of its password-free location) and <run_id> the writer. The run_id folder holds a
// `lock` file, locked (flock) while its writer lives; a folder whose lock nobody holds belongs to
// a writer that ended before it could send its queue (a crash, or an EOS while the server was
// away), and the next writer of the same store adopts its batches. Rows carry their own keys, so
// sending an adopted batch that was in fact stored already changes nothing.
//
// A batch file is written whole or not at all (written to a temporary name, synced, renamed).
// The folder is made at the first push, so a writer that never needs its queue leaves nothing.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "common/status.hpp"
#include "rows.hpp"

namespace cvis::store {

// $XDG_CACHE_HOME/cvis-store, else $HOME/.cache/cvis-store, else /var/tmp/cvis-store-<uid>.
std::string default_queue_root();

class DiskQueue {
public:
  DiskQueue() = default;
  ~DiskQueue() { close(); }
  DiskQueue(const DiskQueue&) = delete;
  DiskQueue& operator=(const DiskQueue&) = delete;

  // Sets where the queue lives (nothing is created yet); `max_bytes` bounds the batch files.
  void configure(const std::string& root, const std::string& store_display,
                 const std::string& run_id, uint64_t max_bytes);
  // Moves the batches of ended writers of the same store into this queue. Returns how many rows
  // were adopted through *rows.
  Status adopt_orphans(uint64_t* rows);

  // Appends `batch`. *full (and an error) when it would exceed max_bytes.
  Status push(const Batch& batch, bool* full);
  // The oldest batch; kIoError when its file cannot be read back (it is then set aside as
  // NAME.bad, not sent, and reported).
  Status front(Batch* batch);
  Status pop();

  bool empty() const { return entries_.empty(); }
  uint64_t rows() const { return rows_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t max_bytes() const { return max_bytes_; }
  const std::string& dir() const { return dir_; }

  // Releases the lock; removes the folder when the queue is empty (otherwise it stays, to be
  // adopted by the next writer of this store).
  void close();

private:
  struct Entry {
    std::string path;
    uint64_t rows = 0, bytes = 0;
  };
  Status make_dir();
  std::string next_name(uint64_t rows) const;

  std::string store_dir_, dir_;
  uint64_t max_bytes_ = 0;
  int lock_fd_ = -1;
  uint64_t seq_ = 0;
  std::deque<Entry> entries_;
  uint64_t rows_ = 0, bytes_ = 0;
};

} // namespace cvis::store
