// Decomposition, access paths, the scan loop and the plan cache (engine.h).
//
// A statement over k variables becomes one-variable plans as INGRES did it:
// each variable's own conjuncts are detached into a heap temporary first, then
// the variable with the fewest tuples is substituted tuple by tuple, its values
// becoming parameters of the remaining query, recursively. The substituted
// query has the same shape for every tuple, so a back end that reuses plans
// prepares it once (DC-INGRES plan reuse) and only the parameter block changes.
#include "harness/engine.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <ostream>
#include <unordered_map>

#include "frontend/frontend.h"
#include "harness/measure.h"
#include "harness/page_walk.h"
#include "harness/rows.h"
#include "harness/runtime/runtime_inline.h"

namespace quelkit::harness {

using ir::Node;
using ir::NodePtr;
using ir::Op;


// ---------------------------------------------------------------- plan cache

Prepared* PlanCache::find(const std::string& key, const std::vector<uint64_t>** positions) {
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  if (positions) *positions = &it->second.positions;
  return it->second.prepared.get();
}

Prepared* PlanCache::insert(const std::string& key, std::unique_ptr<Prepared> p, std::vector<uint64_t> positions,
                            const std::vector<uint64_t>** stored) {
  while (capacity_ > 0 && map_.size() >= capacity_ && !lru_.empty()) {
    map_.erase(lru_.back());
    lru_.pop_back();
    ++evictions_;
  }
  lru_.push_front(key);
  auto* raw = p.get();
  Entry& e = map_[key];
  e = Entry{std::move(p), lru_.begin(), std::move(positions)};
  if (stored) *stored = &e.positions;
  return raw;
}

void PlanCache::invalidate(const std::string& relation) {
  std::string prefix = relation + "#";
  for (auto it = map_.begin(); it != map_.end();) {
    if (it->first.compare(0, prefix.size(), prefix) == 0) {
      lru_.erase(it->second.lru);
      it = map_.erase(it);
    } else {
      ++it;
    }
  }
}

void PlanCache::clear() {
  map_.clear();
  lru_.clear();
}

void PlanCache::set_capacity(size_t c) {
  capacity_ = c;
  while (capacity_ > 0 && map_.size() > capacity_) {
    map_.erase(lru_.back());
    lru_.pop_back();
    ++evictions_;
  }
}

void ExecStats::add_scan(const ExecStats& o) {
  rows_scanned += o.rows_scanned;
  rows_qualified += o.rows_qualified;
  prepares += o.prepares;
  cache_hits += o.cache_hits;
  prepare_ns += o.prepare_ns;
  irgen_ns += o.irgen_ns;
  opt_ns += o.opt_ns;
  codegen_ns += o.codegen_ns;
}

// -------------------------------------------------------------------- runner

Runner::Runner(std::string name, std::string mode, std::unique_ptr<Backend> be, RunnerOptions opt,
               PrepareOptions popt)
    : name_(std::move(name)), mode_(std::move(mode)), backend_(std::move(be)), opt_(std::move(opt)),
      popt_(popt) {}

std::string result_difference(const Result& a, const Result& b) {
  if (a.ok != b.ok) {
    const Result& bad = a.ok ? b : a;
    return std::string(a.ok ? "second" : "first") + " failed: " + bad.error.format();
  }
  if (!a.ok) {
    if (a.error == b.error) return "";
    return "different errors:\n  " + a.error.format() + "\n  " + b.error.format();
  }
  if (a.nrows() != b.nrows()) return std::to_string(a.nrows()) + " rows vs " + std::to_string(b.nrows()) + " rows";
  if (a.keep_rows && b.keep_rows) {
    const uint32_t len = a.layout.tuple_len;
    if (len != b.layout.tuple_len) return "different row layouts";
    for (uint64_t i = 0; i < a.nrows() && len; ++i) {
      const uint8_t* x = a.rows.row(i);
      const uint8_t* y = b.rows.row(i);
      if (std::memcmp(x, y, len) != 0) {
        std::string m = "row " + std::to_string(i + 1) + " differs:";
        for (const auto& at : a.layout.attrs)
          if (std::memcmp(x + at.offset, y + at.offset, at.type.len) != 0)
            m += " " + at.name + " = " + value_text(at, x) + " vs " + value_text(at, y);
        return m;
      }
    }
  }
  if (a.tids.size() != b.tids.size() || !std::equal(a.tids.begin(), a.tids.end(), b.tids.begin()))
    return "different tuples updated";
  if (a.checksum.sum != b.checksum.sum) return "checksums differ";
  return "";
}

Prepared* Runner::get(const Plan& plan, const std::string& cache_key, const uint8_t* params,
                      std::unique_ptr<Prepared>& scratch_owner, ExecStats& st,
                      const std::vector<uint64_t>** positions) {
  bool reuse = backend_->reuses_plans() && opt_.plan_cache;
  const std::string& key = cache_key;
  if (positions) *positions = nullptr;
  if (reuse) {
    if (Prepared* p = cache_.find(key, positions)) {
      ++st.cache_hits;
      return p;
    }
  }
  if (!opt_.dumps.empty() && opt_.dump_out && dumped_.insert(plan.key).second) {
    for (const auto& form : opt_.dumps) {
      *opt_.dump_out << "-- " << form << " " << plan.name << " (" << label() << ")\n";
      backend_->dump(plan, form, params, *opt_.dump_out);
    }
  }
  uint64_t t0 = now_ns();
  std::unique_ptr<Prepared> p = backend_->prepare(plan, params);
  st.prepare_ns += now_ns() - t0;
  ++st.prepares;
  st.irgen_ns += p->times.irgen_ns;
  st.opt_ns += p->times.opt_ns;
  st.codegen_ns += p->times.codegen_ns;
  if (reuse) return cache_.insert(key, std::move(p), plan_positions(plan), positions);
  scratch_owner = std::move(p);
  return scratch_owner.get();
}

void Runner::make_tuple_functions(Prepared& p, ExecStats& st) {
  if (!p.tuple_functions_pending()) return;
  const PrepareTimes before = p.times;
  uint64_t t0 = now_ns();
  p.make_tuple_functions();
  st.prepare_ns += now_ns() - t0;
  st.irgen_ns += p.times.irgen_ns - before.irgen_ns;
  st.opt_ns += p.times.opt_ns - before.opt_ns;
  st.codegen_ns += p.times.codegen_ns - before.codegen_ns;
}

// ------------------------------------------------------------ decomposition

namespace {

struct RuntimeFailure {
  Error err;
};

// Where a key bound's value comes from: a constant of the query or a parameter.
struct BoundSrc {
  bool present = false;
  bool is_param = false;
  KeyVal val;            // constant
  uint32_t offset = 0;   // parameter
  Type type;             // parameter type
  bool incl = true;
};

struct AccessSpec {
  KeyBounds::Kind kind = KeyBounds::All;
  BoundSrc lo, hi;
  std::string text;  // "full scan", "isam key =", ...
};

// Collects the variable indices an expression names.
void refs(const Node& n, std::set<int>& out) {
  if (n.op == Op::ATTR) out.insert(n.var);
  for (const auto& k : n.kid)
    if (k) refs(*k, out);
}

void flatten_and(const Node* n, std::vector<const Node*>& out) {
  if (!n) return;
  if (n->op == Op::AND) {
    flatten_and(n->kid[0].get(), out);
    flatten_and(n->kid[1].get(), out);
  } else {
    out.push_back(n);
  }
}

void attr_refs(const Node& n, int var, std::set<int>& out) {
  if (n.op == Op::ATTR && n.var == var) out.insert(n.attr);
  for (const auto& k : n.kid)
    if (k) attr_refs(*k, var, out);
}

struct VarState {
  Relation* rel = nullptr;
  std::unique_ptr<Relation> temp;  // owned temporary after detachment
  std::vector<int> attr_map;       // original attribute index -> index in rel's schema
  bool substituted = false;
  std::vector<int> param_slot;     // original attribute index -> parameter slot (when substituted)
};

struct Level {
  std::vector<VarState*> vars;           // by bound var index
  std::vector<const Node*> conjuncts;    // remaining, text order
  Schema params;                         // accumulated parameter layout
};

// Strips widening integer conversions: key detection looks through them.
const Node* strip_widen(const Node* n) {
  while (n && n->implicit &&
         (n->op == Op::CVT_I1_I4 || n->op == Op::CVT_I2_I4 || n->op == Op::CVT_I1_I2))
    n = n->kid[0].get();
  return n;
}

class Exec {
 public:
  Exec(Catalog& cat, Runner& r, const frontend::BoundQuery& q, const SourceRef& src, int stmt_no,
       Result& res, bool count)
      : cat_(cat), runner_(r), q_(q), src_(src), stmt_no_(stmt_no), res_(res), count_(count) {}

