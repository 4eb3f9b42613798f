// The 1976 INGRES interpreter's data: postfix symbols and stack cells.
// A qualification or target list is lowered to a flat, postordered list of
// 16-byte symbols (interp/lower.h) that the stack machine (interp/interp.h)
// fetches one at a time, checking operand types per operator per tuple, as
// INGRES's OVQP did. Nothing here is typed statically beyond the leaves.
#pragma once

#include <cstddef>
#include <cstdint>

#include "frontend/ir.h"
#include "frontend/types.h"

namespace quelkit::interp {

// Symbol codes. The first ir::kNumGenerics are the generic operators of the
// operator catalogue (frontend/ops.def), in its order, so lowering maps a
// node's generic to its code by value; two control codes follow. Param is
// listed only to keep that identity: a parameter is inlined as a Const
// symbol, never emitted (the interpreter has no plan reuse). The dispatch
// tables and the dump's names are generated from the same rows.
enum class Code : uint8_t {
#define QK_GENERIC(ID, CLASS, AR, TYPING, SCRATCH, QUEL, TOKEN, PREC, SQL, SYN) ID,
#include "frontend/ops.def"
  Store,
  End,
};
constexpr int kNumCodes = int(Code::End) + 1;
static_assert(int(Code::Store) == ir::kNumGenerics, "the generic codes are the catalogue's generics");

// "Add", "End", ...: for dumps.
const char* code_name(Code c);

// A value slot: what a Const symbol carries and what a stack cell holds.
// Integers of every width are held widened to int32 (their type tag keeps the
// width); characters are a pointer (into the tuple, the program's constant
// storage or qk_ctx.scratch) plus the cell's or symbol's len.
union Val {
  int32_t i;         // i1 i2 i4, and booleans 0/1
  float f4;
  double f8;
  const uint8_t* s;  // c
  uint64_t pos;      // operator symbols: packed SrcPos of the IR node (errors)
  uint64_t bits;     // the whole slot, copied without looking at the type
};
static_assert(sizeof(Val) == 8);

// One postfix symbol (INGRES: struct symbol {type, len, value}):
//
//   byte  0      code   Code: Const, Attr (INGRES's VAR), an operator, Store, End
//   byte  1      type   Tk of the value (Const, Attr), of the target (Cvt,
//                       Store), of the result (Ascii, Concat); else unused (0)
//   byte  2      len    bytes of that type: 1 2 4 4 8 1 (bool), 0..255 (c)
//   byte  3      -      zero
//   bytes 4..7   aux    Attr: tuple offset   Store: row offset
//                       And/Or: symbols to skip (the right operand)
//                       Ascii/Concat: result offset in qk_ctx.scratch
//   bytes 8..15  v      Const: the value   operators, Store: packed SrcPos
struct Symbol {
  Code code;
  Tk type;
  uint8_t len;
  uint8_t pad = 0;
  uint32_t aux;
  Val v;
};
static_assert(sizeof(Symbol) == 16, "a symbol is two words; keep it so");
static_assert(offsetof(Symbol, aux) == 4 && offsetof(Symbol, v) == 8);

// One stack entry: {type, len, value}. 16 bytes, copied as two words.
//
//   byte  0      type   Tk of the value now on the stack (i1 i2 i4 f4 f8 c bool)
//   byte  1      len    its length (c: 0..255)
//   bytes 8..15  v      the value (Val)
struct Cell {
  Tk type;
  uint8_t len;
  Val v;
};
static_assert(sizeof(Cell) == 16, "a stack cell is two words; keep it so");

// Internal inconsistency (a malformed symbol list, an operand type the binder
// can never produce): report and abort, as INGRES's syserr() did. User errors
// never come here; they are runtime errors raised through qk_raise.
[[noreturn]] void syserr(const char* what, const Symbol* s);

}  // namespace quelkit::interp
