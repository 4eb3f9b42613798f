// Prepare (stitch.h): the walk that picks stencils, and the copy-and-patch
// step that makes them one piece of code.
#include "jit/stencil/stitch.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <ostream>

#include "frontend/source.h"
#include "storage/page.h"
#include "jit/perfmap.h"
#include "jit/stencil/disasm.h"
#include "jit/stencil/names.h"
#include "jit/stencil/stencil_code.gen.h"

namespace quelkit::jit::stencil {

static_assert(gen::kCount == kNumStencils, "stencil_code.gen.h and variants.h disagree on the stencil count");
static_assert(gen::kFingerprint == fingerprint(), "stencil_code.gen.h was extracted from stale stencils");

namespace {

using ir::Generic;
using ir::Node;

[[noreturn]] void internal_error(const std::string& what) {
  std::fprintf(stderr, "quelkit: internal error: stencil: %s\n", what.c_str());
  std::abort();
}

// An operand: where its value is and the hole values that say so.
struct Opd {
  Loc loc;
  uint32_t off = 0, len = 0;
  uint64_t k = 0;
  int32_t konst = -1;
};

uint64_t const_bits(const Node& n) {
  switch (n.type.kind) {
    case Tk::F4: return std::bit_cast<uint32_t>(n.val.f4);
    case Tk::F8: return std::bit_cast<uint64_t>(n.val.f8);
    default: return uint32_t(int32_t(n.val.i));
  }
}

class Walk {
 public:
  Walk(const harness::Plan& plan, Program& p, bool nobranch) : plan_(plan), p_(p), nobranch_(nobranch) {
    // The row pointer's stride. Rows of no columns (an aggregate's count)
    // still move it, by one byte, writing nothing: the kernel's entry counts
    // the rows by how far it moved.
    p_.row_len = std::max<uint32_t>(plan.out.tuple_len, 1);
    p_.in_len = plan.in.tuple_len;
    if (plan.targets_folded.size() != plan.out.attrs.size()) internal_error("targets and output columns differ");
  }

  void qual_function(const std::string& name) {
    begin(FnKind::Qual, name, Kind::EntryQual);
    int yes = label(), no = label();
    cond(*plan_.qual_folded, yes, no, yes);
    place(yes);
    emit(Kind::RetTrue);
    place(no);
    emit(Kind::RetFalse);
    end(Kind::Exit);
  }

  void project_function(const std::string& name) {
    begin(FnKind::Project, name, Kind::EntryProject);
    project();
    emit(Kind::RetZero);
    end(Kind::Exit);
  }

  void kernel_function(const std::string& name) {
    if (refines_selection()) return refined_kernel_function(name);
    begin(FnKind::Kernel, name, Kind::EntryKernel);
    // Selection (engine/selection.h). Branch: the qualification is jumps to
    // the projection or to the loop's foot. Nobranch: its value in `e`, the
    // row written for every tuple and kept by it (ROW_IF); targets that can
    // raise are projected only for a qualifying tuple (JUMP_E).
    page_loop([&](int foot) {
      if (plan_.always_qualifies()) {
        project();
        emit(Kind::RowDone).target = foot;
      } else if (!nobranch_) {
        int yes = label();
        cond(*plan_.qual_folded, yes, foot, yes);
        place(yes);
        project();
        emit(Kind::RowDone).target = foot;
      } else {
        predicate(*plan_.qual_folded);
        if (!harness::targets_may_raise(plan_)) {
          project();
          emit(Desc{Kind::RowIf, ir::Op::CONST, {}, {}, rowif_type(p_.row_len)}).target = foot;
        } else {
          emit(Desc{Kind::JumpE, ir::Op::CONST, {}, {}, kNoTk, false}).target = foot;
          project();
          emit(Kind::RowDone).target = foot;
        }
      }
    });
    emit(Kind::PageDone);
    end(Kind::PageExit);
  }

 private:
  // The loop over a page's live lines, bottom-tested as the JIT's kernels are
  // (jit/codegen.cpp): entered at its foot (LOOP_TAIL), whose jump back to
  // the body is the one taken jump a tuple costs; `body` emits the loop's
  // body, whose last stencil falls into the foot (the label it is given, for
  // the tuples it leaves early). After the loop: the page is done.
  void page_loop(const std::function<void(int foot)>& body) {
    int foot = label(), top = label();
    emit(Kind::Jump).target = foot;
    place(top);
    body(foot);
    place(foot);
    emit(Kind::LoopTail).target = top;
  }

