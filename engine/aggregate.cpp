// QUEL aggregates on one runner (aggregate.h). The back end evaluates each
// aggregate's argument and qualification through an ordinary retrieve whose
// rows are accumulated, by its own kernel where it accumulates, else by the
// harness; both call the runtime's accumulation (runtime/accumulate.h),
// written once, so every back end and mode gives the same values and raises
// the same errors at the same positions.
#include "engine/aggregate.h"

#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "frontend/frontend.h"
#include "storage/budget.h"
#include "engine/measure.h"
#include "storage/page.h"
#include "runtime/runtime_inline.h"
#include "engine/rows.h"
#include "runtime/runtime.h"
#include "engine/session.h"

namespace quelkit::harness {

using frontend::ast::Expr;
using frontend::ast::ExprPtr;
using frontend::ast::Stmt;

namespace {

bool holds_aggregate(const Expr& e) {
  if (e.kind == Expr::Aggregate) return true;
  for (const auto& a : e.args)
    if (holds_aggregate(*a)) return true;
  return false;
}

}  // namespace

frontend::ast::StmtPtr clone_statement(const Stmt& s) {
  auto c = std::make_unique<Stmt>();
  c->kind = s.kind;
  c->pos = s.pos;
  c->parse_ns = s.parse_ns;
  c->begin = s.begin;
  c->end = s.end;
  c->var = s.var;
  c->var_pos = s.var_pos;
  c->relation = s.relation;
  c->relation_pos = s.relation_pos;
  c->relations = s.relations;
  c->relation_positions = s.relation_positions;
  c->unique = s.unique;
  for (const auto& t : s.targets) {
    frontend::ast::Target n;
    n.name = t.name;
    n.pos = t.pos;
    n.all = t.all;
    n.what = t.what;
    if (t.expr) n.expr = frontend::clone(*t.expr);
    c->targets.push_back(std::move(n));
  }
  if (s.where) c->where = frontend::clone(*s.where);
  c->sort = s.sort;
  c->columns = s.columns;
  c->copy_into = s.copy_into;
  c->file = s.file;
  c->file_pos = s.file_pos;
  c->structure = s.structure;
  c->key = s.key;
  c->key_pos = s.key_pos;
  c->fillfactor = s.fillfactor;
  return c;
}

namespace {

// A value as `=` tells values apart, appended to `key` in bytes: integers by
// value (8 bytes), floats with -0.0 equal to 0.0 (8 bytes), characters
// without any blank (rt::append_char_key: their length, then the bytes), so keys of several
// attributes concatenate unambiguously. Groups and the unique variants are
// formed by it, so a group is what the join back on `=` finds. Read straight
// from the row: no ir::Value (and its string) per row.
void append_equality_key(const Attribute& a, const uint8_t* row, std::string* key) {
  const uint8_t* p = row + a.offset;
  auto put = [key](const void* b, size_t n) { key->append(static_cast<const char*>(b), n); };
  switch (a.type.kind) {
    case Tk::I1: case Tk::I2: case Tk::I4: case Tk::B: {
      const int64_t i = int_value(a, row);
      put(&i, sizeof i);
      break;
    }
    case Tk::F4: case Tk::F8: {
      double d = a.type.kind == Tk::F4 ? double(load<float>(p)) : load<double>(p);
      if (d == 0) d = 0;  // -0.0 and 0.0 are one value
      put(&d, sizeof d);
      break;
    }
    case Tk::C: rt::append_char_key(key, p, a.type.len); break;
  }
}

// The runtime's column kinds are Tk's (runtime/accumulate.h).
static_assert(int(Tk::I1) == QK_COL_I1 && int(Tk::I2) == QK_COL_I2 && int(Tk::I4) == QK_COL_I4 &&
                  int(Tk::F4) == QK_COL_F4 && int(Tk::F8) == QK_COL_F8 && int(Tk::C) == QK_COL_C &&
                  int(Tk::B) == QK_COL_B,
              "qk_col_kind follows frontend/types.def");

qk_col column_of(const Attribute& a) {
  qk_col c{};
  c.kind = uint8_t(a.type.kind);
  c.offset = a.offset;
  c.len = a.type.len;
  return c;
}

// An aggregate's function and argument as the runtime accumulates them, named
// once from the statement's text (countu sumu avgu: the u variants).
qk_agg agg_proto(const std::string& f, const Attribute& arg) {
  qk_agg g{};
  g.is_unique = f.back() == 'u';
  const std::string base = g.is_unique ? f.substr(0, f.size() - 1) : f;
  g.fn = base == "count" ? QK_AGG_COUNT : base == "sum" ? QK_AGG_SUM : base == "avg" ? QK_AGG_AVG
       : base == "min" ? QK_AGG_MIN : base == "max" ? QK_AGG_MAX : QK_AGG_ANY;
  g.int_sum = g.fn == QK_AGG_SUM && arg.type.is_int();
  g.arg = column_of(arg);
  return g;
}

// The value's type: count, countu and any i4; integer sums i4, float sums
// and every avg f8; min and max the argument's type.
Type agg_type(const qk_agg& g, Type arg) {
  switch (g.fn) {
    case QK_AGG_COUNT: case QK_AGG_ANY: return Type::i4();
    case QK_AGG_SUM: return g.int_sum ? Type::i4() : Type::f8();
    case QK_AGG_AVG: return Type::f8();
    default: return arg;
  }
}

// The value; over no rows every aggregate is 0 (min and max of characters: blanks).
ir::Value agg_value(const qk_agg& g, Type arg) {
  ir::Value v;
  switch (g.fn) {
    case QK_AGG_COUNT: v.i = g.count; break;
    case QK_AGG_ANY: v.i = g.count > 0; break;
    case QK_AGG_SUM:
      if (g.int_sum) v.i = g.isum;
      else v.f8 = g.fsum;
      break;
    case QK_AGG_AVG: v.f8 = g.count ? g.fsum / double(g.count) : 0.0; break;
    default:  // min, max
      if (!g.has_best) {
        if (arg.is_char()) v.s.assign(arg.len, ' ');
      } else if (arg.is_char()) {
        v.s.assign(reinterpret_cast<const char*>(g.best_c), arg.len);
      } else if (arg.kind == Tk::F4) {
        v.f4 = float(g.best_f);
      } else if (arg.kind == Tk::F8) {
        v.f8 = g.best_f;
      } else {
        v.i = g.best_i;
      }
      break;
  }
  return v;
}

struct Stop {};  // an inner query failed: unwind the rewrite, keep failed_

}  // namespace

bool has_aggregates(const Stmt& s) {
  for (const auto& t : s.targets)
    if (t.expr && holds_aggregate(*t.expr)) return true;
  return s.where && holds_aggregate(*s.where);
}

namespace {

// INGRES's by-list rule (DESIGN.md "Aggregates"): once every aggregate is
// replaced, each aggregate function's by values in the outer query are
// replaced by its temporary's, if that leaves no reference to their
// variables; the variable is then gone and the query ranges over the groups.
// University INGRES's decomp did it so (opt_bylist), on the query tree
// before decomposition; here on the parse tree before binding.

// One node's own fields, its operands aside (floats by their bits).
bool same_node(const Expr& a, const Expr& b) {
  switch (a.kind) {
    case Expr::Int: return a.ival == b.ival;
    case Expr::Float: return std::memcmp(&a.fval, &b.fval, sizeof a.fval) == 0;
    case Expr::String:
    case Expr::Call: return a.text == b.text;
    case Expr::Attr: return a.text == b.text && a.attr == b.attr;
    case Expr::Unary:
    case Expr::Binary: return a.op == b.op;
    case Expr::Value:
      return a.value_type == b.value_type && a.ival == b.ival && std::memcmp(&a.fval, &b.fval, sizeof a.fval) == 0 &&
             a.text == b.text;
    case Expr::Aggregate: return false;  // none is left when the rule applies
  }
  return false;
}

// Whole expressions compared as written (INGRES compared trees): `p.pnum /
// 100` is the by value `p.pnum / 100`, `p.pnum / 10 / 10` is not, nor is 1 1.0.
bool same_expr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.args.size() != b.args.size() || !same_node(a, b)) return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!same_expr(*a.args[i], *b.args[i])) return false;
  return true;
}