  void run_statement(Sink& out);
  // "var:path; ..." of the plans run so far (also after a failure).
  std::string access_path() const {
    std::string text;
    for (const auto& t : access_texts_) text += (text.empty() ? "" : "; ") + t;
    return text;
  }

 private:
  void run_level(Level& lv, std::vector<uint8_t>& params, Sink& out, int depth);
  Plan make_plan(const Level& lv, int scan_var, const std::vector<const Node*>& conj,
                 const std::vector<const Node*>& targets, const std::vector<std::string>& names,
                 const std::string& name);
  NodePtr rewrite(const Node& n, const Level& lv, int scan_var);
  AccessSpec choose_access(const Plan& plan, const Relation* rel, int scan_var_key_attr);
  void execute(const Plan& plan, Relation* rel, const std::string& cache_key, const AccessSpec& acc,
               std::vector<uint8_t>& params, Sink& out, bool want_tids);
  KeyBounds resolve(const AccessSpec& a, const std::vector<uint8_t>& params) const;
  [[noreturn]] void cancelled() const;
  // The tuples of a page before line `slot` that a kernel qualified (and
  // projected): what the tuple-at-a-time loop counts before a failing tuple.
  static uint64_t qualified_before(Prepared& prep, const uint8_t* pg, uint32_t page_size, int64_t slot,
                                   uint8_t* rows, const qk_ctx& ctx);
  // Cache identity of a variable's relation: temporaries are shaped alike
  // per statement, so they share one identity; real relations carry their version.
  static std::string rel_id(const VarState& vs) {
    return vs.temp ? "temp" : vs.rel->name() + "#" + std::to_string(vs.rel->version());
  }
  void note_access(const std::string& t) {
    if (std::find(access_texts_.begin(), access_texts_.end(), t) == access_texts_.end())
      access_texts_.push_back(t);
  }