  // Nobranch over a conjunction whose terms cannot raise, with targets that
  // cannot either: one term per pass over the tuples the terms before it
  // kept, in a selection vector of tuple offsets in the frame, as the JIT
  // walk's refined kernel does (jit/codegen.cpp says why). A conjunction of
  // more terms evaluates the rest together in its last pass.
  static constexpr size_t kMaxRefinePasses = 4;
  static constexpr uint32_t kSelBytes = 2 * kMaxPageLines;

  bool refines_selection() const {
    const Node* q = plan_.qual_folded.get();
    return nobranch_ && q && ir::op_info(q->op).generic == Generic::And && q->kid.size() >= 2 &&
           !ir::may_raise(*q) && !harness::targets_may_raise(plan_);
  }

  void refined_kernel_function(const std::string& name) {
    begin(FnKind::Kernel, name, Kind::EntryKernel);
    const Node& q = *plan_.qual_folded;
    const uint32_t count = new_slot();
    const uint32_t sel = slots_ * 8;  // the vector: kSelBytes of frame after the count
    slots_ += kSelBytes / 8;
    if (slots_ * 8 > p_.frame) p_.frame = slots_ * 8;
    // Pass 1: the page's live lines.
    page_loop([&](int foot) {
      predicate(*q.kid[0]);
      Inst& put = emit(Kind::SelPut);
      put.d_off = sel;
      put.target = foot;
    });
    // Passes over the vector: each later term, then the projection.
    auto over_selected = [&](const std::function<void()>& each, Kind after) {
      int tail = label(), body = label();
      Inst& start = emit(Kind::SelStart);
      start.d_off = count;
      start.target = tail;
      place(body);
      each();
      Inst& a = emit(after);
      if (after == Kind::SelPut) a.d_off = sel;
      a.target = tail;
      place(tail);
      Inst& i = emit(Kind::SelTail);
      i.a_off = sel;
      i.d_off = count;
      i.target = body;
    };
    for (size_t t = 1; t < q.kid.size() && t < kMaxRefinePasses; ++t) {
      const bool last = t + 1 == kMaxRefinePasses;
      over_selected([&] {
        predicate(*q.kid[t]);
        if (!last || t + 1 >= q.kid.size()) return;
        const uint32_t left = new_slot();  // e = e & each term after it
        for (size_t r = t + 1; r < q.kid.size(); ++r) {
          emit(Kind::SaveE).d_off = left;
          predicate(*q.kid[r]);
          emit(Kind::AndE).a_off = left;
        }
      }, Kind::SelPut);
    }
    over_selected([&] { project(); }, Kind::RowDone);
    emit(Kind::PageDone);
    end(Kind::PageExit);
  }

  // A target computed for any tuple without raising or calling: leaves, and
  // the conversions of them the catalogue says cannot raise.
  static bool plain(const Node& n) {
    const ir::OpInfo& r = ir::op_info(n.op);
    if (r.cls() == ir::Class::Leaf) return true;
    return r.cls() == ir::Class::Convert && !r.can_raise() && plain(*n.kid[0]);
  }
  // Nobranch: the qualification's value into `e`, as the JIT walk computes it
  // (jit/codegen.cpp): comparisons as values (SELECT); the right operand of
  // and/or speculatively (SAVE_E, then AND_E / OR_E) when nothing in it can
  // raise, else under its short-circuit guard (JUMP_E past it).
  void predicate(const Node& n) {
    const ir::OpInfo& r = ir::op_info(n.op);
    switch (r.generic) {
      case Generic::And:
      case Generic::Or: {
        // n-ary (ir.h): folded left to right, e = e op operand. Once e
        // decides, a later operand that may raise is jumped over and one
        // that cannot leaves e as it is. Save and combine pairs follow one
        // another, so the node needs one slot for all its operands.
        const bool conj = r.generic == Generic::And;
        predicate(*n.kid[0]);
        uint32_t left = 0;
        bool have_slot = false;
        for (size_t i = 1; i < n.kid.size(); ++i) {
          if (!ir::may_raise(*n.kid[i])) {
            if (!have_slot) left = new_slot(), have_slot = true;
            emit(Kind::SaveE).d_off = left;
            predicate(*n.kid[i]);
            emit(conj ? Kind::AndE : Kind::OrE).a_off = left;
          } else {
            int join = label();
            // and: a false value so far decides (e stays 0); or: a true one.
            emit(Desc{Kind::JumpE, ir::Op::CONST, {}, {}, kNoTk, !conj}).target = join;
            predicate(*n.kid[i]);
            place(join);
          }
        }
        return;
      }
      case Generic::Not:
        predicate(*n.kid[0]);
        emit(Kind::NotE);
        return;
      case Generic::Const:
        emit(Desc{Kind::SetE, ir::Op::CONST, {}, {}, kNoTk, n.val.i != 0});
        return;
      default:
        break;
    }
    comparison(n, Kind::Select, false);
  }

