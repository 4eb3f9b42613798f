// QUEL aggregates on one runner (aggregate.h). The back end evaluates each
// aggregate's argument and qualification through an ordinary retrieve; the
// accumulation below is written once, so every back end and mode gives the
// same values and raises the same errors at the same positions.
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

frontend::ast::StmtPtr clone_statement(const Stmt& s) {
  auto c = std::make_unique<Stmt>();
  c->kind = s.kind;
  c->pos = s.pos;
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

// A value as `=` tells values apart, appended to `key` in bytes: integers by
// value (8 bytes), floats with -0.0 equal to 0.0 (8 bytes), characters
// without trailing blanks (their length, then the bytes), so keys of several
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
    case Tk::C: {
      uint32_t n = a.type.len;
      while (n && p[n - 1] == ' ') --n;
      put(&n, sizeof n);
      put(p, n);
      break;
    }
  }
}

// The aggregate functions, named once from the statement's text.
enum class Fn { Count, Sum, Avg, Min, Max, Any };

// One aggregate's running state over the argument column `arg` of the rows it
// is given, in result order (so a float sum adds in the same order on every
// back end). The per-row work reads the argument from the row by its type;
// the function's name is looked at once, here.
struct Accumulator {
  Accumulator(const std::string& f, Attribute a) : arg(std::move(a)) {
    unique = f.back() == 'u';  // countu sumu avgu
    const std::string base = unique ? f.substr(0, f.size() - 1) : f;
    fn = base == "count" ? Fn::Count : base == "sum" ? Fn::Sum : base == "avg" ? Fn::Avg
       : base == "min" ? Fn::Min : base == "max" ? Fn::Max : Fn::Any;
    int_sum = fn == Fn::Sum && arg.type.is_int();
  }
  Fn fn;
  bool unique = false;   // the u variants: each distinct value once
  bool int_sum = false;  // an i4 sum (checked for overflow); other sums and avg add doubles
  Attribute arg;
  int64_t count = 0;
  int32_t isum = 0;
  double fsum = 0;
  const uint8_t* best = nullptr;  // min/max: the row holding the value so far (the rows outlive this)
  std::unordered_set<std::string> seen;  // the u variants: keys of the values already counted
  std::string key;                       // reused for each row's key

  // The argument as a number: integers widened to int64, floats to double.
  int64_t int_at(const uint8_t* row) const { return int_value(arg, row); }
  double float_at(const uint8_t* row) const {
    const uint8_t* p = row + arg.offset;
    switch (arg.type.kind) {
      case Tk::F4: return double(load<float>(p));
      case Tk::F8: return load<double>(p);
      default: return double(int_at(row));
    }
  }

  // 0, or the qk_err code the value raises (an i4 sum's overflow, a float
  // sum's infinity).
  int32_t add(const uint8_t* row) {
    if (unique) {
      key.clear();
      append_equality_key(arg, row, &key);
      if (seen.count(key)) return 0;
      seen.insert(key);
    }
    ++count;
    switch (fn) {
      case Fn::Sum:
      case Fn::Avg:
        if (int_sum) {
          if (__builtin_add_overflow(isum, int32_t(int_at(row)), &isum)) return QK_ERR_OVERFLOW;
        } else {
          fsum += float_at(row);
          if (!std::isfinite(fsum)) return QK_ERR_FLOAT_RESULT;
        }
        break;
      case Fn::Min:
      case Fn::Max: {
        if (!best) {
          best = row;
          break;
        }
        const int c = compare_value(arg, row, best);
        if (fn == Fn::Min ? c < 0 : c > 0) best = row;
        break;
      }
      case Fn::Count:
      case Fn::Any:
        break;
    }
    return 0;
  }

