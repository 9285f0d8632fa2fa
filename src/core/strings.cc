#include "gpuplan/strings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

namespace gpuplan::strings {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitute});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Nearest(std::string_view typed, std::span<const std::string> names) {
  const std::string want = Lower(typed);
  const int limit = std::max(2, static_cast<int>(want.size()) / 3);
  std::string best;
  int best_distance = limit + 1;
  for (const std::string& name : names) {
    const int d = EditDistance(want, Lower(name));
    if (d == 0)
      return "";
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

std::string Num(double value) {
  char buf[64];
  // Two decimals at most, trailing zeros dropped.
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed, 2);
  std::string s(buf, ec == std::errc() ? end : buf);
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.')
    s.pop_back();
  return s == "-0" ? "0" : s;
}

}  // namespace gpuplan::strings
