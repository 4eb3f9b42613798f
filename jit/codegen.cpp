// The walk over the folded typed IR that both JITs share (codegen.h). Every
// operator's semantics as generated code sees them is decided here, once:
// which checks run (those the catalogue's ERRORS column lists for the row,
// frontend/ops.def), in which order, with which error code and position, and
// which runtime helper is called. The rules are those of runtime_inline.h (the
// interpreter and the fold pass use the same), emitted inline where they are
// simple (checked integer arithmetic, finite float results, comparisons,
// widening conversions) and called where they are subtle.
#include "jit/codegen.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <utility>

#include "frontend/op_rules.h"
#include "storage/page.h"
#include "storage/page_walk.h"

#pragma GCC diagnostic error "-Wswitch"

// qk_rule_<OP>: every typed operator's runtime rule behind a C signature,
// exported under that name so that generated code can call it (LLVM binds it
// by address, libgccjit's loader by name). Rows whose operands or result are
// characters (and the leaves) get one too, for a uniform table, but have no
// address in it: generated code reaches their rules through the fixed helpers.
#define QK_RULE_ABI_1(ID)                                                                             \
  extern "C" int qk_rule_##ID(quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).left> a, \
                              quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).result>* r) noexcept;
#define QK_RULE_ABI_2(ID)                                                                              \
  extern "C" int qk_rule_##ID(quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).left> a,  \
                              quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).right> b, \
                              quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).result>* r) noexcept;
// Unary rows have no right operand (X); the rest have two.
#define QK_RULE_ABI_X QK_RULE_ABI_1
#define QK_RULE_ABI_I1 QK_RULE_ABI_2
#define QK_RULE_ABI_I2 QK_RULE_ABI_2
#define QK_RULE_ABI_I4 QK_RULE_ABI_2
#define QK_RULE_ABI_F4 QK_RULE_ABI_2
#define QK_RULE_ABI_F8 QK_RULE_ABI_2
#define QK_RULE_ABI_C QK_RULE_ABI_2
#define QK_RULE_ABI_B QK_RULE_ABI_2
#define QK_OP(ID, GEN, R, A, B, RULE, ERRS, SYN) QK_RULE_ABI_##B(ID)
#include "frontend/ops.def"

namespace quelkit::jit {

// ------------------------------------------------------------- small tables

const char* mode_name(Mode m) {
  static const char* const names[] = {
#define QK_JIT_MODE_NAME(id, name) name,
      QK_JIT_MODES(QK_JIT_MODE_NAME)
#undef QK_JIT_MODE_NAME
  };
  return names[size_t(m)];
}

std::vector<std::string> mode_names() {
  return {
#define QK_JIT_MODE_TEXT(id, name) name,
      QK_JIT_MODES(QK_JIT_MODE_TEXT)
#undef QK_JIT_MODE_TEXT
  };
}

bool parse_mode(const std::string& name, Mode* out) {
  if (name.empty()) {
    *out = Mode::Fused;  // the first listed
    return true;
  }
#define QK_JIT_MODE_PARSE(id, text) \
  if (name == text) {               \
    *out = Mode::id;                \
    return true;                    \
  }
  QK_JIT_MODES(QK_JIT_MODE_PARSE)
#undef QK_JIT_MODE_PARSE
  return false;
}

const char* fn_suffix(FnKind k) {
  switch (k) {
    case FnKind::Qual: return "qual";
    case FnKind::Project: return "project";
    case FnKind::Kernel: return "kernel";
    case FnKind::Accumulate: return "accumulate";
  }
  return "?";
}

std::string function_name(const std::string& base, FnKind k) { return base + "_" + fn_suffix(k); }

namespace {

// The C type a helper's parameter has -> the machine type generated code passes.
template <class T>
constexpr Ty ty_of() {
  if constexpr (std::is_void_v<T>) return Ty::Void;
  else if constexpr (std::is_pointer_v<T>) return Ty::Ptr;
  else if constexpr (std::is_same_v<T, float>) return Ty::F32;
  else if constexpr (std::is_same_v<T, double>) return Ty::F64;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) return Ty::I32;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) return Ty::I64;
  else return Ty::Bool;  // nothing generated code could pass
}

template <class R, class... A>
constexpr bool sig_matches(R (*)(A...) noexcept, Ty r, std::initializer_list<Ty> args) {
  const Ty have[] = {ty_of<A>()..., Ty::Void};
  if (ty_of<R>() != r || sizeof...(A) != args.size()) return false;
  size_t i = 0;
  for (Ty t : args)
    if (have[i++] != t) return false;
  return true;
}

constexpr uint8_t count(std::initializer_list<Ty> a) { return uint8_t(a.size()); }

bool uses_param(const ir::Node* n) {
  if (!n) return false;
  if (n->op == ir::Op::PARAM) return true;
  for (const auto& k : n->kid)
    if (uses_param(k.get())) return true;
  return false;
}

bool uses_scratch(const ir::Node* n) {
  if (!n) return false;
  if (ir::generic_info(ir::op_info(n->op).generic).scratch) return true;
  for (const auto& k : n->kid)
    if (uses_scratch(k.get())) return true;
  return false;
}

}  // namespace

Ty held_ty(Tk k) {
  static const Ty table[] = {
#define QK_TYPE(ID, FORMAT, FN, SIZE, REG, STORE, HELD) Ty::HELD,
#include "frontend/types.def"
  };
  static_assert(std::size(table) == size_t(kNumTk));
  return k == kNoTk ? Ty::Void : table[size_t(k)];
}

namespace {

// A row whose operands and result are numbers or booleans: generated code
// can call its rule through a plain C signature.
template <ir::Op OP>
constexpr bool abi_row() {
  constexpr ir::OpInfo r = ir::op_info(OP);
  auto number = [](Tk t) { return t != Tk::C && t != kNoTk; };
  if constexpr (!ir::has_rule<OP>) return false;
  else return number(r.result) && number(r.left) && (r.arity == 1 || number(r.right));
}

template <ir::Op OP>
HelperInfo rule_info(const char* name, void* address) {
  constexpr ir::OpInfo r = ir::op_info(OP);
  HelperInfo h{name, nullptr, Effect::Writes, Ty::I32, 0, {}};
  if constexpr (abi_row<OP>()) {
    h.address = address;
    h.args[h.nargs++] = held_ty(r.left);
    if (r.arity == 2) h.args[h.nargs++] = held_ty(r.right);
    h.args[h.nargs++] = Ty::Ptr;
  }
  return h;
}

template <ir::Op OP, class... A>
int forward_rule(A... a) noexcept {
  if constexpr (abi_row<OP>()) return ir::rule_of<OP>(a...);
  else return 0;  // never called: its helper has no address
}

}  // namespace

