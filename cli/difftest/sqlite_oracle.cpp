// The SQLite oracle (sqlite_oracle.h): loader, QUEL-to-SQL translation of the
// shared subset, and canonical rows for an order-free comparison.
#include "cli/difftest/sqlite_oracle.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "harness/rows.h"

namespace quelkit::difftest {

namespace {

std::string rtrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string canonical_double(double v) {
  if (v == 0) return "0";  // -0.0 and 0.0: SQLite does not keep the sign of a stored zero
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

struct Translator {
  bool math;
  std::vector<std::pair<bool, std::string>>* params;
  std::string reason;

  std::string param(bool text, std::string v) {
    params->emplace_back(text, std::move(v));
    return "?" + std::to_string(params->size());
  }

  bool fail(const char* why) {
    if (reason.empty()) reason = why;
    return false;
  }

  // SQL for n, or false with `reason`.
  bool sql(const GNode& n, std::string* out) {
    if (n.kind == GNode::Lit) {
      if (n.type.kind == Tk::C) {
        *out = param(true, rtrim(n.value));
        return true;
      }
      if (n.type.kind == Tk::F8) {
        *out = param(false, n.text);
        return true;
      }
      *out = n.text;
      return true;
    }
    if (n.kind == GNode::Attr) {
      *out = n.var + "." + n.attr;
      return true;
    }
    const ir::OpInfo& info = ir::op_info(n.op);
    if (n.type.kind == Tk::F4 || info.left == Tk::F4) {
      // Only exact uses of an f4 value: widening (float8) and truncation (int1/2/4)
      // of a bare f4 attribute.
      if (info.generic != ir::Generic::Cvt || n.type.kind == Tk::F4) return fail("f4");
    }
    std::string a, b;
    if (n.kids.size() > 0 && !sql(*n.kids[0], &a)) return false;
    if (n.kids.size() > 1 && info.generic != ir::Generic::Match && info.generic != ir::Generic::NoMatch &&
        !sql(*n.kids[1], &b))
      return false;
    auto bin = [&](const char* op) {
      *out = "(" + a + " " + op + " " + b + ")";
      return true;
    };
    auto fn = [&](const char* f) {
      if (!math) return fail("no math");
      *out = std::string(f) + "(" + a + (n.kids.size() > 1 ? ", " + b : "") + ")";
      return true;
    };
    using ir::Generic;
    switch (info.generic) {
      case Generic::Const:
      case Generic::Attr:
      case Generic::Param: return fail("error");
      case Generic::Cvt:
        if (n.type.kind == Tk::F8) *out = "CAST(" + a + " AS REAL)";
        else if (info.left == Tk::F4 || info.left == Tk::F8) *out = "CAST(" + a + " AS INTEGER)";
        else *out = "(" + a + ")";
        return true;
      case Generic::Neg: *out = "(-" + a + ")"; return true;
      case Generic::Add: return bin("+");
      case Generic::Sub: return bin("-");
      case Generic::Mul: return bin("*");
      case Generic::Div: return bin("/");
      case Generic::Pow: return fn("pow");
      case Generic::Mod: return bin("%");
      case Generic::Eq: return bin("=");
      case Generic::Ne: return bin("<>");
      case Generic::Lt: return bin("<");
      case Generic::Le: return bin("<=");
      case Generic::Gt: return bin(">");
      case Generic::Ge: return bin(">=");
      case Generic::Match:
      case Generic::NoMatch: {
        const GNode& pat = *n.kids[1];
        if (pat.value.find_first_of("?[\\") != std::string::npos) return fail("pattern");
        std::string p = param(true, rtrim(pat.value));
        *out = std::string(info.generic == Generic::Match ? "(" : "(NOT ") + "(" + a + " GLOB " + p + "))";
        return true;
      }
      case Generic::And: return bin("AND");
      case Generic::Or: return bin("OR");
      case Generic::Not: *out = "(NOT " + a + ")"; return true;
      case Generic::Abs: *out = "abs(" + a + ")"; return true;
      case Generic::Sqrt: return fn("sqrt");
      case Generic::Log: return fn("ln");
      case Generic::Exp: return fn("exp");
      case Generic::Sin: return fn("sin");
      case Generic::Cos: return fn("cos");
      case Generic::Atan: return fn("atan");
      case Generic::Ascii: return fail("ascii");
      case Generic::Concat: return fail("concat");
    }
    return fail("error");
  }
};

void vars_used(const GNode& n, std::vector<std::string>* out) {
  if (n.kind == GNode::Attr && std::find(out->begin(), out->end(), n.var) == out->end()) out->push_back(n.var);
  for (const auto& k : n.kids) vars_used(*k, out);
}

}  // namespace

SqliteOracle::~SqliteOracle() {
  if (db_) sqlite3_close(db_);
}

std::unique_ptr<SqliteOracle> SqliteOracle::open(const harness::Catalog& cat, std::string* err) {
  auto o = std::unique_ptr<SqliteOracle>(new SqliteOracle());
  if (sqlite3_open(":memory:", &o->db_) != SQLITE_OK) {
    *err = "cannot open an in-memory SQLite database";
    return nullptr;
  }
  {
    sqlite3_stmt* st = nullptr;
    o->math_ = sqlite3_prepare_v2(o->db_, "SELECT sqrt(4.0), ln(1.0), pow(2.0, 2.0)", -1, &st, nullptr) == SQLITE_OK;
    sqlite3_finalize(st);
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
      create += (i ? ", " : "") + s.attrs[i].name + (t.is_int() ? " INTEGER" : t.is_float() ? " REAL" : " TEXT");
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
  Translation t;
  Translator tr{math_, &t.params, {}};
  std::string select;
  for (size_t i = 0; i < q.targets.size(); ++i) {
    std::string s;
    size_t mark = t.params.size();
    Translator one{math_, &t.params, {}};
    if (!one.sql(*q.targets[i].second, &s)) {
      t.params.resize(mark);  // the column is left out; its parameters too
      continue;
    }
    select += (select.empty() ? "" : ", ") + s;
    t.columns.push_back(int(i));
  }
  if (select.empty()) select = "1";
  std::string where;
  if (q.where && !tr.sql(*q.where, &where)) {
    *reason = tr.reason;
    return std::nullopt;
  }
  std::vector<std::string> used;
  for (const auto& tg : q.targets) vars_used(*tg.second, &used);
  if (q.where) vars_used(*q.where, &used);
  std::string from;
  for (const auto& v : q.vars)
    if (std::find(used.begin(), used.end(), v.name) != used.end())
      from += (from.empty() ? " FROM " : ", ") + v.base + " AS " + v.name;
  t.sql = "SELECT " + select + from + (q.where ? " WHERE " + where : "");
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
      else if (qt.is_char()) v = rtrim(reinterpret_cast<const char*>(sqlite3_column_text(st, int(c))));
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
  const uint32_t len = r.layout.tuple_len;
  for (uint64_t i = 0; i < r.nrows(); ++i) {
    const uint8_t* row = r.data.data() + i * len;
    std::string s;
    for (size_t c = 0; c < columns.size(); ++c) {
      const Attribute& a = r.layout.attrs[size_t(columns[c])];
      ir::Value v = harness::get_value(a, row);
      std::string x;
      if (a.type.is_int()) x = std::to_string(v.i);
      else if (a.type.kind == Tk::F4) x = canonical_double(double(v.f4));
      else if (a.type.kind == Tk::F8) x = canonical_double(v.f8);
      else x = rtrim(v.s);
      s += (c ? "\x1f" : "") + x;
    }
    rows.push_back(std::move(s));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace quelkit::difftest
