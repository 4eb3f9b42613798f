// A session that prints nothing, for the reports' measurements (whose own
// output is their tables): results and messages go nowhere, no --stats, and
// errors into a string the caller reads and clears.
#pragma once

#include <ostream>
#include <sstream>

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

}  // namespace quelkit
