// LLVM's MC disassembler for x86-64, as the stencil extractor (instruction
// boundaries: is the trailing jump the last instruction?) and --dump=stencil
// (AT&T text of stitched code) use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace quelkit::jit::stencil {

class Disassembler {
 public:
  // Null (with *error) if LLVM has no x86-64 disassembler here.
  static std::unique_ptr<Disassembler> create(std::string* error);
  ~Disassembler();

  struct Insn {
    size_t size = 0;        // 0: not an instruction
    bool jmp_rel32 = false; // `jmp rel32` (opcode E9)
    bool branch = false;    // a direct branch (jmp, jcc, call) with a target
    uint64_t target = 0;    // its target, from `address`
    std::string text;       // AT&T syntax (with `text` asked for)
  };
  // The instruction at bytes[0..n); `address` is what rel targets are printed against.
  Insn decode(const uint8_t* bytes, size_t n, uint64_t address, bool text) const;

 private:
  struct Impl;
  explicit Disassembler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quelkit::jit::stencil
