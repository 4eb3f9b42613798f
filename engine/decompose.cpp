// Decomposition of a statement into one-variable plans (engine.h, exec.h).
//
// A statement over k variables becomes one-variable plans as INGRES did it:
// each variable's own conjuncts are detached into a heap temporary first, then
// the variable whose substitution reads the fewest tuples is substituted tuple
// by tuple, its values becoming parameters of the remaining query,
// recursively: a variable another one is joined to on its hash or ISAM key
// is looked up, not scanned, per substituted tuple (keyed_join). The substituted
// query has the same shape for every tuple, so a back end that reuses plans
// prepares it once (DC-INGRES plan reuse) and only the parameter block changes;
// its literals are parameters too (plan.h, lift_literals), so a statement
// that differs only in them finds the plan prepared for the first.
#include <algorithm>
#include <cstring>

#include "frontend/frontend.h"
#include "engine/exec.h"
#include "engine/quel_statements.h"
#include "engine/measure.h"
#include "engine/sinks.h"

namespace quelkit::harness {

using ir::Node;
using ir::NodePtr;
using ir::Op;

// Collects the variable indices an expression names.
void refs(const Node& n, std::set<int>& out) {
  if (n.op == Op::ATTR) out.insert(n.var);
  for (const auto& k : n.kid)
    if (k) refs(*k, out);
}

void flatten_and(const Node* n, std::vector<const Node*>& out) {
  if (!n) return;
  if (n->op == Op::AND) {
    for (const auto& k : n->kid) flatten_and(k.get(), out);
  } else {
    out.push_back(n);
  }
}

void attr_refs(const Node& n, int var, std::set<int>& out) {
  if (n.op == Op::ATTR && n.var == var) out.insert(n.attr);
  for (const auto& k : n.kid)
    if (k) attr_refs(*k, var, out);
}

// Whether a conjunct of `lv` is `v.a = e` (either side; the attribute as
// choose_access reads a key, key_side: through integer widening, or converted
// for a mixed comparison, `float4(v.a) = s.w`) for attribute `attr` of v's
// current relation keyed in structure `st`, where e is an attribute of s or
// an expression of s and of variables already substituted (`s.a`,
// `s.a / 10`): substituting s then makes it `v.a = parameter` or an
// expression of parameters, a lookup (choose_access) were v keyed on a. e of
// the type the key compares as (bounds_key): an integer for an integer key
// in its own type, else that type. keyed_join: v is keyed so, on its key.
bool keyed_on(const Level& lv, int v, int s, int attr, Structure st) {
  const Relation* rel = lv.vars[size_t(v)]->rel;
  // Every variable e names is s or one already substituted, and s is one
  // of them (a value of the key's kind is no condition, so holds no connective).
  auto of_s = [&](const Node& e) {
    std::set<int> vars;
    refs(e, vars);
    for (int x : vars)
      if (x != s && !lv.vars[size_t(x)]->substituted) return false;
    return vars.count(s) > 0;
  };
  const std::vector<int>& map = lv.vars[size_t(v)]->attr_map;
  const Type key = rel->schema().attrs[size_t(attr)].type;
  for (const Node* c : lv.conjuncts) {
    if (ir::op_info(c->op).generic != ir::Generic::Eq || c->kid.size() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      Tk cmp = kNoTk;
      const Node* a = key_side(c->kid[size_t(side)].get(), st, key, &cmp);
      const Node* e = c->kid[size_t(1 - side)].get();
      if (!a || a->var != v || map[size_t(a->attr)] != attr) continue;
      if (bounds_key(e->type, key, cmp) && of_s(*e)) return true;
    }
  }
  return false;
}

bool keyed_join(const Level& lv, int v, int s) {
  const Relation* rel = lv.vars[size_t(v)]->rel;
  if (rel->structure() == Structure::Heap || rel->key_attr() < 0) return false;
  // A hash lookup needs every key domain; ISAM's first one starts a range.
  const size_t need = rel->structure() == Structure::Hash ? rel->key_attrs().size() : 1;
  for (size_t d = 0; d < need; ++d)
    if (!keyed_on(lv, v, s, rel->key_attrs()[d], rel->structure())) return false;
  return true;
}

namespace {
// Where the variable a replace or delete changes is the one substituted, the
// rows of each substituted execution are its substituted tuple's: their
// identifier is that tuple's, which the scan beneath cannot give.
class SubstitutedTid : public Sink {
 public:
  explicit SubstitutedTid(Sink& out) : out_(out) {}
  uint8_t* room(size_t min_rows, size_t* room) override { return out_.room(min_rows, room); }
  void wrote(size_t n, const Tid*) override {
    tids_.assign(n, tid);
    out_.wrote(n, tids_.data());
  }
  Tid tid{};