  Catalog& cat_;
  Runner& runner_;
  const frontend::BoundQuery& q_;
  SourceRef src_;
  int stmt_no_;
  Result& res_;
  const bool count_;  // --sink count (RunnerOptions::count_sink)
  int ndetach_ = 0;
  std::vector<uint8_t> scratch_;
  std::vector<Tid> tidbuf_;
  std::vector<std::string> access_texts_;
};

NodePtr Exec::rewrite(const Node& n, const Level& lv, int scan_var) {
  if (n.op == Op::ATTR) {
    const VarState& vs = *lv.vars[size_t(n.var)];
    if (vs.substituted) {
      auto p = ir::make_node(Op::PARAM, n.type, n.pos);
      p->slot = vs.param_slot[size_t(n.attr)];
      p->offset = lv.params.attrs[size_t(p->slot)].offset;
      return p;
    }
    auto a = n.clone();
    int idx = vs.attr_map[size_t(n.attr)];
    a->attr = idx;
    a->offset = vs.rel->schema().attrs[size_t(idx)].offset;
    (void)scan_var;
    return a;
  }
  return ir::copy_with_kids(n, n.kid[0] ? rewrite(*n.kid[0], lv, scan_var) : nullptr,
                            n.kid[1] ? rewrite(*n.kid[1], lv, scan_var) : nullptr);
}

Plan Exec::make_plan(const Level& lv, int scan_var, const std::vector<const Node*>& conj,
                     const std::vector<const Node*>& targets, const std::vector<std::string>& names,
                     const std::string& name) {
  Plan p;
  p.name = name;
  if (src_) p.source = src_->name();
  // Re-join the conjuncts left to right in text order: the same short-circuit
  // order as the statement as written.
  for (const Node* c : conj) {
    NodePtr r = rewrite(*c, lv, scan_var);
    if (p.qual) {
      SrcPos pos = p.qual->pos;  // read before the move below
      p.qual = ir::make_node(Op::AND, Type::b(), pos, std::move(p.qual), std::move(r));
    } else {
      p.qual = std::move(r);
    }
  }
  std::vector<std::pair<std::string, Type>> cols;
  for (size_t i = 0; i < targets.size(); ++i) {
    p.targets.push_back(rewrite(*targets[i], lv, scan_var));
    cols.emplace_back(names[i], targets[i]->type);
  }
  p.out = Schema::packed(cols);
  if (scan_var >= 0) p.in = lv.vars[size_t(scan_var)]->rel->schema();
  p.params = lv.params;
  p.scratch_size = q_.scratch_size;
  if (p.qual) p.qual_folded = frontend::fold(*p.qual);
  for (const auto& t : p.targets) p.targets_folded.push_back(frontend::fold(*t));
  compute_key(p);
  return p;
}

// Key lookups and ranges come from conjuncts `key op constant-or-parameter`
// of the folded qualification, looking through integer widening only (a key
// compared in another type, or through a pattern, is never used as a key).
AccessSpec Exec::choose_access(const Plan& plan, const Relation* rel, int key_attr) {
  AccessSpec a;
  if (!rel) {
    a.text = "no relation";
    return a;
  }
  a.text = std::string(rel->structure() == Structure::Heap ? "heap" : structure_name(rel->structure())) +
           " full scan";
  if (rel->structure() == Structure::Heap || key_attr < 0 || !plan.qual_folded) return a;
  const Attribute& key = rel->schema().attrs[size_t(key_attr)];
  std::vector<const Node*> conj;
  flatten_and(plan.qual_folded.get(), conj);

  auto value_src = [&](const Node* v, BoundSrc& out) -> bool {
    v = strip_widen(v);
    if (!v) return false;
    bool key_int = key.type.is_int();
    bool ok_type = key_int ? v->type.is_int() : (v->type.kind == key.type.kind);
    if (!ok_type) return false;
    if (v->op == Op::CONST) {
      out.present = true;
      out.is_param = false;
      out.val.i = v->val.i;
      out.val.f = v->type.kind == Tk::F4 ? double(v->val.f4) : v->val.f8;
      out.val.s = rt::strip(v->val.s);
      return true;
    }
    if (v->op == Op::PARAM) {
      out.present = true;
      out.is_param = true;
      out.offset = v->offset;
      out.type = v->type;
      return true;
    }
    return false;
  };
  auto is_key = [&](const Node* n) {
    n = strip_widen(n);
    return n && n->op == Op::ATTR && n->offset == key.offset && n->type == key.type;
  };
  auto family = [](Op op) -> int {  // 0 eq, 1 lt, 2 le, 3 gt, 4 ge, -1 other
    switch (ir::op_info(op).generic) {
      case ir::Generic::Eq: return 0;
      case ir::Generic::Lt: return 1;
      case ir::Generic::Le: return 2;
      case ir::Generic::Gt: return 3;
      case ir::Generic::Ge: return 4;
      default: return -1;
    }
  };
  // Equality first: one key beats any range.
  for (const Node* c : conj) {
    int f = family(c->op);
    if (f != 0) continue;
    BoundSrc s;
    if ((is_key(c->kid[0].get()) && value_src(c->kid[1].get(), s)) ||
        (is_key(c->kid[1].get()) && value_src(c->kid[0].get(), s))) {
      a.kind = KeyBounds::Eq;
      a.lo = s;
      a.text = std::string(structure_name(rel->structure())) + " key =";
      return a;
    }
  }
  if (rel->structure() != Structure::Isam) return a;
  for (const Node* c : conj) {
    int f = family(c->op);
    if (f <= 0) continue;
    BoundSrc s;
    bool key_left = is_key(c->kid[0].get()) && value_src(c->kid[1].get(), s);
    bool key_right = !key_left && is_key(c->kid[1].get()) && value_src(c->kid[0].get(), s);
    if (!key_left && !key_right) continue;
    if (key_right) f = (f == 1 ? 3 : f == 2 ? 4 : f == 3 ? 1 : 2);  // c op key  ==  key op' c
    s.incl = (f == 2 || f == 4);
    BoundSrc& slot = (f <= 2) ? a.hi : a.lo;
    if (!slot.present) slot = s;  // first bound of each side in text order
  }
  if (a.lo.present || a.hi.present) {
    a.kind = KeyBounds::Range;
    a.text = "isam key range";
  }
  return a;
}

KeyBounds Exec::resolve(const AccessSpec& a, const std::vector<uint8_t>& params) const {
  KeyBounds b;
  b.kind = a.kind;
  auto val = [&](const BoundSrc& s) {
    if (!s.is_param) return s.val;
    KeyVal v;
    const uint8_t* p = params.data() + s.offset;
    switch (s.type.kind) {
      case Tk::I1: v.i = int8_t(p[0]); break;
      case Tk::I2: v.i = load<int16_t>(p); break;
      case Tk::I4: v.i = load<int32_t>(p); break;
      case Tk::F4: v.f = double(load<float>(p)); break;
      case Tk::F8: v.f = load<double>(p); break;
      case Tk::C: v.s.assign(reinterpret_cast<const char*>(p), rt::strip(p, s.type.len)); break;
      case Tk::B: break;
    }
    return v;
  };
  if (a.kind == KeyBounds::Eq) {
    b.lo = val(a.lo);
    b.has_lo = true;
  } else if (a.kind == KeyBounds::Range) {
    if (a.lo.present) {
      b.lo = val(a.lo);
      b.has_lo = true;
      b.lo_incl = a.lo.incl;
    }
    if (a.hi.present) {
      b.hi = val(a.hi);
      b.has_hi = true;
      b.hi_incl = a.hi.incl;
    }
  }
  return b;
}

// Buffers a page's worth of rows and hands them to the sink.
void Exec::execute(const Plan& plan, Relation* rel, const std::string& cache_key, const AccessSpec& acc,
                   std::vector<uint8_t>& params, Sink& out, bool want_tids) {
  ExecStats& st = res_.stats;
  std::unique_ptr<Prepared> owner;
  const std::vector<uint64_t>* prepared_at = nullptr;
  Prepared* prep = runner_.get(plan, cache_key, params.empty() ? nullptr : params.data(), owner, st, &prepared_at);
  if (scratch_.size() < plan.scratch_size + 1) scratch_.resize(plan.scratch_size + 1);
  qk_ctx ctx{};
  ctx.params = params.data();
  ctx.scratch = scratch_.data();
  const uint32_t row_len = plan.out.tuple_len;

  if (cancel_requested()) cancelled();
  auto fail = [&](int64_t ordinal) {
    Error e;
    e.kind = ErrKind::Runtime;
    e.code = ctx.err_code;
    e.message = qk_err_message(ctx.err_code);
    e.pos = SrcPos::unpack(ctx.err_pos);
    if (prepared_at) {  // a cached plan raises at the positions it was prepared with
      auto at = std::find(prepared_at->begin(), prepared_at->end(), ctx.err_pos);
      std::vector<uint64_t> here = plan_positions(plan);
      if (at != prepared_at->end() && size_t(at - prepared_at->begin()) < here.size())
        e.pos = SrcPos::unpack(here[size_t(at - prepared_at->begin())]);
    }
    e.src = src_;
    e.relation = rel ? rel->name() : "";
    e.tuple = ordinal;
    throw RuntimeFailure{std::move(e)};
  };

  if (!rel) {  // no variable left: evaluate once
    runner_.make_tuple_functions(*prep, st);
    static const uint8_t empty[8] = {};
    int r = prep->qualify(empty, &ctx);
    if (r < 0) fail(1);
    if (r) {
      size_t cap = 0;
      uint8_t* row = out.room(1, &cap);
      if (prep->project(empty, row, &ctx) < 0) fail(1);
      ++st.rows_qualified;
      out.wrote(1, nullptr);
    }
    return;
  }

  const uint32_t tpp = rel->tuples_per_page(), in_len = rel->tuple_len();
  // Reused across executions: (f)-(i) run thousands of small substituted scans.
  std::vector<Tid>& tids = tidbuf_;
  if (want_tids && tids.size() < tpp) tids.resize(tpp);
  const bool kernel = prep->has_kernel() && runner_.options().use_kernel && !want_tids;
  if (!kernel) runner_.make_tuple_functions(*prep, st);
  KeyBounds bounds = resolve(acc, params);
  int64_t ordinal = 0;
  // Rows go straight into the sink's room: `held` rows written at `at`, room
  // for `cap`; handed over when the next page might not fit (per page when
  // tids go with them, whose buffer holds a page's).
  uint8_t* at = nullptr;
  size_t cap = 0, held = 0;
  auto hand_over = [&] {
    if (held) out.wrote(held, want_tids ? tids.data() : nullptr);
    at = nullptr;  // the room is the sink's again: ask anew
    cap = held = 0;
  };

  rel->each_page(bounds, [&](uint32_t page_no) {
    if (cancel_requested()) cancelled();  // page boundary (page_walk.h): kernels run one page per call
    const uint8_t* pg = rel->page(page_no);
    if (cap - held < tpp) {
      hand_over();
      at = out.room(tpp, &cap);
    }
    uint8_t* rows = at + held * row_len;
    if (kernel) {
      int64_t n = prep->run_page(pg, rows, &ctx);
      if (n < 0) {
        int64_t ord = ordinal;
        for (int64_t i = 0; i <= ctx.err_slot && i < page_nlines(pg); ++i) ord += page_line(pg, uint32_t(i)) != 0;
        st.rows_scanned += uint64_t(ord - ordinal);
        st.rows_qualified += qualified_before(*prep, pg, rel->page_size(), ctx.err_slot, rows, ctx);
        fail(ord);
      }
      // The live tuples it scanned: counted here, off the kernel's loop, only
      // for a page with a deleted line (a heap that was never deleted from
      // has none, and the count is the line count).
      const uint32_t nl = page_nlines(pg);
      uint32_t live = nl;
      if (rel->has_deleted())
        for (uint32_t i = 0; i < nl; ++i) live -= page_line(pg, i) == 0;
      ordinal += live;
      st.rows_scanned += live;
      st.rows_qualified += uint64_t(n);
      held += size_t(n);
      return true;
    }
    size_t n = 0;
    walk_page(pg, in_len, 0, [&](uint32_t i, const uint8_t* t) {
      ++ordinal;
      ++st.rows_scanned;
      int r = prep->qualify(t, &ctx);
      if (r == 0) return true;
      if (r < 0) fail(ordinal);
      // A tuple whose projection fails is not counted: a failed statement's
      // counts are the same whether its back end ran a page kernel or not.
      if (prep->project(t, rows + n * row_len, &ctx) < 0) fail(ordinal);
      ++st.rows_qualified;
      if (want_tids) tids[n] = Tid{page_no, uint16_t(i)};
      ++n;
      return true;
    });
    held += n;
    if (want_tids) hand_over();
    return true;
  });
  hand_over();
}

// Inserts detached rows into the temporary.
class TempSink : public Sink {
 public:
  explicit TempSink(Relation& r) : rel_(r) {}
  uint8_t* room(size_t min_rows, size_t* room) override {
    if (buf_.size() < min_rows * rel_.tuple_len() + 1) buf_.resize(min_rows * rel_.tuple_len() + 1);
    *room = min_rows;
    return buf_.data();
  }
  void wrote(size_t n, const Tid*) override {
    for (size_t i = 0; i < n; ++i) rel_.insert(buf_.data() + i * rel_.tuple_len());
  }

