#include "agent/proc_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "io/file_util.h"

namespace gpuplan::agent {
namespace {

std::vector<std::string_view> Lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const size_t nl = s.find('\n');
    out.push_back(s.substr(0, nl));
    if (nl == std::string_view::npos)
      break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
      ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t')
      ++i;
    if (i > start)
      out.push_back(s.substr(start, i - start));
  }
  return out;
}

// Counters above 2^56 (22 million years of jiffies, 2^65 bytes of sectors) are not from a real
// kernel; refusing them keeps sums and byte conversions from wrapping.
constexpr uint64_t kMaxCounter = uint64_t{1} << 56;

bool ToU64(std::string_view s, uint64_t* v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && end == s.data() + s.size() && *v <= kMaxCounter;
}

Status Bad(std::string_view name, size_t line, std::string_view what) {
  return Status::InvalidArgument(fmt::format("{}:{}: {}", name, line + 1, what));
}

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A partition's name is its disk's name plus digits ("sda1") or "p" and digits ("nvme0n1p2").
bool IsPartitionOf(std::string_view part, std::string_view disk) {
  if (part.size() <= disk.size() || part.substr(0, disk.size()) != disk)
    return false;
  std::string_view rest = part.substr(disk.size());
  if (rest[0] == 'p')
    rest.remove_prefix(1);
  return IsDigits(rest);
}

}  // namespace

Result<CpuStat> ParseCpuStat(std::string_view content, std::string_view name) {
  CpuStat out;
  bool saw_all = false;
  std::vector<std::string_view> lines = Lines(content);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string_view> f = Fields(lines[i]);
    if (f.empty() || f[0].substr(0, 3) != "cpu")
      continue;
    // user nice system idle iowait irq softirq steal are the first 8 of up to 10 columns; kernels
    // before 2.6.11 had fewer, which gpuplan does not support.
    if (f.size() < 9)
      return Bad(name, i, "expected at least 8 counters after \"" + std::string(f[0]) + "\"");
    uint64_t v[8];
    for (size_t k = 0; k < 8; ++k) {
      if (!ToU64(f[k + 1], &v[k])) {
        return Bad(name, i,
                   fmt::format("counter {} of \"{}\" is not a whole number from 0 to 2^56", k + 1,
                               f[0].substr(0, 16)));
      }
    }
    CpuTimes t{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    if (f[0] == "cpu") {
      out.all = t;
      saw_all = true;
    } else if (IsDigits(f[0].substr(3))) {
      out.cores.push_back(t);
    } else {
      return Bad(name, i, "unexpected CPU label (expected cpu or cpuN)");
    }
  }
  if (!saw_all)
    return Status::InvalidArgument(fmt::format("{}: no \"cpu\" line", name));
  return out;
}

Result<MemInfo> ParseMemInfo(std::string_view content, std::string_view name) {
  MemInfo out;
  bool total = false, available = false;
  std::vector<std::string_view> lines = Lines(content);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string_view> f = Fields(lines[i]);
    if (f.size() < 2)
      continue;
    uint64_t* target = nullptr;
    if (f[0] == "MemTotal:") {
      target = &out.total_kib;
      total = true;
    } else if (f[0] == "MemAvailable:") {
      target = &out.available_kib;
      available = true;
    } else {
      continue;
    }
    if (!ToU64(f[1], target) || (f.size() > 2 && f[2] != "kB")) {
      return Bad(name, i, fmt::format("expected \"{} N kB\"", f[0]));
    }
  }
  if (!total || !available) {
    return Status::InvalidArgument(fmt::format("{}: MemTotal or MemAvailable missing", name));
  }
  if (out.available_kib > out.total_kib) {
    return Status::InvalidArgument(fmt::format("{}: MemAvailable exceeds MemTotal", name));
  }
  return out;
}