  // The value's type: count, countu and any i4; integer sums i4, float sums
  // and every avg f8; min and max the argument's type.
  Type type() const {
    switch (fn) {
      case Fn::Count: case Fn::Any: return Type::i4();
      case Fn::Sum: return int_sum ? Type::i4() : Type::f8();
      case Fn::Avg: return Type::f8();
      case Fn::Min: case Fn::Max: break;
    }
    return arg.type;
  }

  // The value; over no rows every aggregate is 0 (min and max of characters: blanks).
  ir::Value value() const {
    ir::Value v;
    switch (fn) {
      case Fn::Count: v.i = count; break;
      case Fn::Any: v.i = count > 0; break;
      case Fn::Sum:
        if (int_sum) v.i = isum;
        else v.f8 = fsum;
        break;
      case Fn::Avg: v.f8 = count ? fsum / double(count) : 0.0; break;
      case Fn::Min:
      case Fn::Max:
        if (best) v = get_value(arg, best);
        else if (arg.type.is_char()) v.s.assign(arg.type.len, ' ');
        break;
    }
    return v;
  }
};

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
    e = e->by.empty() ? simple(*e) : function(*e, joins);
    return;
  }
  for (auto& a : e->args) rewrite(a, joins);
}

// sum and avg take numbers: checked on the bound argument, before anything runs.
static void check_argument(const Expr& agg, Type arg, const SourceRef& src) {
  bool numeric = agg.text.rfind("sum", 0) == 0 || agg.text.rfind("avg", 0) == 0;
  if (numeric && !arg.is_numeric())
    throw_error(ErrKind::Type, agg.pos, src, agg.text + " needs a numeric argument, not " + type_name(arg));
}

