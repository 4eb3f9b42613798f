// Random aggregates (aggregates.h). The argument and the inner qualification
// come from the ordinary generator, so they cover the catalogue's operators;
// each statement is evaluated per runner as the session does (aggregates
// first, then the rewritten statement) and the results compared exactly.
#include "difftest/aggregates.h"

#include <algorithm>
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
  bool unique = false;
  std::string text() const {
    std::string a = fn + "(" + quel_text(*arg);
    if (by) a += " by " + quel_text(*by);
    if (qual) a += " where " + quel_text(*qual);
    a += ")";
    if (!by) return "retrieve (a = " + a + ")";
    return std::string("retrieve ") + (unique ? "unique " : "") + "(b = " + quel_text(*by) + ", a = " + a + ")";
  }
};

// SQL's aggregate over column x of the joined rows i (NULL where a group has none).
std::string sql_aggregate(const std::string& fn, bool chars) {
  if (fn == "count") return "COUNT(i.x)";
  if (fn == "countu") return "COUNT(DISTINCT i.x)";
  if (fn == "any") return "(COUNT(i.x) > 0)";
  if (fn == "sum") return "COALESCE(SUM(i.x), 0)";
  if (fn == "sumu") return "COALESCE(SUM(DISTINCT i.x), 0)";
  if (fn == "avg") return "COALESCE(AVG(i.x), 0.0)";
  if (fn == "avgu") return "COALESCE(AVG(DISTINCT i.x), 0.0)";
  return "COALESCE(" + std::string(fn == "min" ? "MIN" : "MAX") + "(i.x), " + (chars ? "''" : "0") + ")";
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
    if (rng.chance(60)) {
      const auto& a = rel->attrs[rng.below(rel->attrs.size())];
      q.by = make_attr("v", a.first);
      // A by value that is an expression, which each tuple computes to look
      // its group up (engine/access_path.h): a numeric attribute shifted,
      // scaled or divided (groups that merge), or any expression.
      if (rng.chance(30)) {
        static const ir::Generic kOps[] = {ir::Generic::Add, ir::Generic::Mul, ir::Generic::Div, ir::Generic::Sub};
        if (a.second.is_numeric() && rng.chance(70))
          q.by = make_op(kOps[rng.below(std::size(kOps))], std::move(q.by), Generator::int_lit(1 + rng.below(3)));
        else
          q.by = gen.expr(rng.chance(50) ? Tk::I4 : Tk::C, 1, {q.var});
      }
    }
    const bool numeric = q.fn.rfind("sum", 0) == 0 || q.fn.rfind("avg", 0) == 0;
    static const std::vector<Tk> kNumeric = {Tk::I4, Tk::F8, Tk::I2}, kAny = {Tk::I4, Tk::F8, Tk::C};
    q.arg = gen.expr(rng.pick(numeric ? kNumeric : kAny), 2, {q.var});
    if (rng.chance(60)) q.qual = gen.expr(Tk::B, 2, {q.var});
    q.unique = rng.chance(30);
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
    std::string why;
    auto ti = sql->translate(inner, &why);
    auto tg = sql->translate(groups, &why);
    if (!ti || !tg || ti->columns.size() != inner.targets.size() || tg->columns.size() != 1) {
      ++sum.sqlite_skipped;
      continue;
    }
    const bool chars = results[0].layout.attrs.back().type.is_char();
    SqliteOracle::Translation t;
    t.params = ti->params;
    if (!q.by) {
      t.sql = "WITH i(x) AS (" + ti->sql + ") SELECT " + sql_aggregate(q.fn, chars) + " FROM i";
      t.columns = {0};
    } else {
      // Groups of the whole relation, each with its aggregate (0 when the
      // inner qualification left it no rows), joined back to every tuple.
      t.params.insert(t.params.end(), tg->params.begin(), tg->params.end());
      t.sql = "WITH i(b, x) AS (" + ti->sql + "), g(b) AS (" + tg->sql + "), a(b, v) AS (SELECT d.b, " +
              sql_aggregate(q.fn, chars) + " FROM (SELECT DISTINCT b FROM g) AS d LEFT JOIN i ON d.b = i.b GROUP BY d.b) " +
              "SELECT " + (q.unique ? "DISTINCT " : "") + "o.b, a.v FROM g AS o JOIN a ON o.b = a.b";
      t.columns = {0, 1};
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