// One aggregate function: its temporary and its by values as written
// (copies: the replacement rewrites the joins they are read from).
struct ByList {
  std::string temp;
  std::vector<ExprPtr> by;
};

// What one walk of the outer query found: each place holding a by value
// (with its by-list position), the variables inside those places, and the
// variables referenced anywhere else.
struct ByHits {
  std::vector<std::pair<ExprPtr*, size_t>> at;
  std::unordered_set<std::string> replaced, kept;
};

void add_variables(const Expr& e, std::unordered_set<std::string>* vars) {
  if (e.kind == Expr::Attr) vars->insert(e.text);
  for (const auto& a : e.args) add_variables(*a, vars);
}

// A subtree equal to a by value is a place to replace, not looked into;
// any other attribute keeps its variable.
void find_by_values(ExprPtr& e, const ByList& list, ByHits* hits) {
  for (size_t i = 0; i < list.by.size(); ++i)
    if (same_expr(*e, *list.by[i])) {
      hits->at.emplace_back(&e, i);
      add_variables(*e, &hits->replaced);
      return;
    }
  if (e->kind == Expr::Attr) hits->kept.insert(e->text);
  for (auto& a : e->args) find_by_values(a, list, hits);
}

// The rule on `s` and its join conjuncts `joins` (`temp.b<i> = by_i`, not
// yet in its qualification), one aggregate function after another in text
// order; a join the replacement made `temp.b = temp.b` is dropped. With two
// functions of different by lists each one's joins keep the other's
// variable, so neither applies: one row per tuple.
void range_over_groups(Stmt& s, std::vector<ExprPtr>* joins) {
  std::vector<ByList> lists;
  for (const auto& j : *joins) {
    const std::string& temp = j->args[0]->text;
    if (lists.empty() || lists.back().temp != temp) lists.push_back({temp, {}});
    lists.back().by.push_back(frontend::clone(*j->args[1]));
  }
  for (const ByList& list : lists) {
    ByHits hits;
    // replace and delete name their variable's tuples (INGRES's tid
    // target): it stays, whatever else the statement says.
    if (s.kind == Stmt::Replace || s.kind == Stmt::Delete) hits.kept.insert(s.var);
    for (auto& t : s.targets)
      if (t.expr) find_by_values(t.expr, list, &hits);
    if (s.where) find_by_values(s.where, list, &hits);
    for (auto& j : *joins) find_by_values(j, list, &hits);
    bool gone = !hits.replaced.empty();
    for (const auto& v : hits.replaced) gone = gone && !hits.kept.count(v);
    if (!gone) continue;
    for (auto& [at, i] : hits.at) {
      auto a = std::make_unique<Expr>();
      a->kind = Expr::Attr;
      a->pos = (*at)->pos;
      a->text = list.temp;
      a->attr = "b" + std::to_string(i + 1);
      *at = std::move(a);
    }
    for (size_t j = 0; j < joins->size();) {
      const Expr& eq = *(*joins)[j];
      if (same_expr(*eq.args[0], *eq.args[1]))
        joins->erase(joins->begin() + long(j));
      else
        ++j;
    }
  }
}

}  // namespace

