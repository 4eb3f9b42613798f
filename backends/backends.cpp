// The one list of built back ends. Optional ones are compiled in when CMake
// found their dependencies (QUELKIT_HAVE_* definitions on quelkit_backends,
// public, so its users see them too).
#include "backends/backends.h"

#include "adaptive/adaptive.h"
#include "interp/interp.h"
#include "threaded/threaded.h"
#include "vector/vector.h"
#ifdef QUELKIT_HAVE_LLVM
#include "jit/llvm/llvm.h"
#endif
#ifdef QUELKIT_HAVE_GCCJIT
#include "jit/gccjit/gccjit.h"
#endif
#ifdef QUELKIT_HAVE_STENCIL
#include "jit/stencil/stencil_backend.h"
#endif

namespace quelkit {

void register_all_backends() {
  static bool done = false;
  if (done) return;
  done = true;
  interp::register_backend();
  threaded::register_backend();
  vector::register_backend();
#ifdef QUELKIT_HAVE_LLVM
  jit::llvmjit::register_backend();
#endif
#ifdef QUELKIT_HAVE_GCCJIT
  jit::gccjit::register_backend();
#endif
#ifdef QUELKIT_HAVE_STENCIL
  jit::stencil::register_backend();
#endif
  // Composes the back ends above, found by name when a runner is made.
  adaptive::register_backend();
}

}  // namespace quelkit
