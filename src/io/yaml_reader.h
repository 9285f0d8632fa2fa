// Reads values out of a parsed YAML document with errors that name the file, line, column and
// field and say what was expected ("job.yaml:4:10: field \"seq_len\": expected a whole number
// from 1 to 1048576, got \"long\""); unknown keys get a "did you mean". The first error sticks:
// read everything, then check status(). Used by the workload and campaign files.
#ifndef GPUPLAN_SRC_IO_YAML_READER_H_
#define GPUPLAN_SRC_IO_YAML_READER_H_

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/enum_names.h"
#include "gpuplan/status.h"
#include "gpuplan/strings.h"
#include "gpuplan/workload.h"
#include "io/json_check.h"

namespace gpuplan::io {

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  const Status& status() const { return status_; }

  void Fail(const YAML::Node& node, const std::string& field, const std::string& what) {
    if (!status_.ok())
      return;
    const YAML::Mark mark = node.Mark();
    const int line = mark.is_null() ? 0 : mark.line + 1;
    const int col = mark.is_null() ? 0 : mark.column + 1;
    status_ = Status::InvalidArgument(
                  fmt::format("{}:{}:{}: field \"{}\": {}", file_, line, col, field, what))
                  .At(file_, line, col, field);
  }

  // The scalar text of `node` as the user wrote it (for "got ..." in messages).
  static std::string Got(const YAML::Node& node) {
    if (node.IsScalar())
      return "\"" + node.Scalar() + "\"";
    if (node.IsSequence())
      return "a list";
    if (node.IsMap())
      return "a mapping";
    return "nothing";
  }

