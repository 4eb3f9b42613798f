// Names of stencils as dumps, the extractor's messages and the generated
// source's comments print them: `MUL_F8(k, t.i2)`, `LT_F8(t.i2, s) jump-if-false`,
// `STORE_I2(t.i2)`, `LOOP_TAIL`.
#pragma once

#include <string>

#include "jit/stencil/variants.h"

namespace quelkit::jit::stencil {

inline std::string tk_name(Tk t) {
  static const char* const n[] = {"i1", "i2", "i4", "f4", "f8", "c", "bool"};
  return t == kNoTk ? "?" : n[size_t(t)];
}

inline std::string loc_name(Loc l) {
  switch (l.w) {
    case Where::None: return "";
    case Where::Slot: return "s";
    case Where::Const: return "k";
    case Where::Tuple: return "t." + tk_name(l.s);
    case Where::Param: return "p." + tk_name(l.s);
    case Where::Scratch: return "x";
  }
  return "?";
}

inline std::string upper(std::string s) {
  for (char& c : s) c = char(c >= 'a' && c <= 'z' ? c - 32 : c);
  return s;
}

inline std::string kind_name(Kind k) {
  switch (k) {
    case Kind::EntryQual: return "ENTRY_QUAL";
    case Kind::EntryProject: return "ENTRY_PROJECT";
    case Kind::EntryKernel: return "ENTRY_KERNEL";
    case Kind::Op: return "OP";
    case Kind::Branch: return "BRANCH";
    case Kind::Select: return "SELECT";
    case Kind::Load: return "LOAD";
    case Kind::Store: return "STORE";
    case Kind::Jump: return "JUMP";
    case Kind::RetTrue: return "RET_TRUE";
    case Kind::RetFalse: return "RET_FALSE";
    case Kind::RetZero: return "RET_ZERO";
    case Kind::Exit: return "EXIT";
    case Kind::Raise: return "RAISE";
    case Kind::RaiseK: return "RAISE_CODE";
    case Kind::LoopTail: return "LOOP_TAIL";
    case Kind::RowDone: return "ROW_DONE";
    case Kind::RowIf: return "ROW_IF";
    case Kind::PageDone: return "PAGE_DONE";
    case Kind::PageExit: return "PAGE_EXIT";
    case Kind::SetE: return "SET_E";
    case Kind::SaveE: return "SAVE_E";
    case Kind::AndE: return "AND_E";
    case Kind::OrE: return "OR_E";
    case Kind::NotE: return "NOT_E";
    case Kind::JumpE: return "JUMP_E";
    case Kind::SelPut: return "SEL_PUT";
    case Kind::SelStart: return "SEL_START";
    case Kind::SelTail: return "SEL_TAIL";
  }
  return "?";
}

inline std::string name(const Desc& d) {
  switch (d.kind) {
    case Kind::Op:
      return std::string(ir::op_name(d.op)) + "(" + loc_name(d.a) + (d.b.w == Where::None ? "" : ", " + loc_name(d.b)) +
             ")";
    case Kind::Branch:
      return std::string(ir::op_name(d.op)) + "(" + loc_name(d.a) + ", " + loc_name(d.b) + ") jump-if-" +
             (d.jump_if ? "true" : "false");
    case Kind::Select:
      return std::string(ir::op_name(d.op)) + "(" + loc_name(d.a) + ", " + loc_name(d.b) + ") select";
    case Kind::SetE: return std::string("SET_E ") + (d.jump_if ? "1" : "0");
    case Kind::JumpE: return std::string("JUMP_E if ") + (d.jump_if ? "1" : "0");
    case Kind::Load: return "LOAD_" + upper(tk_name(d.t)) + "(" + loc_name(d.a) + ")";
    case Kind::Store: return "STORE_" + upper(tk_name(d.t)) + "(" + loc_name(d.a) + ")";
    case Kind::RowIf:
      return d.t == kNoTk ? "ROW_IF" : "ROW_IF(" + std::to_string(type_info(d.t).size) + " bytes)";
    default: return kind_name(d.kind);
  }
}

inline std::string name(int i) { return name(desc(i)); }

}  // namespace quelkit::jit::stencil
