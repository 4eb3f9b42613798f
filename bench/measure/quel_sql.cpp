// QUEL to SQL for the Wisconsin report's SQLite cells (quel_sql.h).
#include "bench/measure/quel_sql.h"

#include <cstdio>
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "frontend/ir.h"
#include "runtime/runtime_inline.h"

namespace quelkit {

using frontend::ast::Expr;
using frontend::ast::Stmt;

namespace {

// Variables an expression uses outside aggregates (an aggregate's variables
// are its own, in QUEL as in a scalar subquery).
void outer_vars(const Expr& e, std::set<std::string>* v) {
  if (e.kind == Expr::Attr) v->insert(e.text);
  if (e.kind == Expr::Aggregate) return;
  for (const auto& a : e.args) outer_vars(*a, v);
}

void all_vars(const Expr& e, std::set<std::string>* v) {
  if (e.kind == Expr::Attr) v->insert(e.text);
  for (const auto& a : e.args) all_vars(*a, v);
  for (const auto& b : e.by) all_vars(*b, v);
  if (e.qual) all_vars(*e.qual, v);
}

std::string from(const std::set<std::string>& vars) {
  std::string s;
  for (const auto& v : vars) s += (s.empty() ? " FROM " : ", ") + v;
  return s;
}

// A catalogue SQL template ("($1 + $2)") with its operands in place.
std::string spell(const std::string& tmpl, const std::vector<std::string>& operands) {
  std::string r;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '$' && i + 1 < tmpl.size() && tmpl[i + 1] >= '1' && tmpl[i + 1] <= '9' &&
        size_t(tmpl[i + 1] - '1') < operands.size()) {
      r += operands[size_t(tmpl[i + 1] - '1')];
      ++i;
    } else {
      r += tmpl[i];
    }
  }
  return r;
}

// What a retrieve's aggregate functions add to it, as INGRES's decomposition
// (engine/aggregate.cpp) and difftest's oracle do it: each becomes a common
// table expression aggN(b1, ..., bn, v), one row per distinct by value of the
// whole relation with the aggregate over that group's qualifying tuples (0
// over none), joined back to the outer query on its by list.
struct Joins {
  std::vector<std::string> ctes;    // "aggN AS (...)"
  std::vector<std::string> conds;   // "(aggN.bi = by_i)", conjoined to the WHERE clause
  std::set<std::string> from;       // the CTEs and the by lists' variables, for the FROM list
};

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string r;
  for (const auto& x : v) r += (r.empty() ? "" : sep) + x;
  return r;
}

bool expr(const Expr& e, std::string* out, Joins* joins = nullptr);

// An aggregate function (with `by`) as a CTE of `joins`; false without one
// (outside a retrieve) or without a faithful SQL aggregate.
bool aggregate_function(const Expr& e, const std::string& fn, bool u, const std::string& arg, std::string* out,
                        Joins* joins) {
  if (!joins) return false;
  const std::string name = "agg" + std::to_string(joins->ctes.size() + 1);
  std::vector<std::string> by(e.by.size()), as, d_cols, on;
  for (size_t i = 0; i < e.by.size(); ++i) {
    if (!expr(*e.by[i], &by[i])) return false;
    const std::string b = "b" + std::to_string(i + 1);
    as.push_back(by[i] + " AS " + b);
    d_cols.push_back("d." + b);
    on.push_back("d." + b + " = i." + b);
    joins->conds.push_back("(" + name + "." + b + " = " + by[i] + ")");
    all_vars(*e.by[i], &joins->from);  // the by list's variables are the outer query's too
  }
  std::set<std::string> own;
  all_vars(e, &own);
  std::string values = "SELECT " + joined(as, ", ") + ", " + arg + " AS x" + from(own);
  if (!e.qual) {
    // Without a qualification of its own every group has its tuples: the
    // groups are GROUP BY's, and no LEFT JOIN of the distinct by values is
    // needed (SQLite runs that join as a nested loop over the groups).
    std::vector<std::string> b_cols;
    for (size_t i = 0; i < e.by.size(); ++i) b_cols.push_back("b" + std::to_string(i + 1));
    joins->ctes.push_back(name + " AS (SELECT " + joined(as, ", ") + ", " + fn + "(" + (u ? "DISTINCT " : "") + arg +
                          ") AS v" + from(own) + " GROUP BY " + joined(b_cols, ", ") + ")");
    joins->from.insert(name);
    *out += name + ".v";
    return true;
  }
  values += " WHERE ";
  if (!expr(*e.qual, &values)) return false;
  joins->ctes.push_back(name + " AS (SELECT " + joined(d_cols, ", ") + ", COALESCE(" + fn + "(" +
                        (u ? "DISTINCT " : "") + "i.x), 0) AS v FROM (SELECT DISTINCT " + joined(as, ", ") +
                        from(own) + ") AS d LEFT JOIN (" + values + ") AS i ON " + joined(on, " AND ") +
                        " GROUP BY " + joined(d_cols, ", ") + ")");
  joins->from.insert(name);
  *out += name + ".v";
  return true;
}

