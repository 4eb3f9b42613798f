// What each primitive of kPrims (vector/prims.h) does, written once per form
// as a template over its PrimDesc and instantiated for every slot of the
// table with an index_sequence. An operator primitive is a loop over a
// selection vector calling the row's runtime rule (frontend/op_rules.h), the
// same code the interpreter, threaded code and the fold pass run: this file
// only decides, at compile time, where the operands come from and where the
// result goes. Primitives never raise: a failing rule flags its tuple
// (Batch::flag) and the page kernel re-runs the batch (vector/run.cpp).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "frontend/op_rules.h"
#include "runtime/accumulate_inline.h"
#include "storage/stored.h"
#include "runtime/inline.h"
#include "vector/program.h"

namespace quelkit::vector {

namespace {

// The vector slot of a value held as type T (its register class).
template <Tk T>
using slot_t = std::conditional_t<T == Tk::C, const uint8_t*, ir::held_t<reg_class(T)>>;

using harness::load_as;
using harness::load_stored;
using harness::store_col;

// Operand A (the instruction's a / alen / off) or B (b / blen) of a row with
// operand type T, read as the primitive's operand way O says: hoisted out of
// the loop, one call per tuple place.
template <Operand O, Tk T, bool IsA>
struct Reader {
  using Held = ir::held_t<T>;
  const slot_t<T>* vec = nullptr;
  slot_t<T> scalar{};
  const uint8_t* const* tuple = nullptr;
  uint32_t off = 0;
  uint32_t len = 0;

