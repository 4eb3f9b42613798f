// A session that prints nothing, for the reports' measurements (whose own
// output is their tables): results and messages go nowhere, no --stats, and
// errors into a string the caller reads and clears.
#pragma once

#include <memory>
#include <ostream>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/session.h"

namespace quelkit {

struct QuietSession {
  explicit QuietSession(harness::SessionOptions so) : session(quiet(std::move(so)), null, errs) {
    session.set_messages(null);
  }
  std::ostream null{nullptr};
  std::ostringstream errs;
  harness::Session session;

 private:
  static harness::SessionOptions quiet(harness::SessionOptions so) {
    so.format = harness::OutFormat::None;
    so.stats = so.stats_json = false;
    return so;
  }
};

// Runs f with runner k alone in the session: run_statement evaluates a
// statement on every runner the session holds, and a report times one.
template <class F>
void with_runner_alone(harness::Session& s, size_t k, F&& f) {
  auto& rs = s.runners();
  std::vector<std::unique_ptr<harness::Runner>> all = std::move(rs);
  rs.clear();
  rs.push_back(std::move(all[k]));
  struct Back {  // the runners back in their places, f thrown or not
    std::vector<std::unique_ptr<harness::Runner>>& rs;
    std::vector<std::unique_ptr<harness::Runner>>& all;
    size_t k;
    ~Back() {
      all[k] = std::move(rs[0]);
      rs = std::move(all);
    }
  } back{rs, all, k};
  f();
}

}  // namespace quelkit
