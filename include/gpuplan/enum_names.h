// Enum names: one table per enum, from which its Name, its Parse and the list of allowed values
// in error messages all come, so the three never disagree.
//
//   enum class Recompute { kNone, kSelective, kFull };
//   inline constexpr EnumNames<Recompute, 3> kRecomputeNames = {{
//       {Recompute::kNone, "none"},
//       {Recompute::kSelective, "selective"},
//       {Recompute::kFull, "full"}}};
//   NameOf(kRecomputeNames, Recompute::kFull);              // "full"
//   ParseName(kRecomputeNames, "FULL", NameCase::kIgnore);  // Recompute::kFull
//   NameChoices(kRecomputeNames);                           // "none, selective or full"
//
// A row of kind kAlias is another accepted spelling of a value named by an earlier row: it
// parses, is never printed as the name, and is listed in choices as "vllm (or sglang)". A row of
// kind kUnlisted is a name that parses and prints but is not offered in choices (a default such
// as dataset location "unknown").
//
// Thread safety: constexpr tables and pure functions.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_ENUM_NAMES_H_
#define GPUPLAN_INCLUDE_GPUPLAN_ENUM_NAMES_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

enum class NameKind { kName, kAlias, kUnlisted };

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
  NameKind kind = NameKind::kName;
};

template <typename E, std::size_t N>
using EnumNames = std::array<EnumName<E>, N>;

// Whether parsing compares names exactly or ignoring ASCII case.
enum class NameCase { kExact, kIgnore };

namespace internal {
constexpr char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
constexpr bool SameName(std::string_view a, std::string_view b, NameCase mode) {
  if (mode == NameCase::kExact)
    return a == b;
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i]))
      return false;
  }
  return true;
}
}  // namespace internal

// The name of `value` (its first row that is not an alias); "" when the table lacks it, which
// the round-trip tests rule out.
template <typename E, std::size_t N>
constexpr std::string_view NameOf(const EnumNames<E, N>& names, E value) {
  for (const EnumName<E>& n : names) {
    if (n.value == value && n.kind != NameKind::kAlias)
      return n.name;
  }
  return {};
}

// The value named `text` (a name or an alias); nullopt when no row matches.
template <typename E, std::size_t N>
constexpr std::optional<E> ParseName(const EnumNames<E, N>& names, std::string_view text,
                                     NameCase mode = NameCase::kExact) {
  for (const EnumName<E>& n : names) {
    if (internal::SameName(n.name, text, mode))
      return n.value;
  }
  return std::nullopt;
}

// The listed names (no aliases) in table order, e.g. for a CSV column's allowed values.
template <typename E, std::size_t N>
std::vector<std::string_view> NameList(const EnumNames<E, N>& names) {
  std::vector<std::string_view> out;
  for (const EnumName<E>& n : names) {
    if (n.kind == NameKind::kName)
      out.push_back(n.name);
  }
  return out;
}

// "a, b or c": the items joined for an error message or a help text.
inline std::string JoinChoices(const std::vector<std::string>& items, std::string_view sep = ", ",
                               std::string_view last = " or ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0)
      out += i + 1 == items.size() ? last : sep;
    out += items[i];
  }
  return out;
}

// The listed names of a table, each followed by its aliases: {"hf", "vllm (or sglang, lmdeploy)"}.
template <typename E, std::size_t N>
std::vector<std::string> NameItems(const EnumNames<E, N>& names) {
  std::vector<std::string> items;
  for (const EnumName<E>& n : names) {
    if (n.kind != NameKind::kName)
      continue;
    std::string item(n.name);
    std::string aliases;
    for (const EnumName<E>& a : names) {
      if (a.kind != NameKind::kAlias || a.value != n.value)
        continue;
      aliases += (aliases.empty() ? "" : ", ") + std::string(a.name);
    }
    if (!aliases.empty())
      item += " (or " + aliases + ")";
    items.push_back(std::move(item));
  }
  return items;
}

// The allowed values for an error message: "none, selective or full".
template <typename E, std::size_t N>
std::string NameChoices(const EnumNames<E, N>& names, std::string_view sep = ", ",
                        std::string_view last = " or ") {
  return JoinChoices(NameItems(names), sep, last);
}

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_ENUM_NAMES_H_