  // Checks that `node` is a mapping whose keys are all in `allowed`; unknown keys get a "did
  // you mean".
  bool CheckMap(const YAML::Node& node, const std::string& field,
                const std::vector<std::string_view>& allowed) {
    if (!node.IsMap()) {
      Fail(node, field.empty() ? "(document)" : field,
           "expected a mapping of keys, got " + Got(node));
      return false;
    }
    // yaml-cpp keeps both entries of a repeated key and lookups see the first while the readers
    // iterate to the last, so a repeated key would silently win or lose (issue 32): refuse it.
    std::map<std::string, YAML::Mark> seen;
    for (const auto& kv : node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (auto [it, added] = seen.try_emplace(key, kv.first.Mark()); !added) {
        Fail(
            kv.first, field.empty() ? key : field + "." + key,
            fmt::format("duplicate key \"{}\" (first given at line {})", key, it->second.line + 1));
        return false;
      }
    }
    for (const auto& kv : node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end())
        continue;
      std::string best;
      int best_d = 1 << 20;
      for (std::string_view a : allowed) {
        const int d = strings::EditDistance(strings::Lower(key), a);
        if (d < best_d) {
          best_d = d;
          best = std::string(a);
        }
      }
      std::string msg = "unknown key \"" + key + "\"";
      if (best_d <= std::max<int>(2, static_cast<int>(key.size()) / 3)) {
        msg += "; did you mean \"" + best + "\"?";
      } else {
        msg += "; expected one of ";
        for (size_t i = 0; i < allowed.size(); ++i)
          msg += (i ? ", " : "") + std::string(allowed[i]);
      }
      const std::string full = field.empty() ? key : field + "." + key;
      Fail(kv.first, full, msg);
      return false;
    }
    return true;
  }

  std::optional<std::string> String(const YAML::Node& node, const std::string& field) {
    if (!node.IsScalar()) {
      Fail(node, field, "expected a text value, got " + Got(node));
      return std::nullopt;
    }
    return node.Scalar();
  }

  std::optional<double> Number(const YAML::Node& node, const std::string& field, double min,
                               double max, bool amount = false) {
    if (!node.IsScalar()) {
      Fail(node, field, "expected a number, got " + Got(node));
      return std::nullopt;
    }
    std::optional<double> v = ParseAmount(node.Scalar());
    if (v && !amount) {
      // Suffixes are for amounts of work only; plain numbers elsewhere.
      const char last = node.Scalar().back();
      if (!(last >= '0' && last <= '9') && last != '.')
        v.reset();
    }
    if (!v || *v < min || *v > max) {
      Fail(node, field,
           amount ? fmt::format("expected a positive amount like 100M, 2B or 1.5T (suffix K M B "
                                "T), got {}",
                                Got(node))
                  : fmt::format("expected a number from {} to {}, got {}", strings::Num(min),
                                strings::Num(max), Got(node)));
      return std::nullopt;
    }
    return v;
  }

  std::optional<int> Integer(const YAML::Node& node, const std::string& field, int min, int max) {
    std::optional<double> v = node.IsScalar() ? ParseAmount(node.Scalar()) : std::nullopt;
    if (v && node.IsScalar()) {
      const char last = node.Scalar().back();
      if (!(last >= '0' && last <= '9'))
        v.reset();
    }
    if (!v || *v != std::floor(*v) || *v < min || *v > max) {
      Fail(node, field,
           fmt::format("expected a whole number from {} to {}, got {}", min, max, Got(node)));
      return std::nullopt;
    }
    return static_cast<int>(*v);
  }

  std::optional<bool> Bool(const YAML::Node& node, const std::string& field) {
    if (node.IsScalar()) {
      const std::string v = strings::Lower(node.Scalar());
      if (v == "true" || v == "yes" || v == "on")
        return true;
      if (v == "false" || v == "no" || v == "off")
        return false;
    }
    Fail(node, field, "expected true or false, got " + Got(node));
    return std::nullopt;
  }

  template <typename E>
  std::optional<E> Enum(const YAML::Node& node, const std::string& field,
                        std::optional<E> (*parse)(std::string_view), std::string_view expected) {
    std::optional<std::string> s = String(node, field);
    if (!s)
      return std::nullopt;
    std::optional<E> v = parse(*s);
    if (!v)
      Fail(node, field, fmt::format("expected {}, got {}", expected, Got(node)));
    return v;
  }
  // One of the names of `names` (any case); the error lists them.
  template <typename E, size_t N>
  std::optional<E> Enum(const YAML::Node& node, const std::string& field,
                        const EnumNames<E, N>& names) {
    std::optional<std::string> s = String(node, field);
    if (!s)
      return std::nullopt;
    std::optional<E> v = ParseName(names, *s, NameCase::kIgnore);
    if (!v)
      Fail(node, field, fmt::format("expected {}, got {}", NameChoices(names), Got(node)));
    return v;
  }

  std::vector<std::string> StringList(const YAML::Node& node, const std::string& field) {
    std::vector<std::string> out;
    if (node.IsScalar()) {  // a single value is a one-element list
      out.push_back(node.Scalar());
      return out;
    }
    if (!node.IsSequence()) {
      Fail(node, field, "expected a list like [a, b], got " + Got(node));
      return out;
    }
    for (const YAML::Node& item : node) {
      if (std::optional<std::string> s = String(item, field))
        out.push_back(*s);
    }
    return out;
  }

  // A time zone as a UTC offset in hours ("+08:00", "UTC-5", "Asia/Shanghai"); `written` gets
  // the text as given.
  std::optional<double> TimeZone(const YAML::Node& node, const std::string& field,
                                 std::string& written) {
    std::optional<std::string> tz = String(node, field);
    if (!tz)
      return std::nullopt;
    written = *tz;
    std::optional<double> offset = ParseUtcOffset(*tz);
    if (!offset) {
      Fail(node, field,
           "expected a UTC offset (\"+08:00\", \"UTC-5\") or a zone without daylight saving "
           "time (\"Asia/Shanghai\", \"Asia/Singapore\", \"UTC\"), got " +
               Got(node));
    }
    return offset;
  }

 private:
  std::string file_;
  Status status_;
};

// Parses `text` as one document and hands its root to `read` (a function of the root node
// returning Result<T>). Text meant as JSON is held to JSON's rules first (yaml-cpp would take a
// trailing comma), and its depth and size are bounded before yaml-cpp builds a tree of it
// (issue 32); yaml-cpp's exceptions become errors naming file:line:column.
template <typename T, typename Read>
Result<T> ReadYamlDocument(std::string_view text, const std::string& file, Read&& read) {
  if (LooksLikeJson(text)) {
    if (Status s = CheckStrictJson(text, file); !s.ok())
      return s;
  } else if (Status s = CheckYamlFlowDepth(text, file); !s.ok()) {
    return s;
  }
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    return read(root);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(fmt::format("{}:{}:{}: malformed YAML: {}", file,
                                               e.mark.line + 1, e.mark.column + 1, e.msg))
        .At(file, e.mark.line + 1, e.mark.column + 1);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(file + ": malformed YAML: " + e.what()).At(file, 0, 0);
  }
}

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_YAML_READER_H_