AggregateScope::AggregateScope(Session& session, Runner& runner, const Stmt& s, const SourceRef& src)
    : session_(session), runner_(runner), src_(src), stmt_(clone_statement(s)) {
  std::vector<ExprPtr> joins;
  try {
    find_shared();
    // In text order: the target list, then the qualification.
    for (auto& t : stmt_->targets)
      if (t.expr) rewrite(t.expr, &joins);
    if (stmt_->where) rewrite(stmt_->where, &joins);
  } catch (Stop&) {
    return;
  } catch (...) {
    drop_temporaries();
    throw;
  }
  range_over_groups(*stmt_, &joins);
  try {
    hash_joined(joins);
  } catch (...) {
    drop_temporaries();
    throw;
  }
  for (auto& j : joins) {
    if (!stmt_->where) {
      stmt_->where = std::move(j);
      continue;
    }
    auto a = std::make_unique<Expr>();
    a->kind = Expr::Binary;
    a->op = "and";
    a->pos = j->pos;
    a->args.push_back(std::move(stmt_->where));
    a->args.push_back(std::move(j));
    stmt_->where = std::move(a);
  }
}

// The temporaries the statement still joins to (`temp.b<i> = by_i`) hashed
// on the key compute_function chose, so that each tuple substituted into the
// join finds its group by a hash lookup (decompose.cpp).
void AggregateScope::hash_joined(const std::vector<ExprPtr>& joins) {
  const uint64_t t0 = phase_ns();
  for (const auto& [temp, key_attr] : unhashed_) {
    bool joined = false;
    for (const auto& j : joins) joined = joined || j->args[0]->text == temp;
    if (joined) session_.catalog().find(temp)->modify(Structure::Hash, key_attr, 0);
  }
  unhashed_.clear();
  stats_.run_ns += phase_ns() - t0;
}

