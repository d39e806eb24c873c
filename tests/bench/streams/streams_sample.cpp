// What the many-streams benchmark samples besides frames: this process's host memory, the GPUs'
// utilisation and memory through nvidia-smi (absent on a machine without the NVIDIA driver), and
// the stacks of stalled streaming threads.
#include <dirent.h>
#include <execinfo.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "streams.hpp"

namespace streams {
namespace {

// nvidia-smi's index of CUDA device `device`, -1 when it cannot be told: CUDA_VISIBLE_DEVICES
// renumbers the devices CUDA sees (by index or by UUID; UUIDs are not matched here).
int smi_index(int device) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible || !*visible)
    return device;
  std::stringstream in(visible);
  std::string item;
  for (int i = 0; std::getline(in, item, ','); ++i) {
    if (i != device)
      continue;
    if (item.empty())
      return -1;
    for (char c : item)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return -1;
    return std::atoi(item.c_str());
  }
  return -1;
}

} // namespace

double rss_mib() {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f)
    return -1.0;
  char line[256];
  double kb = -1.0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %lf kB", &kb) == 1)
      break;
  fclose(f);
  return kb < 0 ? -1.0 : kb / 1024.0;
}

double process_gpu_mib() {
  FILE* f = popen("nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits "
                  "2>/dev/null",
                  "r");
  if (!f)
    return -1.0;
  long pid = 0;
  double mib = 0, found = -1.0;
  while (fscanf(f, "%ld, %lf", &pid, &mib) == 2)
    if (pid == static_cast<long>(getpid())) // a line per GPU the process uses
      found = (found < 0 ? 0.0 : found) + mib;
  pclose(f);
  return found;
}

double cpu_seconds() {
  struct rusage u {};
  if (getrusage(RUSAGE_SELF, &u) != 0)
    return 0.0;
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

bool gpu_sample(double* gpu, double* dec, double* mem_mib) {
  FILE* f = popen("nvidia-smi --query-gpu=utilization.gpu,utilization.decoder,memory.used "
                  "--format=csv,noheader,nounits 2>/dev/null",
                  "r");
  if (!f)
    return false;
  double a = -1, b = -1, m = -1;
  const int n = fscanf(f, "%lf, %lf, %lf", &a, &b, &m);
  pclose(f);
  if (n != 3)
    return false;
  *gpu = a, *dec = b, *mem_mib = m;
  return true;
}

bool gpu_sample_devices(int devices, std::vector<GpuSample>* out) {
  out->assign(static_cast<size_t>(devices), GpuSample{});
  FILE* f = popen("nvidia-smi --query-gpu=index,utilization.gpu,utilization.decoder,memory.used "
                  "--format=csv,noheader,nounits 2>/dev/null",
                  "r");
  if (!f)
    return false;
  std::vector<GpuSample> by_index;
  int index = 0;
  GpuSample s;
  while (fscanf(f, "%d, %lf, %lf, %lf", &index, &s.gpu, &s.dec, &s.mem_mib) == 4)
    if (index >= 0 && index < 1024) {
      if (static_cast<size_t>(index) >= by_index.size())
        by_index.resize(static_cast<size_t>(index) + 1);
      by_index[static_cast<size_t>(index)] = s;
    }
  pclose(f);
  bool any = false;
  for (int d = 0; d < devices; ++d) {
    const int i = smi_index(d);
    if (i >= 0 && static_cast<size_t>(i) < by_index.size() && by_index[i].mem_mib >= 0) {
      (*out)[static_cast<size_t>(d)] = by_index[static_cast<size_t>(i)];
      any = true;
    }
  }
  return any;
}

// Stacks of stalled streaming threads: each named thread is signalled and writes its own
// backtrace (library + offset: addr2line against the same build resolves it).
namespace {

int g_stack_fd = -1;
std::atomic<int> g_stacks_done{0};

void write_stack(int) {
  void* frames[48];
  const int n = backtrace(frames, 48);
  char head[64];
  const int len =
      snprintf(head, sizeof head, "  -- tid %ld\n", static_cast<long>(syscall(SYS_gettid)));
  if (write(g_stack_fd, head, len) < 0) {
  }
  backtrace_symbols_fd(frames, n, g_stack_fd);
  g_stacks_done.fetch_add(1);
}

} // namespace

std::string thread_stacks(const std::vector<std::string>& names) {
  FILE* tmp = tmpfile();
  if (!tmp)
    return "";
  g_stack_fd = fileno(tmp);
  void* warm[2];
  backtrace(warm, 2); // loads libgcc's unwinder outside the handler
  struct sigaction sa = {}, old = {};
  sa.sa_handler = write_stack;
  sigaction(SIGUSR2, &sa, &old);
  std::string out;
  DIR* d = opendir("/proc/self/task");
  while (struct dirent* e = d ? readdir(d) : nullptr) {
    if (e->d_name[0] == '.')
      continue;
    char path[320], comm[32] = {};
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE* f = fopen(path, "r");
    if (!f)
      continue;
    if (!fgets(comm, sizeof comm, f))
      comm[0] = 0;
    fclose(f);
    comm[strcspn(comm, "\n")] = 0;
    if (std::find(names.begin(), names.end(), comm) == names.end())
      continue;
    const int before = g_stacks_done.load();
    fprintf(tmp, "  thread %s (%s)\n", comm, e->d_name);
    fflush(tmp);
    syscall(SYS_tgkill, getpid(), atoi(e->d_name), SIGUSR2);
    for (int i = 0; i < 100 && g_stacks_done.load() == before; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (d)
    closedir(d);
  sigaction(SIGUSR2, &old, nullptr);
  fflush(tmp);
  rewind(tmp);
  char buf[512];
  while (fgets(buf, sizeof buf, tmp))
    out += buf;
  fclose(tmp);
  return out;
}

} // namespace streams
