// Helpers for the engine tests: run QUEL text in a Session on chosen back
// ends and capture what it printed; list every registered back end and mode so
// query tests are parameterised over all of them (a back end that is not built
// is simply not registered, and its instances do not exist).
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backends/backends.h"
#include "bench/workloads/parts.h"
#include "engine/session.h"

namespace quelkit::test {

struct RunResult {
  bool ok = false;
  std::string out, err;
};

inline std::vector<std::string> all_backend_modes() {
  register_all_backends();
  std::vector<std::string> v;
  for (const auto& b : harness::registered_backends())
    for (const auto& m : b.modes) v.push_back(b.name + ":" + m.name);
  return v;
}

// The paper's queries (a)-(i) (DESIGN.md), over range variables p and q of parts.
inline const char* const kPaperQueries[] = {
    "retrieve (a = 1)",
    "retrieve (p.pnum)",
    "retrieve (p.pname, p.pnum) where p.pnum > 3 or p.pname = \"processor\" or p.color = \"black\"",
    "retrieve (p.pnum) where p.qoh < log(9.5) * p.weight",
    "retrieve (p.qoh) where p.pnum < 2500",
    "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum",
    "retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\"",
    "retrieve (p.qoh) where p.pnum = q.pnum and p.pnum < 2500",
    ("retrieve (p.qoh, q.qoh) where p.pnum = q.pnum and p.color = \"black\" and p.qoh < log(9.5) * p.weight "
     "and q.qoh < log(9.5) * p.weight"),
};

// Tuple-at-a-time back ends and modes (the interpreters, the JITs' qual mode:
// ModeSpec::page_kernel false) have no page kernel, so --selection does
// not reach them and they report none (Selections.WhatRanIsWhatWasAsked checks
// both ways on every back end).
inline bool has_kernel(const std::string& backend_mode) {
  register_all_backends();
  const auto [backend, mode] = harness::parse_backend_list(backend_mode).front();
  return harness::has_page_kernel(backend, mode);
}

// interp:switch, the reference, then every back end and mode with a page
// kernel: a run under --selection branch or nobranch beside one on `all`
// (whatever the selection) leaves out only what would repeat it exactly.
inline std::string kernel_backend_list() {
  std::string list = "interp:switch";
  for (const auto& m : all_backend_modes())
    if (has_kernel(m)) list += "," + m;
  return list;
}

// A parameterised test's name for a back end and mode ("llvm:fused" -> "llvm_fused",
// "adaptive:switch-every-page" -> "adaptive_switch_every_page").
inline std::string backend_test_name(const ::testing::TestParamInfo<std::string>& i) {
  std::string s = i.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// A session on the given back ends (e.g. "interp:switch" or "all").
class Kit {
 public:
  explicit Kit(const std::string& backends = "interp", harness::OutFormat fmt = harness::OutFormat::Csv) {
    register_all_backends();
    opt_.backends = harness::parse_backend_list(backends);
    opt_.format = fmt;
    session_ = std::make_unique<harness::Session>(opt_, out_, err_);
  }
  // Options are fixed when a session starts: `change` edits them and a fresh
  // session starts, so call it before adding relations.
  template <class F>
  void set_options(F change) {
    change(opt_);
    session_ = std::make_unique<harness::Session>(opt_, out_, err_);
  }
  // --sink count, --selection, --jit-opt.
  void set_count_sink() {
    set_options([](harness::SessionOptions& o) { o.runner.count_sink = true; });
  }
  void set_selection(harness::Selection s) {
    set_options([s](harness::SessionOptions& o) { o.prepare.selection = s; });
  }
  void set_jit_opt(int level) {
    set_options([level](harness::SessionOptions& o) { o.prepare.jit_opt = level; });
  }
  harness::Session& session() { return *session_; }
  void add_parts(uint64_t n, bool wide = false, harness::Structure s = harness::Structure::Heap) {
    if (session_->catalog().find("parts")) session_->catalog().remove("parts");
    session_->catalog().add(harness::make_parts(n, wide, s));
  }
  RunResult run(const std::string& text, const std::string& name = "t.quel") {
    out_.str("");
    err_.str("");
    RunResult r;
    r.ok = session_->run(std::make_shared<Source>(name, text));
    r.out = out_.str();
    r.err = err_.str();
    return r;
  }
  const harness::StmtReport& last_report() { return session_->reports().back(); }

 private:
  std::ostringstream out_, err_;
  harness::SessionOptions opt_;
  std::unique_ptr<harness::Session> session_;
};

}  // namespace quelkit::test
