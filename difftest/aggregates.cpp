// Random aggregates (aggregates.h). The argument and the inner qualification
// come from the ordinary generator, so they cover the catalogue's operators;
// each statement is evaluated per runner as the session does (aggregates
// first, then the rewritten statement) and the results compared exactly.
#include "difftest/aggregates.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <ostream>
#include <sstream>

#include "difftest/check.h"
#include "difftest/sqlite_oracle.h"
#include "difftest/testdata.h"
#include "engine/aggregate.h"

namespace quelkit::difftest {
namespace {

const char* const kFunctions[] = {"count", "countu", "sum", "sumu", "avg", "avgu", "min", "max", "any"};

struct AggQuery {
  std::string fn;
  GVar var;
  GPtr by;         // null for a simple aggregate
  GPtr arg, qual;  // qual may be null
  // An aggregate function's outer query: `retrieve (b = by, [c = extra,] a =
  // fn(...)) [where outer]`; extra and outer may be null.
  GPtr extra, outer;
  bool unique = false;
  std::string text() const {
    std::string a = fn + "(" + quel_text(*arg);
    if (by) a += " by " + quel_text(*by);
    if (qual) a += " where " + quel_text(*qual);
    a += ")";
    if (!by) return "retrieve (a = " + a + ")";
    return std::string("retrieve ") + (unique ? "unique " : "") + "(b = " + quel_text(*by) +
           (extra ? ", c = " + quel_text(*extra) : "") + ", a = " + a + ")" +
           (outer ? " where " + quel_text(*outer) : "");
  }
};

// INGRES's by-list rule as the oracle decides it, from the generator's tree
// alone (DESIGN.md "Aggregates"): the outer query ranges over the groups
// unless it names an attribute outside every subtree written as the by
// value. Subtrees are compared by their QUEL text, which is one per tree.
bool names_outside(const GNode& n, const std::string& by) {
  if (quel_text(n) == by) return false;
  if (n.kind == GNode::Attr) return true;
  for (const auto& k : n.kids)
    if (names_outside(*k, by)) return true;
  return false;
}

// A column as `=` tells it apart: characters by INGRES's rule, without
// their blanks; numbers as they are. (Not the collation `quel` for joins:
// SQLite's automatic index on a joined CTE did not keep it.)
std::string equality_key(const std::string& x, bool chars) { return chars ? "replace(" + x + ", ' ', '')" : x; }

// SQL's aggregate over column x of the joined rows i (NULL where a group has
// none). Characters order by INGRES's rule: the oracle's collation `quel`
// (sqlite_oracle.h).
std::string sql_aggregate(const std::string& fn, bool chars) {
  if (fn == "count") return "COUNT(i.x)";
  if (fn == "countu") return "COUNT(DISTINCT " + equality_key("i.x", chars) + ")";
  if (fn == "any") return "(COUNT(i.x) > 0)";
  if (fn == "sum") return "COALESCE(SUM(i.x), 0)";
  if (fn == "sumu") return "COALESCE(SUM(DISTINCT i.x), 0)";
  if (fn == "avg") return "COALESCE(AVG(i.x), 0.0)";
  if (fn == "avgu") return "COALESCE(AVG(DISTINCT i.x), 0.0)";
  return "COALESCE(" + std::string(fn == "min" ? "MIN" : "MAX") + "(i.x COLLATE quel), " + (chars ? "''" : "0") + ")";
}

// Compares canonical rows (sorted), the last column numerically within the
// tolerance when it is a float. "" if they agree.
std::string compare_rows(const std::vector<std::string>& q, const std::vector<std::string>& s, bool float_value) {
  if (q.size() != s.size())
    return "quelkit " + std::to_string(q.size()) + " rows, sqlite " + std::to_string(s.size());
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] == s[i]) continue;
    size_t qa = q[i].rfind('\x1f'), sa = s[i].rfind('\x1f');
    std::string qh = qa == std::string::npos ? "" : q[i].substr(0, qa);
    std::string sh = sa == std::string::npos ? "" : s[i].substr(0, sa);
    std::string qv = qa == std::string::npos ? q[i] : q[i].substr(qa + 1);
    std::string sv = sa == std::string::npos ? s[i] : s[i].substr(sa + 1);
    if (float_value && qh == sh) {
      double x = std::strtod(qv.c_str(), nullptr), y = std::strtod(sv.c_str(), nullptr);
      if (std::fabs(x - y) <= kAggregateTolerance * std::max({1.0, std::fabs(x), std::fabs(y)})) continue;
    }
    return "row " + std::to_string(i) + ": quelkit '" + q[i] + "', sqlite '" + s[i] + "'";
  }
  return "";
}

