#include "cli/man_page.h"

#include <fmt/format.h>

namespace gpuplan::cli {
namespace {

// `text` as roff body text: backslashes and hyphens escaped, and a line that would start with a
// control character ('.' or '\'') protected.
std::string Roff(const std::string& text) {
  std::string s;
  bool line_start = true;
  for (char ch : text) {
    if (line_start && (ch == '.' || ch == '\''))
      s += "\\&";
    if (ch == '\\')
      s += "\\e";
    else if (ch == '-')
      s += "\\-";
    else
      s += ch;
    line_start = ch == '\n';
  }
  return s;
}

std::string FlagItem(const FlagDoc& f) {
  std::string names;
  for (const std::string& n : f.names)
    names += (names.empty() ? "" : ", ") + fmt::format("\\fB{}\\fR", Roff(n));
  const std::string value = f.value.empty() ? "" : fmt::format(" \\fI{}\\fR", Roff(f.value));
  return fmt::format(".TP\n{}{}\n{}\n", names, value, Roff(f.description));
}

std::string Synopsis(const CommandDoc& c) {
  std::string s = fmt::format("\\fB{}\\fR", Roff(CommandLine(c)));
  for (const std::string& p : c.positionals)
    s += fmt::format(" [\\fI{}\\fR]", Roff(p));
  if (!c.flags.empty())
    s += " [\\fIOPTIONS\\fR]";
  if (!c.subcommands.empty())
    s += " \\fICOMMAND\\fR";
  return s;
}

// One subsection per command below the root, depth first, in --help order.
void AddCommands(const CommandDoc& c, std::string* out) {
  for (const CommandDoc& sub : c.subcommands) {
    *out += fmt::format(".SS \"{}\"\n{}\n.PP\n{}\n", Roff(CommandLine(sub)), Synopsis(sub),
                        Roff(sub.description));
    for (const FlagDoc& f : sub.flags)
      *out += FlagItem(f);
    AddCommands(sub, out);
  }
}

}  // namespace

std::string ManPage(const CommandDoc& root, const std::string& version) {
  std::string s =
      fmt::format(".TH GPUPLAN 1 \"\" \"gpuplan {}\" \"User Commands\"\n", Roff(version));
  // The root's description starts "gpuplan: ..."; NAME gives what follows.
  std::string summary = root.description;
  if (summary.starts_with(root.name + ": "))
    summary = summary.substr(root.name.size() + 2);
  s += fmt::format(".SH NAME\ngpuplan \\- {}\n", Roff(FirstSentence(summary)));
  s += fmt::format(".SH SYNOPSIS\n{}\n", Synopsis(root));
  s += fmt::format(".SH DESCRIPTION\n{}\n", Roff(root.description));
  s += ".PP\nThe commands:\n";
  for (const CommandDoc& sub : root.subcommands)
    s += fmt::format(".TP\n\\fB{}\\fR\n{}\n", Roff(sub.name), Roff(sub.description));
  s += ".SH OPTIONS\n";
  for (const FlagDoc& f : root.flags)
    s += FlagItem(f);
  s += ".SH COMMANDS\n";
  AddCommands(root, &s);
  s += ".SH EXIT STATUS\n"
       ".TP\n0\nSuccess.\n"
       ".TP\n1\nA failure: the input is invalid or cannot be planned; the message names the "
       "file, line and field.\n"
       ".TP\n2\nA usage error: an unknown command or flag, or a bad value on the command line.\n";
  s += ".SH SEE ALSO\n"
       "The guides in the source tree's docs/ (plan.md, estimate.md, campaign.md, deploy.md, "
       "catalog\\-and\\-prices.md, http\\-api.md, python.md, install.md), and \\fBgpuplan\\fR "
       "\\fICOMMAND\\fR \\fB\\-\\-help\\fR.\n";
  return s;
}

}  // namespace gpuplan::cli
