// Issue 32: two `prices import` runs at once lost one run's rows in 14 of 20 trials, because each
// read the cache, merged and renamed its copy over the other's. Writers now hold the cache's
// advisory lock from read to rename, so concurrent runs wait and every row survives.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "io/file_util.h"
#include "io/price_cache.h"
#include "testing/cli_runner.h"

extern char** environ;

namespace gpuplan {
namespace {

class PriceCacheConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpuplan-concurrency-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Starts the built gpuplan binary with `args` and a private cache; returns its pid.
  pid_t Spawn(const std::vector<std::string>& args) const {
    std::vector<std::string> env_strings = {"XDG_CACHE_HOME=" + dir_, "GPUPLAN_TODAY=2026-11-30",
                                            "HOME=" + dir_};
    std::vector<char*> envp;
    for (std::string& e : env_strings)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string binary = GPUPLAN_BINARY;
    std::vector<std::string> argv_strings = {binary};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_strings)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(rc, 0) << binary;
    return rc == 0 ? pid : -1;
  }

  std::string dir_;
};

// One spot observation (and its PAYG OriginPrice) in zone cn-hangzhou-<letter>.
std::string SpotFile(char zone) {
  return std::string(
             R"({"Currency":"CNY","SpotPrices":{"SpotPriceType":[{"ZoneId":"cn-hangzhou-)") +
         zone +
         R"(","InstanceType":"ecs.gn7i-c8g1.2xlarge","Timestamp":"2026-11-29T10:00:00Z","SpotPrice":3.4,"OriginPrice":9.5}]}})";
}

TEST_F(PriceCacheConcurrencyTest, Issue32TwentyConcurrentImportsAndAddsKeepEveryRow) {
  constexpr int kImports = 20;
  constexpr int kAdds = 4;
  std::vector<pid_t> pids;
  for (int i = 0; i < kImports; ++i) {
    const char zone = static_cast<char>('a' + i);
    const std::string file = dir_ + "/spot-" + zone + ".json";
    std::ofstream(file) << SpotFile(zone);
    pids.push_back(Spawn({"prices", "import", file}));
  }
  for (int i = 0; i < kAdds; ++i) {
    pids.push_back(
        Spawn({"prices", "add", "gn7i-c8g1.2xlarge", std::to_string(5 + i), "--region",
               "cn-shanghai", "--zone", "cn-shanghai-" + std::string(1, static_cast<char>('a' + i)),
               "--billing", "spot"}));
  }
  for (pid_t pid : pids) {
    ASSERT_GT(pid, 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  Result<io::PriceCache> cache = io::ReadPriceCache(dir_ + "/gpuplan");
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  std::set<std::string> rows;
  for (const Price& p : cache->prices)
    rows.insert(p.zone + " " + std::string(BillingName(p.billing)));
  // Every import's spot and PAYG row, and every add's row.
  EXPECT_EQ(rows.size(), static_cast<size_t>(2 * kImports + kAdds));
  for (int i = 0; i < kImports; ++i) {
    const std::string zone = std::string("cn-hangzhou-") + static_cast<char>('a' + i);
    EXPECT_TRUE(rows.count(zone + " spot")) << zone;
    EXPECT_TRUE(rows.count(zone + " payg")) << zone;
  }
  // No temporary file is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir_ + "/gpuplan")) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "prices.json" || name == "prices.json.lock") << name;
  }
}

// The same in one process: FileLock excludes threads too (flock locks open file descriptions).
TEST_F(PriceCacheConcurrencyTest, Issue32UpdatePriceCacheFromTwentyThreadsKeepsEveryRow) {
  constexpr int kThreads = 20;
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([this, i, &results] {
      results[static_cast<size_t>(i)] = io::UpdatePriceCache(dir_, [i](io::PriceCache* cache) {
        Price p;
        p.instance = "ecs.gn7i-c8g1.2xlarge";
        p.region = "cn-hangzhou";
        p.zone = "cn-hangzhou-" + std::to_string(i);
        p.billing = Billing::kSpot;
        p.currency = "CNY";
        p.amount = 1 + i;
        p.unit = "hour";
        p.as_of = "2026-11-30";
        p.origin = PriceSource::kImport;
        io::PriceCache update;
        update.prices.push_back(p);
        io::MergePriceCache(update, cache);
        return Status::Ok();
      });
    });
  }
  for (std::thread& t : threads)
    t.join();
  for (const Status& s : results)
    EXPECT_TRUE(s.ok()) << s.message();
  Result<io::PriceCache> cache = io::ReadPriceCache(dir_);
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  EXPECT_EQ(cache->prices.size(), static_cast<size_t>(kThreads));
}

TEST_F(PriceCacheConcurrencyTest, Issue32FailedUpdateLeavesTheCacheUnchanged) {
  ASSERT_TRUE(io::UpdatePriceCache(dir_, [](io::PriceCache*) { return Status::Ok(); }).ok());
  Result<std::string> before = io::ReadFile(io::PriceCachePath(dir_));
  ASSERT_TRUE(before.ok());
  Status s = io::UpdatePriceCache(dir_, [](io::PriceCache* cache) {
    cache->prices.emplace_back();
    return Status::InvalidArgument("no");
  });
  EXPECT_EQ(s.message(), "no");
  Result<std::string> after = io::ReadFile(io::PriceCachePath(dir_));
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*before, *after);
}

// Issue 32: the import of a Timestamp cut inside a multi-byte character printed nlohmann's
// "[json.exception.type_error.316] incomplete UTF-8 string" with no file or field.
TEST_F(PriceCacheConcurrencyTest, Issue32ImportOfBadTimestampNamesFileAndField) {
  cli::CliEnvironment env = testing::TestEnvironment();
  env.xdg_cache_home = dir_;
  env.today = "2026-11-30";
  const std::string file = dir_ + "/bad.json";
  std::ofstream(file)
      << R"({"Currency":"CNY","SpotPrices":{"SpotPriceType":[{"ZoneId":"cn-hangzhou-h","InstanceType":"ecs.gn7i-c8g1.2xlarge","Timestamp":"2026-11-2)"
      << "\xC7\x87"
      << R"(11:00:00Z","SpotPrice":3.4}]}})";
  testing::CliRun run = testing::RunGpuplan({"prices", "import", file}, env);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "gpuplan: error: import failed, cache unchanged: " + file +
                         ": SpotPrices.SpotPriceType[0].Timestamp: expected an RFC 3339 time like "
                         "2026-11-29T10:00:00Z, got \"2026-11-2\xC7\x87"
                         "11:00:00Z\"\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/gpuplan/prices.json"));
}

}  // namespace
}  // namespace gpuplan
