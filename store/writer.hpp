// Writer: rows into a store from a thread that must never wait for it (a GStreamer streaming
// thread).
//
// add() only queues in memory. A writer thread owns the store's connection and writes what is
// queued as one batch (one transaction) when the oldest queued row is `commit_interval_ms` old,
// when `batch_rows` rows wait, on flush() and at close(). When the store cannot take a batch for
// a reason that may pass (server unreachable or restarting, connection lost, file busy), the
// batch goes to the bounded on-disk queue (disk_queue.hpp) and the thread reconnects every
// `retry_ms`; once connected, the disk queue is sent first, oldest batch first, then what waits
// in memory. Rows carry keys, so a batch sent again after a reconnection whose COMMIT had in fact
// succeeded is stored once. A batch the store refuses (no right to insert, a constraint) is kept
// on disk as well and reported; it is tried again with the next batches.
//
// Events (unreachable, reachable again, disk queue full, refused) are reported through a
// callback on the writer thread; messages hold the location's display form, never a password.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "disk_queue.hpp"
#include "store.hpp"

namespace cvis::store {

struct WriterOptions {
  int commit_interval_ms = 1000; // how long a row may wait in memory before its batch is written
  size_t batch_rows = 5000;      // a batch is written as soon as this many rows wait
  size_t memory_rows = 50000;    // add() waits while this many rows wait in memory
  std::string queue_root;        // the disk queue's root folder ("": default_queue_root())
  uint64_t queue_max_bytes = 1ull << 30;
  int retry_ms = 1000; // between connection attempts while the store is unreachable
  std::string run_id; // "": a new one (host name and a random number)
};

enum class WriterEventKind {
  kUnreachable, // the store could not take a batch; rows go to the disk queue
  kRecovered,   // connected again, the disk queue is sent
  kQueueFull,   // the disk queue is full: add() will wait once memory is full too
  kRefused,     // the store refused a batch (kept on disk, tried again later)
  kQueueDamaged // a queued batch could not be read back (set aside, see the message)
};

struct WriterEvent {
  WriterEventKind kind;
  std::string message;
  uint64_t pending_rows = 0; // rows not stored yet (memory and disk)
};

struct WriterStats {
  uint64_t added_rows = 0;  // rows given to add() (and adopted from ended writers' queues)
  uint64_t stored_rows = 0; // rows the store took (including keys it already had)
  uint64_t disk_rows = 0;   // rows in the disk queue now
  uint64_t batches = 0;     // transactions committed
  bool connected = true;
};

class Writer {
public:
  Writer() = default;
  ~Writer() { (void)close(0); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Opens the store for writing (errors are those of open_store: the store must be reachable
  // now, so that a bad location, password, database or role fails at once), adopts the disk
  // queues of ended writers of the same store, and starts the thread.
  Status open(const std::string& location, const WriterOptions& options,
              std::function<void(const WriterEvent&)> on_event = nullptr);
  bool is_open() const { return thread_.joinable(); }
  const std::string& run_id() const { return run_id_; }
  const Location& location() const { return location_; }

  // Queues the rows (never waits for the store; waits only while `memory_rows` rows are queued,
  // i.e. when neither the store nor the disk queue takes rows). Rows with an empty run_id get
  // the writer's.
  Status add(Batch&& batch);

  // Waits until every row added so far is stored. After `timeout_ms` (< 0: no limit), or at once
  // when the store refused a batch, returns an error that says how many rows are not stored, why,
  // and where they are kept.
  Status flush(int timeout_ms);
  // flush(timeout_ms), then stops the thread and closes the store. Rows not stored stay in the
  // disk queue (the error says where); the next writer of this store sends them.
  Status close(int timeout_ms);

  WriterStats stats() const;
  // Tests: the store, for hooks set while nothing is being written.
  Store* store_for_tests() { return store_.get(); }

private:
  void run();
  void event(WriterEventKind kind, const std::string& message); // unlocked
  Status pending_error(uint64_t target) const;                  // under mu_
  bool send(Batch* batch, bool from_disk);                      // writer thread, unlocked

  Location location_;
  WriterOptions opt_;
  std::string run_id_;
  std::function<void(const WriterEvent&)> on_event_;
  std::unique_ptr<Store> store_; // writer thread only (after open)
  DiskQueue disk_;               // writer thread only (after open)

  mutable std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::thread thread_;
  std::deque<Batch> memory_;
  uint64_t memory_rows_ = 0;
  std::chrono::steady_clock::time_point oldest_;
  WriterStats stats_;
  int flush_waiters_ = 0;
  bool stop_ = false;
  bool refused_ = false; // the last failure was a refusal
  std::string last_error_;
};

// A new run_id id: "<host>-<12 hex digits>".
std::string new_run_id();

} // namespace cvis::store
