// The parent's side of a profile: one child per back end (child.h), started
// under perf record (sampling) or valgrind --tool=callgrind (instruction
// counts), and what the tool wrote read back into a BackendProfile. Children
// write into a temporary directory; --keep copies it out before it goes.
#pragma once

#include <string>
#include <vector>

#include "profile/aggregate.h"
#include "profile/options.h"

namespace quelkit::profile {

// A fresh $TMPDIR/quelkit-profile-XXXXXX ($TMPDIR unset: /tmp; path empty if
// it could not be made), removed with everything in it.
struct TempDir {
  std::string path;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// Ctrl-C, SIGTERM or SIGHUP while profiling: recorded (stop_signal), the
// running tool is asked to stop, and the profile returns 128 + the signal
// through its destructors, so the temporary directory (megabytes of samples,
// FIFOs) goes too. SIGPIPE is ignored: a closed standard output is a write
// error (exit 1), not a death that leaves the directory behind.
void catch_stop_signals();
int stop_signal();  // 0 while none came

// Whether prog (a path, or a name looked up on PATH) can be run.
bool on_path(const std::string& prog);

// `args[i..]` are the command's options: the children get them again.
// Samples back end `label` under perf record. Returns 1 ok, 0 sampling
// unavailable (*err says why), -1 the script failed (*err has its messages).
int run_perf(const std::vector<std::string>& args, size_t i, const std::string& dir, const std::string& label,
             const Options& o, BackendProfile& out, std::string* err);

// Counts instructions under callgrind, one valgrind child per back end (so a
// back end's counts do not depend on which others were asked for). Returns
// false (with *err) if valgrind could not run a child.
bool run_callgrind(const std::vector<std::string>& args, size_t i, const std::string& dir,
                   const std::vector<std::string>& labels, std::vector<BackendProfile>& out, std::string* err);

}  // namespace quelkit::profile
