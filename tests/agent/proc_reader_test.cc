#include "agent/proc_reader.h"

#include <gtest/gtest.h>

#include "testing/cli_runner.h"

namespace gpuplan::agent {
namespace {

using testing::TestDataPath;

TEST(ProcReaderTest, ReadsTheFakeTree) {
  ProcReader proc(TestDataPath("proc/t0"));
  Result<CpuStat> cpu = proc.ReadCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ(cpu->cores.size(), 2u);
  EXPECT_EQ(cpu->all.user, 1000u);
  EXPECT_EQ(cpu->all.Total(), 9600u);
  EXPECT_EQ(cpu->all.Busy(), 1500u);

  Result<MemInfo> mem = proc.ReadMemInfo();
  ASSERT_TRUE(mem.ok()) << mem.status().message();
  EXPECT_EQ(mem->total_kib, 16777216u);
  EXPECT_EQ(mem->available_kib, 12582912u);

  Result<std::vector<DiskCounters>> disks = proc.ReadDiskStats();
  ASSERT_TRUE(disks.ok()) << disks.status().message();
  // Partitions, loop and device-mapper devices would count the same bytes twice.
  ASSERT_EQ(disks->size(), 2u);
  EXPECT_EQ((*disks)[0].name, "sda");
  EXPECT_EQ((*disks)[0].read_bytes, 20000u * 512);
  EXPECT_EQ((*disks)[0].written_bytes, 40000u * 512);
  EXPECT_EQ((*disks)[0].io_ms, 1000u);
  EXPECT_EQ((*disks)[1].name, "nvme0n1");

  Result<std::vector<NetCounters>> nets = proc.ReadNetDev();
  ASSERT_TRUE(nets.ok()) << nets.status().message();
  ASSERT_EQ(nets->size(), 1u);  // lo is left out
  EXPECT_EQ((*nets)[0].name, "eth0");
  EXPECT_EQ((*nets)[0].rx_bytes, 1000000u);
  EXPECT_EQ((*nets)[0].tx_bytes, 2000000u);

  Result<ProcessCpu> p = proc.ReadProcess(4242);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->state, 'S');
  EXPECT_EQ(p->cpu_ticks, 150u);
}

TEST(ProcReaderTest, MissingFilesNameThePath) {
  ProcReader proc(TestDataPath("proc/does-not-exist"));
  Result<CpuStat> cpu = proc.ReadCpu();
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.status().message().find("proc/does-not-exist/stat"), std::string::npos);
  EXPECT_FALSE(proc.ReadProcess(99999999).ok());
}

TEST(ProcReaderTest, ReadsTheRealProcWhenPresent) {
  ProcReader proc;
  Result<CpuStat> cpu = proc.ReadCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_GE(cpu->cores.size(), 1u);
  ASSERT_TRUE(proc.ReadMemInfo().ok());
  ASSERT_TRUE(proc.ReadNetDev().ok());
}

TEST(ProcParsersTest, MalformedInputGivesFileLineAndExpectedForm) {
  struct Case {
    const char* name;
    Status (*parse)(std::string_view);
    const char* content;
    const char* want;
  };
  auto cpu = [](std::string_view s) { return ParseCpuStat(s, "stat").status(); };
  auto mem = [](std::string_view s) { return ParseMemInfo(s, "meminfo").status(); };
  auto disk = [](std::string_view s) { return ParseDiskStats(s, "diskstats").status(); };
  auto net = [](std::string_view s) { return ParseNetDev(s, "dev").status(); };
  auto proc = [](std::string_view s) { return ParseProcessStat(s, "1/stat").status(); };
  const Case kCases[] = {
      {"stat_no_cpu_line", cpu, "intr 1\n", "stat: no \"cpu\" line"},
      {"stat_short_line", cpu, "cpu 1 2 3\n", "stat:1: expected at least 8 counters after \"cpu\""},
      {"stat_not_number", cpu, "cpu 1 2 3 x 5 6 7 8\n",
       "stat:1: counter 4 of \"cpu\" is not a whole number"},
      {"stat_negative", cpu, "cpu 1 2 3 4 5 6 7 8\ncpu0 -1 2 3 4 5 6 7 8\n",
       "stat:2: counter 1 of \"cpu0\" is not a whole number"},
      {"stat_absurd_counter", cpu, "cpu 1 2 3 4 99999999999999999999 6 7 8\n",
       "stat:1: counter 5 of \"cpu\" is not a whole number"},
      {"stat_bad_label", cpu, "cpu 1 2 3 4 5 6 7 8\ncpuX 1 2 3 4 5 6 7 8\n",
       "stat:2: unexpected CPU label"},
      {"meminfo_missing", mem, "MemTotal: 10 kB\n", "meminfo: MemTotal or MemAvailable missing"},
      {"meminfo_bad_unit", mem, "MemTotal: 10 MB\nMemAvailable: 5 kB\n",
       "meminfo:1: expected \"MemTotal: N kB\""},
      {"meminfo_avail_gt_total", mem, "MemTotal: 10 kB\nMemAvailable: 50 kB\n",
       "MemAvailable exceeds MemTotal"},
      {"diskstats_short", disk, "8 0 sda 1 2 3\n", "diskstats:1: expected at least 14 fields"},
      {"diskstats_bad_field", disk, "8 0 sda 1 2 x 4 5 6 7 8 9 10 11\n",
       "diskstats:1: field 6 is not a whole number"},
      {"netdev_short", net, "eth0: 1 2 3\n", "dev:1: expected 16 counters"},
      {"netdev_two_names", net, "a b: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
       "dev:1: expected one interface name"},
      {"pid_stat_no_comm", proc, "1 bash S 1 2", "1/stat: no \"(comm)\" field"},
      {"pid_stat_short", proc, "1 (bash) S 1 2", "1/stat: expected state and 12 more fields"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Status s = c.parse(c.content);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(c.want), std::string::npos) << s.message();
  }
}

TEST(ProcParsersTest, CommandNamesWithParenthesesAndSpaces) {
  Result<ProcessCpu> p = ParseProcessStat(
      "77 (my (weird) cmd) R 1 77 77 0 -1 0 0 0 0 0 30 12 0 0 20 0 1 0 5 0 0", "77/stat");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->state, 'R');
  EXPECT_EQ(p->cpu_ticks, 42u);
}

}  // namespace
}  // namespace gpuplan::agent
