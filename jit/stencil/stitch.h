// Prepare of the stencil back end, in two steps:
//
//   build()   walks the plan's folded typed IR (never the unfolded one) and
//             picks a stencil per operator and operand places (variants.h),
//             with the values of its holes and the IR node it came from:
//             a Program of instances and labels, one C-ABI function per
//             entry shim (qual, project, kernel);
//   stitch()  lays the instances out (dropping a trailing jump whose target
//             follows), copies their bytes and read-only constants into the
//             arena, and patches every hole, PC-relative ones from the address
//             the code will run at.
//
// Evaluation order is the IR's: operands are evaluated left to right, leaves
// (which cannot raise) are read by the stencil that consumes them, so errors
// are raised at the same node, for the same tuple, as the interpreter's.
// Conditions are control flow (and, or, not: jumps, as the JIT walk does),
// comparisons are branch stencils.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/plan.h"
#include "jit/codegen.h"
#include "jit/stencil/arena.h"
#include "jit/stencil/variants.h"

namespace quelkit::jit::stencil {

struct Inst {
  int16_t id = 0;                                     // the stencil (variants.h)
  int32_t target = -1, error = -1;                    // labels: _JIT_TARGET, _JIT_ERROR
  uint32_t a_off = 0, b_off = 0, d_off = 0;           // _JIT_A_OFF _JIT_B_OFF _JIT_D_OFF
  uint32_t a_len = 0, b_len = 0, d_len = 0;           // _JIT_A_LEN ...
  uint64_t a_k = 0, b_k = 0, pos = 0;                 // _JIT_A_K _JIT_B_K _JIT_POS
  int32_t a_const = -1, b_const = -1;                 // character constants: index in Program::consts
  const ir::Node* node = nullptr;                     // where it came from (dumps); null for control
};

struct Function {
  FnKind kind;
  std::string name;  // q3_qual, q3_kernel
  uint32_t first = 0, end = 0;  // its instances
};

struct Program {
  std::vector<Inst> insts;
  std::vector<int32_t> labels;      // label -> the instance it precedes
  std::vector<std::string> consts;  // character constants' bytes
  std::vector<Function> fns;
  uint32_t frame = 0;               // frame bytes (8 per slot)
  uint32_t row_len = 0, in_len = 0;  // the row pointer's stride (>= 1), the tuple length
  bool nobranch = false;            // the kernel's selection (engine/selection.h)
};

// The instances for `which` of `plan`. Aborts on a plan the harness never makes.
// nobranch: the kernel's selection variant (engine/selection.h).
Program build(const harness::Plan& plan, Functions which, const std::string& base, bool nobranch);

struct Stitched {
  Arena::Span span;
  void* entry[3] = {};                // by FnKind: the C-ABI entry of each function built
  std::vector<uint32_t> offset, size;  // of each instance, from span.p
  std::vector<uint32_t> fn_offset, fn_size;
  uint32_t code_bytes = 0, total_bytes = 0;
};

// Copies and patches `p` into the arena (writable until Arena::ready()).
// Registers the functions with the perf map when it is on.
Stitched stitch(const Program& p);

// --dump=stencil: every instance with its offset, stencil, hole values and IR
// node, and its code disassembled (LLVM's MC disassembler).
void dump(const Program& p, const Stitched& s, std::ostream& os);

// The stencil of a descriptor (variants.h), or -1.
int lookup(const Desc& d);

}  // namespace quelkit::jit::stencil
