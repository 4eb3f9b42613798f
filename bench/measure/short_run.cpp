// The short-statement workloads' measurement (short_run.h). Each back end
// gets a session of its own with its own copy of the data (a few MB), so that
// each starts from the same tuples and ends with its own, whose checksums are
// compared with SQLite's. The clock is the wall time around each statement's
// run from its text: lexing, parsing, binding, planning, the plan-cache
// lookup, preparing, running and storing the result are all on it, as they
// are for a user; checksums of the result are off it (set_verify), and so is
// writing the texts, which is the client's work.
#include "bench/measure/short_run.h"

#include <sqlite3.h>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>

#include "bench/measure/quiet_session.h"
#include "bench/measure/sqlite_ref.h"
#include "engine/measure.h"
#include "frontend/source.h"

namespace quelkit {

using namespace harness;

namespace {

// Whether a transaction of w runs inside begin/end (BEGIN/COMMIT): one of
// several statements, TP1's; EMP's replaces are each a transaction of one.
bool wrapped(const std::vector<ShortStmt>& t) { return t.size() > 1; }

// Steps a statement to its end, fetching every value (what a client that
// holds the rows does, as quelkit stores them); false at an error.
bool step_all(sqlite3_stmt* st) {
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const int cols = sqlite3_column_count(st);
    for (int c = 0; c < cols; ++c) {
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER: sqlite3_column_int64(st, c); break;
        case SQLITE_FLOAT: sqlite3_column_double(st, c); break;
        default: sqlite3_column_text(st, c);
      }
    }
  }
  return rc == SQLITE_DONE;
}

