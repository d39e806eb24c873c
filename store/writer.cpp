#include "writer.hpp"

#include <unistd.h>

#include <cstdio>
#include <random>

namespace cvis::store {

namespace {

using Clock = std::chrono::steady_clock;

template <typename Rows> void set_run_id(Rows* rows, const std::string& run_id) {
  for (auto& r : *rows)
    if (r.key.run_id.empty())
      r.key.run_id = run_id;
}

} // namespace

std::string new_run_id() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0')
    std::snprintf(host, sizeof host, "host");
  std::random_device rd;
  const uint64_t r = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  char buf[300];
  std::snprintf(buf, sizeof buf, "%s-%012llx", host,
                static_cast<unsigned long long>(r & 0xffffffffffffull));
  return buf;
}

Status Writer::open(const std::string& location, const WriterOptions& options,
                    std::function<void(const WriterEvent&)> on_event) {
  CVIS_RETURN_IF_ERROR(close(0));
  CVIS_RETURN_IF_ERROR(parse_location(location, &location_));
  opt_ = options;
  on_event_ = std::move(on_event);
  run_id_ = opt_.run_id.empty() ? new_run_id() : opt_.run_id;
  std::unique_ptr<Store> store;
  CVIS_RETURN_IF_ERROR(open_store(location_, Access::kWrite, &store));
  store_ = std::move(store);
  disk_.configure(opt_.queue_root, location_.display, run_id_, opt_.queue_max_bytes);
  uint64_t adopted = 0;
  Status st = disk_.adopt_orphans(&adopted);
  if (!st.ok()) {
    store_.reset();
    return st;
  }
  std::lock_guard<std::mutex> lk(mu_);
  stats_ = WriterStats();
  stats_.added_rows = adopted;
  stats_.disk_rows = disk_.rows();
  memory_.clear();
  memory_rows_ = 0;
  stop_ = refused_ = false;
  last_error_.clear();
  thread_ = std::thread([this] { run(); });
  return Status::Ok();
}

Status Writer::add(Batch&& batch) {
  if (batch.empty())
    return Status::Ok();
  set_run_id(&batch.descriptors, run_id_);
  set_run_id(&batch.shots, run_id_);
  set_run_id(&batch.boxes, run_id_);
  set_run_id(&batch.actions, run_id_);
  for (TrackRow& t : batch.tracks)
    if (t.run_id.empty())
      t.run_id = run_id_;
  std::unique_lock<std::mutex> lk(mu_);
  if (!thread_.joinable())
    return internal_error("store writer not open");
  done_cv_.wait(lk, [&] { return memory_rows_ < opt_.memory_rows || stop_; });
  if (stop_)
    return internal_error("store writer closing");
  const size_t n = batch.rows();
  if (memory_.empty())
    oldest_ = Clock::now();
  memory_.push_back(std::move(batch));
  memory_rows_ += n;
  stats_.added_rows += n;
  if (memory_.size() == 1 || memory_rows_ >= opt_.batch_rows)
    work_cv_.notify_all();
  return Status::Ok();
}

Status Writer::pending_error(uint64_t target) const {
  const uint64_t missing = target > stats_.stored_rows ? target - stats_.stored_rows : 0;
  std::string msg = std::to_string(missing) + " of " + std::to_string(target) +
                    " rows are not stored in '" + location_.display + "'";
  if (!last_error_.empty())
    msg += " (" + std::string(refused_ ? "refused: " : "unreachable: ") + last_error_ + ")";
  if (stats_.disk_rows > 0)
    msg += "; " + std::to_string(stats_.disk_rows) + " rows are kept in the disk queue '" +
           disk_.dir() + "' and are sent by the next writer of this store";
  return io_error(msg);
}

Status Writer::flush(int timeout_ms) {
  std::unique_lock<std::mutex> lk(mu_);
  if (!thread_.joinable())
    return Status::Ok();
  const uint64_t target = stats_.added_rows;
  ++flush_waiters_;
  work_cv_.notify_all();
  auto done = [&] { return stats_.stored_rows >= target || refused_; };
  if (timeout_ms < 0)
    done_cv_.wait(lk, done);
  else
    done_cv_.wait_for(lk, std::chrono::milliseconds(timeout_ms), done);
  --flush_waiters_;
  return stats_.stored_rows >= target ? Status::Ok() : pending_error(target);
}

Status Writer::close(int timeout_ms) {
  if (!thread_.joinable())
    return Status::Ok();
  Status st = flush(timeout_ms);
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    work_cv_.notify_all();
    done_cv_.notify_all();
  }
  thread_.join();
  {
    std::lock_guard<std::mutex> lk(mu_);
    // The thread moved what was left in memory to the disk queue (or lost it: the error says).
    if (!st.ok())
      st = pending_error(stats_.added_rows);
  }
  store_.reset();
  disk_.close();
  return st;
}

WriterStats Writer::stats() const {
  std::lock_guard<std::mutex> lk(mu_);
  return stats_;
}

