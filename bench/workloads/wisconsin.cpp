// The Wisconsin generator. Everything here follows DESIGN.md "The Wisconsin
// data" to the bit: test/oracle/oracle.py reimplements it independently.
#include "bench/workloads/wisconsin.h"

#include <cctype>
#include <ostream>
#include <utility>

#include "frontend/frontend.h"

namespace quelkit::harness {

namespace {

// Attribute order; the integers' moduli (0: unique2 and the derived odd/even).
constexpr const char* kIntNames[kWisconsinInts] = {
    "unique1", "unique2",     "two",          "four",        "ten", "twenty", "hundred",
    "thousand", "twothousand", "fivethousand", "tenthousand", "odd", "even"};
constexpr int32_t kModuli[] = {2, 4, 10, 20, 100, 1000, 2000, 5000, 10000};
constexpr int kUniqueLetters = 7;

std::string letters_then_x(std::string head) {
  head.resize(kWisconsinStringLen, 'X');
  return head;
}

}  // namespace

Schema wisconsin_schema() {
  std::vector<std::pair<std::string, Type>> cols;
  for (const char* n : kIntNames) cols.emplace_back(n, Type::i4());
  for (const char* n : {"stringu1", "stringu2", "string4"}) cols.emplace_back(n, Type::c(kWisconsinStringLen));
  return Schema::packed(cols);
}

std::string wisconsin_string(uint32_t v) {
  std::string s(kUniqueLetters, 'A');
  for (int i = kUniqueLetters - 1; i >= 0; --i, v /= 26) s[size_t(i)] = char('A' + v % 26);
  return letters_then_x(std::move(s));
}

std::string wisconsin_string4(uint64_t unique2) {
  static constexpr char kCycle[] = {'A', 'H', 'O', 'V'};
  return letters_then_x(std::string(4, kCycle[unique2 % 4]));
}

std::vector<int32_t> wisconsin_unique1(uint64_t n, uint64_t seed) {
  std::vector<int32_t> p(n);
  for (uint64_t i = 0; i < n; ++i) p[i] = int32_t(i);
  SplitMix64 rng(seed);
  for (uint64_t i = n; i-- > 1;) std::swap(p[i], p[rng.next() % (i + 1)]);
  return p;
}

WisconsinGenerator::WisconsinGenerator(uint64_t n, uint64_t seed) : unique1_(wisconsin_unique1(n, seed)) {}

bool WisconsinGenerator::next(WisconsinRow& row) {
  if (done_ == unique1_.size()) return false;
  int32_t u1 = unique1_[done_], u2 = int32_t(done_);
  row.ints[0] = u1;
  row.ints[1] = u2;
  for (size_t m = 0; m < std::size(kModuli); ++m) row.ints[2 + m] = u1 % kModuli[m];
  int32_t hundred = row.ints[6];
  row.ints[11] = 2 * hundred + 1;
  row.ints[12] = 2 * hundred;
  row.stringu1 = wisconsin_string(uint32_t(u1));
  row.stringu2 = wisconsin_string(uint32_t(u2));
  row.string4 = wisconsin_string4(done_);
  ++done_;
  return true;
}

void pack_wisconsin_row(const Schema& schema, const WisconsinRow& row, uint8_t* t) {
  const auto& at = schema.attrs;
  for (int i = 0; i < kWisconsinInts; ++i) store<int32_t>(t + at[size_t(i)].offset, row.ints[size_t(i)]);
  put_chars(t + at[13].offset, kWisconsinStringLen, row.stringu1);
  put_chars(t + at[14].offset, kWisconsinStringLen, row.stringu2);
  put_chars(t + at[15].offset, kWisconsinStringLen, row.string4);
}

std::unique_ptr<Relation> make_wisconsin(uint64_t n, Structure s, uint32_t page_size, std::string name,
                                         uint64_t seed) {
  Schema schema = wisconsin_schema();
  auto rel = std::make_unique<Relation>(std::move(name), schema, page_size);
  std::vector<uint8_t> tuple(schema.tuple_len);
  rel->reserve_tuples(n);  // exactly: no growth slack held in the memory budget
  WisconsinGenerator g(n, seed);
  WisconsinRow r;
  while (g.next(r)) {
    pack_wisconsin_row(schema, r, tuple.data());
    rel->insert(tuple.data());
  }
  if (s != Structure::Heap) rel->modify(s, schema.find("unique2"), 0);
  return rel;
}

bool parse_wisconsin_spec(const std::string& spec, WisconsinSpec* out, std::string* err) {
  WisconsinSpec w;
  std::string rest = spec;
  bool study = rest == "study" || rest.starts_with("study:");
  if (study) {
    w.relations = {{"onek", 1000, kWisconsinSeed},
                   {"onek1", 1000, kWisconsinSeed},
                   {"onek2", 1000, kWisconsinSeed + 1},
                   {"tenk1", 10000, kWisconsinSeed},
                   {"tenk2", 10000, kWisconsinSeed + 1}};
    rest = "0" + rest.substr(5);  // a stand-in count, so the qualifiers parse as for N
  } else {
    WisconsinRelationSpec r{"wisc"};
    // NAME=N: an '=' before the first ':' (the one in seed=S is a qualifier's).
    const auto eq = rest.find('='), colon = rest.find(':');
    if (eq != std::string::npos && eq < colon) {
      r.name = rest.substr(0, eq);
      rest = rest.substr(eq + 1);
      bool ok = !r.name.empty() && std::isalpha(static_cast<unsigned char>(r.name[0]));
      for (char& c : r.name) {
        ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        c = char(std::tolower(static_cast<unsigned char>(c)));
      }
      if (!ok) {
        *err = "--wisconsin: '" + spec.substr(0, eq) + "' is not a relation name";
        return false;
      }
      if (frontend::reserved_word(r.name)) {  // `retrieve=10`: a relation no statement could name
        *err = "--wisconsin: '" + spec.substr(0, eq) + "' is a QUEL keyword, which cannot name a relation";
        return false;
      }
    }
    w.relations.push_back(r);
  }
  uint64_t rows = 0;
  std::vector<std::string> quals;
  if (!split_data_spec(rest, "--wisconsin", &rows, &quals, err)) {
    *err += " (or 'study')";
    return false;
  }
  if (!study) {
    if (rows > kWisconsinMaxRows) {
      *err = "--wisconsin: at most " + std::to_string(kWisconsinMaxRows) + " tuples";
      return false;
    }
    w.relations[0].rows = rows;
  }
  bool seeded = false;
  for (const std::string& q : quals) {
    if (parse_structure(q, &w.s)) continue;
    const std::string word = q.substr(0, q.find('='));
    Structure ignored = Structure::Heap;
    if (word != q && parse_structure(word, &ignored)) {
      *err = "--wisconsin: " + word + " takes no value, not '" + q + "'";
      return false;
    }
    if (word != "seed" || study) {
      *err = "--wisconsin: unknown qualifier '" + q + "' (heap, isam, hash" + (!study ? ", seed=S)" : word == "seed" ? "; study takes no seed)" : ")");
      return false;
    }
    if (seeded) {
      *err = "--wisconsin " + spec + ": more than one seed";
      return false;
    }
    seeded = true;
    const std::string digits = q.size() > 5 ? q.substr(5) : std::string();
    if (digits.empty()) {
      *err = "--wisconsin: seed= needs a number";
      return false;
    }
    if (digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos) {
      *err = "--wisconsin: seed= needs a whole number (at most 19 digits), not '" + digits + "'";
      return false;
    }
    w.relations[0].seed = std::stoull(digits);
  }
  *out = std::move(w);
  return true;
}

std::vector<std::unique_ptr<Relation>> make_wisconsin(const WisconsinSpec& spec, uint32_t page_size) {
  std::vector<std::unique_ptr<Relation>> out;
  for (const auto& r : spec.relations) out.push_back(make_wisconsin(r.rows, spec.s, page_size, r.name, r.seed));
  return out;
}

void write_wisconsin_csv(std::ostream& os, uint64_t n, uint64_t seed) {
  std::string line;
  for (const char* name : kIntNames) line += std::string(name) + ",";
  os << line << "stringu1,stringu2,string4\n";
  WisconsinGenerator g(n, seed);
  WisconsinRow r;
  while (g.next(r)) {
    line.clear();
    for (int32_t v : r.ints) line += std::to_string(v) + ',';
    line += r.stringu1 + ',' + r.stringu2 + ',' + r.string4 + '\n';
    os << line;
  }
}

}  // namespace quelkit::harness
