// Small string helpers shared by the core (no I/O).
#ifndef GPUPLAN_INCLUDE_GPUPLAN_STRINGS_H_
#define GPUPLAN_INCLUDE_GPUPLAN_STRINGS_H_

#include <span>
#include <string>
#include <string_view>

namespace gpuplan::strings {

// ASCII lowercase copy.
std::string Lower(std::string_view s);
// Levenshtein distance (insert, delete, substitute cost 1).
int EditDistance(std::string_view a, std::string_view b);
// The name of `names` nearest to `typed` (ASCII case ignored) when it is close enough to be a
// typo of it: an edit distance of at most max(2, a third of `typed`'s length). "" when none is
// (or `typed` is one of `names`' spellings exactly). Ties go to the first of `names`.
//   Nearest("paln", {"plan", "wizard"}) == "plan"; Nearest("xyz", {"plan"}) == ""
std::string Nearest(std::string_view typed, std::span<const std::string> names);
// A number in its shortest readable form: 24 -> "24", 0.1667 -> "0.17", 31.25 -> "31.25".
std::string Num(double value);

}  // namespace gpuplan::strings

#endif  // GPUPLAN_INCLUDE_GPUPLAN_STRINGS_H_