 private:
  Sink& out_;
  std::vector<Tid> tids_;
};
}  // namespace

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
  std::vector<NodePtr> kids;
  kids.reserve(n.kid.size());
  for (const auto& k : n.kid) kids.push_back(k ? rewrite(*k, lv, scan_var) : nullptr);
  return ir::copy_with_kids(n, std::move(kids));
}

Plan Exec::make_plan(const Level& lv, int scan_var, const std::vector<const Node*>& conj,
                     const std::vector<const Node*>& targets, const std::vector<std::string>& names,
                     const std::string& name) {
  Plan p;
  p.name = name;
  if (src_) p.source = src_->name();
  // Re-join the conjuncts left to right in text order, as one n-ary AND:
  // the same short-circuit order as the statement as written.
  std::vector<NodePtr> kept;
  kept.reserve(conj.size());
  for (const Node* c : conj) kept.push_back(rewrite(*c, lv, scan_var));
  if (kept.size() == 1) {
    p.qual = std::move(kept[0]);
  } else if (kept.size() > 1) {
    SrcPos pos = kept[0]->pos;
    p.qual = ir::make_nary(Op::AND, Type::b(), pos, std::move(kept));
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
  // Folded once per plan made (a statement's, a level's: never per tuple),
  // its literals then parameters, so the key is the shape alone.
  lift_literals(p);
  compute_key(p);
  return p;
}

std::set<int> Exec::needed(const Level& lv, int v, const std::vector<const Node*>& rest,
                           const std::vector<const Node*>& targets) const {
  // The temporary holds only what the rest of the query still needs of v.
  std::set<int> need;
  for (const Node* c : rest) attr_refs(*c, v, need);
  for (const Node* t : targets) attr_refs(*t, v, need);
  const VarState& vs = *lv.vars[size_t(v)];
  // v only counts: keep one column (a relation has at least one), one that
  // v's relation still has: detached already at an outer level, it holds
  // only what that level needed, which need not be the first attribute.
  // So does a relation whose needed columns are all c0 (an aggregate of
  // "" in an aggregate function's temporary): it needs a column of bytes.
  const Schema& orig = q_.vars[size_t(v)].schema;
  bool bytes = false;
  for (int a : need) bytes = bytes || orig.attrs[size_t(a)].type.len > 0;
  if (!bytes)
    for (size_t a = 0; a < vs.attr_map.size(); ++a)
      if (vs.attr_map[a] >= 0 && orig.attrs[a].type.len > 0) {
        need.insert(int(a));
        break;
      }
  return need;
}

// The relation's own key where the qualification gives it equality; else
// a secondary index's equality; else the key's range, else an index's
// range (docs/DESIGN.md, "Secondary indexes"). A temporary has no indexes.
AccessSpec Exec::access(const Plan& plan, const Relation* rel) {
  AccessSpec a = choose_access(plan, rel, rel ? rel->key_attr() : -1);
  if (!rel || a.kind == KeyBounds::Eq) return a;
  const std::string own = a.text;
  for (const Relation* idx : indexes_of(cat_, *rel)) {
    std::vector<Attribute> keys;
    for (const int d : idx->notes().index_domains) keys.push_back(rel->schema().attrs[size_t(d)]);
    AccessSpec b = choose_keyed(plan, Structure::Isam, keys, "index " + idx->name());
    if (b.kind == KeyBounds::All || (b.kind == KeyBounds::Range && a.kind != KeyBounds::All)) continue;
    b.index = idx->name();
    a = std::move(b);
    if (a.kind == KeyBounds::Eq) break;
  }
  // --dump=decomp says what the index was preferred to.
  if (!a.index.empty()) note_decision(rel->name() + ": " + a.text + " rather than " + own, false);
  return a;
}

std::string Exec::project(Level& lv, int v, const std::vector<const Node*>& mine, const std::set<int>& need,
                          std::vector<uint8_t>& params, bool reformat) {
  VarState& vs = *lv.vars[size_t(v)];
  const Schema& orig = q_.vars[size_t(v)].schema;
  std::vector<const Node*> cols;
  std::vector<NodePtr> col_nodes;
  std::vector<std::string> col_names;
  for (int a : need) {
    auto n = ir::make_node(Op::ATTR, orig.attrs[size_t(a)].type, SrcPos{});
    n->var = v;
    n->attr = a;
    n->offset = orig.attrs[size_t(a)].offset;
    col_names.push_back(orig.attrs[size_t(a)].name);
    cols.push_back(n.get());
    col_nodes.push_back(std::move(n));
  }
  const uint64_t p0 = phase_ns();
  std::string name = plan_base() + (reformat ? "_r" : "_d") + std::to_string(++ndetach_);
  Plan plan = make_plan(lv, v, mine, cols, col_names, name);
  Relation* src = vs.rel;
  AccessSpec acc = access(plan, src);
  plan.keyed_lookup = acc.kind == KeyBounds::Eq && loops_.empty();
  res_.stats.plan_ns += phase_ns() - p0;
  auto temp = std::make_unique<Relation>(
      q_.vars[size_t(v)].name + ":" + src->name() + (reformat ? " (reformatted)" : " (detached)"), plan.out,
      src->page_size());
  // The reformat step projects every tuple: its pages are taken at once,
  // not grown (and copied) a page at a time.
  if (reformat) temp->reserve_tuples(src->ntuples());
  TempSink ts(*temp);
  execute(plan, src, rel_id(vs) + "|" + plan.key, acc, params, ts, false);
  std::vector<int> map(orig.attrs.size(), -1);
  int k = 0;
  for (int a : need) map[size_t(a)] = k++;
  vs.attr_map = std::move(map);
  vs.temp = std::move(temp);
  vs.rel = vs.temp.get();
  return acc.text;
}

void Exec::run_level(Level& lv, std::vector<uint8_t>& params, Sink& out, int depth) {
  size_t nlive = 0;
  int first_live = -1;
  for (size_t v = 0; v < lv.vars.size(); ++v)
    if (!lv.vars[v]->substituted && nlive++ == 0) first_live = int(v);
  const bool updating = q_.update_var >= 0;


  std::vector<const Node*> targets;
  std::vector<std::string> names;
  for (const auto& t : q_.targets) {
    if (count_) break;  // --sink count: the final plans project nothing
    targets.push_back(t.expr.get());
    names.push_back(t.name);
  }
  // What temporaries keep for the targets: under --sink count too when the
  // reformat step may hash one, so that both sinks hash alike (its buckets
  // follow the tuple's width) and scan the same tuples.
  std::vector<const Node*> kept = targets;
  if (runner_.options().reformat && count_)
    for (const auto& t : q_.targets) kept.push_back(t.expr.get());

  if (nlive <= 1) {
    const int v = first_live;
    Relation* rel = v >= 0 ? lv.vars[size_t(v)]->rel : nullptr;
    // Making the plan, its access path and its cache key: --stats' plan_ns.
    const uint64_t p0 = phase_ns();
    std::string name = plan_base() + (depth ? "_s" + std::to_string(depth) : "");
    const bool want_tids = updating && v == q_.update_var;
    PlanMemo* memo = nullptr;
    Plan plan = make_plan(lv, v, lv.conjuncts, targets, names, name);
    if (const qk_accum* acc = out.accumulator()) note_accumulation(plan, *acc);
    AccessSpec acc = access(plan, rel);
    plan.keyed_lookup = acc.kind == KeyBounds::Eq && loops_.empty();
    std::string key = v >= 0 ? rel_id(*lv.vars[size_t(v)]) : "none";
    key += '|';
    key += plan.key;
    std::string access = (v >= 0 ? q_.vars[size_t(v)].name + ":" : "") + acc.text;
    note_access(access);
    if (depth == 0 && entry_ && !entry_->plan_tried && v == (q_.vars.empty() ? -1 : 0))
      memo = adopt_plan(*entry_, plan, acc, key, access, rel);
    res_.stats.plan_ns += phase_ns() - p0;
    if (memo) execute(memo->plan, rel, memo->key, memo->acc, params, out, want_tids);
    else execute(plan, rel, key, acc, params, out, want_tids);
    return;
  }

  std::vector<int> live;
  for (size_t v = 0; v < lv.vars.size(); ++v)
    if (!lv.vars[v]->substituted) live.push_back(int(v));

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
    note_access(q_.vars[size_t(v)].name + ":" + project(lv, v, mine, needed(lv, v, rest, kept), params, false) +
                " -> temp");
    lv.conjuncts = std::move(rest);
  }

  // 2. Tuple substitution: the variable whose substitution reads the fewest
  // tuples, an estimate: its tuples, times what each substituted execution
  // reads of every other variable, all of it, or a bucket's or primary
  // page's worth where keyed_join makes it a lookup. Ties (every estimate
  // alike where nothing is keyed) go to the fewest tuples, then to the
  // variable named first.
  auto ntuples = [&](int v) { return double(lv.vars[size_t(v)]->rel->ntuples()); };
  auto reads = [&](int s) {
    double per = 1;
    for (int v : live) {
      if (v == s) continue;
      const Relation* rel = lv.vars[size_t(v)]->rel;
      per *= keyed_join(lv, v, s) ? std::max(1.0, ntuples(v) / std::max(1u, rel->nprimary())) : ntuples(v);
    }
    return ntuples(s) * (1 + per);
  };
  int s = -1;
  double best = 0;
  for (int v : live) {
    const double r = reads(v);
    if (s < 0 || r < best || (r == best && ntuples(v) < ntuples(s))) s = v, best = r;
  }
  reformat(lv, s, live, kept, params);
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
  std::vector<Tid> tids;  // the updated variable's (its rows' identifiers)
  const bool update_var = s == q_.update_var;
  sv.rel->for_each([&](Tid t, const uint8_t* p) {
    tuples.push_back(p);
    if (update_var) tids.push_back(t);
  });
  res_.stats.rows_scanned += tuples.size();
  SubstitutedTid with_tid(out);
  Sink& into = update_var ? with_tid : out;
  auto load_params = [&](size_t i) {
    for (size_t c = 0; c < copies.size(); ++c)
      std::memcpy(params.data() + copies[c].second, tuples[i] + copies[c].first, lens[c]);
    if (update_var) with_tid.tid = tids[i];
  };
  std::vector<int> rest_vars;
  for (int v : live)
    if (v != s) rest_vars.push_back(v);
  if (rest_vars.size() == 1) {
    // One variable left: the substituted query has one shape for every tuple,
    // so its plan (and access path) is built once; only parameters change.
    int v = rest_vars[0];
    Relation* rel = inner.vars[size_t(v)]->rel;
    const uint64_t p0 = phase_ns();
    std::string name = plan_base() + "_s" + std::to_string(depth + 1);
    Plan plan = make_plan(inner, v, inner.conjuncts, targets, names, name);
    AccessSpec acc = access(plan, rel);
    note_access(q_.vars[size_t(v)].name + ":" + acc.text);
    // The cache key is built once: only the parameter block changes per tuple.
    const std::string key = rel_id(*inner.vars[size_t(v)]) + "|" + plan.key;
    res_.stats.plan_ns += phase_ns() - p0;
    bool want_tids = updating && v == q_.update_var;
    loops_.emplace_back(0, tuples.size());
    for (size_t i = 0; i < tuples.size(); ++i) {
      load_params(i);
      execute(plan, rel, key, acc, params, into, want_tids);
      ++loops_.back().first;
    }
    loops_.pop_back();
  } else {
    // Inner levels detach into temporaries of their own: give them fresh
    // variable states per substituted tuple so this level's stay intact.
    loops_.emplace_back(0, tuples.size());
    for (size_t i = 0; i < tuples.size(); ++i) {
      load_params(i);
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
      run_level(lv2, params, into, depth + 1);
      ++loops_.back().first;
    }
    loops_.pop_back();
  }
  sv.substituted = false;
}