 private:
  Relation& rel_;
  std::vector<uint8_t> buf_;
};

void Exec::run_level(Level& lv, std::vector<uint8_t>& params, Sink& out, int depth) {
  std::vector<int> live;
  for (size_t v = 0; v < lv.vars.size(); ++v)
    if (!lv.vars[v]->substituted) live.push_back(int(v));

  std::vector<const Node*> targets;
  std::vector<std::string> names;
  for (const auto& t : q_.targets) {
    if (count_) break;  // --sink count: the final plans project nothing
    targets.push_back(t.expr.get());
    names.push_back(t.name);
  }
  const bool updating = q_.update_var >= 0;

  if (live.size() <= 1) {
    int v = live.empty() ? -1 : live[0];
    Relation* rel = v >= 0 ? lv.vars[size_t(v)]->rel : nullptr;
    std::string name = "q" + std::to_string(stmt_no_) + (depth ? "_s" + std::to_string(depth) : "");
    Plan plan = make_plan(lv, v, lv.conjuncts, targets, names, name);
    int key_attr = rel ? rel->key_attr() : -1;
    AccessSpec acc = choose_access(plan, rel, key_attr);
    std::string id = v >= 0 ? rel_id(*lv.vars[size_t(v)]) : "none";
    note_access((v >= 0 ? q_.vars[size_t(v)].name + ":" : "") + acc.text);
    execute(plan, rel, id + "|" + plan.key, acc, params, out, updating && v == q_.update_var);
    return;
  }

  // 1. One-variable detachment, in text order of the conjuncts.
  // The one variable a conjunct names (substituted ones are parameters now), or -1.
  auto only_var = [&](const Node* c) {
    std::set<int> r, live_r;
    refs(*c, r);
    for (int x : r)
      if (!lv.vars[size_t(x)]->substituted) live_r.insert(x);
    return live_r.size() == 1 ? *live_r.begin() : -1;
  };
  std::vector<int> order;
  for (const Node* c : lv.conjuncts) {
    int v = only_var(c);
    if (v >= 0 && v != q_.update_var && std::find(order.begin(), order.end(), v) == order.end())
      order.push_back(v);
  }
  for (int v : order) {
    std::vector<const Node*> mine, rest;
    for (const Node* c : lv.conjuncts) (only_var(c) == v ? mine : rest).push_back(c);
    // The temporary holds only what the rest of the query still needs of v.
    std::set<int> need;
    for (const Node* c : rest) attr_refs(*c, v, need);
    for (const Node* t : targets) attr_refs(*t, v, need);
    if (need.empty()) need.insert(0);  // v only counts: keep one column (a relation has at least one)
    VarState& vs = *lv.vars[size_t(v)];
    std::vector<const Node*> cols;
    std::vector<NodePtr> col_nodes;
    std::vector<std::string> col_names;
    const Schema& orig = q_.vars[size_t(v)].schema;
    for (int a : need) {
      auto n = ir::make_node(Op::ATTR, orig.attrs[size_t(a)].type, SrcPos{});
      n->var = v;
      n->attr = a;
      n->offset = orig.attrs[size_t(a)].offset;
      col_names.push_back(orig.attrs[size_t(a)].name);
      cols.push_back(n.get());
      col_nodes.push_back(std::move(n));
    }
    std::string name = "q" + std::to_string(stmt_no_) + "_d" + std::to_string(++ndetach_);
    Plan plan = make_plan(lv, v, mine, cols, col_names, name);
    Relation* src = vs.rel;
    AccessSpec acc = choose_access(plan, src, src->key_attr());
    note_access(q_.vars[size_t(v)].name + ":" + acc.text + " -> temp");
    auto temp = std::make_unique<Relation>(q_.vars[size_t(v)].name + ":" + src->name() + " (detached)",
                                           plan.out, src->page_size());
    TempSink ts(*temp);
    execute(plan, src, rel_id(vs) + "|" + plan.key, acc, params, ts, false);
    std::vector<int> map(orig.attrs.size(), -1);
    int k = 0;
    for (int a : need) map[size_t(a)] = k++;
    vs.attr_map = std::move(map);
    vs.temp = std::move(temp);
    vs.rel = vs.temp.get();
    lv.conjuncts = std::move(rest);
  }

  // 2. Tuple substitution: fewest tuples, ties to the variable named first.
  int s = -1;
  for (int v : live) {
    if (v == q_.update_var) continue;
    if (s < 0 || lv.vars[size_t(v)]->rel->ntuples() < lv.vars[size_t(s)]->rel->ntuples()) s = v;
  }
  VarState& sv = *lv.vars[size_t(s)];
  std::set<int> need;
  for (const Node* c : lv.conjuncts) attr_refs(*c, s, need);
  for (const Node* t : targets) attr_refs(*t, s, need);
  const Schema& orig = q_.vars[size_t(s)].schema;
  Level inner;
  inner.vars = lv.vars;
  inner.conjuncts = lv.conjuncts;
  inner.params = lv.params;
  sv.param_slot.assign(orig.attrs.size(), -1);
  std::vector<std::pair<uint32_t, uint32_t>> copies;  // (tuple offset, param offset), len from type
  std::vector<uint32_t> lens;
  for (int a : need) {
    const Attribute& at = orig.attrs[size_t(a)];
    sv.param_slot[size_t(a)] = int(inner.params.attrs.size());
    uint32_t off = inner.params.tuple_len;
    inner.params.attrs.push_back({q_.vars[size_t(s)].name + "." + at.name, at.type, off});
    inner.params.tuple_len += at.type.len;
    const Attribute& cur = sv.rel->schema().attrs[size_t(sv.attr_map[size_t(a)])];
    copies.emplace_back(cur.offset, off);
    lens.push_back(at.type.len);
  }
  sv.substituted = true;
  if (params.size() < inner.params.tuple_len) params.resize(inner.params.tuple_len);
  note_access(q_.vars[size_t(s)].name + ":substituted");
  // Scan the substituted variable in full-scan order; each of its tuples
  // becomes a parameter block for the rest of the query.
  std::vector<const uint8_t*> tuples;
  sv.rel->for_each([&](Tid, const uint8_t* p) { tuples.push_back(p); });
  res_.stats.rows_scanned += tuples.size();
  auto load_params = [&](const uint8_t* tp) {
    for (size_t i = 0; i < copies.size(); ++i)
      std::memcpy(params.data() + copies[i].second, tp + copies[i].first, lens[i]);
  };
  std::vector<int> rest_vars;
  for (int v : live)
    if (v != s) rest_vars.push_back(v);
  if (rest_vars.size() == 1) {
    // One variable left: the substituted query has one shape for every tuple,
    // so its plan (and access path) is built once; only parameters change.
    int v = rest_vars[0];
    Relation* rel = inner.vars[size_t(v)]->rel;
    std::string name = "q" + std::to_string(stmt_no_) + "_s" + std::to_string(depth + 1);
    Plan plan = make_plan(inner, v, inner.conjuncts, targets, names, name);
    AccessSpec acc = choose_access(plan, rel, rel->key_attr());
    note_access(q_.vars[size_t(v)].name + ":" + acc.text);
    // The cache key is built once: only the parameter block changes per tuple.
    const std::string key = rel_id(*inner.vars[size_t(v)]) + "|" + plan.key;
    bool tids = updating && v == q_.update_var;
    for (const uint8_t* tp : tuples) {
      load_params(tp);
      execute(plan, rel, key, acc, params, out, tids);
    }
  } else {
    // Inner levels detach into temporaries of their own: give them fresh
    // variable states per substituted tuple so this level's stay intact.
    for (const uint8_t* tp : tuples) {
      load_params(tp);
      std::vector<std::unique_ptr<VarState>> fresh;
      Level lv2;
      lv2.conjuncts = inner.conjuncts;
      lv2.params = inner.params;
      for (VarState* x : inner.vars) {
        auto c = std::make_unique<VarState>();
        c->rel = x->rel;
        c->attr_map = x->attr_map;
        c->substituted = x->substituted;
        c->param_slot = x->param_slot;
        lv2.vars.push_back(c.get());
        fresh.push_back(std::move(c));
      }
      run_level(lv2, params, out, depth + 1);
    }
  }
  sv.substituted = false;
}

void Exec::run_statement(Sink& out) {
  std::vector<std::unique_ptr<VarState>> states;
  Level lv;
  for (const auto& bv : q_.vars) {
    auto vs = std::make_unique<VarState>();
    vs->rel = cat_.find(bv.relation);
    if (!vs->rel) throw_error(ErrKind::Name, q_.pos, src_, "relation " + bv.relation + " no longer exists");
    vs->attr_map.resize(bv.schema.attrs.size());
    for (size_t i = 0; i < vs->attr_map.size(); ++i) vs->attr_map[i] = int(i);
    lv.vars.push_back(vs.get());
    states.push_back(std::move(vs));
  }
  flatten_and(q_.qual.get(), lv.conjuncts);
  std::vector<uint8_t> params;
  run_level(lv, params, out, 0);
}

void Exec::cancelled() const {
  Error e;
  e.kind = ErrKind::Runtime;
  e.code = QK_ERR_CANCELLED;
  e.message = qk_err_message(QK_ERR_CANCELLED);
  e.pos = q_.pos;
  e.src = src_;
  throw RuntimeFailure{std::move(e)};
}

uint64_t Exec::qualified_before(Prepared& prep, const uint8_t* pg, uint32_t page_size, int64_t slot, uint8_t* rows,
                                const qk_ctx& ctx) {
  if (slot <= 0) return 0;
  // The same page cut short before the failing line: every tuple on it
  // evaluated without an error the first time, so it does again.
  std::vector<uint8_t> cut(pg, pg + page_size);
  store<uint16_t>(cut.data() + kPageOffNLines, uint16_t(std::min<int64_t>(slot, page_nlines(pg))));
  qk_ctx c = ctx;
  c.err_code = 0;
  c.err_pos = 0;
  c.err_slot = 0;
  int64_t n = prep.run_page(cut.data(), rows, &c);
  return n > 0 ? uint64_t(n) : 0;
}

class ResultSink : public Sink {
 public:
  // `replaced` (replace only): the updated relation, whose tuples must each
  // get one set of new values however many combinations qualify them.
  ResultSink(Result& r, const Relation* replaced, SrcPos pos, const SourceRef& src)
      : r_(r), replaced_(replaced), pos_(pos), src_(src) {}
  uint8_t* room(size_t min_rows, size_t* room) override { return at_ = r_.rows.room(min_rows, room); }
  void wrote(size_t n, const Tid* tids) override {
    if (tids) {
      reserve_charged(r_.tids, r_.tids.size() + n, r_.tids_charge, "the result");
      if (replaced_) check_replace(at_, n, tids);
      r_.tids.insert(r_.tids.end(), tids, tids + n);
    }
    r_.rows.commit(n);
  }