Result<std::vector<DiskCounters>> ParseDiskStats(std::string_view content, std::string_view name) {
  std::vector<DiskCounters> all;
  std::vector<std::string_view> lines = Lines(content);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string_view> f = Fields(lines[i]);
    if (f.empty())
      continue;
    // major minor name, then 11 counters (more on newer kernels); iostats.rst field numbers:
    // 3 sectors read, 7 sectors written, 10 time doing I/O (ms).
    if (f.size() < 14)
      return Bad(name, i, "expected at least 14 fields (major minor name + 11)");
    uint64_t v[11];
    for (size_t k = 0; k < 11; ++k) {
      if (!ToU64(f[k + 3], &v[k])) {
        return Bad(name, i, fmt::format("field {} is not a whole number from 0 to 2^56", k + 4));
      }
    }
    DiskCounters d;
    d.name = std::string(f[2]);
    d.read_bytes = v[2] * 512;
    d.written_bytes = v[6] * 512;
    d.io_ms = v[9];
    all.push_back(std::move(d));
  }
  std::vector<DiskCounters> out;
  for (const DiskCounters& d : all) {
    const std::string_view n = d.name;
    // loop and ram devices are files and memory, and dm-/md devices repeat their members' I/O.
    if (n.rfind("loop", 0) == 0 || n.rfind("ram", 0) == 0 || n.rfind("dm-", 0) == 0 ||
        n.rfind("zram", 0) == 0) {
      continue;
    }
    const bool partition = std::any_of(all.begin(), all.end(), [&](const DiskCounters& other) {
      return IsPartitionOf(n, other.name);
    });
    if (!partition)
      out.push_back(d);
  }
  return out;
}

Result<std::vector<NetCounters>> ParseNetDev(std::string_view content, std::string_view name) {
  std::vector<NetCounters> out;
  std::vector<std::string_view> lines = Lines(content);
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t colon = lines[i].find(':');
    // The two header lines have "|" and no colon.
    if (colon == std::string_view::npos)
      continue;
    std::vector<std::string_view> label = Fields(lines[i].substr(0, colon));
    std::vector<std::string_view> f = Fields(lines[i].substr(colon + 1));
    if (label.size() != 1)
      return Bad(name, i, "expected one interface name before ':'");
    // 8 receive columns, then 8 transmit columns; bytes are the first of each.
    if (f.size() < 16)
      return Bad(name, i, "expected 16 counters after the interface name");
    NetCounters n;
    n.name = std::string(label[0]);
    if (!ToU64(f[0], &n.rx_bytes) || !ToU64(f[8], &n.tx_bytes)) {
      return Bad(name, i, "byte counters are not whole numbers");
    }
    if (n.name != "lo")
      out.push_back(std::move(n));
  }
  return out;
}

Result<ProcessCpu> ParseProcessStat(std::string_view content, std::string_view name) {
  // The command name (field 2) is in parentheses and may hold spaces and ')', so fields are
  // counted from the last ')'.
  const size_t paren = content.rfind(')');
  if (paren == std::string_view::npos) {
    return Status::InvalidArgument(fmt::format("{}: no \"(comm)\" field", name));
  }
  std::vector<std::string_view> f = Fields(content.substr(paren + 1));
  // After comm: state(3) ... utime(14) stime(15), i.e. indexes 0 and 11, 12 here.
  if (f.size() < 13 || f[0].size() != 1) {
    return Status::InvalidArgument(fmt::format("{}: expected state and 12 more fields", name));
  }
  ProcessCpu out;
  out.state = f[0][0];
  uint64_t utime = 0, stime = 0;
  if (!ToU64(f[11], &utime) || !ToU64(f[12], &stime)) {
    return Status::InvalidArgument(fmt::format("{}: utime/stime are not whole numbers", name));
  }
  out.cpu_ticks = utime + stime;
  return out;
}

namespace {
template <typename T, typename Parser>
Result<T> ReadAndParse(const std::string& path, Parser parse) {
  Result<std::string> content = io::ReadFile(path);
  if (!content.ok())
    return content.status();
  return parse(*content, path);
}
}  // namespace

Result<CpuStat> ProcReader::ReadCpu() const {
  return ReadAndParse<CpuStat>(root_ + "/stat", ParseCpuStat);
}
Result<MemInfo> ProcReader::ReadMemInfo() const {
  return ReadAndParse<MemInfo>(root_ + "/meminfo", ParseMemInfo);
}
Result<std::vector<DiskCounters>> ProcReader::ReadDiskStats() const {
  return ReadAndParse<std::vector<DiskCounters>>(root_ + "/diskstats", ParseDiskStats);
}
Result<std::vector<NetCounters>> ProcReader::ReadNetDev() const {
  return ReadAndParse<std::vector<NetCounters>>(root_ + "/net/dev", ParseNetDev);
}
Result<ProcessCpu> ProcReader::ReadProcess(int pid) const {
  return ReadAndParse<ProcessCpu>(fmt::format("{}/{}/stat", root_, pid), ParseProcessStat);
}

}  // namespace gpuplan::agent
