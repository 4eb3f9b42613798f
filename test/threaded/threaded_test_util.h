// Scaffolding for the threaded back end's tests: a Session on chosen back ends
// that captures what it printed (dumps, rows, errors) and keeps the per-
// statement reports (prepares, cache hits), and the two threaded modes as a
// test parameter.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backends.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"

namespace quelkit::test {

inline const std::vector<std::string>& threaded_modes() {
  static const std::vector<std::string> modes = {"call", "goto"};
  return modes;
}

struct Out {
  bool ok = false;
  std::string out, err;
};

class Kit {
 public:
  // backends: (name, mode) pairs; dumps: --dump forms; cache: the plan cache on or off.
  explicit Kit(std::vector<std::pair<std::string, std::string>> backends, std::set<std::string> dumps = {},
               bool cache = true) {
    register_all_backends();
    harness::SessionOptions o;
    o.backends = std::move(backends);
    o.format = harness::OutFormat::Csv;
    o.dumps = std::move(dumps);
    o.runner.plan_cache = cache;
    session_ = std::make_unique<harness::Session>(o, out_, err_);
  }
  harness::Session& session() { return *session_; }
  void add_parts(uint64_t n, bool wide = false, harness::Structure s = harness::Structure::Heap) {
    if (session_->catalog().find("parts")) session_->catalog().remove("parts");
    session_->catalog().add(harness::make_parts(n, wide, s));
  }
  Out run(const std::string& text) {
    out_.str("");
    err_.str("");
    Out r;
    r.ok = session_->run(std::make_shared<Source>("t.quel", text));
    r.out = out_.str();
    r.err = err_.str();
    return r;
  }
  std::vector<harness::StmtReport>& reports() { return session_->reports(); }

 private:
  std::ostringstream out_, err_;
  std::unique_ptr<harness::Session> session_;
};

// Occurrences of `needle` in `hay`.
inline int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// The block of a dump that starts with the line `from` (e.g. "program:"):
// that line and the indented lines under it.
inline std::string section(const std::string& dump, const std::string& from) {
  size_t b = dump.find(from);
  if (b == std::string::npos) return "";
  size_t e = dump.find('\n', b);
  while (e != std::string::npos && e + 1 < dump.size() && dump[e + 1] == ' ') e = dump.find('\n', e + 1);
  return dump.substr(b, e == std::string::npos ? std::string::npos : e + 1 - b);
}

}  // namespace quelkit::test
