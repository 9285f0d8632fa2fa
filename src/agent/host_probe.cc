#include "agent/host_probe.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace gpuplan::agent {
namespace {

constexpr size_t kSeqBlock = 1 << 20;  // 1 MiB sequential reads
constexpr size_t kRandBlock = 4096;    // 4 KiB random reads (a page; O_DIRECT alignment)

double Now() {
  using std::chrono::duration;
  return duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, AlignedFree>;

AlignedBuffer Aligned(size_t size) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, size) != 0)
    return nullptr;
  std::memset(p, 0x5a, size);
  return AlignedBuffer(static_cast<char*>(p));
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0)
      close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status WriteTestFile(const std::string& path, size_t bytes) {
  Fd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    return Status::IoError(
        fmt::format("{}: cannot create test file: {}", path, std::strerror(errno)));
  }
  AlignedBuffer buf = Aligned(kSeqBlock);
  if (!buf)
    return Status::IoError("out of memory");
  // Vary the content so compressing or deduplicating storage cannot shortcut the reads.
  std::mt19937_64 rng(42);
  for (size_t done = 0; done < bytes; done += kSeqBlock) {
    auto* words = reinterpret_cast<uint64_t*>(buf.get());
    for (size_t i = 0; i < kSeqBlock / 8; i += 512)
      words[i] = rng();
    const ssize_t w = write(fd.get(), buf.get(), kSeqBlock);
    if (w != static_cast<ssize_t>(kSeqBlock)) {
      return Status::IoError(fmt::format(
          "{}: write failed: {}", path, w < 0 ? std::strerror(errno) : "short write (disk full?)"));
    }
  }
  if (fsync(fd.get()) != 0) {
    return Status::IoError(fmt::format("{}: fsync failed: {}", path, std::strerror(errno)));
  }
  // Drop the file from the page cache, for the buffered fallback below.
  posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  return Status::Ok();
}

// Opens for reading with O_DIRECT when the filesystem allows it (tmpfs and some FUSE mounts do
// not), else buffered after asking the kernel to drop cached pages.
int OpenForRead(const std::string& path, bool* direct) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  *direct = fd >= 0;
  if (fd < 0) {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
      posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  }
  return fd;
}

double GflopsLoop(double seconds) {
  // Eight independent multiply-add chains keep the FP pipelines busy without memory traffic;
  // 2 flops per multiply-add. Compilers may not fuse or vectorise across chains here, so this is
  // a scalar figure: a comparison between machines, not a peak.
  double a[8] = {1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7};
  const double m = 0.999999, c = 1e-7;
  long long iterations = 0;
  const double start = Now();
  double elapsed = 0;
  do {
    for (int i = 0; i < 100000; ++i) {
      for (double& x : a)
        x = x * m + c;
    }
    iterations += 100000;
    elapsed = Now() - start;
  } while (elapsed < seconds);
  volatile double sink = a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
  (void)sink;
  return static_cast<double>(iterations) * 8 * 2 / elapsed / 1e9;
}

int OnlineCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return CPU_COUNT(&set);
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace

Result<DiskProbeResult> MeasureDiskRead(const std::string& path, const DiskProbeOptions& o) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return Status::NotFound(fmt::format("--path {}: {}", path, std::strerror(errno)));
  }
  DiskProbeResult r;
  std::string file = path;
  bool remove_after = false;
  size_t bytes = static_cast<size_t>(o.file_mib * 1024 * 1024) / kSeqBlock * kSeqBlock;
  if (bytes < kSeqBlock)
    bytes = kSeqBlock;
  if (S_ISDIR(st.st_mode)) {
    file = fmt::format("{}/.gpuplan-probe-{}.tmp", path, getpid());
    if (Status s = WriteTestFile(file, bytes); !s.ok()) {
      unlink(file.c_str());
      return s;
    }
    remove_after = true;
  } else if (S_ISREG(st.st_mode)) {
    bytes = std::min(bytes, static_cast<size_t>(st.st_size) / kSeqBlock * kSeqBlock);
    if (bytes < kSeqBlock) {
      return Status::InvalidArgument(fmt::format(
          "--path {}: file smaller than 1 MiB; give a larger file or a directory", path));
    }
  } else {
    return Status::InvalidArgument(
        fmt::format("--path {}: expected a directory or a regular file", path));
  }
  r.path = file;
  bool direct = false;
  Fd fd(OpenForRead(file, &direct));
  if (fd.get() < 0) {
    if (remove_after)
      unlink(file.c_str());
    return Status::IoError(fmt::format("{}: cannot open: {}", file, std::strerror(errno)));
  }
  r.direct_io = direct;

  // Sequential: 1 MiB reads from the start until the file or the time runs out.
  AlignedBuffer buf = Aligned(kSeqBlock);
  size_t read_bytes = 0;
  double start = Now();
  double elapsed = 0;
  for (size_t off = 0; off + kSeqBlock <= bytes; off += kSeqBlock) {
    const ssize_t n = pread(fd.get(), buf.get(), kSeqBlock, static_cast<off_t>(off));
    if (n <= 0)
      break;
    read_bytes += static_cast<size_t>(n);
    elapsed = Now() - start;
    if (elapsed > o.seconds)
      break;
  }
  elapsed = Now() - start;
  if (elapsed > 0)
    r.seq_read_mbs = static_cast<double>(read_bytes) / elapsed / 1e6;

  // Random: `random_threads` readers of aligned 4 KiB blocks for `seconds`.
  const size_t blocks = bytes / kRandBlock;
  std::atomic<long long> reads{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  const int nthreads = std::max(1, o.random_threads);
  threads.reserve(static_cast<size_t>(nthreads));
  start = Now();
  for (int t = 0; t < nthreads; ++t) {
    threads.emplace_back([&, t] {
      AlignedBuffer b = Aligned(kRandBlock);
      std::mt19937_64 rng(static_cast<uint64_t>(t) * 7919 + 1);
      std::uniform_int_distribution<size_t> pick(0, blocks - 1);
      long long mine = 0;
      while (Now() - start < o.seconds) {
        const off_t off = static_cast<off_t>(pick(rng) * kRandBlock);
        if (pread(fd.get(), b.get(), kRandBlock, off) != static_cast<ssize_t>(kRandBlock)) {
          failed = true;
          break;
        }
        ++mine;
      }
      reads += mine;
    });
  }
  for (std::thread& t : threads)
    t.join();
  elapsed = Now() - start;
  if (remove_after)
    unlink(file.c_str());
  if (failed && reads == 0) {
    return Status::IoError(fmt::format("{}: random reads failed", file));
  }
  r.random_read_iops = static_cast<double>(reads.load()) / elapsed;
  r.random_read_mbs = r.random_read_iops * kRandBlock / 1e6;
  r.note = fmt::format("{} MiB file, {}; random: {} threads x 4 KiB", bytes >> 20,
                       direct ? "O_DIRECT (page cache bypassed)"
                              : "buffered (O_DIRECT unsupported here; cached pages may inflate it)",
                       nthreads);
  return r;
}

CpuProbeResult MeasureCpu(double seconds) {
  CpuProbeResult r;
  r.online_cpus = OnlineCpus();
  r.gflops_one_core = GflopsLoop(seconds);
  std::vector<double> each(static_cast<size_t>(r.online_cpus), 0.0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < each.size(); ++i) {
    threads.emplace_back([&each, i, seconds] { each[i] = GflopsLoop(seconds); });
  }
  for (std::thread& t : threads)
    t.join();
  for (double g : each)
    r.gflops_all_cores += g;
  return r;
}

}  // namespace gpuplan::agent