AggregateScope::~AggregateScope() { drop_temporaries(); }

void AggregateScope::drop_temporaries() {
  for (const auto& t : temps_) {
    session_.catalog().remove(t);
    auto& vars = session_.ranges().vars;
    for (size_t i = 0; i < vars.size(); ++i)
      if (vars[i].first == t) {
        vars.erase(vars.begin() + long(i));
        break;
      }
  }
  temps_.clear();
}

void AggregateScope::rewrite(ExprPtr& e, std::vector<ExprPtr>* joins) {
  if (e->kind == Expr::Aggregate) {
    for (const auto& [agg, at] : member_of_)
      if (agg == e.get()) {
        auto [sh, k] = at;
        e = e->by.empty() ? shared_simple(*sh, k) : shared_function(*sh, k, joins);
        return;
      }
    e = e->by.empty() ? simple(*e) : function(*e, joins);
    return;
  }
  for (auto& a : e->args) rewrite(a, joins);
}

namespace {

// The statement's aggregates as rewrite() meets them: in text order, an
// aggregate's own operands not looked into.
void collect_aggregates(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == Expr::Aggregate) {
    out->push_back(&e);
    return;
  }
  for (const auto& a : e.args) collect_aggregates(*a, out);
}

bool same_scan(const Expr& a, const Expr& b) {
  if (a.by.size() != b.by.size() || bool(a.qual) != bool(b.qual)) return false;
  for (size_t i = 0; i < a.by.size(); ++i)
    if (!same_expr(*a.by[i], *b.by[i])) return false;
  return !a.qual || same_expr(*a.qual, *b.qual);
}

}  // namespace

// INGRES computed the aggregates of one by list and qualification together;
// so does this, for those whose argument cannot raise: their scan then
// raises only the shared by list's and qualification's errors, at the tuple
// the first of them would, and each one's accumulation errors are raised
// when it is reached. One that does not bind, or whose argument can raise,
// keeps a scan of its own (its errors stay in their place in text order).
void AggregateScope::find_shared() {
  std::vector<const Expr*> all;
  for (const auto& t : stmt_->targets)
    if (t.expr) collect_aggregates(*t.expr, &all);
  if (stmt_->where) collect_aggregates(*stmt_->where, &all);
  if (all.size() < 2) return;
  std::vector<std::unique_ptr<Shared>> found;
  for (const Expr* a : all) {
    try {
      frontend::BoundQuery bq = bind_inner({a}, true, true);
      if (ir::may_raise(*bq.targets.back().expr)) continue;
    } catch (QuelError&) {
      continue;  // its bind error is raised where it is reached
    }
    Shared* into = nullptr;
    for (auto& sh : found)
      if (same_scan(*sh->members[0], *a)) into = sh.get();
    if (!into) {
      found.push_back(std::make_unique<Shared>());
      into = found.back().get();
    }
    into->members.push_back(a);
  }
  for (auto& sh : found) {
    if (sh->members.size() < 2) continue;
    for (size_t k = 0; k < sh->members.size(); ++k) member_of_.push_back({sh->members[k], {sh.get(), k}});
    shared_.push_back(std::move(sh));
  }
}

// sum and avg take numbers: checked on the bound argument, before anything runs.
static void check_argument(const Expr& agg, Type arg, const SourceRef& src) {
  bool numeric = agg.text.rfind("sum", 0) == 0 || agg.text.rfind("avg", 0) == 0;
  if (numeric && !arg.is_numeric())
    throw_error(ErrKind::Type, agg.pos, src, agg.text + " needs a numeric argument, not " + type_name(arg));
}