  // ---- instances and labels

  int label() {
    p_.labels.push_back(-1);
    return int(p_.labels.size() - 1);
  }
  void place(int l) { p_.labels[size_t(l)] = int32_t(p_.insts.size()); }

  Inst& emit(const Desc& d, const Node* n = nullptr) {
    int id = lookup(d);
    if (id < 0) internal_error("no stencil " + name(d));
    p_.insts.push_back(Inst{});
    Inst& i = p_.insts.back();
    i.id = int16_t(id);
    i.node = n;
    return i;
  }
  Inst& emit(Kind k) { return emit(Desc{k}); }

  void begin(FnKind k, const std::string& name, Kind entry) {
    fn_ = Function{k, name, uint32_t(p_.insts.size()), 0};
    raises_.clear();
    emit(entry);
  }

  // The cold tail: one raise stencil per position that can raise, then the exit.
  void end(Kind exit) {
    int out = label();
    for (const Raise& r : raises_) {
      place(r.label);
      Inst& i = emit(r.code ? Kind::RaiseK : Kind::Raise);
      i.pos = r.pos;
      i.d_len = uint32_t(r.code);
      i.target = out;
    }
    place(out);
    emit(exit);
    fn_.end = uint32_t(p_.insts.size());
    p_.fns.push_back(fn_);
  }

  // The label raising n's error at n's position (one raise stencil per
  // position and code; 0: the code the stencil computed).
  int raise_at(const Node& n) {
    const ir::OpInfo& r = ir::op_info(n.op);
    const uint64_t pos = n.pos.pack();
    const int code = one_error(r) ? the_error(r) : 0;
    for (const Raise& x : raises_)
      if (x.pos == pos && x.code == code) return x.label;
    raises_.push_back(Raise{pos, code, label()});
    return raises_.back().label;
  }

  uint32_t new_slot() {
    uint32_t off = slots_ * 8;
    ++slots_;
    if (slots_ * 8 > p_.frame) p_.frame = slots_ * 8;
    return off;
  }

  // ---- operands

  void within(uint32_t off, uint32_t len, uint32_t limit, const char* what) {
    if (uint64_t(off) + len > limit)
      internal_error(std::string(what) + ": " + std::to_string(off) + "+" + std::to_string(len) + " > " +
                     std::to_string(limit));
  }

