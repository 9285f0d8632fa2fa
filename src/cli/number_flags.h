// One check for every number given on the command line: CLI11 reads "nan", "inf" and "-3" into
// a double or int, and a range check (`x < min || x > max`) lets NaN through, so `--epochs nan`
// planned a job of no hours and `--max-polls -3` polled forever (issue 32).
#ifndef GPUPLAN_SRC_CLI_NUMBER_FLAGS_H_
#define GPUPLAN_SRC_CLI_NUMBER_FLAGS_H_

#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace gpuplan::cli {

// Why `text`, the value of a numeric option, is refused: "expected a finite number >= 0, got
// nan" (with `range` "[0 - 10]" as "expected a finite number in [0 - 10], got inf", with "> 0"
// as "... > 0 ..."), or "expected a number >= 0, got -3"; nullopt when it is a finite number
// >= 0 (or any finite number, with `allow_negative`) or not a number at all (CLI11's own
// conversion then names the option and the type).
std::optional<std::string> NumberFlagProblem(std::string_view text, std::string_view range = "",
                                             bool allow_negative = false);

// Adds that check to every option of `app` and of all its subcommands, recursively, whose value
// is a number (CLI11 type FLOAT, INT or UINT; positionals too). No gpuplan option takes a
// non-finite value, and no count (INT, UINT) a negative one; a FLOAT option without a CLI11
// range leaves a negative value to its command, whose message states the real range (every
// such command checks it; tests/cli/number_flags_test.cc). The option's own CLI::Range (or
// PositiveNumber,
// NonNegativeNumber) is checked by the same validator, so every message has one form:
// "--instances: expected a number in [1 - 10000], got 0". Call once, after every command is
// added.
void GuardNumberOptions(CLI::App& app);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_NUMBER_FLAGS_H_
