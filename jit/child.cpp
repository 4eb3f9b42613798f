// A compile in a forked child (child.h): the signals it holds, the fork, the
// pipe the parent polls beside the cancel flag, the kill and the reaping.
#include "jit/child.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "storage/budget.h"

namespace quelkit::jit {

HeldSignals::HeldSignals() {
  sigemptyset(&held_);
  for (int sig : {SIGHUP, SIGTERM, SIGQUIT}) sigaddset(&held_, sig);
  pthread_sigmask(SIG_BLOCK, &held_, &before_);
}

HeldSignals::~HeldSignals() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

int HeldSignals::take() {
  const timespec now{0, 0};
  const int sig = sigtimedwait(&held_, nullptr, &now);
  return sig > 0 ? sig : 0;
}

void HeldSignals::end_abandoned(int sig) {
  pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  if (sig) raise(sig);
  harness::throw_cancelled();
}

std::string ChildOutcome::failure() const {
  if (!not_started.empty()) return not_started;
  if (!finished) return "abandoned";
  if (WIFSIGNALED(status)) return "ended by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "";
}

ChildOutcome run_in_child(HeldSignals& held, const std::function<int(int fd)>& work) {
  ChildOutcome r;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    r.finished = true;
    r.not_started = std::string("cannot make a pipe: ") + std::strerror(errno);
    return r;
  }
  const pid_t parent = getpid(), pid = fork();
  if (pid == 0) {
    close(fds[0]);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent ended before the line above
    pthread_sigmask(SIG_SETMASK, &held.before(), nullptr);
    _exit(work(fds[1]));
  }
  close(fds[1]);
  if (pid < 0) {
    r.not_started = std::string("cannot start the compile (fork): ") + std::strerror(errno);
    close(fds[0]);
    r.finished = true;
    return r;
  }
  bool ended = false;
  char buf[65536];
  while (!ended) {
    // A Ctrl-C interrupts poll (EINTR, whatever SA_RESTART says); the
    // timeout covers one that another thread took.
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 20) > 0) {
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n > 0) r.out.append(buf, size_t(n));
      else if (n == 0 || errno != EINTR) ended = true;
    }
    if ((r.signal = held.take()) != 0) break;
    if (harness::cancel_requested()) break;
  }
  if (!ended) {
    kill(-pid, SIGKILL);  // the child's group: the assembler or linker with it
    kill(pid, SIGKILL);   // (a child killed before its setpgid has no group yet)
  }
  while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  close(fds[0]);
  r.finished = ended;
  return r;
}

}  // namespace quelkit::jit
