// quelkit's generators, storage and checksum against the independent Python
// oracle (test/oracle/oracle.py): their CSV (PARTS, Wisconsin) must be byte-identical, and the
// paper's queries computed here by plain loops over quelkit's relations must
// give the oracle's row counts and checksums (test/oracle/expected.json); the
// corpus's Wisconsin and aggregate checksums must be the oracle's.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "storage/checksum.h"
#include "bench/workloads/parts.h"
#include "runtime/runtime_inline.h"
#include "bench/workloads/wisconsin.h"

namespace quelkit::test {
namespace {

using namespace harness;
using nlohmann::json;

const std::string kOracle = std::string(QUELKIT_SOURCE_DIR) + "/test/oracle/oracle.py";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

const json& expected() {
  static const json j = json::parse(slurp(std::string(QUELKIT_SOURCE_DIR) + "/test/oracle/expected.json"));
  return j;
}

bool have_python() { return std::system("python3 -c pass >/dev/null 2>&1") == 0; }

std::string run(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  if (!p) return {};
  std::string out;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p.get())) > 0) out.append(buf, n);
  return out;
}

void expect_result(const json& want, const Checksum& got, const std::string& what) {
  EXPECT_EQ(uint64_t(want.at("rows").get<int64_t>()), got.rows) << what;
  EXPECT_EQ(want.at("checksum").get<std::string>(), checksum_hex(got.sum)) << what;
}

// Attribute readers for PARTS tuples of either pnum width.
struct PartsView {
  const Schema& s;
  int32_t pnum(const uint8_t* t) const {
    return s.attrs[0].type.kind == Tk::I2 ? load<int16_t>(t) : load<int32_t>(t + 0);
  }
  const uint8_t* pname(const uint8_t* t) const { return t + s.attrs[1].offset; }
  std::string color(const uint8_t* t) const {
    const uint8_t* c = t + s.attrs[2].offset;
    return std::string(reinterpret_cast<const char*>(c), rt::strip(c, 8));
  }
  int weight(const uint8_t* t) const { return load<int16_t>(t + s.attrs[3].offset); }
  int qoh(const uint8_t* t) const { return load<int16_t>(t + s.attrs[4].offset); }
  // QUEL: p.qoh < log(9.5) * p.weight, in f8.
  static bool below_log(int qoh, int weight) { return double(qoh) < std::log(9.5) * double(weight); }
};

TEST(Oracle, CsvIsByteIdentical) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  for (uint64_t n : {1, 210, 3360})
    for (bool wide : {false, true}) {
      std::ostringstream ours;
      write_parts_csv(ours, n, wide);
      std::string theirs = run("python3 " + kOracle + " csv --rows " + std::to_string(n) + (wide ? " --wide" : ""));
      EXPECT_EQ(ours.str(), theirs) << n << (wide ? " wide" : "");
    }
}

TEST(Oracle, WisconsinCsvIsByteIdentical) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  for (auto [n, seed] : {std::pair<uint64_t, uint64_t>{1, 1983}, {2, 1983}, {1000, 1983}, {1000, 1984}, {10000, 1983}}) {
    std::ostringstream ours;
    write_wisconsin_csv(ours, n, seed);
    std::string theirs =
        run("python3 " + kOracle + " wisconsin --rows " + std::to_string(n) + " --seed " + std::to_string(seed));
    EXPECT_EQ(ours.str(), theirs) << n << " seed " << seed;
  }
}

// test/queries/wisconsin.quel's checksum cases are the oracle's answers, in order.
TEST(Oracle, WisconsinQueriesMatchTheCorpus) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  std::string corpus = slurp(std::string(QUELKIT_SOURCE_DIR) + "/test/queries/wisconsin.quel"), want;
  const std::string tag = "/*= checksum ";
  for (size_t at = corpus.find(tag); at != std::string::npos; at = corpus.find(tag, at + 1))
    want += corpus.substr(at + tag.size(), corpus.find(" */", at) - at - tag.size()) + "\n";
  EXPECT_EQ(std::count(want.begin(), want.end(), '\n'), 13);
  EXPECT_EQ(run("python3 " + kOracle + " wisconsin-queries"), want);
}

// test/queries/aggregates.quel's checksum cases are the oracle's answers, in order.
TEST(Oracle, AggregateQueriesMatchTheCorpus) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  std::string corpus = slurp(std::string(QUELKIT_SOURCE_DIR) + "/test/queries/aggregates.quel"), want;
  const std::string tag = "/*= checksum ";
  for (size_t at = corpus.find(tag); at != std::string::npos; at = corpus.find(tag, at + 1))
    want += corpus.substr(at + tag.size(), corpus.find(" */", at) - at - tag.size()) + "\n";
  EXPECT_EQ(std::count(want.begin(), want.end(), '\n'), 7);
  EXPECT_EQ(run("python3 " + kOracle + " aggregate-queries"), want);
}

