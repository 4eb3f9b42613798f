// Starting the profiled children under perf or valgrind and reading back what
// they and the tools wrote (launch.h). Processes are started with posix_spawn,
// stdout and stderr to files in the temporary directory, so that nothing a
// tool prints reaches the user unless the profile fails and says why.
#include "profile/launch.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "profile/callgrind_reader.h"
#include "profile/meta.h"
#include "profile/perf_reader.h"
#include "jit/perfmap.h"

extern char** environ;

namespace quelkit::profile {

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string t = std::string(tmp && *tmp ? tmp : "/tmp") + "/quelkit-profile-XXXXXX";
  if (mkdtemp(t.data())) path = t;
}

TempDir::~TempDir() {
  if (path.empty()) return;
  // Every file in it is ours (the tools wrote them at our request).
  if (DIR* d = opendir(path.c_str())) {
    std::vector<std::string> names;
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
    closedir(d);
    for (const auto& n : names) std::remove((path + "/" + n).c_str());
  }
  rmdir(path.c_str());
}

namespace {
volatile sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int sig) { g_stop = sig; }
}  // namespace

void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: the wait for a child sees EINTR
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

int stop_signal() { return g_stop; }

bool on_path(const std::string& prog) {
  if (prog.find('/') != std::string::npos) return access(prog.c_str(), X_OK) == 0;
  const char* p = std::getenv("PATH");
  std::stringstream ss(p ? p : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':'))
    if (!dir.empty() && access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
  return false;
}

namespace {

std::string exe_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "quelkit";
  buf[n] = 0;
  return buf;
}

// Runs argv with stdout and stderr to files; returns the exit status (-1: not started).
int run(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> av;
  for (const auto& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  pid_t pid;
  int rc = stop_signal() ? -1 : posix_spawnp(&pid, av[0], &fa, nullptr, av.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int st = 0;
  bool told = false;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    // A signal meant for the profile: the tool stops too (a Ctrl-C at the
    // terminal reached it already; a kill of the parent alone did not).
    if (stop_signal() && !told) kill(pid, SIGTERM), told = true;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The child's own messages, without perf's chatter.
std::string child_messages(const std::string& path) {
  std::stringstream in(slurp(path));
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.starts_with("Events ") || line.starts_with("[ perf record") || line.starts_with("==") || line.empty())
      continue;
    out += line + "\n";
  }
  return out;
}

std::string last_line(const std::string& text) {
  std::stringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && !line.starts_with("Events ")) last = line;
  return last;
}

std::vector<std::string> child_args(const std::vector<std::string>& args, size_t i, const std::string& kind,
                                    const std::string& dir) {
  std::vector<std::string> v = {exe_path(), "profile", "--child=" + kind, "--child-dir=" + dir};
  // The child gets its back end from --child-backend; leaving the list out
  // keeps its heap, and so its instruction counts, independent of the others.
  for (size_t j = i; j < args.size(); ++j) {
    if (args[j] == "-b" || args[j] == "--backend") {
      ++j;
      continue;
    }
    if (args[j].starts_with("--backend=")) continue;
    v.push_back(args[j]);
  }
  return v;
}

// A back end's label as part of a file name.
std::string file_tag(const std::string& label) {
  std::string tag;
  for (char c : label) tag += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return tag;
}

// `perf script` over one recording, read into c. Returns false (with *err) if
// perf could not read it.
bool perf_samples(const std::string& perf, const std::string& data, const std::string& dir,
                  const std::string& label, const std::vector<MapEntry>& map, Costs& c, std::string* err) {
  std::string out = dir + "/capture.out", errf = dir + "/capture.err";
  // The mmap events place the code of shared objects loaded from files since
  // deleted (libgccjit's), which perf cannot name: the reader names it from
  // the perf map.
  int status = run({perf, "script", "-i", data, "-F", "ip,sym,dso", "--no-inline", "--show-mmap-events"}, out, errf);
  if (status != 0) {
    *err = "perf script failed: " + last_line(slurp(errf));
    return false;
  }
  std::ifstream in(out);
  read_perf_script(in, label, c, map);
  return true;
}

}  // namespace