bool Exec::run_memo(Sink& out) {
  if (!entry_ || !entry_->plan || q_.vars.size() > 1) return false;
  PlanMemo& memo = *entry_->plan;
  Relation* rel = nullptr;
  if (!q_.vars.empty()) {
    rel = cat_.find(q_.vars[0].relation);
    if (!rel) return false;  // said by run_statement's own lookup
  }
  if (memo.rel != rel || (rel && rel->version() != memo.rel_version)) return false;
  const uint64_t p0 = phase_ns();
  put_plan_base(memo.plan.name);
  if (src_ && memo.plan.source != src_->name()) memo.plan.source = src_->name();
  note_access(memo.access);
  res_.stats.plan_ns += phase_ns() - p0;
  execute(memo.plan, rel, memo.key, memo.acc, params_, out, rel && q_.update_var == 0);
  return true;
}

void Exec::run_statement(Sink& out) {
  if (run_memo(out)) return;
  // One block for the variables' states (the levels point into it: it never grows).
  std::vector<VarState> states(q_.vars.size());
  Level lv;
  lv.vars.reserve(q_.vars.size());
  for (size_t k = 0; k < q_.vars.size(); ++k) {
    const auto& bv = q_.vars[k];
    VarState& vs = states[k];
    vs.rel = cat_.find(bv.relation);
    if (!vs.rel) throw_error(ErrKind::Name, q_.pos, src_, "relation " + bv.relation + " no longer exists");
    vs.attr_map.resize(bv.schema.attrs.size());
    for (size_t i = 0; i < vs.attr_map.size(); ++i) vs.attr_map[i] = int(i);
    lv.vars.push_back(&vs);
  }
  flatten_and(q_.qual.get(), lv.conjuncts);
  run_level(lv, params_, out, 0);
}

}  // namespace quelkit::harness
