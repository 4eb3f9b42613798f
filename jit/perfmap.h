// perf's symbol map for code generated at run time: one "START SIZE name" line
// per function in /tmp/perf-PID.map, which `perf report` reads by itself and
// `quelkit profile --instructions` uses to name JIT addresses in callgrind's
// output. The LLVM, gccjit and stencil back ends register every function they
// materialise; the writer does nothing until profiling asks for it
// (perfmap_enable), so normal runs leave no files behind.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace quelkit::harness {

// The switch: `quelkit profile` turns it on before anything is compiled.
void perfmap_enable(bool on);
bool perfmap_enabled();

// Appends "addr size name" (hex, no 0x, as perf expects) to this process's
// map. Thread-safe; a no-op while disabled or for an empty range.
void perfmap_register(const void* addr, size_t size, std::string_view name);

// /tmp/perf-PID.map of this process (of `pid` if given).
std::string perfmap_path(long pid = 0);

// Closes the map; with `remove`, deletes the file (the profiler does once it
// has read it). Registration after this reopens it.
void perfmap_close(bool remove);

}  // namespace quelkit::harness
