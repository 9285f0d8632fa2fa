#include "agent/nvidia_smi_telemetry.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <utility>

namespace gpuplan::agent {
namespace {

constexpr double kMibPerGib = 1024;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// One CSV row split on commas (nvidia-smi quotes nothing; no GPU name holds a comma).
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t comma = line.find(',');
    out.push_back(Trim(line.substr(0, comma)));
    if (comma == std::string_view::npos)
      return out;
    line.remove_prefix(comma + 1);
  }
}

// The non-empty lines of `csv`, each with its 1-based line number.
std::vector<std::pair<int, std::string_view>> Lines(std::string_view csv) {
  std::vector<std::pair<int, std::string_view>> out;
  int number = 0;
  while (!csv.empty()) {
    const size_t eol = csv.find('\n');
    ++number;
    if (std::string_view line = Trim(csv.substr(0, eol)); !line.empty())
      out.emplace_back(number, line);
    if (eol == std::string_view::npos)
      break;
    csv.remove_prefix(eol + 1);
  }
  return out;
}

bool NotAvailable(std::string_view v) {
  return v.empty() || v.front() == '[' || v == "N/A";  // "[N/A]", "[Not Supported]"
}

// A number, nullopt when nvidia-smi says it has none; an error for anything else.
Result<std::optional<double>> Number(std::string_view v, int line, std::string_view field) {
  if (NotAvailable(v))
    return std::optional<double>();
  double x = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size() || !(x >= 0)) {
    return Status::InvalidArgument(
        fmt::format("nvidia-smi line {}: {} \"{}\" is not a number", line, field, v));
  }
  return std::optional<double>(x);
}

// One row's columns; Num reads column i as a number and keeps the first error.
struct Row {
  int line = 0;
  std::vector<std::string_view> names;
  std::vector<std::string_view> v;
  Status error;

  std::optional<double> Num(size_t i) {
    Result<std::optional<double>> n = Number(v[i], line, names[i]);
    if (!n.ok()) {
      if (error.ok())
        error = n.status();
      return std::nullopt;
    }
    return *n;
  }
};

// Splits each line into the columns of `field_list` and hands them to `read`; sorted by index.
template <typename T, typename Read>
Result<std::vector<T>> ParseRows(std::string_view csv, std::string_view field_list, Read read) {
  std::vector<T> out;
  for (const auto& [number, line] : Lines(csv)) {
    Row row{number, Fields(field_list), Fields(line), Status::Ok()};
    if (row.v.size() != row.names.size()) {
      return Status::InvalidArgument(
          fmt::format("nvidia-smi line {}: {} fields, expected {} ({}): \"{}\"", number,
                      row.v.size(), row.names.size(), field_list, line.substr(0, 120)));
    }
    Result<T> r = read(row);
    if (!r.ok())
      return r.status();
    if (!row.error.ok())
      return row.error;
    out.push_back(std::move(*r));
  }
  std::sort(out.begin(), out.end(), [](const T& a, const T& b) { return a.index < b.index; });
  return out;
}

Result<int> Index(std::string_view v, int line) {
  int index = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), index);
  if (ec != std::errc() || end != v.data() + v.size() || index < 0) {
    return Status::InvalidArgument(
        fmt::format("nvidia-smi line {}: index \"{}\" is not a GPU index", line, v));
  }
  return index;
}

std::optional<int> ToInt(std::optional<double> x) {
  return x ? std::optional<int>(static_cast<int>(*x)) : std::nullopt;
}

class SmiTelemetry : public GpuTelemetry {
 public:
  explicit SmiTelemetry(SmiRunner run) : run_(std::move(run)) {}

  Result<std::vector<GpuInfo>> Devices() override {
    Result<std::string> out = Query(kSmiDeviceFields);
    if (!out.ok())
      return out.status();
    return ParseSmiDevices(*out);
  }

  Result<std::vector<GpuSample>> Sample() override {
    Result<std::string> out = Query(kSmiSampleFields);
    if (!out.ok())
      return out.status();
    return ParseSmiSamples(*out);
  }

 private:
  Result<std::string> Query(std::string_view fields) {
    return run_(fmt::format("--query-gpu={} --format=csv,noheader,nounits", fields));
  }
  SmiRunner run_;
};

}  // namespace

Result<std::vector<GpuInfo>> ParseSmiDevices(std::string_view csv) {
  return ParseRows<GpuInfo>(csv, kSmiDeviceFields, [](Row& row) -> Result<GpuInfo> {
    GpuInfo g;
    Result<int> index = Index(row.v[0], row.line);
    if (!index.ok())
      return index.status();
    g.index = *index;
    g.name = std::string(row.v[1]);
    g.memory_total_gib = row.Num(2).value_or(0) / kMibPerGib;
    g.pcie_gen_max = ToInt(row.Num(3));
    g.pcie_width_max = ToInt(row.Num(4));
    g.power_limit_w = row.Num(5);
    g.driver_version = NotAvailable(row.v[6]) ? "" : std::string(row.v[6]);
    return g;
  });
}

Result<std::vector<GpuSample>> ParseSmiSamples(std::string_view csv) {
  return ParseRows<GpuSample>(csv, kSmiSampleFields, [](Row& row) -> Result<GpuSample> {
    GpuSample s;
    Result<int> index = Index(row.v[0], row.line);
    if (!index.ok())
      return index.status();
    s.index = *index;
    const std::optional<double> util = row.Num(1);
    if (!util && row.error.ok()) {
      return Status::Unavailable(
          fmt::format("GPU {} utilisation: nvidia-smi reports \"{}\"", s.index, row.v[1]));
    }
    s.util_pct = util.value_or(0);
    s.mem_util_pct = row.Num(2).value_or(0);
    s.mem_used_gib = row.Num(3).value_or(0) / kMibPerGib;
    s.mem_total_gib = row.Num(4).value_or(0) / kMibPerGib;
    s.power_w = row.Num(5);
    s.power_limit_w = row.Num(6);
    return s;
  });
}

Result<std::string> RunNvidiaSmi(const std::string& args) {
  // popen runs /bin/sh, which finds nvidia-smi in PATH; `args` is one of our fixed queries.
  const std::string command = "nvidia-smi " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe)
    return Status::Unavailable("cannot start nvidia-smi (popen failed)");
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe))
    out.append(buffer, n);
  const int status = pclose(pipe);
  if (status == 0)
    return out;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code == 127)
    return Status::Unavailable("nvidia-smi not found in PATH (no NVIDIA driver installed?)");
  const std::string_view first = Trim(std::string_view(out).substr(0, out.find('\n')));
  return Status::Unavailable(
      fmt::format("nvidia-smi exited with {}: {}", code, first.empty() ? "no output" : first));
}

std::unique_ptr<GpuTelemetry> OpenNvidiaSmi(std::string* why, SmiRunner run) {
  auto smi = std::make_unique<SmiTelemetry>(std::move(run));
  Result<std::vector<GpuInfo>> devices = smi->Devices();
  if (!devices.ok()) {
    *why = devices.status().message();
    return nullptr;
  }
  return smi;
}

}  // namespace gpuplan::agent