// `retrieve ([b1 = by1, ...] [value = arg]) [where qual]` on this runner.
Result AggregateScope::inner(const Expr& agg, bool with_arg, bool with_qual) {
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
  if (with_arg) {
    frontend::ast::Target t;
    t.name = "value";
    t.what = "the argument of " + agg.text;
    t.expr = frontend::clone(*agg.args[0]);
    t.pos = agg.args[0]->pos;
    q.targets.push_back(std::move(t));
  }
  if (with_qual && agg.qual) q.where = frontend::clone(*agg.qual);
  frontend::BoundQuery bq = frontend::bind(q, session_.ranges(), session_.catalog(), src_);
  if (with_arg) check_argument(agg, bq.targets.back().expr->type, src_);
  // Its rows go into the aggregate, as a retrieve into a relation's do: so
  // they are projected even under --sink count, which counts only the rows
  // of a retrieve that shows them.
  bq.into = "aggregate";
  // Over the memory budget, the rows that did not fit are the aggregate's,
  // not the statement's one-row result: named so.
  bq.rows_what = "the rows aggregated by " + agg.text;
  // Its plans are q<statement>_a<k>, told apart from each other's and the
  // statement's in --dump and profiles (all were q<statement>); its ir is
  // dumped before it runs, on the first runner (its back-end forms follow).
  bq.plan_name = "q" + std::to_string(session_.statement_number()) + "_a" + std::to_string(++inner_queries_);
  if (&runner_ == session_.runners().front().get()) session_.dump_ir(bq, bq.plan_name);
  // Nobody sees them but the accumulation, so no checksum is taken of them.
  Result r = session_.evaluate(bq, runner_, src_, true, false);
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
  Result r = inner(agg, true, true);
  // The accumulation is the statement's work too: on its clock (run_ns).
  const uint64_t t0 = now_ns();
  Accumulator acc(agg.text, r.layout.attrs[0]);
  const uint32_t len = r.layout.tuple_len;
  r.rows.for_each_run([&](const uint8_t* run, size_t n) {
    for (size_t i = 0; i < n; ++i)
      if (int32_t code = acc.add(run + i * len)) raise(failed_, code, agg, src_);
  });
  stats_.run_ns += now_ns() - t0;
  const Type t = acc.type();
  const ir::Value v = acc.value();
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
  const size_t nby = agg.by.size();
  // The groups: every by value of the whole relation, whatever the
  // aggregate's qualification keeps.
  Result groups = inner(agg, false, false);
  struct Group {
    std::vector<uint8_t> row;
    Accumulator acc;
  };
  std::vector<Group> order;
  std::unordered_map<std::string, size_t> index;
  std::string key;  // reused for each row's key
  auto key_of = [&](const Schema& layout, const uint8_t* row) -> const std::string& {
    key.clear();
    for (size_t i = 0; i < nby; ++i) append_equality_key(layout.attrs[i], row, &key);
    return key;
  };
  Result vals = inner(agg, true, true);
  // Grouping and accumulating are the statement's work: on its clock (run_ns).
  const uint64_t t0 = now_ns();
  const Attribute arg = vals.layout.attrs[nby];
  const uint32_t glen = groups.layout.tuple_len;
  // The grouping tables are temporaries of the statement too: each group's
  // row copy, key and map node are charged to the memory budget (budget.h)
  // before they are made, so a `by` over millions of distinct values is a
  // statement error, not an OOM kill.
  MemCharge tables;
  const std::string what = "the groups of " + agg.text;
  uint64_t table_bytes = 0;
  groups.rows.for_each_run([&](const uint8_t* run, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const uint8_t* row = run + i * glen;
      const std::string& k = key_of(groups.layout, row);
      if (index.count(k)) continue;
      table_bytes += sizeof(Group) + glen + 2 * k.size() + 64;  // row, key (map and lookups), node
      tables.set(table_bytes, what);
      index.emplace(k, order.size());
      order.push_back({std::vector<uint8_t>(row, row + glen), Accumulator(agg.text, arg)});
    }
  });
  const uint32_t vlen = vals.layout.tuple_len;
  vals.rows.for_each_run([&](const uint8_t* run, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const uint8_t* row = run + i * vlen;
      auto it = index.find(key_of(vals.layout, row));
      if (it == index.end()) continue;  // cannot happen: the values' groups are among all groups
      if (int32_t code = order[it->second].acc.add(row)) raise(failed_, code, agg, src_);
    }
  });

  // The temporary relation (b1, ..., value), one tuple per group.
  std::vector<std::pair<std::string, Type>> cols;
  for (size_t i = 0; i < nby; ++i) cols.emplace_back("b" + std::to_string(i + 1), groups.layout.attrs[i].type);
  const Accumulator probe(agg.text, arg);
  cols.emplace_back("value", probe.type());
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
  for (const Group& g : order) {
    // The by values are packed as in the groups' rows: same types, same order.
    std::memcpy(tuple.data(), g.row.data(), schema.attrs[nby].offset);
    put_value(schema.attrs[nby], g.acc.value(), tuple.data());
    rel->insert(tuple.data());
  }
  // Hashed on the by value with the most distinct values (`by p.color`, or
  // `by p.qoh / 10`, an expression each substituted tuple evaluates before
  // its lookup: access_path.h): the outer query's variable is then
  // substituted and each of its tuples looks its group up (decompose.cpp),
  // where scanning the temporary once per outer tuple made a by list of n
  // groups over n tuples cost n * n.
  int key_attr = -1;
  size_t most = 0;
  for (size_t i = 0; i < nby; ++i) {
    std::unordered_set<std::string> distinct;
    for (const Group& g : order) {
      key.clear();
      append_equality_key(groups.layout.attrs[i], g.row.data(), &key);
      distinct.insert(key);
    }
    if (key_attr < 0 || distinct.size() > most) key_attr = int(i), most = distinct.size();
  }
  if (key_attr >= 0) rel->modify(Structure::Hash, key_attr, 0);
  session_.catalog().add(std::move(rel));
  stats_.run_ns += now_ns() - t0;
  session_.ranges().set(name, name);
  temps_.push_back(name);

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
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Attr;
  e->pos = agg.pos;
  e->text = name;
  e->attr = "value";
  return e;
}

}  // namespace quelkit::harness
