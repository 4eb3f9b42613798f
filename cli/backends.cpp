// The one list of built back ends. Optional ones are compiled in when CMake
// found their dependencies (QUELKIT_HAVE_* definitions on the cli targets).
#include "cli/backends.h"

#include "interp/interp.h"
#include "threaded/threaded.h"

namespace quelkit {

void register_all_backends() {
  static bool done = false;
  if (done) return;
  done = true;
  interp::register_backend();
  threaded::register_backend();
}

}  // namespace quelkit