TEST(Oracle, ExpectedJsonIsCurrent) {
  if (!have_python()) GTEST_SKIP() << "python3 not found";
  EXPECT_EQ(run("python3 " + kOracle + " expected"),
            slurp(std::string(QUELKIT_SOURCE_DIR) + "/test/oracle/expected.json"))
      << "regenerate: python3 test/oracle/oracle.py expected > test/oracle/expected.json";
}

TEST(Oracle, HeldBackKeys) {
  std::vector<int32_t> want;
  for (const json& k : expected().at("held_back").at("3360")) want.push_back(int32_t(k.get<int64_t>()));
  EXPECT_EQ(parts_held_back(3360), want);
}

// (a)-(e) on heaps of 1, 210 and 3360 narrow tuples ((e) as a full scan).
TEST(Oracle, QueriesAToEOnTheHeap) {
  for (uint64_t n : {1, 210, 3360}) {
    const json& want = expected().at("queries").at(std::to_string(n));
    auto rel = make_parts(n, false, Structure::Heap);
    PartsView p{rel->schema()};
    Schema i2 = Schema::packed({{"x", Type::i2()}});
    Schema c_out = Schema::packed({{"pname", Type::c(20)}, {"pnum", Type::i2()}});
    Checksum a, b, c, d, e;
    uint8_t row[22];
    store<int16_t>(row, 1);
    a.add(i2, row);
    rel->for_each([&](Tid, const uint8_t* t) {
      store<int16_t>(row, int16_t(p.pnum(t)));
      b.add(i2, row);
      if (p.below_log(p.qoh(t), p.weight(t))) d.add(i2, row);
      if (p.pnum(t) < 2500) {
        uint8_t qoh[2];
        store<int16_t>(qoh, int16_t(p.qoh(t)));
        e.add(i2, qoh);
      }
      if (p.pnum(t) > 3 || std::memcmp(p.pname(t), "processor           ", 20) == 0 || p.color(t) == "black") {
        std::memcpy(row, p.pname(t), 20);
        store<int16_t>(row + 20, int16_t(p.pnum(t)));
        c.add(c_out, row);
      }
    });
    std::string at = " at " + std::to_string(n);
    expect_result(want.at("a"), a, "a" + at);
    expect_result(want.at("b"), b, "b" + at);
    expect_result(want.at("c"), c, "c" + at);
    expect_result(want.at("d"), d, "d" + at);
    expect_result(want.at("e"), e, "e" + at);
  }
}

// (e)-(i) on the wide keyed relation, ISAM and hash: q is fetched through the
// key lookup exactly as tuple substitution does it, so the access paths are
// checked against the oracle too.
TEST(Oracle, QueriesEToI) {
  const json& want = expected().at("keyed").at("3360");
  for (Structure st : {Structure::Isam, Structure::Hash}) {
    auto rel = make_parts(3360, true, st);
    PartsView p{rel->schema()};
    Schema one = Schema::packed({{"qoh", Type::i2()}});
    Schema two = Schema::packed({{"p", Type::i2()}, {"q", Type::i2()}});
    Checksum e, f, g, h, i;
    uint8_t row[4];
    auto lookup = [&](int32_t key, auto&& each) {
      KeyBounds kb;
      kb.kind = KeyBounds::Eq;
      kb.lo.i = key;
      rel->scan_pages(kb, [&](uint32_t pg_no) {
        const uint8_t* pg = rel->page(pg_no);
        for (uint16_t l = 0; l < page_nlines(pg); ++l)
          if (page_line(pg, l) && p.pnum(pg + page_line(pg, l)) == key) each(pg + page_line(pg, l));
        return true;
      });
    };
    rel->for_each([&](Tid, const uint8_t* t) {
      store<int16_t>(row, int16_t(p.qoh(t)));
      if (p.pnum(t) < 2500) e.add(one, row);
      bool black = p.color(t) == "black";
      bool p_low = p.below_log(p.qoh(t), p.weight(t));
      lookup(p.pnum(t), [&](const uint8_t* q) {
        store<int16_t>(row + 2, int16_t(p.qoh(q)));
        f.add(two, row);
        if (black) g.add(two, row);
        if (p.pnum(t) < 2500) h.add(one, row);
        if (black && p_low && p.below_log(p.qoh(q), p.weight(t))) i.add(two, row);
      });
    });
    std::string at = std::string(" on ") + structure_name(st);
    expect_result(want.at("e"), e, "e" + at);
    expect_result(want.at("f"), f, "f" + at);
    expect_result(want.at("g"), g, "g" + at);
    expect_result(want.at("h"), h, "h" + at);
    expect_result(want.at("i"), i, "i" + at);
  }
}

}  // namespace
}  // namespace quelkit::test
