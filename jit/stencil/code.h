// What the extractor (extract.h) reads out of the stencil object and the
// generated header stencil_code.gen.h holds for prepare: each stencil's bytes,
// its holes (where a relocation was, what it refers to, how it is patched),
// the trailing jump prepare drops when its target follows, and the read-only
// constants it uses, which prepare copies beside the plan's code.
#pragma once

#include <cstdint>

namespace quelkit::jit::stencil {

// How a hole is written (the x86-64 relocation it came from).
enum class Patch : uint8_t {
  Abs64,   // R_X86_64_64: value + addend, 8 bytes
  Abs32,   // R_X86_64_32: value + addend, zero-extended 32 bits
  Abs32S,  // R_X86_64_32S: value + addend, sign-extended 32 bits
  Rel32,   // R_X86_64_PC32, R_X86_64_PLT32: value + addend - address of the hole
};

// What a hole's value is: the placeholder symbol the relocation names.
#define QK_STENCIL_HOLES(X)                                                    \
  X(Continue, "_JIT_CONTINUE") /* the next stencil */                          \
  X(Target, "_JIT_TARGET")     /* the instance's label */                      \
  X(Error, "_JIT_ERROR")       /* the instance's raise stencil */              \
  X(AOff, "_JIT_A_OFF")                                                        \
  X(BOff, "_JIT_B_OFF")                                                        \
  X(DOff, "_JIT_D_OFF")                                                        \
  X(ALen, "_JIT_A_LEN")                                                        \
  X(BLen, "_JIT_B_LEN")                                                        \
  X(DLen, "_JIT_D_LEN")                                                        \
  X(Frame, "_JIT_FRAME")                                                       \
  X(RowLen, "_JIT_ROWLEN")                                                     \
  X(InLen, "_JIT_INLEN")                                                       \
  X(AK, "_JIT_A_K")                                                            \
  X(BK, "_JIT_B_K")                                                            \
  X(Pos, "_JIT_POS")                                                           \
  X(ErrCode, "_JIT_CODE")      /* the error a one-error operator raises */     \
  X(Data, "")   /* the stencil's own read-only constants: offset in `data` */  \
  X(Extern, "") /* a function outside the stencils: index in kExterns */

enum class Sym : uint8_t {
#define QK_STENCIL_SYM_ENUM(id, name) id,
  QK_STENCIL_HOLES(QK_STENCIL_SYM_ENUM)
#undef QK_STENCIL_SYM_ENUM
};
constexpr bool is_jump(Sym s) { return s == Sym::Continue || s == Sym::Target || s == Sym::Error; }

// The functions stencils may call (runtime helpers and what the inline rules
// call in libc and libm), each with its type, which picks the one overload of
// a libm name. The extractor refuses a call to anything else; prepare binds
// each by address (Arena::extern_address, whose table this generates).
#define QK_STENCIL_EXTERNS(X)                                                                    \
  X(qk_raise, int (*)(qk_ctx*, int32_t, uint64_t))                                               \
  X(qk_pattern_match, int (*)(const uint8_t*, uint32_t, const uint8_t*, uint32_t))               \
  X(qk_char_cmp, int (*)(const uint8_t*, uint32_t, const uint8_t*, uint32_t))                    \
  X(qk_concat, void (*)(const uint8_t*, uint32_t, const uint8_t*, uint32_t, uint8_t*))           \
  X(qk_ascii_i4, void (*)(int32_t, uint8_t*, uint32_t))                                          \
  X(qk_ascii_f4, void (*)(float, uint8_t*, uint32_t))                                            \
  X(qk_ascii_f8, void (*)(double, uint8_t*, uint32_t))                                           \
  X(memcmp, int (*)(const void*, const void*, size_t))                                           \
  X(memcpy, void* (*)(void*, const void*, size_t))                                               \
  X(memmove, void* (*)(void*, const void*, size_t))                                              \
  X(memset, void* (*)(void*, int, size_t))                                                       \
  X(bcmp, int (*)(const void*, const void*, size_t))                                             \
  X(log, double (*)(double)) X(exp, double (*)(double)) X(sin, double (*)(double))               \
  X(cos, double (*)(double)) X(atan, double (*)(double)) X(pow, double (*)(double, double))      \
  X(sqrt, double (*)(double)) X(trunc, double (*)(double)) X(truncf, float (*)(float))           \
  X(fmod, double (*)(double, double))

struct Hole {
  uint16_t offset;  // in the stencil's bytes
  Patch patch;
  Sym sym;
  uint16_t index;   // Data: offset in the stencil's data; Extern: index in kExterns
  int64_t addend;
};

struct Code {
  uint32_t bytes;       // offset in kBytes
  uint16_t size;        // bytes of code
  uint32_t holes;       // first hole in kHoles
  uint16_t nholes;
  uint16_t data;        // offset in kData of its read-only constants
  uint16_t ndata;       // their size (16-byte aligned copies)
  Sym trail;            // the target of a trailing `jmp rel32` (5 bytes), or Data for none
};

}  // namespace quelkit::jit::stencil
