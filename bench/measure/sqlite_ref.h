// SQLite as the reports' external reference engine: the same PARTS or
// Wisconsin data loaded into an in-memory database, the paper's queries and
// the Wisconsin statements as SQL (updates through exec, which the caller
// rolls back), rows checksummed
// the way quelkit checksums them (DESIGN.md), so the report can show both that
// SQLite agrees and what its bytecode VM — today's descendant of the INGRES
// interpreter — costs per tuple on the same machine in the same run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/workloads/wisconsin.h"

struct sqlite3;
struct sqlite3_stmt;

namespace quelkit {

// A result as SQLite returned it, kept for its checksum after the clock
// stops: each value's SQLite type and value, text in one buffer.
struct SqliteRows {
  struct Value {
    int type = 0;  // SQLITE_INTEGER, SQLITE_FLOAT, or text (anything else)
    int64_t i = 0;
    double d = 0;
    uint32_t off = 0, len = 0;  // text: bytes [off, off + len) of `text`
  };
  std::vector<Value> values;
  std::vector<uint32_t> row_end;  // index into values one past each row's last
  std::string text;
  // Empty again, keeping the room (a timed loop reuses one).
  void clear() {
    values.clear();
    row_end.clear();
    text.clear();
  }
  uint64_t rows() const { return row_end.size(); }
};

class SqliteRef {
 public:
  // Loads n PARTS rows (wide adds the blank filler); keyed adds an index on
  // pnum (SQLite's B-tree standing in for ISAM).
  static std::unique_ptr<SqliteRef> open(uint64_t n, bool wide, bool keyed);
  // Loads Wisconsin relations, the same tuples as bench/workloads/wisconsin.h makes
  // (each its name, size and seed); keyed adds an index on unique2 (SQLite's
  // B-tree standing in for ISAM and hash alike).
  static std::unique_ptr<SqliteRef> open_wisconsin(const std::vector<harness::WisconsinRelationSpec>& relations,
                                                   bool keyed);
  // An empty in-memory database (its journal in memory, as SQLite keeps it
  // by default), for a caller that loads its own tables
  // (the short-statement workloads) through handle().
  static std::unique_ptr<SqliteRef> open_memory();
  sqlite3* handle() const;
  ~SqliteRef();
  // SQL for a paper query id, or "" if there is none.
  static std::string sql_for(char query);
  // Runs the query once; returns rows and the DESIGN.md checksum of them
  // (execute, then checksum: what an untimed, checked run does).
  bool run(const std::string& sql, uint64_t* rows, uint64_t* checksum, std::string* err);
  // What a timed run does: steps the query to its end, storing every row in
  // *out (cleared first). It takes no checksum, and computes none.
  bool execute(const std::string& sql, SqliteRows* out, std::string* err);
  // The same from the text: sqlite3_prepare_v2, the steps, sqlite3_finalize,
  // every call (the paper's (a) row: a statement's whole fixed cost).
  bool execute_text(const std::string& sql, SqliteRows* out, std::string* err);
  // The DESIGN.md "Result checksum" of stored rows (off every clock).
  static uint64_t checksum(const SqliteRows& rows);
  // Checksums computed by this object so far (tests: none inside timed runs).
  uint64_t checksums_taken() const { return checksums_; }
  // Runs a statement that returns no rows (DDL, DML, BEGIN, ROLLBACK);
  // *changes = the rows it inserted, deleted or updated.
  bool exec(const std::string& sql, uint64_t* changes, std::string* err);

 private:
  SqliteRef() = default;
  // Steps st to its end, storing every row in *out (cleared first), and resets it.
  bool step_all(sqlite3_stmt* st, SqliteRows* out, std::string* err);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t checksums_ = 0;
};

}  // namespace quelkit
