#include "tools/autotune/isolate.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace halnorm::autotune {
namespace {

// Moves all `size` bytes through read() or write(), across short transfers.
template <typename Transfer>
bool TransferAll(Transfer transfer, int fd, char* p, size_t size) {
  while (size > 0) {
    const ssize_t n = transfer(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, size -= n;
  }
  return true;
}

bool WriteAll(int fd, const void* data, size_t size) {
  return TransferAll([](int f, char* p, size_t n) { return write(f, p, n); }, fd,
                     const_cast<char*>(static_cast<const char*>(data)), size);
}

bool ReadAll(int fd, void* data, size_t size) {
  return TransferAll([](int f, char* p, size_t n) { return read(f, p, n); }, fd,
                     static_cast<char*>(data), size);
}

// The child's side: the result as [count][doubles][error length][error].
void SendResult(int fd, const CandidateResult& r) {
  const uint64_t count = r.seconds.size(), length = r.error.size();
  const bool ok = WriteAll(fd, &count, sizeof count) &&
                  WriteAll(fd, r.seconds.data(), count * sizeof(double)) &&
                  WriteAll(fd, &length, sizeof length) && WriteAll(fd, r.error.data(), length);
  _exit(ok ? 0 : 3);
}

bool ReceiveResult(int fd, CandidateResult& r) {
  uint64_t count = 0, length = 0;
  if (!ReadAll(fd, &count, sizeof count)) return false;
  r.seconds.resize(count);
  if (!ReadAll(fd, r.seconds.data(), count * sizeof(double))) return false;
  if (!ReadAll(fd, &length, sizeof length)) return false;
  r.error.resize(length);
  return ReadAll(fd, r.error.data(), length);
}

}  // namespace

CandidateResult RunIsolated(const std::function<CandidateResult()>& work) {
  int fds[2];
  if (pipe(fds) != 0) return {{}, absl::StrCat("pipe: ", std::strerror(errno))};
  std::fflush(nullptr);  // the child must not flush the parent's buffered output again
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return {{}, absl::StrCat("fork: ", std::strerror(errno))};
  }
  if (pid == 0) {
    close(fds[0]);
    SendResult(fds[1], work());
  }
  close(fds[1]);
  CandidateResult result;
  const bool received = ReceiveResult(fds[0], result);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    return {{}, absl::StrCat("crashed: ", strsignal(WTERMSIG(status)))};
  }
  if (!received || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return {{}, absl::StrCat("the child process failed (exit status ", WEXITSTATUS(status), ")")};
  }
  return result;
}

}  // namespace halnorm::autotune
