// SQLite reference engine for the paper and Wisconsin reports (sqlite_ref.h).
#include "bench/measure/sqlite_ref.h"

#include <sqlite3.h>

#include <cstring>
#include <map>

#include "bench/workloads/parts.h"
#include "bench/workloads/wisconsin.h"
#include "runtime/runtime_inline.h"

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

std::unique_ptr<SqliteRef> SqliteRef::open_memory() {
  std::unique_ptr<SqliteRef> r(new SqliteRef);
  r->impl_ = std::make_unique<Impl>();
  if (sqlite3_open(":memory:", &r->impl_->db) != SQLITE_OK) return nullptr;
  return r;
}

sqlite3* SqliteRef::handle() const { return impl_->db; }

std::unique_ptr<SqliteRef> SqliteRef::open(uint64_t n, bool wide, bool keyed) {
  std::unique_ptr<SqliteRef> r = open_memory();
  if (!r) return nullptr;
  sqlite3* db = r->impl_->db;
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", nullptr, nullptr, nullptr);
  std::string create = "CREATE TABLE parts (pnum INTEGER, pname TEXT, color TEXT, weight INTEGER, qoh INTEGER";
  create += wide ? ", filler TEXT)" : ")";
  if (sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return nullptr;
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  sqlite3_stmt* ins = nullptr;
  sqlite3_prepare_v2(db, wide ? "INSERT INTO parts VALUES (?,?,?,?,?,?)" : "INSERT INTO parts VALUES (?,?,?,?,?)", -1,
                     &ins, nullptr);
  const std::string filler(harness::kWideFillerLen, ' ');
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

std::unique_ptr<SqliteRef> SqliteRef::open_wisconsin(const std::vector<harness::WisconsinRelationSpec>& relations,
                                                     bool keyed) {
  std::unique_ptr<SqliteRef> r(new SqliteRef);
  r->impl_ = std::make_unique<Impl>();
  if (sqlite3_open(":memory:", &r->impl_->db) != SQLITE_OK) return nullptr;
  sqlite3* db = r->impl_->db;
  // The rollback journal stays (in memory): the report rolls each change back.
  sqlite3_exec(db, "PRAGMA synchronous=OFF;", nullptr, nullptr, nullptr);
  const Schema schema = harness::wisconsin_schema();
  for (const auto& rel : relations) {
    std::string create = "CREATE TABLE " + rel.name + " (", ins = "INSERT INTO " + rel.name + " VALUES (";
    for (size_t i = 0; i < schema.attrs.size(); ++i) {
      create += (i ? ", " : "") + schema.attrs[i].name + (int(i) < harness::kWisconsinInts ? " INTEGER" : " TEXT");
      ins += i ? ",?" : "?";
    }
    if (sqlite3_exec(db, (create + ")").c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return nullptr;
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, (ins + ")").c_str(), -1, &st, nullptr);
    harness::WisconsinGenerator gen(rel.rows, rel.seed);
    harness::WisconsinRow row;
    while (gen.next(row)) {
      for (int i = 0; i < harness::kWisconsinInts; ++i) sqlite3_bind_int(st, i + 1, row.ints[size_t(i)]);
      int c = harness::kWisconsinInts + 1;
      for (const std::string* s : {&row.stringu1, &row.stringu2, &row.string4})
        sqlite3_bind_text(st, c++, s->c_str(), int(s->size()), SQLITE_TRANSIENT);
      sqlite3_step(st);
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
    if (keyed)
      sqlite3_exec(db, ("CREATE INDEX " + rel.name + "_unique2 ON " + rel.name + " (unique2)").c_str(), nullptr,
                   nullptr, nullptr);
  }
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
  SqliteRows stored;
  if (!execute(sql, &stored, err)) return false;
  ++checksums_;
  *rows = stored.rows();
  *checksum = SqliteRef::checksum(stored);
  return true;
}

bool SqliteRef::execute(const std::string& sql, SqliteRows* out, std::string* err) {
  sqlite3_stmt*& st = impl_->stmts[sql];
  if (!st && sqlite3_prepare_v2(impl_->db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    *err = sqlite3_errmsg(impl_->db);
    return false;
  }
  return step_all(st, out, err);
}

bool SqliteRef::execute_text(const std::string& sql, SqliteRows* out, std::string* err) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(impl_->db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    *err = sqlite3_errmsg(impl_->db);
    sqlite3_finalize(st);
    return false;
  }
  const bool ok = step_all(st, out, err);
  sqlite3_finalize(st);
  return ok;
}

bool SqliteRef::step_all(sqlite3_stmt* st, SqliteRows* out, std::string* err) {
  out->clear();
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    // Asked after the step: a statement SQLite re-prepared there (its table
    // dropped and made anew with other columns) has the new table's columns.
    const int cols = sqlite3_column_count(st);
    for (int c = 0; c < cols; ++c) {
      SqliteRows::Value v;
      v.type = sqlite3_column_type(st, c);
      if (v.type == SQLITE_INTEGER) {
        v.i = sqlite3_column_int64(st, c);
      } else if (v.type == SQLITE_FLOAT) {
        v.d = sqlite3_column_double(st, c);
      } else {
        const unsigned char* t = sqlite3_column_text(st, c);
        v.len = uint32_t(sqlite3_column_bytes(st, c));
        v.off = uint32_t(out->text.size());
        if (v.len) out->text.append(reinterpret_cast<const char*>(t), v.len);
      }
      out->values.push_back(v);
    }
    out->row_end.push_back(uint32_t(out->values.size()));
  }
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) {
    *err = sqlite3_errmsg(impl_->db);
    return false;
  }
  return true;
}

uint64_t SqliteRef::checksum(const SqliteRows& rows) {
  uint64_t sum = 0;
  size_t k = 0;
  for (const uint32_t end : rows.row_end) {
    // The row encoding of DESIGN.md "Result checksum", from SQLite's values.
    uint64_t h = QK_FNV_OFFSET;
    for (; k < end; ++k) {
      const SqliteRows::Value& v = rows.values[k];
      if (v.type == SQLITE_INTEGER) {
        h = rt::fnv1a64(reinterpret_cast<const uint8_t*>(&v.i), 8, h);
      } else if (v.type == SQLITE_FLOAT) {
        h = rt::fnv1a64(reinterpret_cast<const uint8_t*>(&v.d), 8, h);
      } else {
        static const uint8_t zero = 0;
        const uint8_t* t = reinterpret_cast<const uint8_t*>(rows.text.data()) + v.off;
        h = rt::fnv1a64(t, rt::strip(t, v.len), h);
        h = rt::fnv1a64(&zero, 1, h);
      }
    }
    sum += rt::mix64(h);
  }
  return sum;
}

bool SqliteRef::exec(const std::string& sql, uint64_t* changes, std::string* err) {
  sqlite3_stmt*& st = impl_->stmts[sql];
  if (!st && sqlite3_prepare_v2(impl_->db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    *err = sqlite3_errmsg(impl_->db);
    impl_->stmts.erase(sql);
    return false;
  }
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
  }
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) {
    *err = sqlite3_errmsg(impl_->db);
    return false;
  }
  *changes = uint64_t(sqlite3_changes64(impl_->db));
  return true;
}

}  // namespace quelkit
