// The libgccjit side of the "gccjit" back end: RAII owners of a context (the
// recording of one plan's functions) and of a result (the shared object
// libgccjit built from it, loaded until released), the options every context
// gets, and the compile itself with its cost split as --stats reports it.
//
// libgccjit 12 compiles by running GCC proper (toplev::main: replaying the
// recording into trees, gimplification, the -O pipeline, instruction
// selection, register allocation, assembly text), then the assembler and
// linker as child processes. The kit runs all of it in a child forked for the
// compile, so it can be killed (Ctrl-C), and dlopens the shared object it
// wrote. There is no in-memory object emission, so the last steps cost tens
// of milliseconds whatever the optimisation level.
#pragma once

#include <libgccjit.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace quelkit::jit::gccjit {

// --jit-opt 0..3 is GCC's -O0..-O3 (GCC_JIT_INT_OPTION_OPTIMIZATION_LEVEL).
constexpr int kMaxOptLevel = 3;

// Compile cost of one context, split as --stats reports it:
struct CompileTimes {
  uint64_t opt_ns = 0;      // GCC proper (toplev::main): every pass, -O pipeline and instruction selection
  uint64_t codegen_ns = 0;  // the rest of gcc_jit_context_compile: assembler, linker, dlopen
};

// One gcc_jit_context with the options every compile gets: the level,
// -ffp-contract=off, no fast-math, no type-based aliasing (generated code
// reads packed bytes), frame pointers (perf and gdb walk through generated
// code), unreachable blocks allowed (a qualification folded to false), and
// this machine's CPU only when asked (--jit-cpu native: what `gcc-12
// -march=native` expands to; GCC's default target, the one the compiled-in
// evaluators are built for, otherwise).
// QUELKIT_GCCJIT_DEBUG=1 in the environment adds debug information and keeps
// the compile's files (fake.s in $TMPDIR/quelkit-gccjit-*/libgccjit-*, plan.so; named
// on stderr), so gdb steps through the .quel text and the assembly can be read.
class Context {
 public:
  Context(int level, bool native_cpu);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  gcc_jit_context* get() const { return c_; }
  int level() const { return level_; }
  // The compile prints its GIMPLE after gimplification (with the comments and
  // source locations) to stderr, and writes the GIMPLE after the level's
  // passes to optimized_path. (Not -fdump-tree-gimple=FILE: GCC keeps that
  // static dump switched on for every later compile in the process.)
  void dump_gimple(const std::string& optimized_path);

 private:
  gcc_jit_context* c_;
  int level_;
};

// One compiled plan: the shared object the compile wrote, loaded (dlopen)
// until it is released (destroyed or reassigned). live() counts unreleased
// results in the process, so tests can see evicted plans free their code.
class Result {
 public:
  Result() = default;
  explicit Result(void* dl_handle);
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Result& operator=(Result&& o) noexcept;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  ~Result() { reset(); }

  explicit operator bool() const { return r_ != nullptr; }
  // The exported function `name` (null if there is none).
  void* code(const std::string& name) const;

  static size_t live();

 private:
  void reset();
  void* r_ = nullptr;  // dlopen's handle
};

// Compiles what ctx recorded, in a child process (jit.cpp says why). On
// failure the Result is empty and *error holds libgccjit's first error or
// what stopped the child; a Ctrl-C during it throws the statement error
// "cancelled" (harness::throw_cancelled) once the child is gone.
Result compile(Context& ctx, CompileTimes* times, std::string* error);

// Bytes of the generated function that starts at addr, from the dynamic
// symbol table of the object it was loaded from; 0 if it cannot be told.
size_t function_size(const void* addr);

}  // namespace quelkit::jit::gccjit
