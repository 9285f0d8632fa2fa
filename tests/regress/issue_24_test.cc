// Issue 24: one truth per constant. These checks read the sources themselves, so the debt the
// issue removed cannot come back unseen:
//   - include/gpuplan/calibration.h gives no field a numeric value: data/calibration.csv is the
//     only source of the model's fitted values (io/calibration_csv.h fails on a missing row).
//   - the "ecs." prefix of instance names is handled in one place, NormalizeInstanceName in
//     gpuplan/catalog.h; src/ writes no prefix test, strip or concatenation of its own.
//   - no file in src/core is over 700 lines (the planner and the layout search were split into
//     rooms of one concept each: src/core/plan/, src/core/perf/layout_search_*.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in) << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "path:line: text" of every line of `path` whose code (comments stripped) matches `re`.
std::vector<std::string> CodeMatches(const std::string& path, const std::regex& re) {
  std::vector<std::string> hits;
  std::istringstream in(Read(path));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string code = line.substr(0, line.find("//"));
    if (std::regex_search(code, re))
      hits.push_back(path + ":" + std::to_string(n) + ": " + line);
  }
  return hits;
}

TEST(Issue24Test, CalibrationHeaderHasNoNumericDefaults) {
  // An initializer that is a number: "= 0.75", "= 1e-3", "{0.6}", "= -1".
  const std::regex number(R"((=|\{)\s*[-+]?(\d|\.\d))");
  const std::vector<std::string> hits = CodeMatches("include/gpuplan/calibration.h", number);
  std::string all;
  for (const std::string& h : hits)
    all += h + "\n";
  EXPECT_TRUE(hits.empty()) << "fitted values belong in data/calibration.csv:\n" << all;
}

TEST(Issue24Test, EcsPrefixIsHandledOnlyByNormalizeInstanceName) {
  // The bare prefix as a literal ("ecs." with nothing after the dot) or a strip of its four
  // characters: what the seven hand-written copies looked like.
  const std::regex prefix(R"("ecs\."|erase\(0, 4\))");
  // path -> why its literal is not an instance name prefix.
  const std::vector<std::pair<std::string, std::string>> allowed = {
      {"src/net/aliyun_client.cc", "the ECS API endpoint host, ecs.REGION.aliyuncs.com"},
  };
  std::string all;
  const std::filesystem::path root(GPUPLAN_SOURCE_DIR);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "src")) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h"))
      continue;
    const std::string path = std::filesystem::relative(entry.path(), root).generic_string();
    bool skip = false;
    for (const auto& [file, why] : allowed)
      skip = skip || path == file;
    if (skip)
      continue;
    for (const std::string& hit : CodeMatches(path, prefix))
      all += hit + "\n";
  }
  EXPECT_TRUE(all.empty()) << "use NormalizeInstanceName (gpuplan/catalog.h):\n" << all;
}

TEST(Issue24Test, NoCoreFileIsOver700Lines) {
  constexpr int kMaxLines = 700;
  std::string all;
  const std::filesystem::path root(GPUPLAN_SOURCE_DIR);
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "src" / "core")) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h"))
      continue;
    ++files;
    const std::string path = std::filesystem::relative(entry.path(), root).generic_string();
    const std::string text = Read(path);
    const auto lines = std::count(text.begin(), text.end(), '\n');
    if (lines > kMaxLines)
      all += path + ": " + std::to_string(lines) + " lines\n";
  }
  EXPECT_GT(files, 50) << "src/core not found under " << root;
  EXPECT_TRUE(all.empty()) << "split these into files of one concept each (docs/architecture.md):\n"
                           << all;
}

}  // namespace
}  // namespace gpuplan