// false: no faithful SQL for e. joins: where a retrieve's aggregate functions
// go (null elsewhere: they have no translation there).
bool expr(const Expr& e, std::string* out, Joins* joins) {
  switch (e.kind) {
    case Expr::Int: *out += std::to_string(e.ival); return true;
    case Expr::Float: {
      char b[32];
      std::snprintf(b, sizeof b, "%.17g", e.fval);
      *out += b;
      return true;
    }
    case Expr::String: {
      *out += '\'';
      for (char c : rt::unescape(e.text)) *out += c == '\'' ? std::string("''") : std::string(1, c);  // its value
      *out += '\'';
      return true;
    }
    case Expr::Attr: *out += e.text + "." + e.attr; return true;
    case Expr::Unary:
    case Expr::Binary:
    case Expr::Call: {
      // Operators and functions are spelled as the operator catalogue spells
      // them in SQL (frontend/ops.def); one it gives no SQL has no translation.
      if (e.kind == Expr::Unary && e.op == "+") return expr(*e.args[0], out);
      const bool call = e.kind == Expr::Call;
      const bool nary = e.kind == Expr::Binary && (e.op == "and" || e.op == "or");
      ir::Generic g;
      if (!ir::generic_by_quel(call ? e.text : e.op, nary ? 2 : int(e.args.size()), call, &g)) return false;
      const std::string sql = ir::generic_info(g).sql;
      if (sql.empty()) return false;
      // `a and b and c` (one n-ary node) as ((a AND b) AND c).
      std::string acc;
      if (!expr(*e.args[0], &acc, joins)) return false;
      if (e.args.size() == 1) {
        *out += spell(sql, {acc});
        return true;
      }
      for (size_t i = 1; i < e.args.size(); ++i) {
        std::string next;
        if (!expr(*e.args[i], &next, joins)) return false;
        acc = spell(sql, {acc, next});
      }
      *out += acc;
      return true;
    }
    case Expr::Aggregate: {
      if (e.args.size() != 1) return false;
      static const std::set<std::string> fns = {"count", "countu", "sum", "sumu", "avg", "avgu", "min", "max"};
      if (!fns.count(e.text)) return false;
      const bool u = e.text.size() > 3 && e.text.back() == 'u';
      const std::string fn = u ? e.text.substr(0, e.text.size() - 1) : e.text;
      std::string arg;
      if (!expr(*e.args[0], &arg)) return false;
      if (!e.by.empty()) return aggregate_function(e, fn, u, arg, out, joins);
      // A simple aggregate: a scalar subquery over its own variables.
      std::set<std::string> vars;
      all_vars(e, &vars);
      *out += "(SELECT COALESCE(" + fn + "(" + (u ? "DISTINCT " : "") + arg + "), 0)" + from(vars);
      if (e.qual) {
        *out += " WHERE ";
        if (!expr(*e.qual, out)) return false;
      }
      *out += ")";
      return true;
    }
    default: return false;  // computed values
  }
}