void Writer::event(WriterEventKind kind, const std::string& message) {
  if (!on_event_)
    return;
  WriterEvent e{kind, message, 0};
  {
    std::lock_guard<std::mutex> lk(mu_);
    e.pending_rows = stats_.added_rows - stats_.stored_rows;
  }
  on_event_(e);
}

// The writer thread. Locked while deciding, unlocked while talking to the store or the disk.
void Writer::run() {
  const auto interval = std::chrono::milliseconds(opt_.commit_interval_ms);
  const auto retry = std::chrono::milliseconds(opt_.retry_ms);
  bool connected = true;
  std::string reported; // the failure last reported (one event per kind of failure)
  auto next_retry = Clock::now();
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    const auto now = Clock::now();
    const bool urgent = stop_ || flush_waiters_ > 0 || memory_rows_ >= opt_.batch_rows;
    const bool mem_due = !memory_.empty() && (urgent || now >= oldest_ + interval);
    const bool have_disk = !disk_.empty();
    if (stop_ && memory_.empty() && (!have_disk || !connected))
      break;
    if (!connected && now >= next_retry && (mem_due || have_disk) && !stop_) {
      lk.unlock();
      Status s = store_->reconnect();
      lk.lock();
      if (s.ok()) {
        connected = stats_.connected = true;
        if (!refused_ && !reported.empty()) { // after a refusal, the next attempt tells
          reported.clear();
          lk.unlock();
          event(WriterEventKind::kRecovered, "'" + location_.display +
                                                 "' takes rows again; sending the disk queue (" +
                                                 std::to_string(disk_.rows()) + " rows)");
          lk.lock();
        }
      } else {
        last_error_ = s.message();
        next_retry = now + retry;
      }
      continue;
    }
    // A batch from the disk queue (oldest first), or from memory.
    Batch batch;
    bool from_disk = false;
    if (connected && have_disk) {
      from_disk = true;
    } else if (mem_due) {
      while (!memory_.empty() && batch.rows() < opt_.batch_rows) {
        memory_rows_ -= memory_.front().rows();
        batch.append(std::move(memory_.front()));
        memory_.pop_front();
      }
      oldest_ = now;         // the rest waits at most another interval
      done_cv_.notify_all(); // room for add()
    } else {
      auto wake = Clock::time_point::max();
      if (!memory_.empty())
        wake = oldest_ + interval;
      if (!connected && (have_disk || !memory_.empty()))
        wake = std::min(wake, next_retry);
      if (wake == Clock::time_point::max())
        work_cv_.wait(lk);
      else
        work_cv_.wait_until(lk, wake);
      continue;
    }
    lk.unlock();
    if (from_disk) {
      Status s = disk_.front(&batch);
      if (!s.ok()) {
        event(WriterEventKind::kQueueDamaged, s.message());
        lk.lock();
        stats_.disk_rows = disk_.rows();
        continue;
      }
    }
    const uint64_t n = batch.rows();
    bool transient = true;
    Status s = connected ? store_->write(batch, &transient) : Status::Ok();
    const bool stored = connected && s.ok();
    Status queued = Status::Ok();
    bool full = false;
    if (stored && from_disk)
      queued = disk_.pop();
    else if (!stored && !from_disk)
      queued = disk_.push(batch, &full);
    lk.lock();
    if (stored) {
      stats_.stored_rows += n;
      stats_.batches++;
      refused_ = false;
    } else if (connected) {
      last_error_ = s.message();
      refused_ = !transient;
      connected = stats_.connected = false;
      next_retry = Clock::now() + retry;
    }
    stats_.disk_rows = disk_.rows();
    if (!queued.ok() && !stored && !from_disk) {
      // Neither the store nor the disk takes it: back to the front of memory (add() waits once
      // memory is full), tried again after the retry interval.
      memory_rows_ += n;
      if (memory_.empty())
        oldest_ = Clock::now();
      memory_.push_front(std::move(batch));
      next_retry = Clock::now() + retry;
    }
    done_cv_.notify_all();
    std::string what;
    WriterEventKind kind = WriterEventKind::kUnreachable;
    if (!stored && connected == false && !s.ok()) {
      kind = refused_ ? WriterEventKind::kRefused : WriterEventKind::kUnreachable;
      what = refused_ ? "'" + location_.display + "' refused a batch of " + std::to_string(n) +
                            " rows (kept in the disk queue '" + disk_.dir() +
                            "', tried again later): " + s.message()
                      : "cannot write to '" + location_.display + "' (" + s.message() +
                            "); rows wait in the disk queue '" + disk_.dir() + "' until it is back";
    }
    if (!queued.ok() && !stored) {
      kind = full ? WriterEventKind::kQueueFull : WriterEventKind::kUnreachable;
      what =
          queued.message() + (full ? ": the pipeline waits for '" + location_.display + "'" : "");
    }
    if (!what.empty() && what != reported) {
      reported = what;
      lk.unlock();
      event(kind, what);
      lk.lock();
    }
    if (!queued.ok() && !stored && !from_disk && stop_)
      break; // closing, and the rows can go nowhere: close() reports them
  }
}

} // namespace cvis::store
