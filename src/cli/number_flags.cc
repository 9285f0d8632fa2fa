#include "cli/number_flags.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace gpuplan::cli {
namespace {

constexpr const char* kGuardName = "FINITE_NON_NEGATIVE";

// The bounds an option already had from CLI11 validators, which the guard takes over: CLI11
// checks them after the guard would (validators run in the order added) and lets NaN through,
// and its message for -inf under PositiveNumber prints 310 digits of DBL_MAX.
struct Bounds {
  double min = 0;
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  std::string text = ">= 0";  // how messages state them
  std::string help;           // the taken-over validator's description, for --help
};

// Reads the bounds of the CLI::Range validators on `opt` (they describe themselves as "FLOAT in
// [0 - 10]", CLI::PositiveNumber as "POSITIVE", CLI::NonNegativeNumber as "NONNEGATIVE") and
// switches those
// validators off, since the guard checks the same bounds first.
Bounds TakeBounds(CLI::Option* opt) {
  Bounds b;
  for (int i = 0;; ++i) {
    CLI::Validator* v = nullptr;
    try {
      v = opt->get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      return b;
    }
    const std::string name = v->get_name();
    const std::string d = v->get_description();
    const size_t at = d.find(" in [");
    const size_t dash = d.find(" - ", at == std::string::npos ? 0 : at);
    if (name == "POSITIVE" || d == "POSITIVE") {
      b = Bounds{};
      b.min_exclusive = true;
      b.text = "> 0";
      b.help = d;
      v->active(false);
    } else if (name == "NONNEGATIVE" || d == "NONNEGATIVE") {
      b = Bounds{};
      b.help = d;
      v->active(false);
    } else if (at != std::string::npos && dash != std::string::npos && d.back() == ']') {
      char* end = nullptr;
      const double lo = std::strtod(d.c_str() + at + 5, &end);
      const double hi = std::strtod(d.c_str() + dash + 3, &end);
      b = Bounds{};
      b.min = lo;
      b.max = hi;
      b.text = "in " + d.substr(at + 4);
      b.help = d;
      v->active(false);
    }
  }
}

void Guard(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    // CLI11 appends the validators' descriptions: "FLOAT:FLOAT in [0 - 10]".
    const std::string full = opt->get_type_name();
    const std::string type = full.substr(0, full.find(':'));
    if (type != "FLOAT" && type != "INT" && type != "UINT")
      continue;
    Bounds b = TakeBounds(opt);
    // A count (INT, UINT) is never negative, and an option with bounds has them checked here. A
    // FLOAT option without bounds keeps its command's own message for a negative value, which
    // states the real range ("--ttft-ms: expected a time above 0 and at most 3600000 ms").
    const bool own_negative_check = type == "FLOAT" && b.help.empty();
    if (own_negative_check)
      b.min = -std::numeric_limits<double>::infinity();
    opt->check(CLI::Validator(
        [b, own_negative_check](std::string& value) -> std::string {
          if (std::optional<std::string> why =
                  NumberFlagProblem(value, b.text, /*allow_negative=*/own_negative_check))
            return *why;
          const double v = std::strtod(value.c_str(), nullptr);
          if (v < b.min || (b.min_exclusive && v == b.min) || v > b.max)
            return fmt::format("expected a number {}, got {}", b.text, value);
          return "";
        },
        b.help, kGuardName));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    Guard(*sub);
}

}  // namespace

std::optional<std::string> NumberFlagProblem(std::string_view text, std::string_view range,
                                             bool allow_negative) {
  const std::string s(text);
  if (s.empty())
    return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0')
    return std::nullopt;  // not a number: CLI11's conversion says so
  std::string want = ">= 0";
  if (!range.empty())
    want = range[0] == '[' ? "in " + std::string(range) : std::string(range);
  // strtod gives HUGE_VAL for "1e999": an overflow is not a finite number either.
  if (!std::isfinite(v) || (errno == ERANGE && std::fabs(v) > 1))
    return fmt::format("expected a finite number {}, got {}", want, s);
  if (v < 0 && !allow_negative)
    return fmt::format("expected a number {}, got {}", want, s);
  return std::nullopt;
}

void GuardNumberOptions(CLI::App& app) { Guard(app); }

}  // namespace gpuplan::cli