// The FROM list and WHERE clause of a statement's variables (and of its
// aggregate functions' CTEs, joined back on their by lists).
bool tail(const Stmt& s, std::set<std::string> vars, std::string* out, Joins* joins = nullptr) {
  std::string where;
  if (s.where) {
    outer_vars(*s.where, &vars);
    if (!expr(*s.where, &where, joins)) return false;
  }
  std::vector<std::string> conds;
  if (!where.empty()) conds.push_back(where);
  std::vector<std::string> ctes;  // the aggregate functions' groups, by name
  if (joins) {
    for (const auto& f : joins->from) {
      const bool cte = std::any_of(joins->ctes.begin(), joins->ctes.end(),
                                   [&](const std::string& c) { return c.rfind(f + " AS (", 0) == 0; });
      if (cte) ctes.push_back(f);
      else vars.insert(f);
    }
    conds.insert(conds.end(), joins->conds.begin(), joins->conds.end());
  }
  *out += from(vars);
  // The groups after the relations, CROSS JOIN keeping that order: SQLite
  // then finds each tuple's group through an automatic index on the CTE's
  // by values, where with the CTE first it scanned the relation per group.
  for (size_t i = 0; i < ctes.size(); ++i) *out += (vars.empty() && i == 0 ? " FROM " : " CROSS JOIN ") + ctes[i];
  if (!conds.empty()) *out += " WHERE " + joined(conds, " AND ");
  return true;
}

// INGRES's by-list rule (DESIGN.md "Aggregates"), decided on the SQL of the
// by values: a retrieve whose aggregate functions share one by list and which
// names their variables only through those values ranges over the groups
// (SELECT DISTINCT, the outer rows of a group being alike); where no by list
// applies, one row per tuple; other shapes (different by lists of which one
// applies, a by list of no variable) have no SQLite cell here.
enum class Over { Tuples, Groups, Unsure };

void by_lists(const Expr& e, std::vector<std::vector<std::string>>* lists, bool* ok) {
  if (e.kind == Expr::Aggregate) {
    if (e.by.empty()) return;
    std::vector<std::string> l(e.by.size());
    for (size_t i = 0; i < e.by.size(); ++i) *ok = *ok && expr(*e.by[i], &l[i]);
    lists->push_back(std::move(l));
    return;
  }
  for (const auto& a : e.args) by_lists(*a, lists, ok);
}

// The variables of attributes outside aggregates and outside every subtree
// whose SQL is one of `values`.
void uncovered(const Expr& e, const std::set<std::string>& values, std::set<std::string>* vars) {
  if (e.kind == Expr::Aggregate) return;
  std::string sql;
  if (expr(e, &sql) && values.count(sql)) return;
  if (e.kind == Expr::Attr) vars->insert(e.text);
  for (const auto& a : e.args) uncovered(*a, values, vars);
}

Over ranges_over(const Stmt& s) {
  std::vector<std::vector<std::string>> lists;
  std::vector<const Expr*> by_values;
  bool ok = true;
  auto collect = [&](const Expr& e) {
    by_lists(e, &lists, &ok);
    std::vector<const Expr*> stack{&e};
    while (!stack.empty()) {
      const Expr* x = stack.back();
      stack.pop_back();
      if (x->kind == Expr::Aggregate) {
        for (const auto& b : x->by) by_values.push_back(b.get());
        continue;
      }
      for (const auto& a : x->args) stack.push_back(a.get());
    }
  };
  for (const auto& t : s.targets) collect(*t.expr);
  if (s.where) collect(*s.where);
  if (!ok) return Over::Unsure;
  bool one_list = true, any_applies = false;
  for (const auto& l : lists) {
    one_list = one_list && l == lists.front();
    const std::set<std::string> values(l.begin(), l.end());
    std::set<std::string> left, own;
    for (const auto& t : s.targets) {
      if (t.all)
        left.insert(t.expr->text);
      else
        uncovered(*t.expr, values, &left);
    }
    if (s.where) uncovered(*s.where, values, &left);
    for (const Expr* b : by_values) uncovered(*b, values, &left);  // each function's join back
    for (const Expr* b : by_values) {
      std::string sql;
      if (expr(*b, &sql) && values.count(sql)) all_vars(*b, &own);
    }
    if (own.empty()) return Over::Unsure;
    bool applies = true;
    for (const auto& v : own) applies = applies && !left.count(v);
    any_applies = any_applies || applies;
  }
  if (!any_applies) return Over::Tuples;
  return one_list ? Over::Groups : Over::Unsure;
}

}  // namespace

