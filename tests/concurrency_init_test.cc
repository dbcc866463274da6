// Dispatch initializes once, even when 8 threads make the process's first
// calls at the same moment: HALNORM_TUNING_FILE is opened exactly once, the
// verbose tuning line printed once, and every call succeeds with the file's
// table in use. The BUILD target sets HALNORM_VERBOSE=dispatch; main writes
// a valid tuning file and points HALNORM_TUNING_FILE at it before anything
// dispatches. The first open of that file is held for 100 ms (by the fopen
// below), so a second initialization racing the first would open it again.
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/halnorm_c.h"
#include "runtime/tuning_file.h"
#include "tests/start_barrier.h"
#include "tests/test_tensors.h"
#include "tests/tuning_test_support.h"

namespace {

std::atomic<bool> counting{false};
std::atomic<int> tuning_file_opens{0};

// Counts (once counting) opens of HALNORM_TUNING_FILE; holds the first.
void SawOpen(const char* path) {
  const char* tuning_file = std::getenv("HALNORM_TUNING_FILE");
  if (!counting.load() || tuning_file == nullptr || std::strcmp(path, tuning_file) != 0) return;
  if (tuning_file_opens++ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

}  // namespace

// The runtime reads the tuning file with fopen: these wrap libc's.
extern "C" FILE* fopen(const char* path, const char* mode) {
  using Fopen = FILE* (*)(const char*, const char*);
  static const auto real = reinterpret_cast<Fopen>(dlsym(RTLD_NEXT, "fopen"));
  SawOpen(path);
  return real(path, mode);
}

extern "C" FILE* fopen64(const char* path, const char* mode) {
  using Fopen = FILE* (*)(const char*, const char*);
  static const auto real = reinterpret_cast<Fopen>(dlsym(RTLD_NEXT, "fopen64"));
  SawOpen(path);
  return real(path, mode);
}

namespace halnorm {
namespace {

constexpr int kThreads = 8;

int CountOf(const std::string& text, const std::string& what) {
  int count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) count++;
  return count;
}

TEST(ConcurrencyInitTest, FirstCallsRacingInitializeDispatchOnce) {
  testutil::StartBarrier start(kThreads);
  std::vector<int> codes(kThreads, -1);
  std::vector<std::thread> threads;
  testing::internal::CaptureStderr();
  counting = true;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      testutil::TestTensor x({16, 256}), y({16, 256});
      testutil::FillNormal(x, t);
      start.ArriveAndWait();
      codes[t] = halnorm_layer_norm_forward(x.view(), nullptr, nullptr, nullptr, y.view(), nullptr,
                                            nullptr);
    });
  }
  for (std::thread& thread : threads) thread.join();
  counting = false;
  const std::string printed = testing::internal::GetCapturedStderr();

  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(codes[t], HALNORM_OK) << "thread " << t;
  EXPECT_EQ(tuning_file_opens.load(), 1) << "HALNORM_TUNING_FILE opened more than once";
  const std::string source = std::string("tuning file ") + std::getenv("HALNORM_TUNING_FILE");
  EXPECT_EQ(halnorm_tuning_source(), source);
  EXPECT_EQ(CountOf(printed, "halnorm dispatch: tuning: " + source + "\n"), 1) << printed;
  EXPECT_EQ(CountOf(printed, "halnorm dispatch: layer_norm fwd"), kThreads) << printed;
}

}  // namespace
}  // namespace halnorm

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // No entries: dispatch falls back to the built-in table, but the file is
  // still read, checked (fingerprint) and named as the source.
  const std::string path =
      halnorm::testutil::WriteTestFile("init.tuning", halnorm::internal::TuningFile{}.ToText());
  setenv("HALNORM_TUNING_FILE", path.c_str(), 1);
  return RUN_ALL_TESTS();
}