const HelperInfo& helper_info(Helper h) {
  using enum Ty;
#define QK_JIT_HELPER_SIG(name, eff, res, ...) \
  static_assert(sig_matches(&name, res, {__VA_ARGS__}), #name ": QK_JIT_HELPERS disagrees with runtime.h");
  QK_JIT_HELPERS(QK_JIT_HELPER_SIG)
#undef QK_JIT_HELPER_SIG
  static const std::vector<HelperInfo> table = [] {
    std::vector<HelperInfo> t = {
#define QK_JIT_HELPER_ROW(name, eff, res, ...) \
  {#name, reinterpret_cast<void*>(&name), Effect::eff, res, count({__VA_ARGS__}), {__VA_ARGS__}},
        QK_JIT_HELPERS(QK_JIT_HELPER_ROW)
#undef QK_JIT_HELPER_ROW
    };
#define QK_OP(ID, GEN, R, A, B, RULE, ERRS, SYN) \
  t.push_back(rule_info<ir::Op::ID>("qk_rule_" #ID, reinterpret_cast<void*>(&qk_rule_##ID)));
#include "frontend/ops.def"
    return t;
  }();
  return table[size_t(h)];
}

const LibSymbol* lib_symbols(size_t* n) {
  static const LibSymbol table[] = {
      {"memcpy", reinterpret_cast<void*>(&std::memcpy)},
      {"memmove", reinterpret_cast<void*>(&std::memmove)},
      {"memset", reinterpret_cast<void*>(&std::memset)},
      {"memcmp", reinterpret_cast<void*>(&std::memcmp)},
      {"bcmp", reinterpret_cast<void*>(&std::memcmp)},  // zero iff equal, as memcmp
  };
  *n = std::size(table);
  return table;
}

// ------------------------------------------------------------- plans

Functions tuple_functions(const harness::Plan& plan) {
  Functions f;
  f.qual = !plan.always_qualifies();
  f.project = !plan.targets_folded.empty();
  return f;
}

Functions functions_for(Mode m, const harness::Plan& plan) {
  if (m == Mode::Fused && !plan.in.attrs.empty()) {
    Functions f;
    f.kernel = true;
    // An aggregate's plan: its accumulating kernel in the same module (and
    // dump), rather than compiled again when its scan asks.
    f.accumulate = plan.accumulates;
    return f;
  }
  return tuple_functions(plan);
}

// ------------------------------------------------------------- the walk

namespace {

using ir::Generic;
using ir::Node;

// The walk reads each node's row of the catalogue (ops.def).
using OpRow = ir::OpInfo;

[[noreturn]] void internal_error(const std::string& what) {
  std::fprintf(stderr, "quelkit: internal error: jit: %s\n", what.c_str());
  std::abort();
}

// The machine type a value of type t is held in.
Ty value_ty(Tk t) { return held_ty(t); }

class Walk {
 public:
  Walk(const harness::Plan& plan, const GenOptions& opt, Emitter& e) : plan_(plan), opt_(opt), e_(e) {
    if (plan.qual_folded) stmt_pos_ = plan.qual_folded->pos;
    else if (!plan.targets_folded.empty()) stmt_pos_ = plan.targets_folded[0]->pos;
    for (const auto& t : plan.targets_folded) {
      need_params_ = need_params_ || uses_param(t.get());
      need_scratch_ = need_scratch_ || uses_scratch(t.get());
    }
    need_params_ = need_params_ || uses_param(plan.qual_folded.get());
    need_scratch_ = need_scratch_ || uses_scratch(plan.qual_folded.get());
    if (plan.targets_folded.size() != plan.out.attrs.size()) internal_error("targets and output columns differ");
  }

  // int32 q_qual(tuple, ctx): 1 qualifies, 0 not, -1 raised.
  void qual_function(const std::string& name) {
    begin(FnKind::Qual, name);
    tuple_ = e_.param(0);
    tuple_page_ = tuple_off_ = Value{};
    ctx_ = e_.param(1);
    load_ctx();
    if (is_comparison(*plan_.qual_folded)) {  // one comparison: its value, no branch
      e_.ret(e_.convert(Ty::Bool, Ty::I32, expr(*plan_.qual_folded).v, true));
      end();
      return;
    }
    Block yes = e_.block("qualifies"), no = e_.block("fails");
    cond(*plan_.qual_folded, yes, no);
    e_.place(yes);
    e_.ret(e_.int_const(Ty::I32, 1));
    e_.place(no);
    e_.ret(e_.int_const(Ty::I32, 0));
    end();
  }

  // int32 q_project(tuple, row, ctx): 0, or -1 raised.
  void project_function(const std::string& name) {
    begin(FnKind::Project, name);
    tuple_ = e_.param(0);
    tuple_page_ = tuple_off_ = Value{};
    Value row = e_.param(1);
    ctx_ = e_.param(2);
    load_ctx();
    project(row);
    e_.ret(e_.int_const(Ty::I32, 0));
    end();
  }

  // Selection (GenOptions::nobranch): with a branch, the qualification is
  // control flow to `emit` or `next`; without, its value (returned), and the
  // tuple goes on to `emit` whatever it is: its row is written for every
  // tuple and kept by it. Targets that can raise are projected only for a
  // qualifying tuple (guarded, nothing returned), as with a branch.
  Value select(Block emit, Block next) {
    Value qualifies;
    if (plan_.always_qualifies()) {
      e_.jump(emit);
    } else if (!opt_.nobranch) {
      cond(*plan_.qual_folded, emit, next);
    } else {
      qualifies = predicate(*plan_.qual_folded);
      if (!harness::targets_may_raise(plan_)) {
        e_.jump(emit);
      } else {
        e_.branch(qualifies, emit, next, Hint::None);
        qualifies = Value{};
      }
    }
    return qualifies;
  }

  // The kernels' page walk: each live tuple set and selected (select), then
  // `body` emitted in the block the tuple goes on to (what select returned
  // in hand), ending with a jump to `next`.
  void each_selected(Value page, Value nlines, const std::function<void(Value qualifies, Block next)>& body) {
    each_live_line(page, nlines, [&](Value off, Block next) {
      Block emit = e_.block("project");
      set_tuple(page, off);
      Value qualifies = select(emit, next);
      e_.place(emit);
      body(qualifies, next);
    });
  }

  // int64 q_kernel(page, rows, ctx): the page's line table in order; each live
  // tuple qualified and, if it qualifies, projected into the next row.
  void kernel_function(const std::string& name) {
    if (refines_selection()) return refined_kernel_function(name);
    const auto [page, rows] = begin_kernel(name);
    Local nrows = e_.local(Ty::I64, "rows");
    e_.assign(nrows, i64(0));
    Value nlines = page_prelude(page);
    each_selected(page, nlines, [&](Value qualifies, Block next) {
      // Nobranch: the row is written either way; only a qualifying tuple
      // keeps it. The step is computed before the row is written: gccjit
      // evaluates a comparison where its value is used, and after the row's
      // store (which may alias the page, as far as GCC knows) it compared a
      // register loaded before the store, where it could compare the page:
      // an instruction a tuple more (docs/DESIGN.md, "Measurements").
      Value step = i64(1);
      if (qualifies) {
        Local keep = e_.local(Ty::I64, "keep");
        e_.assign(keep, e_.convert(Ty::Bool, Ty::I64, qualifies, true));
        step = e_.read(keep);
      }
      Value n = e_.read(nrows);
      if (opt_.checks)  // the harness's row buffer holds a row per line of the page
        expect(e_.compare(Pred::Lt, Ty::I64, n, nlines), QK_ERR_BOUNDS, stmt_pos_, "row_past_buffer");
      Value row = e_.at(rows, e_.arith(Arith::Mul, Ty::I64, n, i64(plan_.out.tuple_len)));
      project(row);
      e_.assign(nrows, e_.arith(Arith::Add, Ty::I64, e_.read(nrows), step));
      e_.jump(next);
    });
    e_.ret(e_.read(nrows));
    end();
  }

  // int64 q_accumulate(page, acc, ctx): the kernel for an aggregate's inner
  // query (harness Use::Aggregate). Each qualifying tuple's targets (by
  // values, argument) are projected into acc->row, as the kernel projects a
  // row, then accumulated. Aggregates the runtime's agg_add_plain adds
  // (Plan::accumulated, plain_accumulation) are added by generated code that
  // does what it does, step for step: simple ones in registers, loaded from
  // acc->aggs as the page begins and stored as it ends; an aggregate
  // function's in its group's accumulators, which qk_group_find gives. Any
  // other (u variants, characters) goes through qk_accum_row, the runtime's
  // own. Accumulation errors stay in the state (sticky) and the loop goes
  // on; an evaluation error returns -1, the statement's error, its state
  // unused. Nobranch (select): the row is projected for every tuple, as in
  // the kernel; only the adding is conditional.
  void accumulate_function(const std::string& name) {
    const auto [page, acc] = begin_kernel(name, FnKind::Accumulate);
    Local nrows = e_.local(Ty::I64, "rows");
    e_.assign(nrows, i64(0));
    Value row = e_.load(Ty::Ptr, e_.at(acc, i64(offsetof(qk_accum, row))));
    const bool plain = plain_accumulation();
    const bool in_registers = plain && plan_.by_count == 0;
    std::vector<AggState> regs;
    if (in_registers) {
      Value aggs = e_.load(Ty::Ptr, e_.at(acc, i64(offsetof(qk_accum, aggs))));
      for (size_t i = 0; i < plan_.accumulated.size(); ++i) regs.push_back(agg_registers(aggs, i));
    }
    Front front;
    if (plain && plan_.by_count && plan_.by_len && plan_.by_len <= QK_FRONT_MAX_LEN) front = load_front(acc);
    const int64_t by_in_tuple = front.rows ? by_tuple_offset() : -1;
    Value nlines = page_prelude(page);
    each_selected(page, nlines, [&](Value qualifies, Block next) {
      // Plain aggregates take the targets' values as they would be stored,
      // not the row (its stores would stay: acc->row is memory anyone may
      // read); an aggregate function's by values are written for the group
      // table, before they are hashed from the row, or on a front miss.
      std::vector<Val> vals;
      if (plain) vals = target_values();
      else project(row);
      if (plain && !in_registers && by_in_tuple < 0) store_by(row, vals);
      auto arg = [&](size_t i) { return column_value(vals, plan_.accumulated[i].offset); };
      if (qualifies && in_registers && adds_without_branch()) {
        // Nobranch: a count or an integer sum adds the qualification's 0 or
        // 1 (times the value), which never overflows where it adds nothing.
        Value q = e_.convert(Ty::Bool, Ty::I64, qualifies, true);
        for (size_t i = 0; i < regs.size(); ++i) add_value(regs[i], plan_.accumulated[i], row, q, arg(i));
        e_.assign(nrows, e_.arith(Arith::Add, Ty::I64, e_.read(nrows), q));
        e_.jump(next);
        return;
      }
      if (qualifies) {
        Block add = e_.block("accumulate");
        e_.branch(qualifies, add, next, Hint::None);
        e_.place(add);
      }
      if (in_registers) {
        for (size_t i = 0; i < regs.size(); ++i) add_value(regs[i], plan_.accumulated[i], row, {}, arg(i));
      } else if (plain) {
        Value aggs = group_of(acc, row, front, by_in_tuple, vals);
        for (size_t i = 0; i < plan_.accumulated.size(); ++i) {
          AggState in_memory(e_.at(aggs, i64(int64_t(i * sizeof(qk_agg)))));
          add_value(in_memory, plan_.accumulated[i], row, {}, arg(i));
        }
      } else {
        e_.call(Helper::qk_accum_row, {acc, row});
      }
      e_.assign(nrows, e_.arith(Arith::Add, Ty::I64, e_.read(nrows), i64(1)));
      e_.jump(next);
    });
    for (AggState& r : regs) store_registers(r, e_.read(nrows));
    if (front.rows) {
      Value at = e_.at(acc, i64(offsetof(qk_accum, front_hits)));
      Value hits = e_.arith(Arith::Sub, Ty::I64, e_.read(nrows), e_.read(front.misses));  // a lookup a row
      e_.store(Ty::I64, at, e_.arith(Arith::Add, Ty::I64, e_.load(Ty::I64, at), hits));
    }
    e_.ret(e_.read(nrows));
    end();
  }

 private:
  // A value: numbers and booleans in v; characters as a pointer and a length
  // (always the node's type.len, known when generating).
  struct Val {
    Value v;
    uint32_t len = 0;
  };

  // ---- accumulation (accumulate_function)

  // Every aggregate one that runtime/accumulate_inline.h's agg_add_plain
  // adds (agg_adds_column's test): not a u variant, a numeric argument, its
  // sum an i4 one exactly for an integer argument.
  bool plain_accumulation() const {
    if (plan_.accumulated.empty()) return false;
    for (const harness::Plan::Accumulated& a : plan_.accumulated)
      if (a.is_unique || a.kind > QK_COL_F8 || a.fn > QK_AGG_ANY ||
          bool(a.int_sum) != (a.fn == QK_AGG_SUM && a.kind <= QK_COL_I4))
        return false;
    return true;
  }

  // One aggregate's running state (qk_agg's fields): in locals (`regs`), or
  // in its qk_agg at `mem`.
  struct AggState {
    explicit AggState(Value at) : mem(at) {}
    Value mem;
    bool regs = false;
    Local count, err, isum, fsum, best_i, best_f, has;
    // In registers: a count or an any counts every row the kernel adds, so
    // its count is the kernel's row count added as the page ends (one add a
    // tuple, not one an aggregate); an integer min or max starts
    // from the identity, so its step is one compare and no `has` test
    // (best_in is put back if the page added nothing).
    bool counts_rows = false, seeded = false;
    Value best_in;
  };
  enum class Field : uint8_t { Count, Err, Isum, Fsum, BestI, BestF, Has };
  static Ty field_ty(Field f) {
    switch (f) {
      case Field::Count:
      case Field::BestI: return Ty::I64;
      case Field::Err:
      case Field::Isum: return Ty::I32;
      case Field::Fsum:
      case Field::BestF: return Ty::F64;
      default: return Ty::I8;
    }
  }
  static int64_t field_offset(Field f) {
    switch (f) {
      case Field::Count: return offsetof(qk_agg, count);
      case Field::Err: return offsetof(qk_agg, err);
      case Field::Isum: return offsetof(qk_agg, isum);
      case Field::Fsum: return offsetof(qk_agg, fsum);
      case Field::BestI: return offsetof(qk_agg, best_i);
      case Field::BestF: return offsetof(qk_agg, best_f);
      default: return offsetof(qk_agg, has_best);
    }
  }
  static Local AggState::*field_local(Field f) {
    switch (f) {
      case Field::Count: return &AggState::count;
      case Field::Err: return &AggState::err;
      case Field::Isum: return &AggState::isum;
      case Field::Fsum: return &AggState::fsum;
      case Field::BestI: return &AggState::best_i;
      case Field::BestF: return &AggState::best_f;
      default: return &AggState::has;
    }
  }
  static constexpr Field kFields[] = {Field::Count, Field::Err,   Field::Isum, Field::Fsum,
                                      Field::BestI, Field::BestF, Field::Has};
  Value get(AggState& s, Field f) {
    if (s.regs) return e_.read(s.*field_local(f));
    return e_.load(field_ty(f), e_.at(s.mem, i64(field_offset(f))));
  }
  void set(AggState& s, Field f, Value v) {
    if (s.regs) return e_.assign(s.*field_local(f), v);
    e_.store(field_ty(f), e_.at(s.mem, i64(field_offset(f))), v);
  }
  AggState agg_registers(Value aggs, size_t i) {
    const harness::Plan::Accumulated& a = plan_.accumulated[i];
    AggState mem(e_.at(aggs, i64(int64_t(i * sizeof(qk_agg)))));
    AggState r = mem;
    r.regs = true;
    for (Field f : kFields) {
      r.*field_local(f) = e_.local(field_ty(f), "agg");
      e_.assign(r.*field_local(f), get(mem, f));
    }
    const bool best = a.fn == QK_AGG_MIN || a.fn == QK_AGG_MAX;
    r.counts_rows = a.fn == QK_AGG_COUNT || a.fn == QK_AGG_ANY;
    if (best && a.kind < QK_COL_F4) {  // a float's first value may be a NaN, no identity's
      r.seeded = true;
      r.best_in = e_.read(r.best_i);
      Block seed = e_.block("agg_seed"), seeded = e_.block("agg_seeded");
      e_.branch(e_.compare(Pred::Eq, Ty::I8, e_.read(r.has), e_.int_const(Ty::I8, 0)), seed, seeded, Hint::Unlikely);
      e_.place(seed);
      e_.assign(r.best_i, i64(a.fn == QK_AGG_MIN ? INT64_MAX : INT64_MIN));
      e_.jump(seeded);
      e_.place(seeded);
    }
    return r;
  }
  // nrows: the rows the kernel added (counts_rows' count).
  void store_registers(AggState& r, Value nrows) {
    if (r.counts_rows) e_.assign(r.count, e_.arith(Arith::Add, Ty::I64, e_.read(r.count), nrows));
    if (r.seeded) {
      Block none = e_.block("agg_none"), some = e_.block("agg_some"), after = e_.block("agg_stored");
      e_.branch(e_.compare(Pred::Eq, Ty::I64, nrows, i64(0)), none, some, Hint::Unlikely);
      e_.place(none);
      e_.assign(r.best_i, r.best_in);
      e_.jump(after);
      e_.place(some);
      e_.assign(r.has, e_.int_const(Ty::I8, 1));
      e_.jump(after);
      e_.place(after);
    }
    AggState mem(r.mem);
    for (Field f : kFields) set(mem, f, e_.read(r.*field_local(f)));
  }

  // The group front (qk_accum's front_*), read as the page begins.
  struct Front {
    Value slots_mask, rows, group, aggs;  // unset: no front (by values too wide)
    Local misses;                         // the page's misses: its rows less them are hits, added to
                                          // acc->front_hits as it ends
  };
  Front load_front(Value acc) {
    Front f;
    Value slots = e_.load(Ty::I32, e_.at(acc, i64(offsetof(qk_accum, front_slots))));
    f.slots_mask = e_.arith(Arith::Sub, Ty::I64, e_.convert(Ty::I32, Ty::I64, slots, true), i64(1));
    f.rows = e_.load(Ty::Ptr, e_.at(acc, i64(offsetof(qk_accum, front_rows))));
    f.group = e_.load(Ty::Ptr, e_.at(acc, i64(offsetof(qk_accum, front_group))));
    f.aggs = e_.load(Ty::Ptr, e_.at(acc, i64(offsetof(qk_accum, front_aggs))));
    f.misses = e_.local(Ty::I64, "front_misses");
    e_.assign(f.misses, i64(0));
    return f;
  }

  // The by values' bytes from p as the front hashes them: words of 8 bytes,
  // the last one's missing bytes zeros (pieces of 4, 2, 1 bytes, zero
  // extended and placed by multiplying, which cannot overflow here).
  std::vector<Value> by_words(Value p) {
    std::vector<Value> w;
    const uint32_t n = plan_.by_len;
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8) w.push_back(e_.load(Ty::I64, e_.at(p, i64(i))));
    if (i == n) return w;
    Value word = i64(0);
    uint32_t shift = 0;
    for (uint32_t piece : {4u, 2u, 1u}) {
      if ((n - i) < piece) continue;
      const Ty t = piece == 4 ? Ty::I32 : piece == 2 ? Ty::I16 : Ty::I8;
      Value v = e_.convert(t, Ty::I64, e_.load(t, e_.at(p, i64(i))), true);
      if (shift) v = e_.arith(Arith::Mul, Ty::I64, v, i64(int64_t(1) << shift));
      word = e_.arith(Arith::Add, Ty::I64, word, v);
      i += piece;
      shift += piece * 8;
    }
    w.push_back(word);
    return w;
  }

  // Where the by bytes lie in the tuple when the by values are attributes
  // lying there as they lie in the row (the same bytes, no gap): their
  // offset there, else -1. The kernel then hashes and compares the tuple's
  // bytes: words read back from the row just written would span its stores
  // of different widths, which the CPU does not forward (20 against 7 ns a
  // tuple by pname and color).
  int64_t by_tuple_offset() const {
    int64_t d = -1;
    uint32_t bytes = 0;
    for (uint32_t k = 0; k < plan_.by_count; ++k) {
      const Node& t = *plan_.targets_folded[k];
      const Attribute& col = plan_.out.attrs[k];
      if (t.op != ir::Op::ATTR || t.type.kind != col.type.kind || t.type.len != col.type.len) return -1;
      const int64_t dk = int64_t(t.offset) - int64_t(col.offset);
      if (dk < 0 || (k && dk != d)) return -1;
      d = dk;
      bytes += col.type.len;
    }
    return bytes == plan_.by_len && plan_.out.attrs[0].offset == 0 ? d : -1;
  }
  Value tuple_at(int64_t d) {
    if (tuple_off_) return e_.at(tuple_page_, e_.arith(Arith::Add, Ty::I64, tuple_off_, i64(d)));
    return e_.at(tuple_, i64(d));
  }

  // The row's group's accumulators: the front's row when it holds the by
  // bytes (accumulate.h's qk_front_fold, the same steps), else
  // qk_group_find, which fills it.
  Value group_of(Value acc, Value row, const Front& f, int64_t from_tuple, const std::vector<Val>& vals) {
    if (!f.rows) return e_.call(Helper::qk_group_find, {acc, row});
    const std::vector<Value> w = by_words(from_tuple >= 0 ? tuple_at(from_tuple) : row);
    Value h;
    for (size_t k = 0; k < w.size(); ++k)
      h = e_.bits(Bits::Mul, Ty::I64, k ? e_.bits(Bits::Xor, Ty::I64, h, w[k]) : w[k], i64(int64_t(QK_FRONT_MUL)));
    // The top bits (sign-filled by the shift, which the mask takes away), as
    // rt::front_slot takes them.
    Value s = e_.bits(Bits::And, Ty::I64, e_.bits(Bits::Shr, Ty::I64, h, i64(64 - QK_FRONT_SLOT_BITS)), f.slots_mask);
    Local aggs = e_.local(Ty::Ptr, "group");
    Block miss = e_.block("front_miss"), found = e_.block("group_found");
    for (int way = 0; way < 2; ++way) {  // the slot, then its pair (accumulate.h)
      Value slot = way ? e_.bits(Bits::Xor, Ty::I64, s, i64(1)) : s;
      Block check = e_.block("front_check"), hit = e_.block("front_hit"), other = way ? miss : e_.block("front_pair");
      const Hint likely = way ? Hint::None : Hint::Likely;
      Value gi = e_.load(Ty::I32, e_.at(f.group, e_.arith(Arith::Mul, Ty::I64, slot, i64(4))));
      e_.branch(e_.compare(Pred::Ne, Ty::I32, gi, e_.int_const(Ty::I32, 0)), check, other, likely);
      e_.place(check);
      Value entry = e_.at(f.rows, e_.arith(Arith::Mul, Ty::I64, slot, i64(plan_.by_len)));
      const std::vector<Value> have = by_words(entry);
      for (size_t k = 0; k < w.size(); ++k) {
        Block next = k + 1 < w.size() ? e_.block("front_word") : hit;
        e_.branch(e_.compare(Pred::Eq, Ty::I64, w[k], have[k]), next, other, likely);
        e_.place(next);
      }
      e_.assign(aggs, e_.load(Ty::Ptr, e_.at(f.aggs, e_.arith(Arith::Mul, Ty::I64, slot, i64(8)))));
      e_.jump(found);
      if (!way) e_.place(other);
    }
    e_.place(miss);
    e_.assign(f.misses, e_.arith(Arith::Add, Ty::I64, e_.read(f.misses), i64(1)));
    if (from_tuple >= 0) store_by(row, vals);
    e_.assign(aggs, e_.call(Helper::qk_group_find, {acc, row}));
    e_.jump(found);
    e_.place(found);
    return e_.read(aggs);
  }

  // Every aggregate a count, an any or an integer sum: what nobranch adds
  // without a branch on the qualification.
  bool adds_without_branch() const {
    for (const harness::Plan::Accumulated& a : plan_.accumulated)
      if (a.fn != QK_AGG_COUNT && a.fn != QK_AGG_ANY && !(a.fn == QK_AGG_SUM && a.int_sum)) return false;
    return true;
  }

  // agg_add_plain's step for the argument at the row's column a.offset.
  // times: unset, the tuple qualifies; else its qualification as an I64 0 or
  // 1, by which the count and an integer sum's value are multiplied
  // (adds_without_branch).
  // Every target's value, in project()'s order, so its errors are raised
  // where they would be; kept in registers where the row is not needed.
  std::vector<Val> target_values() {
    std::vector<Val> vals;
    for (size_t k = 0; k < plan_.targets_folded.size(); ++k) vals.push_back(expr(target(k)));
    return vals;
  }
  // The number in the row's column at `offset`, as its store would leave it
  // (vals: target_values').
  Value column_value(const std::vector<Val>& vals, uint32_t offset) {
    for (size_t k = 0; k < vals.size(); ++k) {
      if (plan_.out.attrs[k].offset != offset) continue;
      switch (plan_.out.attrs[k].type.kind) {
        case Tk::I1: return e_.convert(Ty::I32, Ty::I8, vals[k].v);
        case Tk::I2: return e_.convert(Ty::I32, Ty::I16, vals[k].v);
        case Tk::C:
        case Tk::B: internal_error("an aggregate's argument that is not a number");
        default: return vals[k].v;
      }
    }
    internal_error("an aggregate's argument outside the row");
  }
  // The by values into the row, as project() writes them.
  void store_by(Value row, const std::vector<Val>& vals) {
    for (uint32_t k = 0; k < plan_.by_count; ++k) store_column(row, k, vals[k]);
  }

  // arg: the value (column_value's) where it is not read from the row.
  void add_value(AggState& s, const harness::Plan::Accumulated& a, Value row, Value times = {}, Value arg = {}) {
    Value one = times ? times : i64(1);
    if (a.fn == QK_AGG_COUNT || a.fn == QK_AGG_ANY) {  // reads no value, cannot fail
      if (!s.counts_rows) set(s, Field::Count, e_.arith(Arith::Add, Ty::I64, get(s, Field::Count), one));
      return;
    }
    static constexpr Ty kHeld[] = {Ty::I8, Ty::I16, Ty::I32, Ty::F32, Ty::F64};
    const Ty held = kHeld[a.kind];
    const bool is_float = a.kind >= QK_COL_F4;
    Value v = arg ? arg : e_.load(held, e_.at(row, i64(a.offset)));
    v = e_.convert(held, is_float ? Ty::F64 : Ty::I64, v);
    Block add = e_.block("agg_add"), done = e_.block("agg_done");
    // Only a sum or an avg sets err: a min's or a max's is always 0.
    const bool can_fail = a.fn == QK_AGG_SUM || a.fn == QK_AGG_AVG;
    if (can_fail)
      e_.branch(e_.compare(Pred::Eq, Ty::I32, get(s, Field::Err), e_.int_const(Ty::I32, 0)), add, done, Hint::Likely);
    else
      e_.jump(add);
    e_.place(add);
    if (a.fn == QK_AGG_MIN || a.fn == QK_AGG_MAX) {
      const Field best = is_float ? Field::BestF : Field::BestI;
      const Ty t = is_float ? Ty::F64 : Ty::I64;
      Block take = e_.block("agg_best"), test = e_.block("agg_compare"), counted = e_.block("agg_count");
      if (s.seeded)
        e_.jump(test);
      else
        e_.branch(e_.compare(Pred::Eq, Ty::I8, get(s, Field::Has), e_.int_const(Ty::I8, 0)), take, test,
                  Hint::Unlikely);
      e_.place(test);
      e_.branch(e_.compare(a.fn == QK_AGG_MIN ? Pred::Lt : Pred::Gt, t, v, get(s, best)), take, counted, Hint::None);
      e_.place(take);
      set(s, best, v);
      if (!s.seeded) set(s, Field::Has, e_.int_const(Ty::I8, 1));
      e_.jump(counted);
      e_.place(counted);
    }
    if (a.fn == QK_AGG_AVG)  // the one left that reads its count (accumulate.h)
      set(s, Field::Count, e_.arith(Arith::Add, Ty::I64, get(s, Field::Count), one));
    if (a.fn == QK_AGG_SUM && a.int_sum) {
      Value sum, v32 = e_.convert(Ty::I64, Ty::I32, v);
      if (times) v32 = e_.arith(Arith::Mul, Ty::I32, v32, e_.convert(Ty::I64, Ty::I32, times));
      Value over = e_.overflows(Arith::Add, get(s, Field::Isum), v32, &sum);
      set(s, Field::Isum, sum);
      Block bad = e_.block("agg_overflow");
      e_.branch(over, bad, done, Hint::Unlikely);
      e_.place(bad);
      set(s, Field::Err, e_.int_const(Ty::I32, QK_ERR_OVERFLOW));
    } else if (a.fn == QK_AGG_SUM || a.fn == QK_AGG_AVG) {
      Value sum = e_.arith(Arith::Add, Ty::F64, get(s, Field::Fsum), is_float ? v : e_.convert(Ty::I64, Ty::F64, v));
      set(s, Field::Fsum, sum);
      Block bad = e_.block("agg_infinite");
      e_.branch(e_.is_finite(Ty::F64, sum), done, bad, Hint::Likely);
      e_.place(bad);
      set(s, Field::Err, e_.int_const(Ty::I32, QK_ERR_FLOAT_RESULT));
    }
    e_.jump(done);
    e_.place(done);
  }

  // ---- the page walk (storage/page_walk.h), emitted

  // A kernel's entry: its parameters (page, rows; ctx into ctx_), the line
  // counter set before any check can fail (err_slot reads it), ctx read.
  struct KernelParams {
    Value page, rows;
  };
  KernelParams begin_kernel(const std::string& name, FnKind kind = FnKind::Kernel) {
    begin(kind, name);
    Value page = e_.param(0), rows = e_.param(1);
    ctx_ = e_.param(2);
    line_ = e_.local(Ty::I64, "line");
    e_.assign(line_, i64(0));
    load_ctx();
    return {page, rows};
  }

  // The line count, read once; before the first tuple, the next page into L1
  // and the fourth page ahead into L2, whole (cache lines from page + span
  // and page + kPrefetchAhead * span, span = line[0] + tuple_len bytes, at
  // most kPrefetchMax).
  // Leaves the current block after the prefetches.
  Value page_prelude(Value page) {
    Value nlines = e_.convert(Ty::I16, Ty::I64, e_.load(Ty::I16, e_.at(page, i64(harness::kPageOffNLines))), true);
    Value first = e_.convert(Ty::I16, Ty::I64, e_.load(Ty::I16, e_.at(page, i64(harness::kPageHeader))), true);
    Value span = e_.arith(Arith::Add, Ty::I64, first, i64(plan_.in.tuple_len));
    Value far = e_.arith(Arith::Mul, Ty::I64, span, i64(harness::kPrefetchAhead));  // once, not per line
    // The loops are emitted bottom-tested (do-while), with the bound computed
    // once, as an optimiser's loop rotation would leave them: --jit-opt 1
    // runs no loop passes, and the top-tested loops (a test and a jump back
    // for each tuple, both bounds tested for each cache line) made llvm:fused
    // slower than the same policy compiled by GCC in the reference loops, or
    // by LLVM at --jit-opt 2, which rotates them (docs/DESIGN.md,
    // "Measurements"). span >= tuple_len > 0: one line at least.
    Local size = e_.local(Ty::I64, "prefetch_size"), pf = e_.local(Ty::I64, "prefetched");
    e_.assign(size, span);
    e_.assign(pf, i64(0));
    Block cap = e_.block("prefetch_cap"), pf_line = e_.block("prefetch_line"), walk = e_.block("walk");
    e_.branch(e_.compare(Pred::Gt, Ty::I64, span, i64(harness::kPrefetchMax)), cap, pf_line, Hint::Unlikely);
    e_.place(cap);
    e_.assign(size, i64(harness::kPrefetchMax));
    e_.jump(pf_line);
    e_.place(pf_line);
    e_.prefetch(e_.at(page, e_.arith(Arith::Add, Ty::I64, span, e_.read(pf))), harness::kPrefetchNearLocality);
    e_.prefetch(e_.at(page, e_.arith(Arith::Add, Ty::I64, far, e_.read(pf))), harness::kPrefetchFarLocality);
    Value pf_next = e_.arith(Arith::Add, Ty::I64, e_.read(pf), i64(harness::kPrefetchLine));
    e_.assign(pf, pf_next);
    e_.branch(e_.compare(Pred::Lt, Ty::I64, pf_next, e_.read(size)), pf_line, walk, Hint::Likely);
    e_.place(walk);
    return nlines;
  }

  // Step 3, the line table in order: for each live line (offset 0 is a
  // deleted one), `each(off, next)` in a block of its own, with the tuple's
  // offset (checked under --jit-checks to lie after the line table and
  // inside the largest page); it ends by jumping to `next`. Leaves the
  // current block after the last line.
  void each_live_line(Value page, Value nlines, const std::function<void(Value off, Block next)>& each) {
    Block body = e_.block("entry"), live = e_.block("tuple"), next = e_.block("next"), done = e_.block("lines_done");
    // Bottom-tested (page_prelude says why): an empty page skips the loop.
    e_.branch(e_.compare(Pred::Gt, Ty::I64, nlines, i64(0)), body, done, Hint::Likely);
    e_.place(body);
    Value entry = e_.at(page, e_.arith(Arith::Add, Ty::I64, i64(harness::kPageHeader),
                                       e_.arith(Arith::Mul, Ty::I64, e_.read(line_), i64(harness::kLineSize))));
    Value off = e_.convert(Ty::I16, Ty::I64, e_.load(Ty::I16, entry), true);
    e_.branch(e_.compare(Pred::Eq, Ty::I64, off, i64(0)), next, live, Hint::Unlikely);
    e_.place(live);
    if (opt_.checks) {
      Value table_end = e_.arith(Arith::Add, Ty::I64, i64(harness::kPageHeader),
                                 e_.arith(Arith::Mul, Ty::I64, nlines, i64(harness::kLineSize)));
      expect(e_.compare(Pred::Ge, Ty::I64, off, table_end), QK_ERR_BOUNDS, stmt_pos_, "line_below_table");
      Value end = e_.arith(Arith::Add, Ty::I64, off, i64(plan_.in.tuple_len));
      expect(e_.compare(Pred::Le, Ty::I64, end, i64(kMaxPageSize)), QK_ERR_BOUNDS, stmt_pos_, "tuple_past_page");
    }
    each(off, next);
    e_.place(next);
    Value following = e_.arith(Arith::Add, Ty::I64, e_.read(line_), i64(1));
    e_.assign(line_, following);
    e_.branch(e_.compare(Pred::Lt, Ty::I64, following, nlines), body, done, Hint::Likely);
    e_.place(done);
  }

  // ---- nobranch with refined selection vectors

  // Passes at most: a conjunction of more terms evaluates the rest together
  // (branch-free, combined) in its last pass, so a qualification of
  // thousands of terms is not thousands of loops.
  static constexpr size_t kMaxRefinePasses = 4;
  // Entries of the selection vector: the most lines a page can hold.
  static constexpr uint32_t kSelCapacity = kMaxPageLines;

  // Nobranch over a conjunction whose terms cannot raise, and targets that
  // cannot either: each term in its own pass over the tuples the terms
  // before it kept (Ross, PODS 2002; what vector's primitives do). Computing
  // every term for every tuple made a conjunction whose first term is
  // almost always false cost more than the branching kernel, which never
  // evaluates the second (the sweep's pct_first at 0%; docs/DESIGN.md,
  // "Selection with and without a branch"). Nothing in a pass
  // after the first can raise, so a tuple's error is still the first in
  // page order (the line-table checks of --jit-checks are in the first).
  bool refines_selection() const {
    const Node* q = plan_.qual_folded.get();
    return opt_.nobranch && q && ir::op_info(q->op).generic == Generic::And && q->kid.size() >= 2 &&
           !ir::may_raise(*q) && !harness::targets_may_raise(plan_);
  }

  // The kernel of refines_selection(): the live lines' tuple offsets that
  // pass the first term into a selection vector on the stack (the write is
  // unconditional, the count advances by the outcome), each later pass
  // compacting it in place by its term, then the selected tuples projected
  // into consecutive rows.
  void refined_kernel_function(const std::string& name) {
    const auto [page, rows] = begin_kernel(name);
    const Node& q = *plan_.qual_folded;
    e_.note(q);
    Value nlines = page_prelude(page);
    if (opt_.checks)  // the vector holds an entry per line of a valid page
      expect(e_.compare(Pred::Le, Ty::I64, nlines, i64(kSelCapacity)), QK_ERR_BOUNDS, stmt_pos_, "sel_capacity");
    Value sel = e_.buffer(kSelCapacity * 2, "sel");
    auto sel_at = [&](Value k) { return e_.at(sel, e_.arith(Arith::Mul, Ty::I64, k, i64(2))); };
    Local nsel = e_.local(Ty::I64, "selected");
    e_.assign(nsel, i64(0));

    // Pass 1: the line table.
    each_live_line(page, nlines, [&](Value off, Block next) {
      set_tuple(page, off);
      Value keep = predicate(*q.kid[0]);
      Value n = e_.read(nsel);
      e_.store(Ty::I16, sel_at(n), e_.convert(Ty::I64, Ty::I16, off));
      e_.assign(nsel, e_.arith(Arith::Add, Ty::I64, n, e_.convert(Ty::Bool, Ty::I64, keep, true)));
      e_.jump(next);
    });

    // Later passes, then the projection: over the vector, entry k.
    Local k = e_.local(Ty::I64, "k");
    auto over_selected = [&](const char* what, const std::function<void(Value k, Value tuple_off)>& each) {
      // Bottom-tested, as the page walk's loops (page_prelude says why);
      // the count is read once: a refine pass writes `kept`, not nsel.
      Block b = e_.block(std::string(what) + ".body"), d = e_.block(std::string(what) + ".done");
      Value count = e_.read(nsel);
      e_.assign(k, i64(0));
      e_.branch(e_.compare(Pred::Gt, Ty::I64, count, i64(0)), b, d, Hint::Likely);
      e_.place(b);
      Value kv = e_.read(k);
      each(kv, e_.convert(Ty::I16, Ty::I64, e_.load(Ty::I16, sel_at(kv)), true));
      Value following = e_.arith(Arith::Add, Ty::I64, kv, i64(1));
      e_.assign(k, following);
      e_.branch(e_.compare(Pred::Lt, Ty::I64, following, count), b, d, Hint::Likely);
      e_.place(d);
    };
    Local kept = e_.local(Ty::I64, "kept");
    for (size_t t = 1; t < q.kid.size() && t < kMaxRefinePasses; ++t) {
      const bool last = t + 1 == kMaxRefinePasses;
      e_.assign(kept, i64(0));
      over_selected("refine", [&](Value, Value toff) {
        set_tuple(page, toff);
        std::vector<Value> terms{predicate(*q.kid[t])};
        for (size_t r = t + 1; last && r < q.kid.size(); ++r) terms.push_back(predicate(*q.kid[r]));
        Value m = e_.read(kept);  // m <= k: the entry read is never one already overwritten
        e_.store(Ty::I16, sel_at(m), e_.convert(Ty::I64, Ty::I16, toff));
        e_.assign(kept, e_.arith(Arith::Add, Ty::I64, m, e_.convert(Ty::Bool, Ty::I64, reduce(terms, true), true)));
      });
      e_.assign(nsel, e_.read(kept));
    }
    over_selected("project", [&](Value kv, Value toff) {
      set_tuple(page, toff);
      project(e_.at(rows, e_.arith(Arith::Mul, Ty::I64, kv, i64(plan_.out.tuple_len))));
    });
    e_.ret(e_.read(nsel));
    end();
  }

  // Booleans combined without a branch, pairwise as a balanced tree: a
  // left-to-right chain of ten thousand terms is a dependence chain that
  // optimisers walk end to end from each link (minutes at -O1 and up).
  // and: the product of 0/1 values is nonzero; or: their sum is.
  Value reduce(std::vector<Value> run, bool conj) {
    auto as_i32 = [&](Value b) { return e_.convert(Ty::Bool, Ty::I32, b, true); };
    while (run.size() > 1) {
      std::vector<Value> next;
      for (size_t j = 0; j + 1 < run.size(); j += 2)
        next.push_back(e_.compare(Pred::Ne, Ty::I32,
                                  e_.arith(conj ? Arith::Mul : Arith::Add, Ty::I32, as_i32(run[j]), as_i32(run[j + 1])),
                                  i32(0)));
      if (run.size() % 2) next.push_back(run.back());
      run = std::move(next);
    }
    return run[0];
  }


  Value i64(int64_t v) { return e_.int_const(Ty::I64, v); }
  Value i32(int64_t v) { return e_.int_const(Ty::I32, v); }

  void begin(FnKind k, const std::string& name) {
    kind_ = k;
    fail_ = Block{};
    line_ = Local{};
    params_ = scratch_ = Value{};
    e_.begin_function(k, name);
  }

  void end() {
    // The one error exit: qk_raise already recorded the error.
    if (fail_.h) {
      e_.place(fail_);
      if (kind_ == FnKind::Kernel || kind_ == FnKind::Accumulate) {
        e_.store(Ty::I64, e_.at(ctx_, i64(kCtxErrSlot)), e_.read(line_));
        e_.ret(i64(-1));
      } else {
        e_.ret(i32(-1));
      }
    }
    e_.end_function();
  }

  // Parameters and scratch are read from ctx once, at function entry.
  void load_ctx() {
    if (need_params_) {
      params_ = e_.load(Ty::Ptr, e_.at(ctx_, i64(kCtxParams)));
      if (opt_.checks)
        expect(e_.compare(Pred::Ne, Ty::Ptr, params_, e_.int_const(Ty::Ptr, 0)), QK_ERR_BOUNDS, stmt_pos_,
               "no_params");
    }
    if (need_scratch_) {
      scratch_ = e_.load(Ty::Ptr, e_.at(ctx_, i64(kCtxScratch)));
      if (opt_.checks)
        expect(e_.compare(Pred::Ne, Ty::Ptr, scratch_, e_.int_const(Ty::Ptr, 0)), QK_ERR_BOUNDS, stmt_pos_,
               "no_scratch");
    }
  }

  Block fail() {
    if (!fail_.h) fail_ = e_.block("raised");
    return fail_;
  }

  // Raises code at pos, then leaves through the error exit.
  void raise(Value code, SrcPos pos) {
    e_.call(Helper::qk_raise, {ctx_, code, e_.int_const(Ty::I64, int64_t(pos.pack()))});
    e_.jump(fail());
  }

  // Continues only if ok holds; else raises `code` at `pos`.
  void expect(Value ok, int code, SrcPos pos, const std::string& what) {
    Block good = e_.block(what + ".ok"), bad = e_.block(what);
    e_.branch(ok, good, bad, Hint::Likely);
    e_.place(bad);
    raise(i32(code), pos);
    e_.place(good);
  }
  void fail_if(Value bad_cond, int code, SrcPos pos, const std::string& what) {
    Block good = e_.block(what + ".ok"), bad = e_.block(what);
    e_.branch(bad_cond, bad, good, Hint::Unlikely);
    e_.place(bad);
    raise(i32(code), pos);
    e_.place(good);
  }
  // A helper's status (0 or a qk_err code) raised as it is.
  void check_status(Value rc, SrcPos pos, const std::string& what) {
    Block good = e_.block(what + ".ok"), bad = e_.block(what);
    e_.branch(e_.compare(Pred::Ne, Ty::I32, rc, i32(0)), bad, good, Hint::Unlikely);
    e_.place(bad);
    raise(rc, pos);
    e_.place(good);
  }

  // [off, off + len) must lie in [0, limit). Offsets into tuples, rows,
  // parameter blocks and scratch are constants of the plan, so this is decided
  // here: a plan violating it (a harness bug) raises QK_ERR_BOUNDS when the
  // access is reached under --jit-checks, and is an internal error without.
  void within(uint32_t off, uint32_t len, uint32_t limit, SrcPos pos, const char* what) {
    if (uint64_t(off) + len <= limit) return;
    if (!opt_.checks)
      internal_error(std::string(what) + ": " + std::to_string(off) + "+" + std::to_string(len) + " > " +
                     std::to_string(limit));
    Block bad = e_.block(what), after = e_.block(std::string(what) + ".unreachable");
    e_.jump(bad);
    e_.place(bad);
    raise(i32(QK_ERR_BOUNDS), pos);
    e_.place(after);  // what follows is never executed, but must still be emitted
  }

  // A comparison (or pattern match): a boolean computed without control flow.
  static bool is_comparison(const Node& n) { return ir::class_of(n.op) == ir::Class::Compare; }

  // A target that can be computed for any tuple without raising or calling:
  // leaves, and the conversions of them that the catalogue says cannot raise
  // (exact or rounding widenings).
  static bool plain(const Node& n) {
    const OpRow& r = ir::op_info(n.op);
    if (r.cls() == ir::Class::Leaf) return true;
    return r.cls() == ir::Class::Convert && !r.can_raise() && plain(*n.kid[0]);
  }

  // A qualification's value for nobranch selection, computed without a
  // branch on the data where that raises nothing branch would not: a
  // comparison's operands are evaluated either way; the right operand of
  // and/or is evaluated speculatively (both operands, combined as 0/1 values)
  // only when nothing in it can raise, else under its short-circuit guard.
  Value predicate(const Node& n) {
    const OpRow& r = ir::op_info(n.op);
    auto as_i32 = [&](Value b) { return e_.convert(Ty::Bool, Ty::I32, b, true); };
    switch (r.generic) {
      case Generic::And:
      case Generic::Or: {
        // n-ary (ir.h). Operands that cannot raise are all evaluated and
        // combined (reduce); one that may raise runs under a guard on
        // everything before it.
        e_.note(n);
        const bool conj = r.generic == Generic::And;
        std::vector<Value> run{predicate(*n.kid[0])};
        for (size_t i = 1; i < n.kid.size(); ++i) {
          if (!ir::may_raise(*n.kid[i])) {
            run.push_back(predicate(*n.kid[i]));
            continue;
          }
          Value a = reduce(run, conj);
          Local v = e_.local(Ty::Bool, conj ? "and" : "or");
          e_.assign(v, a);
          Block rhs = e_.block(conj ? "and.rhs" : "or.rhs"), join = e_.block(conj ? "and" : "or");
          if (conj) e_.branch(a, rhs, join, Hint::None);
          else e_.branch(a, join, rhs, Hint::None);
          e_.place(rhs);
          e_.assign(v, predicate(*n.kid[i]));
          e_.jump(join);
          e_.place(join);
          run.assign(1, e_.read(v));
        }
        return reduce(run, conj);
      }
      case Generic::Not:
        e_.note(n);
        return e_.compare(Pred::Eq, Ty::I32, as_i32(predicate(*n.kid[0])), i32(0));
      default:
        return expr(n).v;  // a comparison, pattern or boolean constant: a value without control flow
    }
  }

  static std::string label(const Node& n, const char* what) { return std::string(ir::op_name(n.op)) + "." + what; }

  // ---- projection: each target into its column of the row

  void project(Value row) {
    for (size_t k = 0; k < plan_.targets_folded.size(); ++k) store_column(row, k, expr(target(k)));
  }

  // Target k, checked against its column.
  const Node& target(size_t k) {
    const Node& t = *plan_.targets_folded[k];
    const Attribute& col = plan_.out.attrs[k];
    if (col.type.kind != t.type.kind || col.type.kind == Tk::B)
      internal_error("target " + std::to_string(k) + " does not fit its column");
    return t;
  }

  // Target k's value v written into its column of the row.
  void store_column(Value row, size_t k, const Val& v) {
    const Attribute& col = plan_.out.attrs[k];
    within(col.offset, col.type.len, plan_.out.tuple_len, plan_.targets_folded[k]->pos, "row_column");
    Value dst = col.offset ? e_.at(row, i64(col.offset)) : row;
    switch (col.type.kind) {
      case Tk::I1: e_.store(Ty::I8, dst, e_.convert(Ty::I32, Ty::I8, v.v)); break;
      case Tk::I2: e_.store(Ty::I16, dst, e_.convert(Ty::I32, Ty::I16, v.v)); break;
      case Tk::I4: e_.store(Ty::I32, dst, v.v); break;
      case Tk::F4: e_.store(Ty::F32, dst, v.v); break;
      case Tk::F8: e_.store(Ty::F64, dst, v.v); break;
      case Tk::C: {
        // rt::store_char, emitted inline: both lengths are known here, so the
        // copy and the blank fill are fixed-size moves, not calls.
        uint32_t n = v.len < col.type.len ? v.len : col.type.len;
        if (n) e_.copy(dst, v.v, n);
        if (n < col.type.len) e_.fill(e_.at(dst, i64(n)), ' ', col.type.len - n);
        break;
      }
      case Tk::B: break;
    }
  }

  // ---- conditions: booleans become control flow (short-circuit by construction)

  void cond(const Node& n, Block t, Block f) {
    const OpRow& r = ir::op_info(n.op);
    if (r.generic == Generic::And || r.generic == Generic::Or || r.generic == Generic::Not ||
        r.generic == Generic::Const)
      e_.note(n);  // expr() notes the others
    switch (r.generic) {
      case Generic::And:
      case Generic::Or: {
        // n-ary (ir.h): each operand but the last decides by jumping to f
        // (and) or t (or), else goes on to the next.
        const bool conj = r.generic == Generic::And;
        for (size_t i = 0; i + 1 < n.kid.size(); ++i) {
          Block next = e_.block(conj ? "and.rhs" : "or.rhs");
          if (conj) cond(*n.kid[i], next, f);
          else cond(*n.kid[i], t, next);
          e_.place(next);
        }
        cond(*n.kid.back(), t, f);
        return;
      }
      case Generic::Not:
        cond(*n.kid[0], f, t);
        return;
      case Generic::Const:
        e_.jump(n.val.i ? t : f);
        return;
      default: {
        Val v = expr(n);
        e_.branch(v.v, t, f, Hint::None);
        return;
      }
    }
  }

  // A boolean needed as a value (never in a qualification, which uses cond).
  Value boolean(const Node& n) {
    Local b = e_.local(Ty::Bool, "bool");
    Block t = e_.block("true"), f = e_.block("false"), join = e_.block("bool");
    cond(n, t, f);
    e_.place(t);
    e_.assign(b, e_.int_const(Ty::Bool, 1));
    e_.jump(join);
    e_.place(f);
    e_.assign(b, e_.int_const(Ty::Bool, 0));
    e_.jump(join);
    e_.place(join);
    return e_.read(b);
  }

  // ---- expressions

  Val expr(const Node& n) {
    e_.note(n);
    const OpRow& r = ir::op_info(n.op);
    switch (r.generic) {
      case Generic::Const: return constant(n);
      case Generic::Attr: return attribute(n);
      case Generic::Param: return parameter(n);
      case Generic::Cvt: return convert(n, r);
      case Generic::Neg: return negate(n, r);
      case Generic::Add: return arith(n, r, Arith::Add);
      case Generic::Sub: return arith(n, r, Arith::Sub);
      case Generic::Mul: return arith(n, r, Arith::Mul);
      case Generic::Div: return divide(n, r);
      case Generic::Mod: return modulo(n);
      case Generic::Abs: return absolute(n, r);
      case Generic::Eq: return compare(n, r, Pred::Eq);
      case Generic::Ne: return compare(n, r, Pred::Ne);
      case Generic::Lt: return compare(n, r, Pred::Lt);
      case Generic::Le: return compare(n, r, Pred::Le);
      case Generic::Gt: return compare(n, r, Pred::Gt);
      case Generic::Ge: return compare(n, r, Pred::Ge);
      case Generic::Match: return match(n, true);
      case Generic::NoMatch: return match(n, false);
      case Generic::And:
      case Generic::Or:
      case Generic::Not: return {boolean(n)};
      case Generic::Ascii: return ascii(n, r);
      case Generic::Concat: return concat(n);
      default: return rule_call(n);  // the rest: the row's runtime rule, called
    }
  }

  Val constant(const Node& n) {
    switch (n.type.kind) {
      case Tk::I1: case Tk::I2: case Tk::I4: return {i32(int32_t(n.val.i))};
      case Tk::F4: return {e_.f4_const(n.val.f4)};
      case Tk::F8: return {e_.f8_const(n.val.f8)};
      case Tk::B: return {e_.int_const(Ty::Bool, n.val.i != 0)};
      case Tk::C: {
        std::string b = n.val.s;
        b.resize(n.type.len, ' ');  // the node's length is the value's, as the interpreter holds it
        return {e_.bytes(b, "lit"), n.type.len};
      }
    }
    internal_error("bad constant");
  }

  // A stored value at p: integers widened to I32, characters by address.
  Val fetch(Value p, Type t) {
    switch (t.kind) {
      case Tk::I1: return {e_.convert(Ty::I8, Ty::I32, e_.load(Ty::I8, p))};
      case Tk::I2: return {e_.convert(Ty::I16, Ty::I32, e_.load(Ty::I16, p))};
      case Tk::I4: return {e_.load(Ty::I32, p)};
      case Tk::F4: return {e_.load(Ty::F32, p)};
      case Tk::F8: return {e_.load(Ty::F64, p)};
      case Tk::C: return {p, t.len};
      case Tk::B: break;
    }
    internal_error("boolean in a tuple or parameter block");
  }

  Val attribute(const Node& n) {
    within(n.offset, n.type.len, plan_.in.tuple_len, n.pos, "tuple_attribute");
    if (n.offset && tuple_off_)  // in a kernel: page + (off + k), set_tuple says why
      return fetch(e_.at(tuple_page_, e_.arith(Arith::Add, Ty::I64, tuple_off_, i64(n.offset))), n.type);
    return fetch(n.offset ? e_.at(tuple_, i64(n.offset)) : tuple_, n.type);
  }

  // A kernel's current tuple: at `off` in `page`. An attribute is read at
  // page + (off + k), not at (page + off) + k: GCC kept a shared page + off
  // in a register of its own (an add a tuple) instead of folding it into
  // each load's addressing, as it does with one sum per attribute (LLVM folds
  // either): an instruction a tuple saved in both selections
  // (docs/DESIGN.md, "Measurements").
  void set_tuple(Value page, Value off) {
    tuple_ = e_.at(page, off);
    tuple_page_ = page;
    tuple_off_ = off;
  }

  Val parameter(const Node& n) {
    within(n.offset, n.type.len, plan_.params.tuple_len, n.pos, "parameter");
    return fetch(n.offset ? e_.at(params_, i64(n.offset)) : params_, n.type);
  }

  // Where a character result of n goes: its slot of ctx->scratch.
  Value scratch_slot(const Node& n) {
    within(n.scratch, n.type.len, plan_.scratch_size, n.pos, "scratch");
    return n.scratch ? e_.at(scratch_, i64(n.scratch)) : scratch_;
  }

  // A helper returning a status and writing its result through a pointer.
  Value status_call(const Node& n, Helper h, Ty out_ty, std::initializer_list<Value> in) {
    Local out = e_.local(out_ty, std::string(helper_info(h).name) + ".out");
    Value args[3];
    size_t k = 0;
    for (Value v : in) args[k++] = v;
    Value rc = k == 1 ? e_.call(h, {args[0], e_.address(out)}) : e_.call(h, {args[0], args[1], e_.address(out)});
    check_status(rc, n.pos, label(n, "raised"));
    return e_.read(out);
  }

  Val convert(const Node& n, const OpRow& r) {
    Val a = expr(*n.kid[0]);
    const Tk from = r.left, to = r.result;
    if (is_int(from) && is_int(to)) {
      if (to == Tk::I4 || (to == Tk::I2 && from == Tk::I1)) return a;  // widening keeps the value
      const int64_t lo = to == Tk::I1 ? -128 : -32768, hi = to == Tk::I1 ? 127 : 32767;
      if (!r.raises(QK_ERR_CONVERT_RANGE)) internal_error(std::string("narrowing without its error: ") + r.name);
      fail_if(e_.compare(Pred::Lt, Ty::I32, a.v, i32(lo)), QK_ERR_CONVERT_RANGE, n.pos, label(n, "below"));
      fail_if(e_.compare(Pred::Gt, Ty::I32, a.v, i32(hi)), QK_ERR_CONVERT_RANGE, n.pos, label(n, "above"));
      return a;
    }
    if (is_int(from) && is_float(to)) return {e_.convert(Ty::I32, value_ty(to), a.v)};
    if (from == Tk::F4 && to == Tk::F8) return {e_.convert(Ty::F32, Ty::F64, a.v)};
    if (from == Tk::F8 && to == Tk::F4) {
      Value f = e_.convert(Ty::F64, Ty::F32, a.v);
      if (r.raises(QK_ERR_FLOAT_RESULT)) expect(e_.is_finite(Ty::F32, f), QK_ERR_FLOAT_RESULT, n.pos, label(n, "infinite"));
      return {f};
    }
    if (is_float(from) && is_int(to)) {
      return {status_call(n, rule_helper(n.op), Ty::I32, {a.v})};  // the row's rule
    }
    internal_error(std::string("conversion ") + ir::op_name(n.op));
  }

  Val negate(const Node& n, const OpRow& r) {
    Val a = expr(*n.kid[0]);
    if (r.result == Tk::I4) {
      if (r.raises(QK_ERR_OVERFLOW))
        fail_if(e_.compare(Pred::Eq, Ty::I32, a.v, i32(INT32_MIN)), QK_ERR_OVERFLOW, n.pos, label(n, "overflow"));
      return {e_.arith(Arith::Sub, Ty::I32, i32(0), a.v)};
    }
    return {e_.negate(value_ty(r.result), a.v)};
  }

  Val absolute(const Node& n, const OpRow& r) {
    Val a = expr(*n.kid[0]);
    if (r.result == Tk::I4 && r.raises(QK_ERR_OVERFLOW))
      fail_if(e_.compare(Pred::Eq, Ty::I32, a.v, i32(INT32_MIN)), QK_ERR_OVERFLOW, n.pos, label(n, "overflow"));
    return {e_.abs(value_ty(r.result), a.v)};
  }

  Val arith(const Node& n, const OpRow& r, Arith op) {
    Val a = expr(*n.kid[0]);
    Val b = expr(*n.kid[1]);
    if (r.result == Tk::I4) {
      Value res;
      Value ov = e_.overflows(op, a.v, b.v, &res);
      if (r.raises(QK_ERR_OVERFLOW)) fail_if(ov, QK_ERR_OVERFLOW, n.pos, label(n, "overflow"));
      return {res};
    }
    const Ty t = value_ty(r.result);
    Value res = e_.arith(op, t, a.v, b.v);
    if (r.raises(QK_ERR_FLOAT_RESULT)) expect(e_.is_finite(t, res), QK_ERR_FLOAT_RESULT, n.pos, label(n, "infinite"));
    return {res};
  }

  // Division by zero is checked before dividing (integers: then INT32_MIN / -1).
  Val divide(const Node& n, const OpRow& r) {
    Val a = expr(*n.kid[0]);
    Val b = expr(*n.kid[1]);
    const Ty t = value_ty(r.result);
    Value zero = t == Ty::I32 ? i32(0) : t == Ty::F32 ? e_.f4_const(0.0f) : e_.f8_const(0.0);
    if (r.raises(QK_ERR_DIV_ZERO)) fail_if(e_.compare(Pred::Eq, t, b.v, zero), QK_ERR_DIV_ZERO, n.pos, label(n, "by_zero"));
    if (t == Ty::I32) {
      Block min = e_.block(label(n, "min")), ok = e_.block(label(n, "divide"));
      e_.branch(e_.compare(Pred::Eq, Ty::I32, a.v, i32(INT32_MIN)), min, ok, Hint::Unlikely);
      e_.place(min);
      fail_if(e_.compare(Pred::Eq, Ty::I32, b.v, i32(-1)), QK_ERR_OVERFLOW, n.pos, label(n, "overflow"));
      e_.jump(ok);
      e_.place(ok);
      return {e_.arith(Arith::Div, Ty::I32, a.v, b.v)};  // truncates toward zero
    }
    Value res = e_.arith(Arith::Div, t, a.v, b.v);
    if (r.raises(QK_ERR_FLOAT_RESULT)) expect(e_.is_finite(t, res), QK_ERR_FLOAT_RESULT, n.pos, label(n, "infinite"));
    return {res};
  }

  // mod(a, b): b = 0 raises; the sign follows a; b = -1 gives 0 without
  // dividing (INT32_MIN % -1 traps on the machine).
  Val modulo(const Node& n) {
    Val a = expr(*n.kid[0]);
    Val b = expr(*n.kid[1]);
    fail_if(e_.compare(Pred::Eq, Ty::I32, b.v, i32(0)), QK_ERR_MOD_ZERO, n.pos, label(n, "by_zero"));
    Local res = e_.local(Ty::I32, "mod");
    Block minus1 = e_.block(label(n, "minus1")), rem = e_.block(label(n, "rem")), join = e_.block(label(n, "join"));
    e_.branch(e_.compare(Pred::Eq, Ty::I32, b.v, i32(-1)), minus1, rem, Hint::Unlikely);
    e_.place(minus1);
    e_.assign(res, i32(0));
    e_.jump(join);
    e_.place(rem);
    e_.assign(res, e_.arith(Arith::Rem, Ty::I32, a.v, b.v));
    e_.jump(join);
    e_.place(join);
    return {e_.read(res)};
  }

  // An operator without an inline form here (**, the functions of one f8,
  // any operator added to the catalogue): its runtime rule, called through
  // its qk_rule_ helper with the status raised at the node.
  Val rule_call(const Node& n) {
    const OpRow& r = ir::op_info(n.op);
    const Helper h = rule_helper(n.op);
    if (!helper_info(h).address) internal_error(std::string("no inline form and no C rule for ") + r.name);
    Val a = expr(*n.kid[0]);
    if (r.arity == 2) {
      Val b = expr(*n.kid[1]);
      return {status_call(n, h, value_ty(r.result), {a.v, b.v})};
    }
    return {status_call(n, h, value_ty(r.result), {a.v})};
  }

  Val compare(const Node& n, const OpRow& r, Pred p) {
    Val a = expr(*n.kid[0]);
    Val b = expr(*n.kid[1]);
    if (r.left == Tk::C) {
      Value c = e_.call(Helper::qk_char_cmp, {a.v, i32(a.len), b.v, i32(b.len)});
      return {e_.compare(p, Ty::I32, c, i32(0))};
    }
    return {e_.compare(p, value_ty(r.left), a.v, b.v)};
  }

  Val match(const Node& n, bool want) {
    Val a = expr(*n.kid[0]);
    Val pat = expr(*n.kid[1]);
    Value m = e_.call(Helper::qk_pattern_match, {a.v, i32(a.len), pat.v, i32(pat.len)});
    return {e_.compare(want ? Pred::Ne : Pred::Eq, Ty::I32, m, i32(0))};
  }

  Val ascii(const Node& n, const OpRow& r) {
    Val a = expr(*n.kid[0]);
    Value out = scratch_slot(n);
    Helper h = r.left == Tk::F4 ? Helper::qk_ascii_f4 : r.left == Tk::F8 ? Helper::qk_ascii_f8 : Helper::qk_ascii_i4;
    e_.call(h, {a.v, out, i32(n.type.len)});
    return {out, n.type.len};
  }

  Val concat(const Node& n) {
    Val a = expr(*n.kid[0]);
    Val b = expr(*n.kid[1]);
    if (a.len + b.len != n.type.len) internal_error("concat width is not the sum of its operands'");
    Value out = scratch_slot(n);
    e_.call(Helper::qk_concat, {a.v, i32(a.len), b.v, i32(b.len), out});
    return {out, n.type.len};
  }

  const harness::Plan& plan_;
  const GenOptions& opt_;
  Emitter& e_;
  SrcPos stmt_pos_;
  bool need_params_ = false, need_scratch_ = false;

  // Per function.
  FnKind kind_ = FnKind::Qual;
  Value tuple_, ctx_, params_, scratch_;
  Value tuple_page_, tuple_off_;  // set in a kernel (set_tuple); empty in q_qual, q_project
  Local line_;  // kernels: the line being evaluated (err_slot on error)
  Block fail_;
};

}  // namespace

void generate(const harness::Plan& plan, Functions which, const std::string& base, const GenOptions& opt,
              Emitter& e) {
  Walk w(plan, opt, e);
  if (which.kernel) w.kernel_function(function_name(base, FnKind::Kernel));
  if (which.accumulate) w.accumulate_function(function_name(base, FnKind::Accumulate));
  if (which.qual) {
    if (!plan.qual_folded) internal_error("qualification function without a qualification");
    w.qual_function(function_name(base, FnKind::Qual));
  }
  if (which.project) w.project_function(function_name(base, FnKind::Project));
}

std::string base_name(const harness::Plan& plan) { return plan.name.empty() ? "plan" : plan.name; }

std::string kernel_base(const std::string& base, bool nobranch) { return nobranch ? base + "_nb" : base; }

harness::BackendSpec backend_spec(
    std::string name, std::vector<std::string> dump_forms,
    std::function<std::unique_ptr<harness::Backend>(Mode, const harness::PrepareOptions&)> make) {
  harness::BackendSpec spec;
  spec.name = std::move(name);
  // The qual mode evaluates tuple at a time: it has no page kernel.
  for (const std::string& m : mode_names()) spec.modes.push_back({m, m != mode_name(Mode::Qual)});
  // The kernel's code differs by selection.
  for (std::string& f : dump_forms) spec.dump_forms.push_back({std::move(f), true});
  spec.make = [make = std::move(make)](const std::string& mode,
                                       const harness::PrepareOptions& opt) -> std::unique_ptr<harness::Backend> {
    Mode m;
    if (!parse_mode(mode, &m)) return nullptr;
    return make(m, opt);
  };
  return spec;
}

}  // namespace quelkit::jit

// The definitions of the qk_rule_ helpers declared above.
#undef QK_RULE_ABI_1
#undef QK_RULE_ABI_2
#define QK_RULE_ABI_1(ID)                                                                             \
  extern "C" int qk_rule_##ID(quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).left> a, \
                              quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).result>* r) noexcept { \
    return quelkit::jit::forward_rule<quelkit::ir::Op::ID>(a, r);                                       \
  }
#define QK_RULE_ABI_2(ID)                                                                              \
  extern "C" int qk_rule_##ID(quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).left> a,  \
                              quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).right> b, \
                              quelkit::ir::held_t<quelkit::ir::op_info(quelkit::ir::Op::ID).result>* r) noexcept { \
    return quelkit::jit::forward_rule<quelkit::ir::Op::ID>(a, b, r);                                    \
  }
#define QK_OP(ID, GEN, R, A, B, RULE, ERRS, SYN) QK_RULE_ABI_##B(ID)
#include "frontend/ops.def"