std::string quel_to_sql(const Stmt& s) {
  std::string q;
  std::set<std::string> vars;
  for (const auto& t : s.targets) outer_vars(*t.expr, &vars);
  switch (s.kind) {
    case Stmt::Retrieve: {
      if (!s.sort.empty()) return "";
      const Over over = ranges_over(s);
      if (over == Over::Unsure) return "";
      Joins joins;
      std::string body = s.unique || over == Over::Groups ? "SELECT DISTINCT " : "SELECT ";
      for (size_t i = 0; i < s.targets.size(); ++i) {
        const auto& t = s.targets[i];
        if (i) body += ", ";
        if (t.all) {
          body += t.expr->text + ".*";
          continue;
        }
        if (!expr(*t.expr, &body, &joins)) return "";
        body += " AS " + t.name;
      }
      if (!tail(s, vars, &body, &joins)) return "";
      if (!s.relation.empty()) q = "CREATE TABLE " + s.relation + " AS ";
      if (!joins.ctes.empty()) q += "WITH " + joined(joins.ctes, ", ") + " ";
      return q + body;
    }
    case Stmt::Append: {
      std::string cols, vals;
      for (const auto& t : s.targets) {
        if (t.all) return "";
        cols += (cols.empty() ? "" : ", ") + t.name;
        if (!vals.empty()) vals += ", ";
        if (!expr(*t.expr, &vals)) return "";
      }
      q = "INSERT INTO " + s.relation + " (" + cols + ") SELECT " + vals;
      return tail(s, vars, &q) ? q : "";
    }
    case Stmt::Delete:
    case Stmt::Replace: {
      std::set<std::string> used = vars;
      if (s.where) outer_vars(*s.where, &used);
      used.erase(s.var);
      if (!used.empty()) return "";  // SQL's DELETE and UPDATE name one table
      if (s.kind == Stmt::Delete) q = "DELETE FROM " + s.var;
      else {
        q = "UPDATE " + s.var + " SET ";
        for (size_t i = 0; i < s.targets.size(); ++i) {
          if (i) q += ", ";
          q += s.targets[i].name + " = ";
          if (!expr(*s.targets[i].expr, &q)) return "";
        }
      }
      if (s.where) {
        q += " WHERE ";
        if (!expr(*s.where, &q)) return "";
      }
      return q;
    }
    case Stmt::Destroy: {
      for (const auto& r : s.relations) q += (q.empty() ? "DROP TABLE " : "; DROP TABLE ") + r;
      return s.relations.size() == 1 ? q : "";
    }
    case Stmt::Modify:
      // A keyed structure is, to SQLite, an index on its key (SQLite cannot
      // cluster a rowid table): same answers, a comparable access path.
      if ((s.structure == "isam" || s.structure == "hash") && !s.key.empty()) {
        std::string name = s.relation, cols;
        for (const auto& k : s.keys) name += "_" + k.name, cols += (cols.empty() ? "" : ", ") + k.name;
        return "CREATE INDEX IF NOT EXISTS " + name + " ON " + s.relation + " (" + cols + ")";
      }
      return "";
    case Stmt::Index: {
      // A secondary index is SQLite's index of the same name and columns.
      std::string cols;
      for (const auto& k : s.keys) cols += (cols.empty() ? "" : ", ") + k.name;
      return "CREATE INDEX " + s.index_name + " ON " + s.relation + " (" + cols + ")";
    }
    case Stmt::Begin: return "BEGIN";
    case Stmt::End: return "COMMIT";
    case Stmt::Abort: return "ROLLBACK";
    default: return "";
  }
}

}  // namespace quelkit
