// The extractor: reads stencils out of an x86-64 ELF object that clang-19
// made, with LLVM's Object library (sections, symbols, relocations) and its MC
// disassembler (instruction boundaries), and checks everything it does not
// understand out of the build:
//
//   - every section is one it knows (.text, its relocations, mergeable
//     constants, the symbol and string tables, notes); anything else with
//     content (data, bss, unwind tables, init arrays) is an error;
//   - every relocation is R_X86_64_64, _32, _32S, _PC32 or _PLT32, against a
//     placeholder (_JIT_*), an allowed external function (code.h), or a
//     constant in a mergeable constant section (copied with the stencil);
//     jumps only to jump placeholders, values only absolute;
//   - a stencil's trailing `jmp rel32` to a jump placeholder is recorded (prepare
//     drops it when its target follows) only if it is the last instruction.
//
// Stencils are the functions `prefix<i>` for i in [0, count). The result is
// written as a C++ header (extract_main.cpp) or inspected by tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jit/stencil/code.h"

namespace quelkit::jit::stencil {

struct Extracted {
  struct Stencil {
    std::string name;
    std::vector<uint8_t> bytes;
    std::vector<Hole> holes;
    std::vector<uint8_t> data;  // read-only constants, each 16-byte aligned
    Sym trail = Sym::Data;      // Data: no trailing jump
  };
  std::vector<Stencil> stencils;
  std::vector<std::string> externs;   // names, in QK_STENCIL_EXTERNS order (the ones allowed)
  uint64_t fingerprint = 0;           // the object's `qs_fingerprint`, if it has one
  bool has_fingerprint = false;
};

// Reads `count` stencils named prefix0, prefix1, ... from the object file at
// `path`. On failure returns false with a message naming the stencil, the
// section or the relocation at fault.
bool extract(const std::string& path, const std::string& prefix, int count, Extracted* out, std::string* error);

// The header prepare includes (stencil_code.gen.h).
std::string write_header(const Extracted& x, const std::string& source);

}  // namespace quelkit::jit::stencil