bool load_sqlite(sqlite3* db, const ShortTable& t, std::string* err) {
  std::string create = "CREATE TABLE " + t.name + " (", insert = "INSERT INTO " + t.name + " VALUES (";
  for (size_t c = 0; c < t.schema.attrs.size(); ++c) {
    const Attribute& a = t.schema.attrs[c];
    create += (c ? ", " : "") + a.name + (a.type.is_int() ? " INTEGER" : a.type.is_float() ? " REAL" : " TEXT");
    insert += c ? ", ?" : "?";
  }
  create += ")";
  insert += ")";
  auto fail = [&] {
    *err = "sqlite: " + std::string(sqlite3_errmsg(db));
    return false;
  };
  if (sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return fail();
  sqlite3_stmt* ins = nullptr;
  if (sqlite3_prepare_v2(db, insert.c_str(), -1, &ins, nullptr) != SQLITE_OK) return fail();
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      const Type ty = t.schema.attrs[c].type;
      if (ty.is_int()) sqlite3_bind_int64(ins, int(c + 1), row[c].i);
      else if (ty.is_float()) sqlite3_bind_double(ins, int(c + 1), row[c].f);
      else sqlite3_bind_text(ins, int(c + 1), row[c].s.c_str(), int(row[c].s.size()), SQLITE_STATIC);
    }
    if (sqlite3_step(ins) != SQLITE_DONE) {
      sqlite3_finalize(ins);
      return fail();
    }
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  // SQLite's B-tree index standing in for the kit's hash, as the study's TP1 had B-trees.
  if (!t.key.empty()) {
    const std::string index = "CREATE INDEX " + t.name + "_" + t.key + " ON " + t.name + " (" + t.key + ")";
    if (sqlite3_exec(db, index.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return fail();
  }
  return true;
}

}  // namespace

uint64_t ShortCell::cost(const char* name) const {
  for (size_t k = 0; k < kShortCosts; ++k)
    if (std::strcmp(kShortCostFields[k].name, name) == 0) return costs[k];
  return 0;
}

bool measure_short_backend(const SessionOptions& so_in, const std::pair<std::string, std::string>& backend,
                           const ShortWorkload& w, ShortCell* out, std::string* err) {
  SessionOptions so = so_in;
  so.backends = {backend};
  QuietSession quiet(so);
  Session& session = quiet.session;
  std::ostringstream& errs = quiet.errs;
  ShortCell& c = *out;
  c.runner = backend.first + ":" + backend.second;
  c.reuses = session.runners()[0]->reuses();
  const std::string source_name = "<short " + w.name + ">";
  auto run_text = [&](std::string text) {
    const auto src = std::make_shared<Source>(source_name, std::move(text));
    const bool ok = session.run(src);
    if (!ok) *err += "quelkit short: " + w.name + " on " + c.runner + ": " + src->text() + ":\n" + errs.str();
    return ok;
  };

  const uint64_t t0 = now_ns();
  for (const auto& t : w.tables) session.catalog().add(short_relation(t, so.page_size));
  if (!run_text(w.setup_quel)) return false;
  c.setup_ns = now_ns() - t0;
  session.reports().clear();

  session.set_verify(false);  // the result's checksum is off the clock
  std::vector<std::string> texts;
  for (const auto& t : w.transactions) {
    const bool wrap = wrapped(t);
    // The texts are the client's, written before the clock starts (as
    // SQLite's bound values are): what is timed is taking them in.
    texts.clear();
    for (const ShortStmt& s : t) texts.push_back(short_quel(s));
    const uint64_t t1 = now_ns();
    if (wrap && !run_text("begin")) return false;
    for (std::string& text : texts) {
      if (!run_text(std::move(text))) return false;
      ++c.statements;
    }
    if (wrap && !run_text("end")) return false;
    c.wall_ns += now_ns() - t1;
    ++c.transactions;
    for (const StmtReport& r : session.reports()) {
      if (r.backend.empty()) continue;
      c.prepares += r.stats.prepares;
      c.cache_hits += r.stats.cache_hits;
      c.text_hits += r.stats.statement_cache == harness::StatementCacheUse::Parse ||
                     r.stats.statement_cache == harness::StatementCacheUse::Bind ||
                     r.stats.statement_cache == harness::StatementCacheUse::Plan;
      for (size_t k = 0; k < kShortCosts; ++k) c.costs[k] += r.stats.*kShortCostFields[k].field;
      c.prepare_ns += r.stats.prepare_ns;
    }
    session.reports().clear();
  }
  session.set_verify(true);

  for (const auto& t : w.tables) {
    if (!run_text("range of qk_all is " + t.name + "\nretrieve (qk_all.all)")) return false;
    c.checksums.push_back({t.name, session.reports().empty() ? 0 : session.reports().back().stats.checksum});
    session.reports().clear();
  }
  return true;
}

bool measure_short_sqlite(const ShortWorkload& w, bool prepared, ShortCell* out, std::string* err) {
  ShortCell& c = *out;
  c.runner = prepared ? "sqlite:prepared" : "sqlite:text";
  c.sqlite = true;
  const uint64_t t0 = now_ns();
  std::unique_ptr<SqliteRef> ref = SqliteRef::open_memory();
  if (!ref) {
    *err += "quelkit short: cannot open an SQLite database in memory\n";
    return false;
  }
  sqlite3* db = ref->handle();
  for (const auto& t : w.tables)
    if (!load_sqlite(db, t, err)) {
      *err = "quelkit short: " + w.name + ": " + *err + "\n";
      return false;
    }
  c.setup_ns = now_ns() - t0;

  std::map<ShortShape, sqlite3_stmt*> stmts;  // prepared: one per shape, made on first use (on the clock)
  struct Finalize {
    std::map<ShortShape, sqlite3_stmt*>& m;
    ~Finalize() {
      for (auto& [k, s] : m) sqlite3_finalize(s);
    }
  } finalize{stmts};
  auto fail = [&](const std::string& what) {
    *err += "quelkit short: " + w.name + " on " + c.runner + ": " + what + ": " + sqlite3_errmsg(db) + "\n";
    return false;
  };
  std::vector<std::string> texts;  // sqlite:text's, written before the clock starts as quelkit's are
  for (const auto& t : w.transactions) {
    const bool wrap = wrapped(t);
    texts.clear();
    if (!prepared)
      for (const ShortStmt& s : t) texts.push_back(short_sql(s));
    const uint64_t t1 = now_ns();
    if (wrap && sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) return fail("BEGIN");
    size_t at = 0;
    for (const ShortStmt& s : t) {
      if (prepared) {
        sqlite3_stmt*& st = stmts[s.shape];
        if (!st && sqlite3_prepare_v2(db, short_prepared_sql(s.shape), -1, &st, nullptr) != SQLITE_OK)
          return fail(short_prepared_sql(s.shape));
        for (size_t k = 0; k < s.args.size(); ++k) {
          const ShortValue& v = s.args[k];
          if (v.s.empty()) sqlite3_bind_int64(st, int(k + 1), v.i);
          else sqlite3_bind_text(st, int(k + 1), v.s.c_str(), int(v.s.size()), SQLITE_STATIC);
        }
        const bool ok = step_all(st);
        sqlite3_reset(st);
        if (!ok) return fail(short_prepared_sql(s.shape));
      } else {
        const std::string& sql = texts[at++];
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &st, nullptr) != SQLITE_OK) return fail(sql);
        const bool ok = step_all(st);
        sqlite3_finalize(st);
        if (!ok) return fail(sql);
      }
      ++c.statements;
    }
    if (wrap && sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) return fail("COMMIT");
    c.wall_ns += now_ns() - t1;
    ++c.transactions;
  }
  c.prepares = prepared ? stmts.size() : c.statements;
  for (const auto& t : w.tables) {
    uint64_t rows = 0, sum = 0;
    std::string e;
    if (!ref->run("SELECT * FROM " + t.name, &rows, &sum, &e)) return fail("SELECT * FROM " + t.name);
    c.checksums.push_back({t.name, sum});
  }
  return true;
}

}  // namespace quelkit
