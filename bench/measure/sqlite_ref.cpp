// SQLite reference engine for the paper report (sqlite_ref.h).
#include "bench/measure/sqlite_ref.h"

#include <sqlite3.h>

#include <cstring>
#include <map>

#include "harness/parts.h"
#include "harness/runtime/runtime_inline.h"

namespace quelkit {

struct SqliteRef::Impl {
  sqlite3* db = nullptr;
  std::map<std::string, sqlite3_stmt*> stmts;  // prepared once, reset per run
  ~Impl() {
    for (auto& [k, s] : stmts) sqlite3_finalize(s);
    if (db) sqlite3_close(db);
  }
};

SqliteRef::~SqliteRef() = default;

std::unique_ptr<SqliteRef> SqliteRef::open(uint64_t n, bool wide, bool keyed) {
  std::unique_ptr<SqliteRef> r(new SqliteRef);
  r->impl_ = std::make_unique<Impl>();
  if (sqlite3_open(":memory:", &r->impl_->db) != SQLITE_OK) return nullptr;
  sqlite3* db = r->impl_->db;
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", nullptr, nullptr, nullptr);
  std::string create = "CREATE TABLE parts (pnum INTEGER, pname TEXT, color TEXT, weight INTEGER, qoh INTEGER";
  create += wide ? ", filler TEXT)" : ")";
  if (sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return nullptr;
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  sqlite3_stmt* ins = nullptr;
  sqlite3_prepare_v2(db, wide ? "INSERT INTO parts VALUES (?,?,?,?,?,?)" : "INSERT INTO parts VALUES (?,?,?,?,?)", -1,
                     &ins, nullptr);
  const std::string filler(166, ' ');
  harness::PartsGenerator gen(n);
  harness::PartsRow row;
  while (gen.next(row)) {
    sqlite3_bind_int(ins, 1, row.pnum);
    sqlite3_bind_text(ins, 2, row.pname.c_str(), int(row.pname.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 3, row.color.c_str(), int(row.color.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int(ins, 4, row.weight);
    sqlite3_bind_int(ins, 5, row.qoh);
    if (wide) sqlite3_bind_text(ins, 6, filler.c_str(), int(filler.size()), SQLITE_STATIC);
    sqlite3_step(ins);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  if (keyed) sqlite3_exec(db, "CREATE INDEX parts_pnum ON parts (pnum)", nullptr, nullptr, nullptr);
  return r;
}

std::string SqliteRef::sql_for(char q) {
  switch (q) {
    case 'a': return "SELECT 1";
    case 'b': return "SELECT pnum FROM parts";
    case 'c': return "SELECT pname, pnum FROM parts WHERE pnum > 3 OR pname = 'processor' OR color = 'black'";
    case 'd': return "SELECT pnum FROM parts WHERE qoh < ln(9.5) * weight";
    case 'e': return "SELECT qoh FROM parts WHERE pnum < 2500";
    case 'f': return "SELECT p.qoh, q.qoh FROM parts p, parts q WHERE p.pnum = q.pnum";
    case 'g': return "SELECT p.qoh, q.qoh FROM parts p, parts q WHERE p.pnum = q.pnum AND p.color = 'black'";
    case 'h': return "SELECT p.qoh FROM parts p, parts q WHERE p.pnum = q.pnum AND p.pnum < 2500";
    case 'i':
      return "SELECT p.qoh, q.qoh FROM parts p, parts q WHERE p.pnum = q.pnum AND p.color = 'black' "
             "AND p.qoh < ln(9.5) * p.weight AND q.qoh < ln(9.5) * p.weight";
  }
  return "";
}

bool SqliteRef::run(const std::string& sql, uint64_t* rows, uint64_t* checksum, std::string* err) {
  sqlite3_stmt*& st = impl_->stmts[sql];
  if (!st && sqlite3_prepare_v2(impl_->db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    *err = sqlite3_errmsg(impl_->db);
    return false;
  }
  uint64_t n = 0, sum = 0;
  const int cols = sqlite3_column_count(st);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    // The row encoding of DESIGN.md "Result checksum", from SQLite's values.
    uint64_t h = QK_FNV_OFFSET;
    for (int c = 0; c < cols; ++c) {
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER: {
          int64_t v = sqlite3_column_int64(st, c);
          h = rt::fnv1a64(reinterpret_cast<const uint8_t*>(&v), 8, h);
          break;
        }
        case SQLITE_FLOAT: {
          double v = sqlite3_column_double(st, c);
          h = rt::fnv1a64(reinterpret_cast<const uint8_t*>(&v), 8, h);
          break;
        }
        default: {
          const uint8_t* t = sqlite3_column_text(st, c);
          uint32_t len = uint32_t(sqlite3_column_bytes(st, c));
          len = rt::strip(t, len);
          static const uint8_t zero = 0;
          h = rt::fnv1a64(t, len, h);
          h = rt::fnv1a64(&zero, 1, h);
        }
      }
    }
    sum += rt::mix64(h);
    ++n;
  }
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) {
    *err = sqlite3_errmsg(impl_->db);
    return false;
  }
  *rows = n;
  *checksum = sum;
  return true;
}

}  // namespace quelkit