  Opd operand(const Node& n) {
    const ir::OpInfo& r = ir::op_info(n.op);
    switch (r.generic) {
      case Generic::Const: {
        Opd o;
        o.loc = Loc{Where::Const};
        if (n.type.kind == Tk::C) {
          std::string b = n.val.s;
          b.resize(n.type.len, ' ');  // the node's length is the value's
          p_.consts.push_back(std::move(b));
          o.konst = int32_t(p_.consts.size() - 1);
          o.len = n.type.len;
        } else if (n.type.kind == Tk::B) {
          internal_error("a boolean constant as a value");
        } else {
          o.k = const_bits(n);
        }
        return o;
      }
      case Generic::Attr:
        if (n.type.kind == Tk::B) internal_error("boolean attribute");
        within(n.offset, n.type.len, plan_.in.tuple_len, "tuple attribute");
        return Opd{Loc{Where::Tuple, n.type.kind}, n.offset, n.type.len};
      case Generic::Param:
        if (n.type.kind == Tk::B) internal_error("boolean parameter");
        within(n.offset, n.type.len, plan_.params.tuple_len, "parameter");
        return Opd{Loc{Where::Param, n.type.kind}, n.offset, n.type.len};
      case Generic::Cvt: {
        const Tk from = n.kid[0]->type.kind, to = n.type.kind;
        // Integer widening: every integer is computed as int32 already.
        if (is_int(from) && is_int(to) && (to == Tk::I4 || (from == Tk::I1 && to == Tk::I2)))
          return operand(*n.kid[0]);
        // A widened attribute (integer to float, f4 to f8: exact or rounding,
        // never raising): its consumer reads and widens it, as threaded code does.
        const bool widening = (is_int(from) && is_float(to)) || (from == Tk::F4 && to == Tk::F8);
        if (n.kid[0]->op == ir::Op::ATTR && widening) return operand(*n.kid[0]);
        break;
      }
      default:
        break;
    }
    return computed(n);
  }

  Opd computed(const Node& n) {
    const ir::OpInfo& r = ir::op_info(n.op);
    if (r.cls() == ir::Class::Compare || r.cls() == ir::Class::Logic) internal_error("a condition as a value");
    Opd a = operand(*n.kid[0]);
    Opd b;
    if (r.arity == 2) b = operand(*n.kid[1]);
    Desc d{Kind::Op, n.op, a.loc, r.arity == 2 ? b.loc : Loc{}};
    fit(d, a, b, r);
    Inst& i = emit(d, &n);
    set_a(i, a);
    if (r.arity == 2) set_b(i, b);
    i.pos = n.pos.pack();
    if (r.can_raise()) i.error = raise_at(n);
    if (r.result == Tk::C) {
      within(n.scratch, n.type.len, plan_.scratch_size, "scratch");
      i.d_off = n.scratch;
      i.d_len = n.type.len;
      return Opd{Loc{Where::Scratch}, n.scratch, n.type.len};
    }
    i.d_off = new_slot();
    return Opd{Loc{Where::Slot}, i.d_off};
  }

  // When the set has no stencil for these operand places (two in memory, two
  // constants, a widened attribute a conversion does not take), load one
  // operand into a slot first: the left, then the right.
  void fit(Desc& d, Opd& a, Opd& b, const ir::OpInfo& r) {
    if (lookup(d) >= 0) return;
    if (a.loc.w != Where::Slot && r.left != Tk::C) {
      a = load(a, r.left);
      d.a = a.loc;
      if (lookup(d) >= 0) return;
    }
    if (r.arity == 2 && b.loc.w != Where::Slot && r.right != Tk::C) {
      b = load(b, r.right);
      d.b = b.loc;
    }
  }

  Opd load(const Opd& o, Tk t) {
    Inst& i = emit(Desc{Kind::Load, ir::Op::CONST, o.loc, {}, reg(t)});
    set_a(i, o);
    i.d_off = new_slot();
    return Opd{Loc{Where::Slot}, i.d_off};
  }

  static void set_a(Inst& i, const Opd& o) {
    i.a_off = o.off;
    i.a_len = o.len;
    i.a_k = o.k;
    i.a_const = o.konst;
  }
  static void set_b(Inst& i, const Opd& o) {
    i.b_off = o.off;
    i.b_len = o.len;
    i.b_k = o.k;
    i.b_const = o.konst;
  }

  // ---- conditions: jumps to t or f; `fall` is the label placed right after.

  void cond(const Node& n, int t, int f, int fall) {
    const ir::OpInfo& r = ir::op_info(n.op);
    switch (r.generic) {
      case Generic::And:
      case Generic::Or: {
        // n-ary (ir.h): each operand but the last decides by jumping to f
        // (and) or t (or), else falls to the next.
        const bool conj = r.generic == Generic::And;
        for (size_t i = 0; i + 1 < n.kid.size(); ++i) {
          int next = label();
          if (conj) cond(*n.kid[i], next, f, next);
          else cond(*n.kid[i], t, next, next);
          place(next);
        }
        cond(*n.kid.back(), t, f, fall);
        return;
      }
      case Generic::Not:
        cond(*n.kid[0], f, t, fall);
        return;
      case Generic::Const: {
        int to = n.val.i ? t : f;
        if (to != fall) emit(Kind::Jump).target = to;
        return;
      }
      default:
        break;
    }
    // Jump to the label that does not follow; both when neither does.
    const bool jump_if = fall == f;
    comparison(n, Kind::Branch, jump_if).target = jump_if ? t : f;
    if (fall != t && fall != f) emit(Kind::Jump).target = t;
  }