// `retrieve ([b1 = by1, ...] [value = arg]) [where qual]` on this runner,
// its rows accumulated into a new block *acc (the by values its first
// columns, the argument after them): by the back end's accumulating kernel
// where it has one (Backend::accumulates), else by the harness as the rows
// arrive. None is kept.
frontend::BoundQuery AggregateScope::bind_inner(const Aggs& aggs, bool with_arg, bool with_qual) {
  const Expr& agg = *aggs[0];
  Stmt q;
  q.kind = Stmt::Retrieve;
  q.pos = agg.pos;
  for (size_t i = 0; i < agg.by.size(); ++i) {
    frontend::ast::Target t;
    t.name = "b" + std::to_string(i + 1);
    t.what = "by value " + std::to_string(i + 1) + " of " + agg.text;
    t.expr = frontend::clone(*agg.by[i]);
    t.pos = agg.by[i]->pos;
    q.targets.push_back(std::move(t));
  }
  for (size_t k = 0; with_arg && k < aggs.size(); ++k) {
    frontend::ast::Target t;
    t.name = k ? "value" + std::to_string(k + 1) : "value";
    t.what = "the argument of " + aggs[k]->text;
    t.expr = frontend::clone(*aggs[k]->args[0]);
    t.pos = aggs[k]->args[0]->pos;
    q.targets.push_back(std::move(t));
  }
  if (with_qual && agg.qual) q.where = frontend::clone(*agg.qual);
  frontend::BoundQuery bq = frontend::bind(q, session_.ranges(), session_.catalog(), src_);
  for (size_t k = 0; with_arg && k < aggs.size(); ++k)
    check_argument(*aggs[k], bq.targets[agg.by.size() + k].expr->type, src_);
  return bq;
}

Result AggregateScope::inner(const Aggs& aggs, bool with_arg, bool with_qual, AccumBlock* acc) {
  return inner(aggs, bind_inner(aggs, with_arg, with_qual), with_arg, acc);
}

Result AggregateScope::inner(const Aggs& aggs, frontend::BoundQuery bq, bool with_arg, AccumBlock* acc) {
  const Expr& agg = *aggs[0];
  std::string texts = agg.text;
  for (size_t k = 1; k < aggs.size(); ++k) texts += ", " + aggs[k]->text;
  // Its rows go into the aggregate, as a retrieve into a relation's do: so
  // they are projected even under --sink count, which counts only the rows
  // of a retrieve that shows them.
  bq.into = "aggregate";
  // Over the memory budget, the rows that did not fit are the aggregate's,
  // not the statement's one-row result: named so.
  bq.rows_what = "the rows aggregated by " + texts;
  // Its plans are q<statement>_a<k>, told apart from each other's and the
  // statement's in --dump and profiles (all were q<statement>); its ir is
  // dumped before it runs, on the first runner (its back-end forms follow).
  bq.plan_name = "q" + std::to_string(session_.statement_number()) + "_a" + std::to_string(++inner_queries_);
  if (&runner_ == session_.runners().front().get()) session_.dump_ir(bq, bq.plan_name);
  // The rows' layout, as the engine packs the result (Engine::evaluate).
  std::vector<std::pair<std::string, Type>> cols;
  for (const auto& t : bq.targets) cols.emplace_back(t.name, t.expr->type);
  const Schema layout = Schema::packed(cols);
  const size_t nby = agg.by.size();
  std::vector<qk_col> by;
  for (size_t i = 0; i < nby; ++i) by.push_back(column_of(layout.attrs[i]));
  std::vector<qk_agg> protos;
  for (size_t k = 0; with_arg && k < aggs.size(); ++k) protos.push_back(agg_proto(aggs[k]->text, layout.attrs[nby + k]));
  // The group table may take what the budget has left (accumulate.h's
  // room); past it, the statement's memory error (function()).
  const MemoryBudget& budget = memory_budget();
  const uint64_t room = budget.limit() > budget.used() ? budget.limit() - budget.used() : 0;
  acc->reset(qk_accum_new(uint32_t(protos.size()), protos.data(), uint32_t(nby), by.data(), layout.tuple_len, room));
  // Nobody sees them but the accumulation, so no checksum is taken of them.
  Result r = session_.evaluate(bq, runner_, src_, false, false, acc->get());
  r.stats.accumulated = bq.plan_name + " " + texts + ": " + r.stats.accumulated;
  stats_.add_scan(r.stats);
  stats_.run_ns += r.stats.run_ns;
  stats_.access_path = join_access_paths(stats_.access_path, r.stats.access_path);
  stats_.selection = join_selections(stats_.selection, r.stats.selection);
  if (!r.ok) {
    failed_ = std::move(r);
    failed_.stats = ExecStats{};  // counted in stats_, which the statement's report adds
    throw Stop{};
  }
  return r;
}

