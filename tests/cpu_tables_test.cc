// Which tuned cpu_tables a CPU reads (cpu_features.h): the key chain, and on
// x86 the host's keys from CPUID, checked against the kernel's /proc/cpuinfo.
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cpu_features.h"

#if defined(__x86_64__)
#include "runtime/x86_cpuid.h"
#endif

namespace halnorm::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CpuTablesTest, AKeyStandsForItselfThenEachLessSpecificKey) {
  EXPECT_THAT(CpuTableChain("amd_family25_model1"),
              ElementsAre("amd_family25_model1", "amd_family25", "amd"));
  EXPECT_THAT(CpuTableChain("amd_family23"), ElementsAre("amd_family23", "amd"));
  EXPECT_THAT(CpuTableChain("intel_model143"), ElementsAre("intel_model143", "intel"));
  EXPECT_THAT(CpuTableChain("amd"), ElementsAre("amd"));
  EXPECT_THAT(CpuTableChain("none"), IsEmpty());
  EXPECT_THAT(CpuTableChain(""), IsEmpty());
}

#if defined(__x86_64__)
// The first "<field> : value" line of /proc/cpuinfo, or "" without one.
std::string CpuinfoField(const std::string& field) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || line.rfind(field, 0) != 0) continue;
    const std::string name = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    if (name == field) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "";
}

// The row prefetch keys on the family (Zen 2 is 23, Zen 3 and 4 are 25), the
// tables on the AMD family or Intel model: CPUID's display values must be the
// kernel's.
TEST(CpuTablesTest, CpuidFamilyAndModelAreTheKernels) {
  const std::string family = CpuinfoField("cpu family"), model = CpuinfoField("model");
  if (family.empty() || model.empty()) GTEST_SKIP() << "no /proc/cpuinfo family or model";
  EXPECT_EQ(CpuFamily(), std::stoul(family));
  EXPECT_EQ(CpuDisplayModel(), std::stoul(model));
}

TEST(CpuTablesTest, TheHostReadsItsGenerationsTableThenItsVendors) {
  const std::string vendor = CpuinfoField("vendor_id");
  if (vendor == "AuthenticAMD") {
    const std::string family = "amd_family" + CpuinfoField("cpu family");
    EXPECT_THAT(HostCpuTables(),
                ElementsAre(family + "_model" + CpuinfoField("model"), family, "amd"));
  } else if (vendor == "GenuineIntel") {
    EXPECT_THAT(HostCpuTables(), ElementsAre("intel_model" + CpuinfoField("model"), "intel"));
  } else {
    EXPECT_THAT(HostCpuTables(), IsEmpty()) << vendor;
  }
}
#else
TEST(CpuTablesTest, OtherArchitecturesReadTheDefaultTablesOnly) {
  EXPECT_THAT(HostCpuTables(), IsEmpty());
}
#endif

}  // namespace
}  // namespace halnorm::internal
