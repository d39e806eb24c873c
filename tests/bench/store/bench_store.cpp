// bench_store: rows per second into a store from N concurrent writers (each its own Writer and
// connection, as N pipelines each with a cvisstore or cudacedd index-location have), the rows a
// CEDD pipeline writes: one 144-byte descriptor per frame (and per region with --per-frame).
//
//   bench_store [--db LOCATION] [--writers 1,2,4,8] [--rows 50000] [--per-frame 1]
//               [--commit-ms 1000] [--out FILE]
//
// Without --db: a new SQLite file in /tmp, removed at the end.
// Per writer count: every writer adds `rows` rows as fast as add() takes them (frames of
// `per-frame` rows, its own stream names, so no key collides), then flushes; the time from the
// first add to the last flush is the figure. Checked: every writer's flush succeeds and the
// store then holds exactly the rows written (read back per stream). For PostgreSQL, run it on a
// throw-away server: scripts/pg-scratch.sh run -- bench_store --db '$CVIS_PG_URI' (no --fast:
// the server's fsync and synchronous_commit stay on, as on a real server).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "store/store.hpp"
#include "store/writer.hpp"

namespace {

using namespace cvis::store;

struct Options {
  std::string db, out;
  std::vector<int> writers = {1, 2, 4, 8};
  long rows = 50000;
  int per_frame = 1;
  int commit_ms = 1000;
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "bench_store: %s\n", msg.c_str());
  std::exit(1);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--db") {
      o.db = value();
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--writers") {
      o.writers.clear();
      const std::string v = value();
      for (size_t p = 0; p < v.size();) {
        const size_t c = v.find(',', p);
        o.writers.push_back(std::atoi(v.substr(p, c - p).c_str()));
        p = c == std::string::npos ? v.size() : c + 1;
      }
    } else if (a == "--rows") {
      o.rows = std::atol(value().c_str());
    } else if (a == "--per-frame") {
      o.per_frame = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--commit-ms") {
      o.commit_ms = std::max(1, std::atoi(value().c_str()));
    } else {
      die("unknown argument " + a +
          " (--db LOCATION --writers A,B --rows N --per-frame N --commit-ms N --out FILE)");
    }
  }
  return o;
}

Batch frame_rows(const std::string& stream, int64_t frame, int per_frame) {
  Batch b;
  b.descriptors.resize(static_cast<size_t>(per_frame));
  for (int r = 0; r < per_frame; ++r) {
    DescriptorRow& d = b.descriptors[static_cast<size_t>(r)];
    d.key = {stream, "", frame, r};
    d.pts = frame * 33333333;
    d.roi_id = r == 0 ? -1 : r;
    d.roi_type = r == 0 ? "" : "track";
    d.w = 640;
    d.h = 480;
    for (int i = 0; i < kLevels; ++i)
      d.levels[i] = static_cast<uint8_t>((frame * 31 + i * 7 + r) % 8);
  }
  return b;
}

struct Result {
  int writers = 0;
  long rows = 0;
  double seconds = 0, rows_per_s = 0;
};

} // namespace

int main(int argc, char** argv) {
  Options opt = parse(argc, argv);
  std::string temp;
  if (opt.db.empty()) {
    char tmpl[] = "/tmp/bench-store-XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0)
      die("cannot make a temporary file");
    close(fd);
    unlink(tmpl);
    temp = opt.db = std::string(tmpl) + ".db";
  }
  Location loc;
  if (!parse_location(opt.db, &loc).ok())
    die("bad --db");
  std::vector<Result> results;
  static std::atomic<int> run_id{0};
  for (int n : opt.writers) {
    const std::string tag =
        "bench" +
        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000) +
        "-" + std::to_string(run_id++) + "-w" + std::to_string(n);
    const long frames = opt.rows / opt.per_frame;
    std::vector<Writer> writers(static_cast<size_t>(n));
    WriterOptions wo;
    wo.commit_interval_ms = opt.commit_ms;
    for (Writer& w : writers) {
      const cvis::Status st = w.open(opt.db, wo);
      if (!st.ok())
        die(st.message());
    }
    std::atomic<int> failed{0};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < n; ++t)
      threads.emplace_back([&, t] {
        Writer& w = writers[static_cast<size_t>(t)];
        const std::string stream = tag + "-" + std::to_string(t);
        cvis::Status st;
        for (long f = 0; st.ok() && f < frames; ++f)
          st = w.add(frame_rows(stream, f, opt.per_frame));
        if (st.ok())
          st = w.flush(-1);
        if (!st.ok()) {
          std::fprintf(stderr, "bench_store: writer %d: %s\n", t, st.message().c_str());
          failed++;
        }
      });
    for (auto& th : threads)
      th.join();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (Writer& w : writers)
      (void)w.close(-1);
    if (failed)
      die("a writer failed");
    // Every row is there, once.
    std::unique_ptr<Store> reader;
    if (!open_store(opt.db, Access::kRead, &reader).ok())
      die("cannot read back");
    for (int t = 0; t < n; ++t) {
      Filter f;
      f.stream = tag + "-" + std::to_string(t);
      long count = 0;
      if (!reader
               ->for_each_descriptor(f, 0, -1, true,
                                     [&](const DescriptorRow&) {
                                       ++count;
                                       return true;
                                     })
               .ok() ||
          count != frames * opt.per_frame)
        die("stream " + f.stream + " holds " + std::to_string(count) + " rows, not " +
            std::to_string(frames * opt.per_frame));
    }
    const long total = frames * opt.per_frame * n;
    results.push_back({n, total, secs, total / secs});
    std::printf("writers %d: %ld rows in %.2f s: %.0f rows/s\n", n, total, secs, total / secs);
    std::fflush(stdout);
  }
  std::printf("\nbench_store: %s; %d row(s) per frame; commit interval %d ms\n",
              loc.display.c_str(), opt.per_frame, opt.commit_ms);
  std::printf("%8s %10s %9s %12s\n", "writers", "rows", "seconds", "rows/s");
  for (const Result& r : results)
    std::printf("%8d %10ld %9.2f %12.0f\n", r.writers, r.rows, r.seconds, r.rows_per_s);
  if (!opt.out.empty()) {
    FILE* f = std::fopen(opt.out.c_str(), "w");
    if (!f)
      die("cannot write " + opt.out);
    std::fprintf(f, "# bench_store; store\t%s\n# rows_per_frame\t%d\n", loc.display.c_str(),
                 opt.per_frame);
    std::fprintf(f, "writers\trows\tseconds\trows_per_s\n");
    for (const Result& r : results)
      std::fprintf(f, "%d\t%ld\t%.3f\t%.1f\n", r.writers, r.rows, r.seconds, r.rows_per_s);
    std::fclose(f);
  }
  if (!temp.empty())
    for (const char* suffix : {"", "-wal", "-shm"})
      unlink((temp + suffix).c_str());
  return 0;
}