[[noreturn]] static void raise(Result& failed, int32_t code, const Expr& agg, const SourceRef& src) {
  failed.ok = false;
  failed.error.kind = ErrKind::Runtime;
  failed.error.code = code;
  failed.error.message = std::string(qk_err_message(code)) + " in " + agg.text;
  failed.error.pos = agg.pos;
  failed.error.src = src;
  throw Stop{};
}

ExprPtr AggregateScope::simple(const Expr& agg) {
  Shared own;
  own.members = {&agg};
  return shared_simple(own, 0);
}

ExprPtr AggregateScope::shared_simple(Shared& sh, size_t k) {
  if (!sh.done) {
    Result r = inner(sh.members, true, true, &sh.acc);
    for (size_t j = 0; j < sh.members.size(); ++j) sh.arg_types.push_back(r.layout.attrs[j].type);
    sh.done = true;
  }
  const Expr& agg = *sh.members[k];
  const qk_agg& g = sh.acc->aggs[k];
  if (g.err) raise(failed_, g.err, agg, src_);
  const Type arg = sh.arg_types[k];
  const Type t = agg_type(g, arg);
  const ir::Value v = agg_value(g, arg);
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Value;
  e->pos = agg.pos;
  e->value_type = t;
  if (t.is_int()) e->ival = v.i;
  else if (t.kind == Tk::F4) e->fval = double(v.f4);
  else if (t.kind == Tk::F8) e->fval = v.f8;
  else e->text = v.s;
  return e;
}

ExprPtr AggregateScope::function(const Expr& agg, std::vector<ExprPtr>* joins) {
  Shared own;
  own.members = {&agg};
  return shared_function(own, 0, joins);
}

ExprPtr AggregateScope::shared_function(Shared& sh, size_t k, std::vector<ExprPtr>* joins) {
  if (!sh.done) {
    compute_function(sh, bind_inner(sh.members, true, true), joins);
    sh.done = true;
  }
  const Expr& agg = *sh.members[k];
  // The first member's errors were raised before its temporary was made.
  for (uint64_t i = 0; k && i < qk_group_count(sh.acc.get()); ++i)
    if (int32_t code = qk_group_aggs(sh.acc.get(), i)[k].err) raise(failed_, code, agg, src_);
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Attr;
  e->pos = agg.pos;
  e->text = sh.temp;
  e->attr = k ? "value" + std::to_string(k + 1) : "value";
  return e;
}