  Reader(const Instr& in, const Batch& b) {
    uint16_t r = IsA ? in.a : in.b;
    len = IsA ? in.alen : in.blen;
    if constexpr (O.src == Src::Vec) {
      vec = b.vec<const slot_t<T>>(r);
    } else if constexpr (O.src == Src::Scalar) {
      const Scalar& s = b.scal[r];
      if constexpr (T == Tk::C) scalar = s.s;
      else if constexpr (reg_class(T) == Tk::F4) scalar = s.f4;
      else if constexpr (reg_class(T) == Tk::F8) scalar = s.f8;
      else scalar = s.i;
    } else {
      static_assert(IsA, "only operand a is read in place");
      tuple = b.tuple;
      off = in.off;
    }
  }
  QK_INLINE Held operator()(uint32_t i) const {
    slot_t<T> v;
    if constexpr (O.src == Src::Vec) v = vec[i];
    else if constexpr (O.src == Src::Scalar) v = scalar;
    else v = load_as<O.stored, T>(tuple[i] + off);
    if constexpr (T == Tk::C) return Held{v, len};
    else return v;
  }
};

// f(i) for every place i of selection s: a dense loop over the whole batch
// when s is full (the compiler may vectorize it), else through the indexes.
// The count and indexes are read once: stores through byte pointers (rows,
// character results) could otherwise alias them.
template <class F>
QK_INLINE void each(const Sel& s, F&& f) {
  const uint32_t n = s.n;
  if (s.full) {
    for (uint32_t i = 0; i < n; ++i) f(i);
  } else {
    const uint16_t* idx = s.idx;
    for (uint32_t k = 0; k < n; ++k) f(uint32_t(idx[k]));
  }
}

// Runs one(i) (which returns the rule's status) over the selection. A row
// that cannot fail (ERRORS E_NONE) runs without looking at the status; one
// that can ORs the statuses and, only if one failed, runs again to flag the
// failing tuples (rules are pure: the second run computes the same values).
template <uint16_t Errors, class F>
QK_INLINE void compute(const Sel& s, const Instr& in, Batch& b, F&& one) {
  if constexpr (Errors == 0) {
    each(s, [&](uint32_t i) { (void)one(i); });
  } else {
    int any = 0;
    each(s, [&](uint32_t i) { any |= one(i); });
    if (any) [[unlikely]]
      each(s, [&](uint32_t i) {
        if (int e = one(i)) b.flag(i, e, in.index);
      });
  }
}

template <PrimDesc D>
QK_INLINE void value(const Instr& in, Batch& b) {
  constexpr ir::OpInfo row = ir::op_info(D.op);
  static_assert(ir::has_rule<D.op>, "an operator without a runtime rule");
  Reader<D.a, row.left, true> A(in, b);
  slot_t<row.result>* out = b.vec<slot_t<row.result>>(in.dst);
  // The rule's result for place i: a character result into the place's scratch slot.
  [[maybe_unused]] uint8_t* const scratch = b.scratch + in.out;
  [[maybe_unused]] const uint32_t width = in.width;
  auto result = [=](uint32_t i) {
    ir::result_t<row.result> r{};
    if constexpr (row.result == Tk::C) r = {scratch + size_t(i) * width, width};
    return r;
  };
  auto put = [&](uint32_t i, const ir::result_t<row.result>& r) {
    if constexpr (row.result == Tk::C) out[i] = r.p;
    else out[i] = r;
  };
  if constexpr (row.arity == 1) {
    compute<row.errors>(b.sels[in.sel], in, b, [&](uint32_t i) {
      auto r = result(i);
      int e = ir::rule_of<D.op>(A(i), &r);
      put(i, r);
      return e;
    });
  } else {
    Reader<D.b, row.right, false> B(in, b);
    compute<row.errors>(b.sels[in.sel], in, b, [&](uint32_t i) {
      auto r = result(i);
      int e = ir::rule_of<D.op>(A(i), B(i), &r);
      put(i, r);
      return e;
    });
  }
}

template <PrimDesc D>
QK_INLINE void select(const Instr& in, Batch& b) {
  constexpr ir::OpInfo row = ir::op_info(D.op);
  static_assert(ir::has_rule<D.op> && row.arity == 2, "a comparison is a binary rule");
  Reader<D.a, row.left, true> A(in, b);
  Reader<D.b, row.right, false> B(in, b);
  const Sel& s = b.sels[in.sel];
  Sel& o = b.sels[in.dst];
  uint16_t* out = o.buf;
  uint32_t k = 0;
  int any = 0;
  each(s, [&](uint32_t i) {
    int32_t r = 0;
    any |= ir::rule_of<D.op>(A(i), B(i), &r);
    if constexpr (D.branch) {
      if (r) out[k++] = uint16_t(i);
    } else {
      out[k] = uint16_t(i);
      k += uint32_t(r != 0);
    }
  });
  if constexpr (row.errors != 0) {
    if (any) [[unlikely]]
      each(s, [&](uint32_t i) {
        int32_t r = 0;
        if (int e = ir::rule_of<D.op>(A(i), B(i), &r)) b.flag(i, e, in.index);
      });
  }
  o.idx = out;
  o.n = k;
  o.full = k == b.n;
}

template <PrimDesc D>
QK_INLINE void gather(const Instr& in, Batch& b) {
  slot_t<D.to>* out = b.vec<slot_t<D.to>>(in.dst);
  const uint8_t* const* t = b.tuple;
  const uint32_t off = in.off;
  each(b.sels[in.sel], [&](uint32_t i) { out[i] = load_as<D.src, D.to>(t[i] + off); });
}

// Row k of the projection gets the k-th selected tuple's value.
template <class F>
QK_INLINE void each_row(const Sel& s, F&& f) {
  const uint32_t n = s.n;
  if (s.full) {
    for (uint32_t k = 0; k < n; ++k) f(k, k);
  } else {
    const uint16_t* idx = s.idx;
    for (uint32_t k = 0; k < n; ++k) f(k, uint32_t(idx[k]));
  }
}

template <PrimDesc D>
QK_INLINE void store(const Instr& in, Batch& b) {
  constexpr Tk S = D.src;
  Reader<D.a, S, true> A(in, b);
  uint8_t* const rows = b.rows + in.out;
  const size_t row_len = b.row_len;
  [[maybe_unused]] const uint32_t width = in.width;
  each_row(b.sels[in.sel], [&](uint32_t k, uint32_t i) QK_INLINE_LAMBDA {
    uint8_t* at = rows + k * row_len;
    if constexpr (S == Tk::C) {
      rt::Chars v = A(i);  // value alen bytes, column width bytes: truncated or blank padded
      rt::store_char(at, width, v.p, v.n);
    } else {
      store_col<S>(at, A(i));
    }
  });
}

template <PrimDesc D>
QK_INLINE void copy(const Instr& in, Batch& b) {
  constexpr Tk S = D.src;
  uint8_t* rows = b.rows + in.out;
  const size_t row_len = b.row_len;
  const uint8_t* const* t = b.tuple;
  const uint32_t off = in.off, len = in.alen;
  each_row(b.sels[in.sel], [&](uint32_t k, uint32_t i) QK_INLINE_LAMBDA {
    uint8_t* at = rows + k * row_len;
    const uint8_t* from = t[i] + off;
    if constexpr (S == Tk::C) rt::copy_short(at, from, len);
    else if constexpr (S == Tk::I1) *at = *from;
    else if constexpr (S == Tk::I2) std::memcpy(at, from, 2);
    else if constexpr (S == Tk::I4 || S == Tk::F4) std::memcpy(at, from, 4);
    else std::memcpy(at, from, 8);
  });
}

// or: what the left operand left open. b is a subset of a.
QK_INLINE void sel_diff(const Instr& in, Batch& b) {
  const Sel& x = b.sels[in.a];
  const Sel& y = b.sels[in.b];
  Sel& o = b.sels[in.dst];
  if (y.n == 0) {  // nothing decided: all of a (shared, not copied)
    o.idx = x.idx, o.n = x.n, o.full = x.full;
    return;
  }
  if (y.n == x.n) {
    o.n = 0, o.full = b.n == 0;
    return;
  }
  uint16_t* out = o.buf;
  const uint16_t* yi = y.idx;  // y is not full: it misses some of x
  uint32_t k = 0, j = 0;
  each(x, [&](uint32_t i) {
    bool in_y = j < y.n && yi[j] == i;
    out[k] = uint16_t(i);
    k += uint32_t(!in_y);
    j += uint32_t(in_y);
  });
  o.idx = out, o.n = k, o.full = k == b.n;
}

// or's outcome: the tuples either side selected (disjoint), in order.
QK_INLINE void sel_union(const Instr& in, Batch& b) {
  const Sel& x = b.sels[in.a];
  const Sel& y = b.sels[in.b];
  Sel& o = b.sels[in.dst];
  if (y.n == 0 || x.n == 0) {
    const Sel& z = y.n == 0 ? x : y;
    o.idx = z.idx, o.n = z.n, o.full = z.full;
    return;
  }
  uint16_t* out = o.buf;
  // Neither is full (each misses what the other has).
  const uint16_t *xi = x.idx, *yi = y.idx;
  uint32_t i = 0, j = 0, k = 0;
  while (i < x.n && j < y.n) out[k++] = xi[i] < yi[j] ? xi[i++] : yi[j++];
  while (i < x.n) out[k++] = xi[i++];
  while (j < y.n) out[k++] = yi[j++];
  o.idx = out, o.n = k, o.full = k == b.n;
}

// The rows the projection wrote for the batch's qualifying tuples (sel), each
// made one group of the block's table, in scan order (groups are made in
// order of first appearance, as the harness's qk_accum_row makes them), and
// the group's accumulators kept for the batch's aggregates. The group front
// is read here (rt::front_find), the runtime asked only on a miss.
QK_INLINE void probe(const Instr& in, Batch& b) {
  const uint32_t m = b.sels[in.sel].n;
  qk_accum* const a = b.acc;
  rt::front_groups(a, b.rows, m, b.row_len, b.group, [a](const uint8_t* row) {
    const int64_t gi = qk_group_probe(a, row);
    return gi < 0 ? nullptr : qk_group_aggs(a, uint64_t(gi));
  });
}

// The batch's rows added to aggregate in.a, in row (scan) order: into the
// block's accumulator, or each row's group's. The function is D's, so the
// loop is specialised for it; the step per value is the runtime's own
// (accumulate_inline.h), and an aggregate with an error takes no more.
template <PrimDesc D>
QK_INLINE void accum(const Instr& in, Batch& b) {
  constexpr uint8_t fn = D.agg;
  constexpr int kind = int(D.src);
  const uint32_t m = b.sels[in.sel].n;
  const size_t len = b.row_len;
  const uint8_t* col = b.rows + in.off;
  if constexpr (!D.grouped) {
    rt::agg_add_column<fn, kind>(&b.acc->aggs[in.a], col, m, len);
  } else {
    if (b.acc->probe_only) return;
    for (uint32_t k = 0; k < m; ++k)
      if (qk_agg* g = b.group[k]) rt::agg_add_column<fn, kind>(g + in.a, col + k * len, 1, len);
  }
}

// The same through the runtime's qk_agg_add_row, row by row: the u variants
// (their distinct values remembered by the runtime) and characters.
template <PrimDesc D>
QK_INLINE void accum_row(const Instr& in, Batch& b) {
  const uint32_t m = b.sels[in.sel].n;
  const uint8_t* row = b.rows;
  if constexpr (!D.grouped) {
    qk_agg* g = &b.acc->aggs[in.a];
    for (uint32_t k = 0; k < m; ++k, row += b.row_len) qk_agg_add_row(g, row);
  } else {
    if (b.acc->probe_only) return;
    for (uint32_t k = 0; k < m; ++k, row += b.row_len)
      if (qk_agg* g = b.group[k]) qk_agg_add_row(g + in.a, row);
  }
}

[[noreturn]] void bad_prim() {
  std::fprintf(stderr, "quelkit: internal error: vector: instruction of an unused kind\n");
  std::abort();
}

template <int K>
void prim(const Instr& in, Batch& b) {
  constexpr PrimDesc D = kPrims.k[K];
  if constexpr (D.form == Form::Value) value<D>(in, b);
  else if constexpr (D.form == Form::Select) select<D>(in, b);
  else if constexpr (D.form == Form::Gather) gather<D>(in, b);
  else if constexpr (D.form == Form::Param) {
    Scalar& s = b.scal[in.dst];
    auto v = load_stored<D.src>(b.params + in.off);
    if constexpr (D.src == Tk::C) s.s = v;
    else if constexpr (D.src == Tk::F4) s.f4 = v;
    else if constexpr (D.src == Tk::F8) s.f8 = v;
    else s.i = v;
  } else if constexpr (D.form == Form::SelDiff) sel_diff(in, b);
  else if constexpr (D.form == Form::SelUnion) sel_union(in, b);
  else if constexpr (D.form == Form::SelNone) {
    Sel& o = b.sels[in.dst];
    o.n = 0, o.full = b.n == 0;
  } else if constexpr (D.form == Form::Store) store<D>(in, b);
  else if constexpr (D.form == Form::Copy) copy<D>(in, b);
  else if constexpr (D.form == Form::Probe) probe(in, b);
  else if constexpr (D.form == Form::Accum) accum<D>(in, b);
  else if constexpr (D.form == Form::AccumRow) accum_row<D>(in, b);
  else bad_prim();
}

template <size_t... I>
constexpr std::array<Prim, sizeof...(I)> make_fns(std::index_sequence<I...>) {
  return {&prim<int(I)>...};
}
constexpr auto kPrimFns = make_fns(std::make_index_sequence<size_t(kNumPrims)>());
static_assert(kPrimFns.size() == size_t(kNumPrims), "one function per primitive");

}  // namespace

Prim prim_of(int kind) { return kind >= 0 && kind < kNumPrims ? kPrimFns[size_t(kind)] : nullptr; }

}  // namespace quelkit::vector
