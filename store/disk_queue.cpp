#include "disk_queue.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cvis::store {

namespace {

std::string errno_text() {
  return std::strerror(errno);
}

Status mkdirs(const std::string& path) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty())
      continue;
    if (mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST)
      return io_error("cannot create the disk queue folder '" + cur + "': " + errno_text());
  }
  return Status::Ok();
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.')
        names.push_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// "NNNN-ROWS.batch" -> rows; false for other names.
bool batch_rows(const std::string& name, uint64_t* rows) {
  const size_t dash = name.find('-');
  const size_t dot = name.rfind(".batch");
  if (dash == std::string::npos || dot == std::string::npos || dot + 6 != name.size())
    return false;
  *rows = std::strtoull(name.c_str() + dash + 1, nullptr, 10);
  return true;
}

uint64_t file_size(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// FNV-1a: a stable folder name for a store.
std::string store_hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

} // namespace

std::string default_queue_root() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/')
    return std::string(xdg) + "/cvis-store";
  const char* home = std::getenv("HOME");
  struct stat st;
  if (home && *home == '/' && stat(home, &st) == 0 && access(home, W_OK) == 0)
    return std::string(home) + "/.cache/cvis-store";
  return "/var/tmp/cvis-store-" + std::to_string(getuid());
}

void DiskQueue::configure(const std::string& root, const std::string& store_display,
                          const std::string& run_id, uint64_t max_bytes) {
  close();
  store_dir_ = (root.empty() ? default_queue_root() : root) + "/" + store_hash(store_display);
  dir_ = store_dir_ + "/" + run_id;
  max_bytes_ = max_bytes;
}

Status DiskQueue::make_dir() {
  if (lock_fd_ >= 0)
    return Status::Ok();
  CVIS_RETURN_IF_ERROR(mkdirs(dir_));
  // Locked under a temporary name, then renamed: an adopter never finds an unlocked "lock" of a
  // live writer.
  const std::string tmp = dir_ + "/lock.tmp";
  const std::string lock = dir_ + "/lock";
  lock_fd_ = open(tmp.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0)
    return io_error("cannot create '" + lock + "': " + errno_text());
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0 || rename(tmp.c_str(), lock.c_str()) != 0) {
    const std::string why = errno_text();
    ::close(lock_fd_);
    lock_fd_ = -1;
    return io_error("cannot lock the disk queue '" + dir_ + "': " + why);
  }
  return Status::Ok();
}

std::string DiskQueue::next_name(uint64_t rows) const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "/%020llu-%llu.batch", static_cast<unsigned long long>(seq_),
                static_cast<unsigned long long>(rows));
  return dir_ + buf;
}

Status DiskQueue::adopt_orphans(uint64_t* rows) {
  *rows = 0;
  const std::string own = dir_.substr(store_dir_.size() + 1);
  for (const std::string& name : list_dir(store_dir_)) {
    if (name == own)
      continue;
    const std::string other = store_dir_ + "/" + name;
    const int fd = open((other + "/lock").c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
      continue; // not a queue folder, or being made right now
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd); // a live writer's
      continue;
    }
    for (const std::string& f : list_dir(other)) {
      uint64_t n = 0;
      if (!batch_rows(f, &n))
        continue;
      Status st = make_dir();
      if (!st.ok()) {
        ::close(fd);
        return st;
      }
      const std::string to = next_name(n);
      if (rename((other + "/" + f).c_str(), to.c_str()) != 0) {
        ::close(fd);
        return io_error("cannot adopt '" + other + "/" + f + "': " + errno_text());
      }
      ++seq_;
      entries_.push_back({to, n, file_size(to)});
      rows_ += n;
      bytes_ += entries_.back().bytes;
      *rows += n;
    }
    // Left: the lock, maybe .tmp leftovers of an interrupted push and .bad files (kept).
    for (const std::string& f : list_dir(other))
      if (f == "lock" || f.find(".tmp") != std::string::npos)
        unlink((other + "/" + f).c_str());
    rmdir(other.c_str());
    ::close(fd);
  }
  return Status::Ok();
}

Status DiskQueue::push(const Batch& batch, bool* full) {
  *full = false;
  const std::string bytes = serialize(batch);
  if (bytes_ + bytes.size() > max_bytes_) {
    *full = true;
    return io_error("the disk queue '" + dir_ + "' is full (" + std::to_string(bytes_) +
                    " bytes, limit " + std::to_string(max_bytes_) + ")");
  }
  CVIS_RETURN_IF_ERROR(make_dir());
  const std::string path = next_name(batch.rows());
  const std::string tmp = dir_ + "/write.tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return io_error("cannot write to the disk queue '" + dir_ + "': " + errno_text());
  size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    off += static_cast<size_t>(n);
  }
  const bool ok = off == bytes.size() && fsync(fd) == 0;
  const std::string why = errno_text();
  ::close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    if (!ok && (errno == ENOSPC || errno == EDQUOT))
      *full = true;
    return io_error("cannot write to the disk queue '" + dir_ + "': " + why);
  }
  ++seq_;
  entries_.push_back({path, batch.rows(), bytes.size()});
  rows_ += batch.rows();
  bytes_ += bytes.size();
  return Status::Ok();
}

Status DiskQueue::front(Batch* batch) {
  if (entries_.empty())
    return internal_error("the disk queue is empty");
  const Entry& e = entries_.front();
  std::string bytes;
  if (FILE* f = std::fopen(e.path.c_str(), "rb")) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      bytes.append(buf, n);
    std::fclose(f);
  }
  if (deserialize(bytes, batch))
    return Status::Ok();
  const std::string bad = e.path + ".bad";
  rename(e.path.c_str(), bad.c_str());
  rows_ -= e.rows;
  bytes_ -= e.bytes;
  entries_.pop_front();
  return io_error("a batch of the disk queue could not be read back (" + std::to_string(e.rows) +
                  " rows set aside as '" + bad + "')");
}

Status DiskQueue::pop() {
  if (entries_.empty())
    return internal_error("the disk queue is empty");
  const Entry e = entries_.front();
  entries_.pop_front();
  rows_ -= e.rows;
  bytes_ -= e.bytes;
  if (unlink(e.path.c_str()) != 0)
    return io_error("cannot remove '" + e.path + "' from the disk queue: " + errno_text());
  return Status::Ok();
}

void DiskQueue::close() {
  if (lock_fd_ < 0)
    return;
  if (entries_.empty()) {
    unlink((dir_ + "/lock").c_str());
    rmdir(dir_.c_str());
    rmdir(store_dir_.c_str()); // only when no other writer's folder is left
  }
  ::close(lock_fd_);
  lock_fd_ = -1;
  entries_.clear();
  rows_ = bytes_ = 0;
}

} // namespace cvis::store