void AggregateScope::compute_function(Shared& sh, frontend::BoundQuery valued_q, std::vector<ExprPtr>* joins) {
  const Expr& agg = *sh.members[0];
  const size_t nby = agg.by.size(), naggs = sh.members.size();
  // The groups: every by value of the whole relation, whatever the
  // aggregate's qualification keeps, in order of first appearance.
  // With no qualification the values pass meets every tuple, so its table
  // holds every group, in the same order: the groups pass is dropped where
  // the argument cannot raise (else an argument's error at an earlier tuple
  // would come before the by list's, which the groups pass raises first).
  bool one_pass = !agg.qual;
  for (size_t k = 0; k < naggs; ++k) one_pass = one_pass && !ir::may_raise(*valued_q.targets[nby + k].expr);
  AccumBlock own_groups;
  AccumBlock& vals = sh.acc;
  if (!one_pass) inner(sh.members, false, false, &own_groups);
  Result valued = inner(sh.members, std::move(valued_q), true, &vals);
  AccumBlock& groups = one_pass ? vals : own_groups;
  // Building the temporary is the statement's work: on its clock (run_ns).
  const uint64_t t0 = phase_ns();
  // The grouping tables are temporaries of the statement too, charged to the
  // memory budget (budget.h): a `by` over millions of distinct values is a
  // statement error, not an OOM kill. A table that ran out of its room
  // stopped growing; charged past the budget now, it raises that error.
  MemCharge tables;
  const std::string what = "the groups of " + agg.text;
  auto charge = [&] {
    uint64_t bytes = vals->bytes + (one_pass ? 0 : groups->bytes);
    if (groups->err || vals->err) bytes = std::max(bytes, groups->room + 1);
    tables.set(bytes, what);
  };
  charge();
  // Each group's value: its accumulators in the values' table, made there
  // (over no rows) for a group the qualification left empty.
  const uint64_t ngroups = qk_group_count(groups.get());
  std::vector<const qk_agg*> value_of(ngroups);  // each group's naggs accumulators
  for (uint64_t i = 0; i < ngroups; ++i) {
    const int64_t slot = qk_group_probe(vals.get(), qk_group_row(groups.get(), i));
    if (slot < 0) charge();  // out of room: throws
    value_of[i] = qk_group_aggs(vals.get(), uint64_t(slot));
  }
  charge();
  // The first member's errors; the others' are raised as each is reached.
  for (uint64_t i = 0; i < qk_group_count(vals.get()); ++i)
    if (int32_t code = qk_group_aggs(vals.get(), i)->err) raise(failed_, code, agg, src_);

  // The temporary relation (b1, ..., value, value2, ...), one tuple per group.
  std::vector<std::pair<std::string, Type>> cols;
  for (size_t i = 0; i < nby; ++i) cols.emplace_back("b" + std::to_string(i + 1), valued.layout.attrs[i].type);
  for (size_t k = 0; k < naggs; ++k) {
    const Attribute& arg = valued.layout.attrs[nby + k];
    sh.arg_types.push_back(arg.type);
    cols.emplace_back(k ? "value" + std::to_string(k + 1) : "value", agg_type(agg_proto(sh.members[k]->text, arg), arg.type));
  }
  Schema schema = Schema::packed(cols);
  std::string name;
  for (int n = 1;; ++n) {
    name = "aggregate#" + std::to_string(n);
    if (!session_.catalog().find(name)) break;
  }
  const uint32_t page_size = page_size_holding(session_.options().page_size, schema.tuple_len);
  if (page_size == 0)
    throw_error(ErrKind::Type, agg.pos, src_,
                "the by list's values and the aggregate's value take " + std::to_string(schema.tuple_len) +
                    " bytes, more than a page of " + std::to_string(kMaxPageSize) + " bytes holds");
  auto rel = std::make_unique<Relation>(name, schema, page_size);
  std::vector<uint8_t> tuple(schema.tuple_len);
  for (uint64_t i = 0; i < ngroups; ++i) {
    // The by values are packed as in the groups' rows: same types, same order.
    std::memcpy(tuple.data(), qk_group_row(groups.get(), i), schema.attrs[nby].offset);
    for (size_t k = 0; k < naggs; ++k)
      put_value(schema.attrs[nby + k], agg_value(value_of[i][k], sh.arg_types[k]), tuple.data());
    rel->insert(tuple.data());
  }
  // Hashed on the by value with the most distinct values (`by p.color`, or
  // `by p.qoh / 10`, an expression each substituted tuple evaluates before
  // its lookup: access_path.h): the outer query's variable is then
  // substituted and each of its tuples looks its group up (decompose.cpp),
  // where scanning the temporary once per outer tuple made a by list of n
  // groups over n tuples cost n * n.
  // With one by value there is nothing to choose: its groups are not counted.
  int key_attr = nby == 1 ? 0 : -1;
  size_t most = 0;
  std::string key;  // reused for each group's key
  for (size_t i = 0; nby > 1 && i < nby; ++i) {
    std::unordered_set<std::string> distinct;
    for (uint64_t g = 0; g < ngroups; ++g) {
      key.clear();
      append_equality_key(valued.layout.attrs[i], qk_group_row(groups.get(), g), &key);
      distinct.insert(key);
    }
    if (key_attr < 0 || distinct.size() > most) key_attr = int(i), most = distinct.size();
  }
  // Hashed once the by-list rule has decided (hash_joined): a query that
  // ranges over the groups scans the temporary and joins nothing to it.
  if (key_attr >= 0) unhashed_.emplace_back(name, key_attr);
  session_.catalog().add(std::move(rel));
  stats_.run_ns += phase_ns() - t0;
  session_.ranges().set(name, name);
  temps_.push_back(name);
  sh.temp = name;

  // Joined back on the by list: `aggregate#n.bi = by_i` for each i.
  for (size_t i = 0; i < nby; ++i) {
    auto lhs = std::make_unique<Expr>();
    lhs->kind = Expr::Attr;
    lhs->pos = agg.by[i]->pos;
    lhs->text = name;
    lhs->attr = "b" + std::to_string(i + 1);
    auto eq = std::make_unique<Expr>();
    eq->kind = Expr::Binary;
    eq->op = "=";
    eq->pos = agg.by[i]->pos;
    eq->args.push_back(std::move(lhs));
    eq->args.push_back(frontend::clone(*agg.by[i]));
    joins->push_back(std::move(eq));
  }
}

}  // namespace quelkit::harness
