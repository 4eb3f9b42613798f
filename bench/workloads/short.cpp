// The short-statement workloads (short.h): their relations, drawn from
// splitmix64 with a fixed seed, and their statements in QUEL and SQL.
#include "bench/workloads/short.h"

#include <cstring>

#include "bench/workloads/datagen.h"

namespace quelkit::harness {

namespace {

// History's string, as the study's TP1 appends it.
const std::string kHistoryString(30, 'x');

const char* const kDepts[] = {"shoe", "toy", "candy", "books", "garden", "tools", "linen", "music", "sports", "food"};

// v in base 26, `digits` letters, most significant first.
std::string letters(uint64_t v, int digits) {
  std::string s(size_t(digits), 'a');
  for (int k = digits - 1; k >= 0; --k, v /= 26) s[size_t(k)] = char('a' + v % 26);
  return s;
}

ShortValue num(int64_t i) { return {i, 0, {}}; }
ShortValue real(double f) { return {0, f, {}}; }
ShortValue text(std::string s) { return {0, 0, std::move(s)}; }

// One TP1 relation: id, the links, balance, and a string filling it to 100 bytes.
ShortTable tp1_table(const std::string& name, const std::vector<std::string>& ids, uint64_t n,
                     const std::vector<uint64_t>& link_ranges, SplitMix64& rng) {
  std::vector<std::pair<std::string, Type>> cols;
  for (const auto& id : ids) cols.push_back({id, Type::i4()});
  cols.push_back({"balance", Type::f8()});
  const uint32_t used = uint32_t(4 * ids.size() + 8);
  cols.push_back({"string", Type::c(100 - used)});
  ShortTable t{name, Schema::packed(cols), ids[0], {}};
  t.rows.reserve(n);
  for (uint64_t k = 0; k < n; ++k) {
    std::vector<ShortValue> row = {num(int64_t(k))};
    for (uint64_t range : link_ranges) row.push_back(num(int64_t(rng.next() % range)));
    row.push_back(real(double(rng.next() % 100000)));
    row.push_back(text(name + " " + std::to_string(k) + " " + std::string(60, 'x')));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

uint64_t ShortWorkload::statements() const {
  uint64_t n = 0;
  for (const auto& t : transactions) n += t.size();
  return n;
}

ShortWorkload make_emp_workload(uint64_t rows, uint64_t replaces, uint64_t seed) {
  SplitMix64 rng(seed);
  ShortTable emp{"emp",
                 Schema::packed({{"name", Type::c(16)},
                                 {"salary", Type::i4()},
                                 {"age", Type::i4()},
                                 {"dept", Type::c(10)},
                                 {"manager", Type::i4()}}),
                 "name",
                 {}};
  emp.rows.reserve(rows);
  for (uint64_t k = 0; k < rows; ++k) {
    // Unique by its first seven letters (k in base 26), then five drawn.
    std::string name = letters(k, 7) + letters(rng.next(), 5);
    emp.rows.push_back({text(std::move(name)), num(int64_t(10000 + rng.next() % 90000)),
                        num(int64_t(20 + rng.next() % 45)), text(kDepts[rng.next() % 10]),
                        num(int64_t(rng.next() % rows))});
  }
  ShortWorkload w{"emp", {}, "range of e is emp\nmodify emp to hash on name\n", {}};
  for (uint64_t k = 0; k < replaces && rows; ++k) {
    const auto& victim = emp.rows[rng.next() % rows];
    w.transactions.push_back({{ShortShape::EmpReplace, {num(int64_t(10000 + rng.next() % 90000)), victim[0]}}});
  }
  w.tables.push_back(std::move(emp));
  return w;
}

ShortWorkload make_tp1_workload(uint64_t accounts, uint64_t transactions, uint64_t seed) {
  SplitMix64 rng(seed);
  const uint64_t branches = std::max<uint64_t>(1, accounts / 10), tellers = std::max<uint64_t>(1, accounts);
  ShortWorkload w{"tp1", {}, "", {}};
  w.tables.push_back(tp1_table("branch", {"bid"}, branches, {}, rng));
  w.tables.push_back(tp1_table("teller", {"tid", "bid"}, tellers, {branches}, rng));
  w.tables.push_back(tp1_table("account", {"aid", "bid", "tid"}, accounts, {branches, tellers}, rng));
  w.tables.push_back({"history",
                      Schema::packed({{"bid", Type::i4()},
                                      {"tid", Type::i4()},
                                      {"aid", Type::i4()},
                                      {"amount", Type::f8()},
                                      {"string", Type::c(30)}}),
                      "",
                      {}});
  w.setup_quel =
      "range of a is account\nrange of t is teller\nrange of b is branch\n"
      "modify account to hash on aid\nmodify teller to hash on tid\nmodify branch to hash on bid\n";
  for (uint64_t k = 0; k < transactions && accounts; ++k) {
    const ShortValue aid = num(int64_t(rng.next() % accounts)), tid = num(int64_t(rng.next() % tellers)),
                     bid = num(int64_t(rng.next() % branches));
    w.transactions.push_back({{ShortShape::AccountRetrieve, {aid}},
                              {ShortShape::AccountReplace, {aid}},
                              {ShortShape::TellerRetrieve, {tid}},
                              {ShortShape::TellerReplace, {tid}},
                              {ShortShape::BranchRetrieve, {bid}},
                              {ShortShape::BranchReplace, {bid}},
                              {ShortShape::HistoryAppend, {bid, tid, aid}}});
  }
  return w;
}

std::string short_quel(const ShortStmt& s) {
  auto i = [&](size_t k) { return std::to_string(s.args[k].i); };
  switch (s.shape) {
    case ShortShape::EmpReplace: return "replace e (salary = " + i(0) + ") where e.name = \"" + s.args[1].s + "\"";
    case ShortShape::AccountRetrieve: return "retrieve (a.all) where a.aid = " + i(0);
    case ShortShape::AccountReplace: return "replace a (balance = a.balance + 10.0) where a.aid = " + i(0);
    case ShortShape::TellerRetrieve: return "retrieve (t.all) where t.tid = " + i(0);
    case ShortShape::TellerReplace: return "replace t (balance = t.balance + 10.0) where t.tid = " + i(0);
    case ShortShape::BranchRetrieve: return "retrieve (b.all) where b.bid = " + i(0);
    case ShortShape::BranchReplace: return "replace b (balance = b.balance + 10.0) where b.bid = " + i(0);
    case ShortShape::HistoryAppend:
      return "append to history (bid = " + i(0) + ", tid = " + i(1) + ", aid = " + i(2) +
             ", amount = 10.0, string = \"" + kHistoryString + "\")";
  }
  return "";
}

const char* short_prepared_sql(ShortShape shape) {
  switch (shape) {
    case ShortShape::EmpReplace: return "UPDATE emp SET salary = ?1 WHERE name = ?2";
    case ShortShape::AccountRetrieve: return "SELECT * FROM account WHERE aid = ?1";
    case ShortShape::AccountReplace: return "UPDATE account SET balance = balance + 10.0 WHERE aid = ?1";
    case ShortShape::TellerRetrieve: return "SELECT * FROM teller WHERE tid = ?1";
    case ShortShape::TellerReplace: return "UPDATE teller SET balance = balance + 10.0 WHERE tid = ?1";
    case ShortShape::BranchRetrieve: return "SELECT * FROM branch WHERE bid = ?1";
    case ShortShape::BranchReplace: return "UPDATE branch SET balance = balance + 10.0 WHERE bid = ?1";
    case ShortShape::HistoryAppend:
      return "INSERT INTO history VALUES (?1, ?2, ?3, 10.0, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')";
  }
  return "";
}

std::string short_sql(const ShortStmt& s) {
  // The prepared statement's text with its values written in: the literal
  // text a user would send, one statement at a time.
  std::string sql = short_prepared_sql(s.shape), out;
  for (size_t k = 0; k < sql.size(); ++k) {
    if (sql[k] != '?') {
      out += sql[k];
      continue;
    }
    const ShortValue& v = s.args[size_t(sql[++k] - '1')];
    out += v.s.empty() ? std::to_string(v.i) : "'" + v.s + "'";
  }
  return out;
}

std::unique_ptr<Relation> short_relation(const ShortTable& t, uint32_t page_size) {
  auto rel = std::make_unique<Relation>(t.name, t.schema, page_size);
  rel->reserve_tuples(t.rows.size());
  std::vector<uint8_t> tuple(t.schema.tuple_len);
  for (const auto& row : t.rows) {
    for (size_t c = 0; c < t.schema.attrs.size(); ++c) {
      const Attribute& a = t.schema.attrs[c];
      uint8_t* p = tuple.data() + a.offset;
      if (a.type.kind == Tk::I4) {
        const int32_t v = int32_t(row[c].i);
        std::memcpy(p, &v, 4);
      } else if (a.type.kind == Tk::F8) {
        std::memcpy(p, &row[c].f, 8);
      } else {
        put_chars(p, a.type.len, row[c].s);
      }
    }
    rel->insert(tuple.data());
  }
  return rel;
}

}  // namespace quelkit::harness