  // A comparison (or pattern) as a BRANCH or SELECT stencil, its operands
  // evaluated first.
  Inst& comparison(const Node& n, Kind k, bool jump_if) {
    const ir::OpInfo& r = ir::op_info(n.op);
    if (r.cls() != ir::Class::Compare) internal_error(std::string("not a condition: ") + r.name);
    Opd a = operand(*n.kid[0]);
    Opd b = operand(*n.kid[1]);
    Desc d{k, n.op, a.loc, b.loc, kNoTk, jump_if};
    fit(d, a, b, r);
    Inst& i = emit(d, &n);
    set_a(i, a);
    set_b(i, b);
    i.pos = n.pos.pack();
    return i;
  }

  // ---- the projection: each target into its column of the row

  void project() {
    for (size_t k = 0; k < plan_.targets_folded.size(); ++k) {
      const Node& t = *plan_.targets_folded[k];
      const Attribute& col = plan_.out.attrs[k];
      const Tk c = col.type.kind;
      if (c != t.type.kind || c == Tk::B) internal_error("target " + std::to_string(k) + " does not fit its column");
      within(col.offset, col.type.len, plan_.out.tuple_len, "row column");
      Opd o = operand(t);
      if (c != Tk::C && o.loc.memory() && o.loc.s != c) o = load(o, c);  // widened on the way
      Inst& i = emit(Desc{Kind::Store, ir::Op::CONST, o.loc, {}, c}, &t);
      set_a(i, o);
      i.d_off = col.offset;
      i.d_len = col.type.len;
    }
  }

