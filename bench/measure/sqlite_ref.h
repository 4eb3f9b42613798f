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

namespace quelkit {

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
  ~SqliteRef();
  // SQL for a paper query id, or "" if there is none.
  static std::string sql_for(char query);
  // Runs the query once; returns rows and the DESIGN.md checksum of them.
  bool run(const std::string& sql, uint64_t* rows, uint64_t* checksum, std::string* err);
  // Runs a statement that returns no rows (DDL, DML, BEGIN, ROLLBACK);
  // *changes = the rows it inserted, deleted or updated.
  bool exec(const std::string& sql, uint64_t* changes, std::string* err);

 private:
  SqliteRef() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace quelkit
