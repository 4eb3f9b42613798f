// The short-statement workloads' data and statements (issue 68): the
// Distributed INGRES benchmark on one site (Seed 1982: EMP of 30,000 tuples of
// 38 bytes, hashed on name, 1,000 random single-tuple replaces) and TP1 as the
// POSTGRES study's Figure 2.2 defines it (branch, teller, account of 100-byte
// tuples keyed on their ids, history appended to). Each relation is a schema
// and rows of plain values, so quelkit and SQLite load the same tuples, and
// each statement is a shape and its values, written as QUEL text, as SQL text
// or as the SQL of a prepared statement with its values bound.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/schema.h"
#include "storage/relation.h"

namespace quelkit::harness {

constexpr uint64_t kShortSeed = 1982;

// One attribute's value: i for integers, f for floats, s for characters.
struct ShortValue {
  int64_t i = 0;
  double f = 0;
  std::string s;
};

struct ShortTable {
  std::string name;
  Schema schema;
  std::string key;  // the attribute it is hashed on ("" for a heap)
  std::vector<std::vector<ShortValue>> rows;
};

// The statements' shapes: what differs between two statements of a shape is
// their values alone.
enum class ShortShape : uint8_t {
  EmpReplace,       // salary = $0 where name = $1
  AccountRetrieve,  // where aid = $0
  AccountReplace,
  TellerRetrieve,  // where tid = $0
  TellerReplace,
  BranchRetrieve,  // where bid = $0
  BranchReplace,
  HistoryAppend,  // bid = $0, tid = $1, aid = $2
};

struct ShortStmt {
  ShortShape shape;
  std::vector<ShortValue> args;
};

// A workload: its relations, the QUEL that readies them (range declarations
// and modify, timed apart), and its transactions, each one or more statements.
struct ShortWorkload {
  std::string name;  // "emp", "tp1"
  std::vector<ShortTable> tables;
  std::string setup_quel;
  std::vector<std::vector<ShortStmt>> transactions;
  uint64_t statements() const;
};

// EMP (name = c16 unique, salary = i4, age = i4, dept = c10, manager = i4:
// 38 bytes), then `replaces` replaces of a random tuple's salary by name.
ShortWorkload make_emp_workload(uint64_t rows, uint64_t replaces, uint64_t seed = kShortSeed);
// account and teller of `accounts` tuples, branch of accounts / 10 (at least
// one), history empty; `transactions` TP1 transactions of random ids.
ShortWorkload make_tp1_workload(uint64_t accounts, uint64_t transactions, uint64_t seed = kShortSeed);

// The statement as QUEL text (range variables of setup_quel), as SQL text,
// and as the SQL of a prepared statement whose ?s take its args in order.
std::string short_quel(const ShortStmt& s);
std::string short_sql(const ShortStmt& s);
const char* short_prepared_sql(ShortShape shape);

// The table as a heap relation of quelkit (modify in setup_quel keys it).
std::unique_ptr<Relation> short_relation(const ShortTable& t, uint32_t page_size);

}  // namespace quelkit::harness