  const harness::Plan& plan_;
  Program& p_;
  const bool nobranch_;  // the kernel's selection (engine/selection.h)
  Function fn_{};
  struct Raise {
    uint64_t pos;
    int code;
    int label;
  };
  std::vector<Raise> raises_;
  uint32_t slots_ = 0;
};

}  // namespace

// The stencil index: an open-addressed table (linear probing) of every
// descriptor's key, built at compile time into read-only data. A lookup is a
// multiply and, mostly, one cache line: prepare runs after scans that have
// evicted everything, where the node-based hash map this replaced cost a
// pointer chase, and so a cache miss, per step of every lookup.
namespace {

struct IndexSlot {
  uint64_t key;
  int16_t id;  // -1: empty
};
constexpr size_t kIndexSlots = 4096;  // a power of two, at least 1.5x the stencils
static_assert(kIndexSlots >= size_t(kNumStencils) * 3 / 2, "the stencil index is too full");

constexpr size_t index_home(uint64_t key) { return size_t((key * 0x9e3779b97f4a7c15ULL) >> 52) & (kIndexSlots - 1); }

constexpr std::array<IndexSlot, kIndexSlots> make_index() {
  std::array<IndexSlot, kIndexSlots> x{};
  for (auto& s : x) s = IndexSlot{0, -1};
  for (int i = 0; i < kNumStencils; ++i) {
    const uint64_t k = key(desc(i));
    size_t h = index_home(k);
    while (x[h].id >= 0) h = (h + 1) & (kIndexSlots - 1);
    x[h] = IndexSlot{k, int16_t(i)};
  }
  return x;
}

constexpr std::array<IndexSlot, kIndexSlots> kIndex = make_index();

}  // namespace

int lookup(const Desc& d) {
  const uint64_t k = key(d);
  for (size_t h = index_home(k);; h = (h + 1) & (kIndexSlots - 1)) {
    const IndexSlot& s = kIndex[h];
    if (s.id < 0) return -1;
    if (s.key == k) return s.id;
  }
}

Program build(const harness::Plan& plan, Functions which, const std::string& base, bool nobranch) {
  Program p;
  p.insts.reserve(64);
  p.labels.reserve(32);
  p.nobranch = nobranch && which.kernel;
  Walk w(plan, p, nobranch);
  if (which.kernel) w.kernel_function(function_name(base, FnKind::Kernel));
  if (which.qual) {
    if (!plan.qual_folded) internal_error("qualification function without a qualification");
    w.qual_function(function_name(base, FnKind::Qual));
  }
  if (which.project) w.project_function(function_name(base, FnKind::Project));
  return p;
}

// ------------------------------------------------------------- stitching

namespace {

const Code& code_of(const Inst& i) { return gen::kCode[size_t(i.id)]; }

// The label (or next instance) a trailing jump of instance k goes to.
int32_t trail_target(const Program& p, size_t k) {
  const Code& c = code_of(p.insts[k]);
  switch (c.trail) {
    case Sym::Continue: return int32_t(k + 1);
    case Sym::Target: return p.insts[k].target >= 0 ? p.labels[size_t(p.insts[k].target)] : -1;
    case Sym::Error: return p.insts[k].error >= 0 ? p.labels[size_t(p.insts[k].error)] : -1;
    default: return -1;
  }
}

template <class T>
void put(uint8_t* at, T v) {
  std::memcpy(at, &v, sizeof v);
}

}  // namespace

Stitched stitch(const Program& p) {
  Stitched s;
  const size_t n = p.insts.size();
  s.offset.resize(n);
  s.size.resize(n);
  // Layout: functions 16-byte aligned, each instance's bytes less a trailing
  // jump to what follows it.
  uint32_t at = 0;
  size_t fn = 0;
  s.fn_offset.resize(p.fns.size());
  s.fn_size.resize(p.fns.size());
  for (size_t k = 0; k < n; ++k) {
    if (fn < p.fns.size() && k == p.fns[fn].first) {
      at = (at + 15) & ~15u;
      s.fn_offset[fn] = at;
    }
    const Code& c = code_of(p.insts[k]);
    uint32_t size = c.size;
    if (c.trail != Sym::Data && trail_target(p, k) == int32_t(k + 1) && k + 1 < n &&
        !(fn < p.fns.size() && k + 1 == p.fns[fn].end))
      size -= 5;
    s.offset[k] = at;
    s.size[k] = size;
    at += size;
    if (fn < p.fns.size() && k + 1 == p.fns[fn].end) {
      s.fn_size[fn] = at - s.fn_offset[fn];
      ++fn;
    }
  }
  s.code_bytes = at;
  // Data: character constants, then each used stencil's read-only constants.
  std::vector<uint32_t> const_at(p.consts.size());
  for (size_t k = 0; k < p.consts.size(); ++k) {
    const_at[k] = at;
    at += uint32_t(p.consts[k].size());
  }
  std::map<int, uint32_t> data_at;
  for (const Inst& i : p.insts) {
    const Code& c = code_of(i);
    if (!c.ndata || data_at.count(i.id)) continue;
    at = (at + 15) & ~15u;
    data_at[i.id] = at;
    at += c.ndata;
  }
  s.total_bytes = at;

  Arena& arena = Arena::get();
  s.span = arena.allocate(at ? at : 1);
  if (!s.span) {
    // The machine's limit, not the statement's fault: an I/O error of the
    // statement (as gccjit's toolchain trouble is), and the session goes on.
    Error e;
    e.kind = ErrKind::IO;
    e.message = "stencil could not place the statement's code: the code arena (" +
                std::to_string(arena.reserved_bytes() >> 20) +
                " MiB of address space" + (arena.reserved_bytes() ? "" : ", none to be had under ulimit -v") +
                ") is full";
    throw QuelError(std::move(e));
  }
  uint8_t* const base = s.span.p;
  std::memset(base, 0xcc, s.fn_offset.empty() ? 0 : s.code_bytes);  // alignment padding traps
  for (size_t k = 0; k < p.consts.size(); ++k) std::memcpy(base + const_at[k], p.consts[k].data(), p.consts[k].size());
  for (const auto& [id, off] : data_at) {
    const Code& c = gen::kCode[size_t(id)];
    std::memcpy(base + off, gen::kData + c.data, c.ndata);
  }
  auto label_addr = [&](int32_t label) -> uint64_t {
    if (label < 0 || p.labels[size_t(label)] < 0 || size_t(p.labels[size_t(label)]) >= n)
      internal_error("a jump to an unplaced label");
    return reinterpret_cast<uint64_t>(base + s.offset[size_t(p.labels[size_t(label)])]);
  };
  for (size_t k = 0; k < n; ++k) {
    const Inst& i = p.insts[k];
    const Code& c = code_of(i);
    uint8_t* const code = base + s.offset[k];
    std::memcpy(code, gen::kBytes + c.bytes, s.size[k]);
    for (uint32_t h = c.holes; h < c.holes + c.nholes; ++h) {
      const Hole& hole = gen::kHoles[h];
      if (hole.offset >= s.size[k]) continue;  // the dropped trailing jump's
      uint8_t* const site = code + hole.offset;
      uint64_t v = 0;
      switch (hole.sym) {
        case Sym::Continue:
          if (k + 1 >= n) internal_error("the last stencil continues");
          v = reinterpret_cast<uint64_t>(base + s.offset[k + 1]);
          break;
        case Sym::Target: v = label_addr(i.target); break;
        case Sym::Error: v = label_addr(i.error); break;
        case Sym::AOff: v = i.a_off; break;
        case Sym::BOff: v = i.b_off; break;
        case Sym::DOff: v = i.d_off; break;
        case Sym::ALen: v = i.a_len; break;
        case Sym::BLen: v = i.b_len; break;
        case Sym::DLen: v = i.d_len; break;
        case Sym::Frame: v = p.frame; break;
        case Sym::RowLen: v = p.row_len; break;
        case Sym::InLen: v = p.in_len; break;
        case Sym::AK: v = i.a_const >= 0 ? reinterpret_cast<uint64_t>(base + const_at[size_t(i.a_const)]) : i.a_k; break;
        case Sym::BK: v = i.b_const >= 0 ? reinterpret_cast<uint64_t>(base + const_at[size_t(i.b_const)]) : i.b_k; break;
        case Sym::Pos: v = i.pos; break;
        case Sym::ErrCode: v = i.d_len; break;
        case Sym::Data: v = reinterpret_cast<uint64_t>(base + data_at[i.id]) + hole.index; break;
        case Sym::Extern: v = arena.call_target(hole.index, site); break;
      }
      const uint64_t x = v + uint64_t(hole.addend);
      switch (hole.patch) {
        case Patch::Abs64: put<uint64_t>(site, x); break;
        case Patch::Abs32:
          if (x > 0xffffffffull) internal_error("a 32-bit hole does not hold " + std::to_string(x));
          put<uint32_t>(site, uint32_t(x));
          break;
        case Patch::Abs32S:
          if (int64_t(x) != int64_t(int32_t(x))) internal_error("a signed 32-bit hole does not hold " + std::to_string(x));
          put<int32_t>(site, int32_t(x));
          break;
        case Patch::Rel32: {
          const int64_t d = int64_t(x) - int64_t(reinterpret_cast<uintptr_t>(site));
          if (d != int64_t(int32_t(d))) internal_error("a jump or call beyond rel32");
          put<int32_t>(site, int32_t(d));
          break;
        }
      }
    }
  }
  for (size_t f = 0; f < p.fns.size(); ++f) {
    s.entry[size_t(p.fns[f].kind)] = base + s.fn_offset[f];
    if (harness::perfmap_enabled()) harness::perfmap_register(base + s.fn_offset[f], s.fn_size[f], p.fns[f].name);
  }
  return s;
}

// ------------------------------------------------------------- the dump

namespace {

std::string hexs(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string node_text(const Node& n) {
  std::string s = ir::op_name(n.op);
  if (n.pos.line) s += " @" + std::to_string(n.pos.line) + ":" + std::to_string(n.pos.col);
  return s;
}

std::string opd_text(Loc l, uint32_t off, uint32_t len, uint64_t k, int32_t konst, const Program& p) {
  switch (l.w) {
    case Where::None: return "";
    case Where::Slot: return "slot@" + std::to_string(off);
    case Where::Tuple: return "tuple@" + std::to_string(off) + (l.s == Tk::C ? "[" + std::to_string(len) + "]" : "");
    case Where::Param: return "param@" + std::to_string(off) + (l.s == Tk::C ? "[" + std::to_string(len) + "]" : "");
    case Where::Scratch: return "scratch@" + std::to_string(off) + "[" + std::to_string(len) + "]";
    case Where::Const:
      if (konst >= 0) return "\"" + p.consts[size_t(konst)] + "\"";
      return "k=" + hexs(k);
  }
  return "?";
}

}  // namespace

void dump(const Program& p, const Stitched& s, std::ostream& os) {
  std::string err;
  auto dis = Disassembler::create(&err);
  const uint8_t* base = s.span.p;
  os << "stencil: " << p.insts.size() << " stencils, " << s.code_bytes << " bytes of code, "
     << s.total_bytes - s.code_bytes << " bytes of data, frame " << p.frame << " bytes\n";
  std::map<int32_t, std::vector<int>> labels_at;
  for (size_t l = 0; l < p.labels.size(); ++l) labels_at[p.labels[l]].push_back(int(l));
  size_t fn = 0;
  for (size_t k = 0; k < p.insts.size(); ++k) {
    if (fn < p.fns.size() && k == p.fns[fn].first)
      os << p.fns[fn].name << " at +" << hexs(s.fn_offset[fn]) << " (" << s.fn_size[fn] << " bytes):\n";
    if (auto it = labels_at.find(int32_t(k)); it != labels_at.end()) {
      os << " ";
      for (int l : it->second) os << " L" << l << ":";
      os << "\n";
    }
    const Inst& i = p.insts[k];
    const Desc& d = desc(i.id);
    char head[64];
    std::snprintf(head, sizeof head, "  +%04x  %-4u ", s.offset[k], s.size[k]);
    os << head << name(d);
    std::string holes;
    auto add = [&](const std::string& t) {
      if (!t.empty()) holes += (holes.empty() ? "" : ", ") + t;
    };
    if (d.kind == Kind::Op || d.kind == Kind::Branch || d.kind == Kind::Load || d.kind == Kind::Store) {
      add("a=" + opd_text(d.a, i.a_off, i.a_len, i.a_k, i.a_const, p));
      if (d.b.w != Where::None) add("b=" + opd_text(d.b, i.b_off, i.b_len, i.b_k, i.b_const, p));
      if (d.kind == Kind::Store) add("row@" + std::to_string(i.d_off) + "[" + std::to_string(i.d_len) + "]");
      else if (d.kind == Kind::Op && ir::op_info(d.op).result == Tk::C)
        add("-> scratch@" + std::to_string(i.d_off) + "[" + std::to_string(i.d_len) + "]");
      else if (d.kind != Kind::Branch) add("-> slot@" + std::to_string(i.d_off));
    }
    if (i.target >= 0) add("target L" + std::to_string(i.target));
    if (i.error >= 0) add("raise L" + std::to_string(i.error));
    if (d.kind == Kind::RaiseK) add("code " + std::to_string(i.d_len));
    if (d.kind == Kind::Raise || d.kind == Kind::RaiseK) {
      SrcPos pos = SrcPos::unpack(i.pos);
      add("pos " + std::to_string(pos.line) + ":" + std::to_string(pos.col));
    }
    if (!holes.empty()) os << "  [" << holes << "]";
    if (i.node) os << "  <- " << node_text(*i.node);
    os << "\n";
    if (dis) {
      const uint8_t* code = base + s.offset[k];
      for (uint32_t pc = 0; pc < s.size[k];) {
        auto insn = dis->decode(code + pc, s.size[k] - pc, s.offset[k] + pc, true);
        if (!insn.size) {
          os << "          +" << hexs(s.offset[k] + pc) << "  (undecodable)\n";
          break;
        }
        char line[32];
        std::snprintf(line, sizeof line, "          %04x  ", s.offset[k] + pc);
        os << line << insn.text << "\n";
        pc += uint32_t(insn.size);
      }
    }
    if (fn < p.fns.size() && k + 1 == p.fns[fn].end) ++fn;
  }
  if (!dis) os << "(no disassembly: " << err << ")\n";
}

}  // namespace quelkit::jit::stencil
