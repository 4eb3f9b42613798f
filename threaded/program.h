// The DC-INGRES-style threaded program: the folded typed IR readied into a
// flat, postordered array of typed operator nodes over a register file. Every
// type decision is made here, once, at prepare time; evaluating a tuple only
// runs node handlers. Both dispatch modes (call, goto) run the same array.
//
// A node (32 bytes, two to a cache line):
//
//   byte  0..7   fn     call mode: the kind's handler (goto mode: unused)
//   byte  8..15  pos    packed SrcPos of the IR node, for qk_raise
//   byte 16..17  kind   index into kKinds (threaded/kinds.h)
//   byte 18..19  dst    result register
//   byte 20..21  a      left / only operand register
//   byte 22..23  b      right operand register
//   byte 24..27  off    Attr, CmpAttr, Copy: tuple offset   Param: parameter
//                       block offset   Store: row offset   ASCII, CONCAT:
//                       qk_ctx.scratch offset   AND/OR: jump distance in nodes
//   byte 28      alen   character length of operand a (ASCII, Store: of the result)
//   byte 29      blen   character length of operand b (Store: of the column)
//   byte 30..31  off2   Copy: row offset
//
// The register file (8 bytes a register, any type):
//
//   r0           status: set by QUAL_END (0/1), PROJ_END (0), errors (-1)
//   r1           call mode: the output row of the projection being run
//   r2 ..        in the order the walk meets them:
//                constants, loaded once by lower() (folded constants, query
//                literals; characters point into Program::chars), and
//                temporaries, one per node result, written before they are read
//
// Integers of every width are held as int32, f4 as float, f8 as double,
// characters as a pointer (into the tuple, the parameter block, the constant
// bytes or qk_ctx.scratch) whose length is static and kept in the node.
//
// The program: [qualification nodes] QUAL_END [target nodes] PROJ_END.
// AND/OR evaluate their left operand into their own result register, jump
// over the right operand when it decides, else let the right operand
// overwrite the register: short-circuit without a copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "runtime/accumulate.h"
#include "runtime/runtime.h"
#include "threaded/kinds.h"

namespace quelkit::threaded {

union Reg {
  int32_t i;  // i1 i2 i4, booleans 0/1
  float f4;
  double f8;
  const uint8_t* s;  // characters
  uint8_t* row;      // r1
  uint64_t bits;
};
static_assert(sizeof(Reg) == 8);

struct Node;
// A node handler (call mode): runs node n and returns the next node to run,
// or nullptr when the program stops (end reached, or an error raised), with
// the outcome in r0.
using Handler = const Node* (*)(const Node* n, Reg* R, const uint8_t* tuple, qk_ctx* ctx);

struct Node {
  Handler fn = nullptr;
  uint64_t pos = 0;
  uint16_t kind = 0;
  uint16_t dst = 0, a = 0, b = 0;
  uint32_t off = 0;
  uint8_t alen = 0, blen = 0;
  uint16_t off2 = 0;
};
static_assert(sizeof(Node) == 32, "a node is 32 bytes; keep it so");
static_assert(offsetof(Node, pos) == 8 && offsetof(Node, kind) == 16 && offsetof(Node, off) == 24 &&
                  offsetof(Node, alen) == 28 && offsetof(Node, off2) == 30,
              "the layout drawn above");

constexpr uint16_t kStatusReg = 0, kRowReg = 1, kFirstFreeReg = 2;

enum class Dispatch : uint8_t { Call, Goto };

// A readied plan. Constant character registers point into `chars`, so a
// Program moves but does not copy.
struct Program {
  std::vector<Node> code;
  std::vector<Reg> regs;        // r0, r1, constants, temporaries (mutable scratch of one evaluation)
  std::vector<uint8_t> chars;   // bytes of character constants
  uint32_t proj_start = 0;      // first node of the projection
  uint32_t row_len = 0;         // plan.out.tuple_len
  uint32_t in_len = 0;          // plan.in.tuple_len
  uint16_t nconst = 0;          // how many registers are constants
  bool qual_always = false;     // no qualification (or folded to true): every tuple qualifies
  // The page kernel's selection (engine/selection.h). Nobranch: the page is
  // run in two passes. The first runs the qualification of every tuple and
  // appends its line to `sel`, advancing by the outcome (no branch on it);
  // the second projects the selected tuples. Writing the row for every tuple,
  // as the compiled kernels do, costs an interpreter the projection's
  // dispatches on every tuple, more than branch costs where nothing
  // qualifies (docs/DESIGN.md, "Selection with and without a branch", has
  // the figures). Only when no target can raise
  // (targets_safe): then the second pass cannot fail, and a qualification's
  // error is the page's first. Else the branch kernel runs. The nodes are the
  // same either way: switching is a flag, not a new program.
  bool nobranch = false;
  bool targets_safe = false;
  std::vector<uint16_t> sel;  // nobranch's selection vector: offsets of a page's tuples

  Program() = default;
  Program(Program&&) = default;
  Program& operator=(Program&&) = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
};

// Readies plan.qual_folded and plan.targets_folded (never the unfolded trees)
// into a program; sets each node's handler for `d`. With `dump` non-null,
// also writes the node tree with its registers there (--dump=threaded).
Program lower(const harness::Plan& plan, Dispatch d, std::ostream* dump = nullptr);

// Name of a node kind: "LT_F8", "ATTR_I2", "CVT_I2_F8.attr", "LT_F8.attr_i2", ...
std::string kind_name(int kind);

// ---- running a program (threaded/run.cpp) ----

// The qualification: 1, 0, or -1 after raising into ctx.
int run_qual(Dispatch d, Program& p, const uint8_t* tuple, qk_ctx* ctx);
// The projection into row: 0, or -1 after raising into ctx.
int run_proj(Dispatch d, Program& p, const uint8_t* tuple, uint8_t* row, qk_ctx* ctx);
// The fused page kernel (engine/backend.h): rows written, or -1 with ctx->err_slot.
int64_t run_page(Dispatch d, Program& p, const uint8_t* page, uint8_t* rows, qk_ctx* ctx);
// The accumulating kernel (harness Use::Aggregate): run_page with each
// qualifying tuple's row projected into acc->row and accumulated there
// (qk_accum_row) as the projection ends, instead of kept; tuples qualified.
int64_t run_accumulate(Dispatch d, Program& p, const uint8_t* page, qk_accum* acc, qk_ctx* ctx);

// The call-mode handler of each kind.
Handler handler_of(int kind);

}  // namespace quelkit::threaded