 private:
  // A tuple seen again must get the same values (bit for bit) as the first time.
  void check_replace(const uint8_t* data, size_t n, const Tid* tids) {
    const uint32_t len = r_.layout.tuple_len;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t key = uint64_t(tids[i].page) << 16 | tids[i].line;
      const size_t row = r_.tids.size() + i;
      auto [it, fresh] = first_.emplace(key, row);
      if (fresh) continue;
      const uint8_t* before = it->second < r_.tids.size() ? r_.rows.row(it->second)
                                                          : data + (it->second - r_.tids.size()) * len;
      if (std::memcmp(before, data + i * len, len) == 0) continue;
      int64_t ordinal = 0, at = -1;
      replaced_->for_each([&](Tid t, const uint8_t*) {
        ++ordinal;
        if (t == tids[i] && at < 0) at = ordinal;
      });
      Error e;
      e.kind = ErrKind::Runtime;
      e.code = QK_ERR_AMBIGUOUS_REPLACE;
      e.message = std::string(qk_err_message(QK_ERR_AMBIGUOUS_REPLACE)) +
                  ": the qualification gives one tuple two different new values";
      e.pos = pos_;
      e.src = src_;
      e.relation = replaced_->name();
      e.tuple = at;
      throw RuntimeFailure{std::move(e)};
    }
  }