bool run_callgrind(const std::vector<std::string>& args, size_t i, const std::string& dir,
                   const std::vector<std::string>& labels, std::vector<BackendProfile>& out, std::string* err) {
  if (!on_path("valgrind")) {
    *err = "valgrind is not installed (Debian package valgrind; ./kit profile installs it)";
    return false;
  }
  for (const auto& label : labels) {
    std::string tag = file_tag(label), cg = dir + "/callgrind." + tag + ".out", log = dir + "/valgrind." + tag + ".log";
    std::vector<std::string> argv = {"valgrind",
                                     "--tool=callgrind",
                                     "--instr-atstart=no",
                                     "--collect-atstart=no",
                                     "--dump-instr=yes",
                                     "--dump-line=no",
                                     "--compress-strings=no",
                                     "--compress-pos=no",
                                     "--smc-check=all-non-file",
                                     "--callgrind-out-file=" + cg,
                                     "--log-file=" + log};
    for (auto& a : child_args(args, i, "callgrind", dir)) argv.push_back(a);
    argv.push_back("--child-backend=" + label);
    std::string errf = dir + "/child." + tag + ".err";
    int rc = run(argv, dir + "/child." + tag + ".out", errf);
    Meta m = read_meta(dir + "/meta." + label);
    std::string map_file = m.pid ? harness::perfmap_path(m.pid) : "";
    if (rc != 0 || !m.done) {
      std::string msgs = child_messages(errf);
      if (m.pid == 0) msgs += last_line(slurp(log));
      *err = msgs.empty() ? "valgrind failed (exit " + std::to_string(rc) + ")" : msgs;
      if (m.pid) std::remove(map_file.c_str());
      return false;
    }
    std::map<std::pair<CostKey, CostKey>, double> calls;
    Costs c;
    BackendProfile p;
    p.label = label;
    p.method = "callgrind";
    for (StmtMeta& s : m.stmts) {
      CallgrindPart run, prep;
      if (!read_callgrind(cg + "." + std::to_string(s.run_part), read_perf_map(map_file, s.run_map), run) ||
          (s.prep_part && !read_callgrind(cg + "." + std::to_string(s.prep_part), read_perf_map(map_file, s.prep_map),
                                          prep))) {
        std::remove(map_file.c_str());
        *err = "callgrind wrote no profile for " + s.label + " q" + std::to_string(s.k);
        return false;
      }
      s.run_cost = run.total;
      s.prep_cost = prep.total;
      for (const auto& [k, v] : run.self) c.self[k] += double(v);
      for (const auto& [e, v] : run.calls) calls[e] += double(v);
      p.stmts.push_back(s);
    }
    std::remove(map_file.c_str());
    c.charged = charge_subsystems(c.self, calls, label);
    c.via = library_callers(calls, label);
    finish(p, c);
    out.push_back(std::move(p));
  }
  return true;
}

int run_perf(const std::vector<std::string>& args, size_t i, const std::string& dir, const std::string& label,
             const Options& o, BackendProfile& out, std::string* err) {
  std::string tag = file_tag(label);
  std::string data = dir + "/perf." + tag + ".data", ctl = dir + "/ctl." + tag, ack = dir + "/ack." + tag;
  if (mkfifo(ctl.c_str(), 0600) != 0 || mkfifo(ack.c_str(), 0600) != 0) {
    *err = std::string("cannot make perf's control fifos: ") + std::strerror(errno);
    return 0;
  }
  // Unprivileged with perf_event_paranoid 2 may sample only user space
  // (cpu-clock:u); 3 (Debian's default) forbids it: perf record then fails.
  std::string event = "cpu-clock";
  if (geteuid() != 0) {
    std::ifstream pf("/proc/sys/kernel/perf_event_paranoid");
    int paranoid = 2;
    pf >> paranoid;
    if (paranoid >= 2) event += ":u";
  }
  std::vector<std::string> argv = {o.perf, "record", "-e", event, "-F", std::to_string(o.freq),
                                   "--call-graph", "dwarf,4096", "-D", "-1", "--control", "fifo:" + ctl + "," + ack,
                                   "-o", data, "--"};
  for (auto& a : child_args(args, i, "perf", dir)) argv.push_back(a);
  argv.push_back("--child-backend=" + label);
  argv.push_back("--ctl=" + ctl);
  argv.push_back("--ack=" + ack);
  std::string errf = dir + "/child." + tag + ".err";
  int rc = run(argv, dir + "/child." + tag + ".out", errf);
  Meta m = read_meta(dir + "/meta." + label);
  if (m.pid == 0) {  // the child never started: perf could not record here
    std::string why = last_line(slurp(errf));
    *err = rc == -1 ? "perf could not be started" : "perf record failed" + (why.empty() ? "" : ": " + why);
    return 0;
  }
  if (!m.done) {
    *err = child_messages(errf);
    std::remove(harness::perfmap_path(m.pid).c_str());
    return -1;
  }
  Costs c;
  const std::string map = harness::perfmap_path(m.pid);
  bool ok = perf_samples(o.perf, data, dir, label, read_perf_map(map), c, err);
  // --keep keeps the JIT symbols beside perf.data (`perf report` names JIT
  // code from /tmp/perf-PID.map: copy it back there), else the kept
  // samples in generated code read [JIT] and an address.
  if (!o.keep.empty()) {
    std::error_code ec;
    std::filesystem::copy_file(map, std::filesystem::path(dir) / std::filesystem::path(map).filename(),
                               std::filesystem::copy_options::overwrite_existing, ec);
  }
  std::remove(map.c_str());
  if (!ok) return 0;
  double total = 0;
  for (const auto& [k, v] : c.self) total += v;
  if (total <= 0) {
    *err = "perf recorded no samples";
    return 0;
  }
  out.label = label;
  out.method = "perf";
  out.executions = m.runs[label].first;
  out.ns = m.runs[label].second;
  for (const auto& s : m.stmts)
    if (s.label == label) out.stmts.push_back(s);
  finish(out, c);
  if (o.keep.empty()) std::remove(data.c_str());  // tens of megabytes of stacks
  return 1;
}

}  // namespace quelkit::profile
