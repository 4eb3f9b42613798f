// A compile run in a forked child process, so that it can be abandoned. GCC
// and LLVM cannot be interrupted in-process (a large plan compiles for
// minutes), but a child can be killed: a Ctrl-C (the cancel flag,
// storage/budget.h) ends it within one poll of its pipe. The gccjit back end
// runs every compile so, the llvm back end its large ones (DESIGN.md, "Size
// limits and cancel").
#pragma once

#include <signal.h>

#include <functional>
#include <string>

namespace quelkit::jit {

// SIGHUP, SIGTERM and SIGQUIT held on the calling thread from construction to
// destruction, so that a signal ending the program waits until the compile's
// files are removed, and is raised again then (end_abandoned, or at the
// destructor's restore for one that arrived after the child's end).
class HeldSignals {
 public:
  HeldSignals();
  ~HeldSignals();
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;
  const sigset_t& before() const { return before_; }  // the mask the child runs with
  // A held signal that has arrived, taken (0 if none).
  int take();
  // Restores the mask, raises `sig` if it is one (the program's default ends
  // it there; a handler returns), then throws the cancel.
  [[noreturn]] void end_abandoned(int sig);

 private:
  sigset_t held_, before_;
};

struct ChildOutcome {
  bool finished = false;  // the child ran to its end; else it was killed (abandoned)
  int signal = 0;         // abandoned for this held signal; 0: for a cancel
  int status = 0;         // its wait status, when finished
  std::string out;        // what it wrote to its pipe
  std::string not_started;  // why there was no child (pipe or fork failed), else ""
  // "" when it exited 0; else why not, in words ("ended by signal 9").
  std::string failure() const;
};

// Runs work(fd) in a forked child, in its own process group (so a kill ends
// the assembler or linker it may start; a terminal's Ctrl-C reaches the
// parent only) that dies with the parent; work's return is its exit status,
// and it ends with _exit, so no stdio buffer or destructor runs twice. The
// parent reads what it writes to fd until its end, a cancel or a held signal:
// then the child's group is killed and reaped. Only what work calls runs in
// the child: no lock the parent's threads may hold at the fork.
ChildOutcome run_in_child(HeldSignals& held, const std::function<int(int fd)>& work);

}  // namespace quelkit::jit