  Result& r_;
  const Relation* replaced_;
  SrcPos pos_;
  SourceRef src_;
  uint8_t* at_ = nullptr;  // the last room given
  std::unordered_map<uint64_t, size_t> first_;  // tid -> its first row
};

// --sink count: rows of no columns, counted. Room is endless and the rows
// take no bytes, so the scan hands them over once, at its end.
class CountSink : public Sink {
 public:
  uint8_t* room(size_t, size_t* room) override {
    *room = size_t(1) << 40;
    return &none_;
  }
  void wrote(size_t n, const Tid*) override { count += n; }
  uint64_t count = 0;

 private:
  uint8_t none_ = 0;
};

// The result in its order: sort by's keys first, then (unique) every column,
// so equal rows are adjacent and the first of them, in execution order (the
// sort is stable), is kept: QUEL's equality, as sort by compares. The sorted
// rows are the statement's result, written once more in their order.
void order_rows(ResultRows& rows, const Schema& s, const std::vector<frontend::SortKey>& keys, bool unique) {
  const uint32_t len = s.tuple_len;
  if (len == 0) return;
  std::vector<const uint8_t*> at;
  at.reserve(rows.size());
  rows.for_each_run([&](const uint8_t* run, size_t n) {
    for (size_t i = 0; i < n; ++i) at.push_back(run + i * len);
  });
  std::vector<std::pair<int, bool>> order;
  for (const auto& k : keys) order.emplace_back(k.target, k.descending);
  if (unique)
    for (size_t c = 0; c < s.attrs.size(); ++c) order.emplace_back(int(c), false);
  auto less = [&](const uint8_t* x, const uint8_t* y) {
    for (auto [c, desc] : order) {
      int r = compare_value(s.attrs[size_t(c)], x, y);
      if (r) return desc ? r > 0 : r < 0;
    }
    return false;
  };
  std::stable_sort(at.begin(), at.end(), less);
  ResultRows out(len);
  for (size_t i = 0; i < at.size(); ++i) {
    if (unique && i > 0 && !less(at[i - 1], at[i])) continue;  // sorted: not less means equal
    out.append(at[i], 1);
  }
  rows = std::move(out);
}

}  // namespace