// A translation's SQL with its parameters `?n` renumbered to follow `before`
// others, so several translations share one statement's parameter list
// (each numbers its own from ?1; parameters are the only `?` in its SQL).
std::string after_params(const std::string& sql, size_t before) {
  std::string out;
  for (size_t i = 0; i < sql.size(); ++i) {
    out += sql[i];
    if (sql[i] != '?') continue;
    size_t j = i + 1;
    while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) ++j;
    out += std::to_string(std::stoul(sql.substr(i + 1, j - i - 1)) + before);
    i = j - 1;
  }
  return out;
}

}  // namespace

AggregateSummary run_aggregates(Checker& ch, uint64_t seed, uint64_t count, std::ostream& log) {
  AggregateSummary sum;
  Generator gen(seed);
  Rng& rng = gen.rng();
  harness::Session& session = ch.session();
  for (uint64_t n = 0; n < count; ++n) {
    AggQuery q;
    q.fn = kFunctions[rng.below(std::size(kFunctions))];
    q.var = GVar{"v", rng.chance(50) ? "parts" : "edge", "", ""};
    q.var.relation = q.var.base;
    const GRelation* rel = TestData::find(q.var.base);
    Tk by_kind = Tk::I4;  // the by value's kind, near enough for a literal compared with it
    if (rng.chance(60)) {
      const auto& a = rel->attrs[rng.below(rel->attrs.size())];
      q.by = make_attr("v", a.first);
      by_kind = a.second.is_char() ? Tk::C : a.second.is_float() ? Tk::F8 : Tk::I4;
      // A by value that is an expression, which each tuple computes to look
      // its group up (engine/access_path.h): a numeric attribute shifted,
      // scaled or divided (groups that merge), or any expression.
      if (rng.chance(30)) {
        static const ir::Generic kOps[] = {ir::Generic::Add, ir::Generic::Mul, ir::Generic::Div, ir::Generic::Sub};
        if (a.second.is_numeric() && rng.chance(70)) {
          q.by = make_op(kOps[rng.below(std::size(kOps))], std::move(q.by), Generator::int_lit(1 + rng.below(3)));
        } else {
          by_kind = rng.chance(50) ? Tk::I4 : Tk::C;
          q.by = gen.expr(by_kind, 1, {q.var});
        }
      }
    }
    const bool numeric = q.fn.rfind("sum", 0) == 0 || q.fn.rfind("avg", 0) == 0;
    static const std::vector<Tk> kNumeric = {Tk::I4, Tk::F8, Tk::I2}, kAny = {Tk::I4, Tk::F8, Tk::C};
    q.arg = gen.expr(rng.pick(numeric ? kNumeric : kAny), 2, {q.var});
    if (rng.chance(60)) q.qual = gen.expr(Tk::B, 2, {q.var});
    q.unique = rng.chance(30);
    if (q.by) {
      // What the outer query names decides whether it ranges over the
      // groups or the tuples: another attribute (the by value itself, at
      // times), a condition on the by value alone, or any condition.
      if (rng.chance(30)) q.extra = make_attr("v", rel->attrs[rng.below(rel->attrs.size())].first);
      if (rng.chance(40)) {
        static const ir::Generic kCmp[] = {ir::Generic::Lt, ir::Generic::Ne, ir::Generic::Eq, ir::Generic::Ge};
        if (rng.chance(50))
          q.outer = make_op(kCmp[rng.below(std::size(kCmp))], q.by->clone(), gen.expr(by_kind, 1, {}));
        else
          q.outer = gen.expr(Tk::B, 2, {q.var});
      }
    }
    const std::string text = "range of v is " + q.var.relation + "\n" + q.text();
    auto src = std::make_shared<Source>("aggregate", text);

    // Each runner as the session runs it: aggregates first, then the statement.
    std::vector<harness::Result> results;
    std::vector<frontend::ast::StmtPtr> stmts;
    try {
      stmts = frontend::parse(src);
      session.ranges().set("v", q.var.relation);
      for (auto& r : session.runners()) {
        harness::AggregateScope scope(session, *r, *stmts.back(), src);
        if (!scope.ok()) {
          results.push_back(std::move(scope.failed()));
          continue;
        }
        frontend::BoundQuery bq = frontend::bind(scope.statement(), session.ranges(), session.catalog(), src);
        results.push_back(session.evaluate(bq, *r, src, true));
      }
    } catch (QuelError&) {
      continue;  // the binder rejected it (a type the generator could not know): not a statement
    }
    ++sum.statements;
    bool same = true;
    for (size_t i = 1; i < results.size() && same; ++i) {
      std::string d = harness::result_difference(results[0], results[i]);
      if (!d.empty()) {
        sum.mismatches.push_back(text + "\n  " + session.runners()[0]->label() + " vs " +
                                 session.runners()[i]->label() + ": " + d);
        log << "difftest: aggregate mismatch:\n" << sum.mismatches.back() << "\n";
        same = false;
      }
    }
    if (!same) continue;
    if (!results[0].ok) {  // i4 overflow and errors of the argument: not SQL's to judge
      ++sum.failed;
      ++sum.sqlite_skipped;
      continue;
    }

    // SQLite: the argument and qualification as the oracle translates them,
    // aggregated over the whole relation's groups and joined back.
    SqliteOracle* sql = ch.sqlite();
    if (!sql) continue;
    GQuery inner;
    inner.vars = {q.var};
    if (q.by) inner.targets.emplace_back("b", q.by->clone());
    inner.targets.emplace_back("x", q.arg->clone());
    if (q.qual) inner.where = q.qual->clone();
    GQuery groups;
    groups.vars = {q.var};
    groups.targets.emplace_back("b", q.by ? q.by->clone() : make_attr("v", rel->attrs[0].first));
    // The outer query's rows, each with its by value, before the join.
    GQuery outer;
    outer.vars = {q.var};
    outer.targets.emplace_back("b", q.by ? q.by->clone() : make_attr("v", rel->attrs[0].first));
    if (q.extra) outer.targets.emplace_back("c", q.extra->clone());
    if (q.outer) outer.where = q.outer->clone();
    std::string why;
    auto ti = sql->translate(inner, &why);
    auto tg = sql->translate(groups, &why);
    auto to = sql->translate(outer, &why);
    if (!ti || !tg || !to || ti->columns.size() != inner.targets.size() || tg->columns.size() != 1 ||
        to->columns.size() != outer.targets.size()) {
      ++sum.sqlite_skipped;
      continue;
    }
    const bool chars = results[0].layout.attrs.back().type.is_char();
    // The by value's and the extra target's: told apart by the rule when characters.
    const bool by_chars = results[0].layout.attrs[0].type.is_char();
    const bool extra_chars = q.extra && results[0].layout.attrs[1].type.is_char();
    auto key = [by_chars](const std::string& x) { return equality_key(x, by_chars); };
    SqliteOracle::Translation t;
    t.params = ti->params;
    if (!q.by) {
      t.sql = "WITH i(x) AS (" + ti->sql + ") SELECT " + sql_aggregate(q.fn, chars) + " FROM i";
      t.columns = {0};
    } else {
      // Groups of the whole relation, each with its aggregate (0 when the
      // inner qualification left it no rows), joined to the outer query's
      // rows: one row per row, or, when the by-list rule leaves no tuple
      // variable, one per group (the outer rows of a group differ in no
      // column, so DISTINCT keeps one each).
      const std::string by = quel_text(*q.by);
      const bool over_groups = !(q.extra && names_outside(*q.extra, by)) && !(q.outer && names_outside(*q.outer, by));
      const std::string g_sql = after_params(tg->sql, t.params.size());
      t.params.insert(t.params.end(), tg->params.begin(), tg->params.end());
      const std::string o_sql = after_params(to->sql, t.params.size());
      t.params.insert(t.params.end(), to->params.begin(), to->params.end());
      t.sql = "WITH i(b, x) AS (" + ti->sql + "), g(b) AS (" + g_sql + "), o(b" + (q.extra ? ", c" : "") + ") AS (" +
              o_sql + "), a(b, v) AS (SELECT d.b, " + sql_aggregate(q.fn, chars) +
              " FROM (SELECT DISTINCT " + key("b") + " AS b FROM g) AS d LEFT JOIN i ON d.b = " + key("i.b") +
              " GROUP BY d.b) SELECT " + (q.unique || over_groups ? "DISTINCT " : "") + key("o.b") + ", " +
              (q.extra ? (extra_chars ? equality_key("o.c", true) : "o.c") + ", " : "") + "a.v FROM o JOIN a ON " +
              key("o.b") + " = a.b";
      t.columns = q.extra ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1};
    }
    std::vector<std::string> rows;
    std::string err;
    if (!sql->run(t, results[0].layout, &rows, &err)) {
      sum.mismatches.push_back(text + "\n  sqlite: " + err);
      log << "difftest: aggregate: " << sum.mismatches.back() << "\n";
      continue;
    }
    ++sum.sqlite_checked;
    const bool float_value = results[0].layout.attrs.back().type.is_float();
    std::string d = compare_rows(SqliteOracle::canonical(results[0], t.columns), rows, float_value);
    if (!d.empty()) {
      sum.mismatches.push_back(text + "\n  quelkit vs sqlite: " + d + "\n  sql: " + t.sql);
      log << "difftest: aggregate mismatch:\n" << sum.mismatches.back() << "\n";
    }
  }
  return sum;
}

}  // namespace quelkit::difftest
