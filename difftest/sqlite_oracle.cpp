// The SQLite oracle (sqlite_oracle.h): loader, translation of the shared
// subset from the bound IR to SQL, and canonical rows for an order-free
// comparison.
#include "difftest/sqlite_oracle.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "difftest/bind.h"
#include "engine/rows.h"
#include "runtime/runtime_inline.h"

namespace quelkit::difftest {

namespace {

std::string rtrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// A character value as INGRES's rule sees it: without any blank.
std::string without_blanks(const char* p, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i)
    if (p[i] != ' ') s += p[i];
  return s;
}

// The collation `quel`: INGRES's rule, stated here apart from the kit's
// rt::char_cmp (drop every blank, then compare bytes, a proper prefix first).
int quel_collation(void*, int an, const void* a, int bn, const void* b) {
  const std::string x = without_blanks(static_cast<const char*>(a), size_t(an));
  const std::string y = without_blanks(static_cast<const char*>(b), size_t(bn));
  const int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
  if (c != 0) return c;
  return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
}

// A character column of a canonical row: as the rule tells values apart, so
// that of equal values (a group's, unique's) either side may keep any.
std::string canonical_chars(const std::string& s) { return without_blanks(s.data(), s.size()); }

std::string shortest_double(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string canonical_double(double v) {
  if (v == 0) return "0";  // -0.0 and 0.0: SQLite does not keep the sign of a stored zero
  return shortest_double(v);
}

// $1 and $2 of an SQL spelling replaced by the operands' SQL, in one pass.
std::string fill(const std::string& spelling, const std::string& a, const std::string& b) {
  std::string out;
  for (size_t i = 0; i < spelling.size(); ++i) {
    if (spelling[i] == '$' && i + 1 < spelling.size() && (spelling[i + 1] == '1' || spelling[i + 1] == '2')) {
      out += spelling[++i] == '1' ? a : b;
      continue;
    }
    out += spelling[i];
  }
  return out;
}

// SQL of a bound expression: the types and typed operators are the binder's.
struct Translator {
  const frontend::BoundQuery& q;
  const std::vector<bool>& spelled;
  std::vector<std::pair<bool, std::string>>* params;
  std::string reason;

  std::string param(bool text, std::string v) {
    params->emplace_back(text, std::move(v));
    return "?" + std::to_string(params->size());
  }

  // A character operand as INGRES's comparison sees it: without any blank.
  static std::string squeezed(const std::string& x) { return "replace(" + x + ", ' ', '')"; }

  bool fail(const char* why) {
    if (reason.empty()) reason = why;
    return false;
  }

  // SQL for n, or false with `reason`.
  bool sql(const ir::Node& n, std::string* out) {
    if (n.op == ir::Op::CONST) {
      switch (n.type.kind) {
        case Tk::C: *out = param(true, rtrim(n.val.s)); return true;
        case Tk::F8: *out = param(false, shortest_double(n.val.f8)); return true;
        case Tk::I1:
        case Tk::I2:
        case Tk::I4: *out = std::to_string(n.val.i); return true;
        case Tk::F4: return fail("f4");
        case Tk::B: return fail("error");
      }
      return fail("error");
    }
    if (n.op == ir::Op::ATTR) {
      const frontend::BoundVar& v = q.vars[size_t(n.var)];
      *out = v.name + "." + v.schema.attrs[size_t(n.attr)].name;
      return true;
    }
    if (n.op == ir::Op::PARAM) return fail("error");
    const ir::OpInfo& info = ir::op_info(n.op);
    if (n.type.kind == Tk::F4 || info.left == Tk::F4) {
      // Only exact uses of an f4 value: widening (float8) and truncation (int1/2/4)
      // of a bare f4 attribute.
      if (info.generic != ir::Generic::Cvt || n.type.kind == Tk::F4) return fail("f4");
    }
    if (ir::is_nary(n.op)) {  // and/or of n operands (ir.h): one SQL AND/OR chain
      std::string all;
      for (const auto& k : n.kid) {
        std::string one;
        if (!sql(*k, &one)) return false;
        all += all.empty() ? "(" + one : (n.op == ir::Op::AND ? " AND " : " OR ") + one;
      }
      *out = all + ")";
      return true;
    }
    std::string a, b;
    if (n.kid[0] && !sql(*n.kid[0], &a)) return false;
    if (info.generic == ir::Generic::Match || info.generic == ir::Generic::NoMatch) {
      // The pattern (a literal, the binder's kid 1) is handed over as GLOB's.
      // INGRES's rule ignores every blank: of the value and of the pattern.
      const std::string& pat = n.kid[1]->val.s;
      if (pat.find_first_of("?[\\") != std::string::npos) return fail("pattern");
      a = squeezed(a);
      b = param(true, rt::squeeze(pat));
    } else if (n.kid[1] && !sql(*n.kid[1], &b)) {
      return false;
    }
    if (info.cls() == ir::Class::Compare && info.left == Tk::C) {
      a = squeezed(a);
      b = squeezed(b);
    }
    const std::string spelling = sql_spelling(n.op, n.implicit);
    if (spelling.empty()) return fail(ir::generic_info(info.generic).quel);
    if (!spelled[size_t(info.generic)]) return fail("unknown function");
    *out = fill(spelling, a, b);
    return true;
  }
};

void vars_used(const ir::Node& n, const frontend::BoundQuery& q, std::vector<std::string>* out) {
  if (n.op == ir::Op::ATTR) {
    const std::string& name = q.vars[size_t(n.var)].name;
    if (std::find(out->begin(), out->end(), name) == out->end()) out->push_back(name);
  }
  for (const auto& k : n.kid)
    if (k) vars_used(*k, q, out);
}

}  // namespace

std::string sql_spelling(ir::Op op, bool implicit) {
  const ir::OpInfo& o = ir::op_info(op);
  if (o.generic != ir::Generic::Cvt) return ir::generic_info(o.generic).sql;
  if (implicit) return "$1";
  if (o.result == Tk::F4) return "";  // SQL has no single precision
  if (o.result == Tk::F8) return "CAST($1 AS REAL)";
  if (is_float(o.left)) return "CAST($1 AS INTEGER)";
  return "($1)";
}

SqliteOracle::~SqliteOracle() {
  if (db_) sqlite3_close(db_);
}

std::unique_ptr<SqliteOracle> SqliteOracle::open(const harness::Catalog& cat, std::string* err) {
  auto o = std::unique_ptr<SqliteOracle>(new SqliteOracle());
  if (sqlite3_open(":memory:", &o->db_) != SQLITE_OK) {
    *err = "cannot open an in-memory SQLite database";
    return nullptr;
  }
  o->catalog_ = &cat;
  sqlite3_create_collation(o->db_, "quel", SQLITE_UTF8, nullptr, quel_collation);
  // Which spellings this SQLite knows (the math functions are a build option).
  for (int g = 0; g < ir::kNumGenerics; ++g) {
    const std::string spelling = ir::generic_info(ir::Generic(g)).sql;
    bool known = true;
    if (!spelling.empty()) {
      sqlite3_stmt* st = nullptr;
      known = sqlite3_prepare_v2(o->db_, ("SELECT " + fill(spelling, "1.0", "1.0")).c_str(), -1, &st, nullptr) ==
              SQLITE_OK;
      sqlite3_finalize(st);
    }
    o->spelled_.push_back(known);
  }
  for (const char* name : {"edge", "parts"}) {
    harness::Relation* rel = cat.find(name);
    if (!rel) {
      *err = std::string("relation ") + name + " is missing";
      return nullptr;
    }
    const Schema& s = rel->schema();
    std::string create = std::string("CREATE TABLE ") + name + " (", insert = std::string("INSERT INTO ") + name + " VALUES (";
    for (size_t i = 0; i < s.attrs.size(); ++i) {
      const Type t = s.attrs[i].type;
      create += (i ? ", " : "") + s.attrs[i].name + (t.is_int() ? " INTEGER" : t.is_float() ? " REAL" : " TEXT COLLATE quel");
      insert += i ? ", ?" : "?";
    }
    create += ")";
    insert += ")";
    char* msg = nullptr;
    if (sqlite3_exec(o->db_, create.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      *err = msg ? msg : "create failed";
      sqlite3_free(msg);
      return nullptr;
    }
    sqlite3_stmt* ins = nullptr;
    sqlite3_prepare_v2(o->db_, insert.c_str(), -1, &ins, nullptr);
    rel->for_each([&](harness::Tid, const uint8_t* tuple) {
      for (size_t i = 0; i < s.attrs.size(); ++i) {
        const Attribute& a = s.attrs[i];
        ir::Value v = harness::get_value(a, tuple);
        int col = int(i) + 1;
        if (a.type.is_int()) sqlite3_bind_int64(ins, col, v.i);
        else if (a.type.kind == Tk::F4) sqlite3_bind_double(ins, col, double(v.f4));
        else if (a.type.kind == Tk::F8) sqlite3_bind_double(ins, col, v.f8);
        else {
          std::string t = rtrim(v.s);
          sqlite3_bind_text(ins, col, t.data(), int(t.size()), SQLITE_TRANSIENT);
        }
      }
      sqlite3_step(ins);
      sqlite3_reset(ins);
    });
    sqlite3_finalize(ins);
  }
  return o;
}

std::optional<SqliteOracle::Translation> SqliteOracle::translate(const GQuery& q, std::string* reason) const {
  if (q.kind != GQuery::Retrieve) {
    *reason = "update";
    return std::nullopt;
  }
  BoundText b;
  try {
    b = bind_query(q, *catalog_);
  } catch (QuelError&) {
    *reason = "error";
    return std::nullopt;
  }
  const frontend::BoundQuery& bq = b.query;
  Translation t;
  Translator tr{bq, spelled_, &t.params, {}};
  std::string select;
  for (size_t i = 0; i < bq.targets.size(); ++i) {
    std::string s;
    size_t mark = t.params.size();
    Translator one{bq, spelled_, &t.params, {}};
    if (!one.sql(*bq.targets[i].expr, &s)) {
      t.params.resize(mark);  // the column is left out; its parameters too
      continue;
    }
    select += (select.empty() ? "" : ", ") + s;
    t.columns.push_back(int(i));
  }
  if (select.empty()) select = "1";
  std::string where;
  if (bq.qual && !tr.sql(*bq.qual, &where)) {
    *reason = tr.reason;
    return std::nullopt;
  }
  std::vector<std::string> used;
  for (const auto& tg : bq.targets) vars_used(*tg.expr, bq, &used);
  if (bq.qual) vars_used(*bq.qual, bq, &used);
  std::string from;
  for (const auto& v : q.vars)
    if (std::find(used.begin(), used.end(), v.name) != used.end())
      from += (from.empty() ? " FROM " : ", ") + v.base + " AS " + v.name;
  t.sql = "SELECT " + select + from + (bq.qual ? " WHERE " + where : "");
  return t;
}

bool SqliteOracle::run(const Translation& t, const Schema& layout, std::vector<std::string>* rows, std::string* err) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, t.sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    *err = std::string(sqlite3_errmsg(db_)) + " in: " + t.sql;
    return false;
  }
  for (size_t i = 0; i < t.params.size(); ++i) {
    const auto& [text, v] = t.params[i];
    if (text) {
      sqlite3_bind_text(st, int(i) + 1, v.data(), int(v.size()), SQLITE_TRANSIENT);
    } else {
      double d = 0;
      std::from_chars(v.data(), v.data() + v.size(), d);  // the value quelkit's lexer reads
      sqlite3_bind_double(st, int(i) + 1, d);
    }
  }
  rows->clear();
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    std::string row;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const Type qt = layout.attrs[size_t(t.columns[c])].type;
      int ct = sqlite3_column_type(st, int(c));
      std::string v;
      if (ct == SQLITE_NULL) v = "NULL";
      else if (qt.is_char()) v = canonical_chars(reinterpret_cast<const char*>(sqlite3_column_text(st, int(c))));
      else if (qt.is_float()) v = canonical_double(sqlite3_column_double(st, int(c)));
      else if (ct == SQLITE_INTEGER) v = std::to_string(sqlite3_column_int64(st, int(c)));
      else v = "real " + canonical_double(sqlite3_column_double(st, int(c)));
      row += (c ? "\x1f" : "") + v;
    }
    rows->push_back(std::move(row));
  }
  bool ok = rc == SQLITE_DONE;
  if (!ok) *err = std::string(sqlite3_errmsg(db_)) + " in: " + t.sql;
  sqlite3_finalize(st);
  std::sort(rows->begin(), rows->end());
  return ok;
}

std::vector<std::string> SqliteOracle::canonical(const harness::Result& r, const std::vector<int>& columns) {
  std::vector<std::string> rows;
  for (uint64_t i = 0; i < r.nrows(); ++i) {
    const uint8_t* row = r.rows.row(i);
    std::string s;
    for (size_t c = 0; c < columns.size(); ++c) {
      const Attribute& a = r.layout.attrs[size_t(columns[c])];
      ir::Value v = harness::get_value(a, row);
      std::string x;
      if (a.type.is_int()) x = std::to_string(v.i);
      else if (a.type.kind == Tk::F4) x = canonical_double(double(v.f4));
      else if (a.type.kind == Tk::F8) x = canonical_double(v.f8);
      else x = canonical_chars(v.s);
      s += (c ? "\x1f" : "") + x;
    }
    rows.push_back(std::move(s));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace quelkit::difftest