Result Engine::evaluate(const frontend::BoundQuery& q, Runner& runner, bool keep_rows) {
  Result res;
  std::vector<std::pair<std::string, Type>> cols;
  for (const auto& t : q.targets) cols.emplace_back(t.name, t.expr->type);
  res.layout = Schema::packed(cols);
  res.rows = ResultRows(res.layout.tuple_len);
  const bool retrieve = q.kind == frontend::BoundKind::Retrieve;
  const bool count = runner.options().count_sink && retrieve && q.into.empty();
  const Relation* replaced =
      q.kind == frontend::BoundKind::Replace ? cat_.find(q.vars[size_t(q.update_var)].relation) : nullptr;
  ResultSink rows(res, replaced, q.pos, src_);
  CountSink counted;
  Sink& sink = count ? static_cast<Sink&>(counted) : rows;
  Exec ex(cat_, runner, q, src_, stmt_no_, res, count);
  // On the clock: scan, qualification, projection of every qualifying row
  // into the result, and sort by / unique (the statement's work). Off it:
  // the checksum over the stored rows (verify_ns).
  uint64_t t0 = now_ns();
  auto failed = [&](Error e) {
    res.ok = false;
    res.error = std::move(e);
    // A failed statement outputs nothing: its counts are where it stopped.
    res.rows.clear();
    std::vector<Tid>().swap(res.tids);
    res.tids_charge.reset();
  };
  try {
    ex.run_statement(sink);
    if (retrieve && !count && (q.unique || !q.sort.empty())) order_rows(res.rows, res.layout, q.sort, q.unique);
  } catch (RuntimeFailure& f) {
    failed(std::move(f.err));
  } catch (QuelError& e) {
    // Cancellation and the memory budget, raised outside the scan's own checks.
    if (e.err.kind != ErrKind::Runtime) throw;
    if (!e.err.src) e.err.src = src_;
    if (!e.err.pos.line) e.err.pos = q.pos;
    failed(std::move(e.err));
  }
  uint64_t total = now_ns() - t0;
  res.stats.run_ns = total > res.stats.prepare_ns ? total - res.stats.prepare_ns : 0;

  uint64_t v0 = now_ns();
  res.rows.for_each_run([&](const uint8_t* run, size_t n) { res.checksum.add_rows(res.layout, run, n); });
  res.stats.verify_ns = now_ns() - v0;
  if (count && res.ok) res.checksum.rows = counted.count;  // no rows, no sum: checksum 0
  res.keep_rows = keep_rows;
  if (!keep_rows) res.rows.clear();  // the chunks go back to the pool for the next run
  res.stats.access_path = ex.access_path();
  res.stats.rows_out = res.checksum.rows;
  res.stats.checksum = res.checksum.sum;
  return res;
}

}  // namespace quelkit::harness
