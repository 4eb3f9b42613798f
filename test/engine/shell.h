// Running the quelkit binary from a test as a user would: a shell command,
// its exit status and what it printed (stdout and stderr together).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace quelkit::test {

struct Out {
  int status = -1;
  std::string text;
};

inline Out sh(const std::string& cmd) {
  Out o;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.text.append(buf.data(), n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

inline const std::string kBin = std::string(QUELKIT_BINARY_DIR) + "/bin/quelkit";

}  // namespace quelkit::test
