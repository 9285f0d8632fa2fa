#include "cli/command_tree.h"

#include <CLI/CLI.hpp>

namespace gpuplan::cli {
namespace {

FlagDoc DescribeFlag(const CLI::Option& o) {
  FlagDoc f;
  for (const std::string& n : o.get_lnames())
    f.names.push_back("--" + n);
  for (const std::string& n : o.get_snames())
    f.names.push_back("-" + n);
  if (o.get_type_size() != 0)
    f.value = o.get_type_name();
  f.description = o.get_description();
  return f;
}

CommandDoc Describe(const CLI::App& app, std::vector<std::string> path) {
  CommandDoc c;
  c.name = path.empty() ? app.get_name() : path.back();
  c.path = std::move(path);
  c.description = app.get_description();
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_positional())
      c.positionals.push_back(o->get_name());
    else
      c.flags.push_back(DescribeFlag(*o));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) {
         return !s->get_group().empty();  // CLI11 hides a subcommand with an empty group
       })) {
    std::vector<std::string> sub_path = c.path;
    sub_path.push_back(sub->get_name());
    c.subcommands.push_back(Describe(*sub, std::move(sub_path)));
  }
  return c;
}

}  // namespace

CommandDoc DescribeCommands(const CLI::App& app) { return Describe(app, {}); }

std::string CommandLine(const CommandDoc& command) {
  std::string line = "gpuplan";
  for (const std::string& p : command.path)
    line += " " + p;
  return line;
}

std::string FirstSentence(const std::string& text) {
  size_t end = text.size();
  for (const char* stop : {". ", "; ", ": "}) {
    if (size_t at = text.find(stop); at != std::string::npos && at < end)
      end = at;
  }
  std::string s = text.substr(0, end);
  while (!s.empty() && (s.back() == '.' || s.back() == ' '))
    s.pop_back();
  return s;
}

}  // namespace gpuplan::cli
