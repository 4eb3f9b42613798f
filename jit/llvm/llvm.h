// The "llvm" back end: ORC LLJIT native code generated from the folded typed
// IR by the shared walk (jit/codegen.h), in the modes "fused" (default: a
// page-at-a-time kernel per plan) and "qual" (per-tuple functions). Built only
// when CMake finds LLVM 19 (QUELKIT_HAVE_LLVM on the targets that link it).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>

#include "engine/backend.h"
#include "jit/codegen.h"

namespace quelkit::jit::llvmjit {

// Registers "llvm" with the harness (cli/ calls it once at start-up).
void register_backend();

// The back end itself, without the registry (tests, benchmarks).
std::unique_ptr<harness::Backend> make_backend(Mode mode, const harness::PrepareOptions& opt);

// The LLVM IR the back end generates for `plan` (the functions prepare would
// compile first), before or after the --jit-opt pipeline: what --dump=llvm
// prints. Function names carry no process-unique suffix here.
void print_module(const harness::Plan& plan, Mode mode, const harness::PrepareOptions& opt, bool optimized,
                  std::ostream& os);

// Registers generated code with perf from now on: "map" writes
// /tmp/perf-PID.map (read by `perf report` as it is), "jitdump" uses LLVM's
// perf listener (for `perf record -k 1` + `perf inject --jit`). The environment
// variable QUELKIT_JIT_PERF=map|jitdump does the same when the JIT starts.
// False for any other value. GDB registration is always on.
bool enable_perf(const std::string& how);

// Compiled modules currently loaded in the process's JIT (each prepared plan
// holds one or two; evicted plans must have freed theirs).
size_t loaded_modules();

// The CPU the JIT generates code for under --jit-cpu generic (native_cpu
// false) or native, as LLVM names it ("generic" for the triple's baseline),
// and the name LLVM gives this machine's CPU.
std::string target_cpu(bool native_cpu);
std::string host_cpu();

}  // namespace quelkit::jit::llvmjit
