// Scaffolding for the vectorized back end's tests: a Session on chosen back
// ends and options (batch size, page size, dumps) that captures what it
// printed and keeps the per-statement reports, and the back end's modes as a
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
#include "bench/workloads/wisconsin.h"
#include "engine/session.h"

namespace quelkit::test {


// Every way the vector back end runs: its modes, each under both selections
// (--selection branch / nobranch).
struct VectorVariant {
  std::string mode;
  harness::Selection selection;
  std::string name() const { return mode + "_" + harness::selection_name(selection); }
};
inline const std::vector<VectorVariant>& vector_modes() {
  static const std::vector<VectorVariant> modes = {{"inplace", harness::Selection::NoBranch},
                                                   {"gather", harness::Selection::NoBranch},
                                                   {"inplace", harness::Selection::Branch},
                                                   {"gather", harness::Selection::Branch}};
  return modes;
}

struct Out {
  bool ok = false;
  std::string out, err;
};

struct KitOptions {
  std::set<std::string> dumps;
  uint32_t batch = 0;  // 0: the back end's default
  uint32_t page_size = harness::kDefaultPageSize;
  bool cache = true;
  harness::Selection selection = harness::Selection::Auto;
};

class Kit {
 public:
  // backends: "vector:inplace,interp:switch" and the like.
  explicit Kit(const std::string& backends, KitOptions ko = {}) : page_size_(ko.page_size) {
    register_all_backends();
    harness::SessionOptions o;
    o.backends = harness::parse_backend_list(backends);
    o.format = harness::OutFormat::Csv;
    o.dumps = std::move(ko.dumps);
    o.runner.plan_cache = ko.cache;
    o.prepare.vector_batch = ko.batch;
    o.prepare.selection = ko.selection;
    o.page_size = ko.page_size;
    session_ = std::make_unique<harness::Session>(o, out_, err_);
  }
  void add_parts(uint64_t n, bool wide = false, harness::Structure s = harness::Structure::Heap) {
    if (session_->catalog().find("parts")) session_->catalog().remove("parts");
    session_->catalog().add(harness::make_parts(n, wide, s, page_size_));
  }
  void add_wisconsin(const std::string& spec) {
    harness::WisconsinSpec w;
    std::string why;
    if (!harness::parse_wisconsin_spec(spec, &w, &why)) throw std::runtime_error("--wisconsin " + spec + ": " + why);
    for (auto& rel : harness::make_wisconsin(w, page_size_)) session_->catalog().add(std::move(rel));
  }
  Out run(const std::string& text, const std::string& name = "t.quel") {
    out_.str("");
    err_.str("");
    Out r;
    r.ok = session_->run(std::make_shared<Source>(name, text));
    r.out = out_.str();
    r.err = err_.str();
    return r;
  }
  std::vector<harness::StmtReport>& reports() { return session_->reports(); }

 private:
  uint32_t page_size_;
  std::ostringstream out_, err_;
  std::unique_ptr<harness::Session> session_;
};

inline int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// The block of a dump from the line starting with `from` to the next line
// that does not start with a blank (e.g. "qual:").
inline std::string section(const std::string& dump, const std::string& from) {
  size_t b = dump.find("\n" + from);
  if (b == std::string::npos) return "";
  ++b;
  size_t e = dump.find('\n', b);
  while (e != std::string::npos && e + 1 < dump.size() && dump[e + 1] == ' ') e = dump.find('\n', e + 1);
  return dump.substr(b, e == std::string::npos ? std::string::npos : e + 1 - b);
}

}  // namespace quelkit::test
