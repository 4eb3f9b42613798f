// The result checksum against a hand computation: the row encoding is written
// out byte by byte here, hashed with FNV-1a and mixed with splitmix64's output
// function, all spelled out in the test rather than taken from the runtime.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "storage/checksum.h"
#include "storage/page.h"
#include "runtime/runtime_inline.h"

namespace quelkit::test {
namespace {

using namespace harness;

uint64_t fnv(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ULL;
  return h;
}
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// (i2 -7, c5 "ab", f4 1.5, i4 100000, f8 -0.0)
Schema sample_layout() {
  return Schema::packed(
      {{"a", Type::i2()}, {"b", Type::c(5)}, {"c", Type::f4()}, {"d", Type::i4()}, {"e", Type::f8()}});
}
std::vector<uint8_t> sample_row(const Schema& s) {
  std::vector<uint8_t> row(s.tuple_len);
  store<int16_t>(row.data(), -7);
  std::memcpy(row.data() + 2, "ab   ", 5);
  store<float>(row.data() + 7, 1.5f);
  store<int32_t>(row.data() + 11, 100000);
  store<double>(row.data() + 15, -0.0);
  return row;
}

TEST(Checksum, RowHashByHand) {
  Schema s = sample_layout();
  auto row = sample_row(s);
  std::vector<uint8_t> enc = {
      0xf9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // -7 as 8-byte LE
      'a',  'b',  0x00,                                  // chars, blanks stripped, NUL
      0,    0,    0,    0,    0,    0,    0xf8, 0x3f,  // 1.5 as f8
      0xa0, 0x86, 0x01, 0,    0,    0,    0,    0,     // 100000
      0,    0,    0,    0,    0,    0,    0,    0x80,  // -0.0 keeps its sign bit
  };
  EXPECT_EQ(fnv(enc), 0xaed7ad68b10c6876ULL);  // oracle.py agrees
  EXPECT_EQ(row_hash(s, row.data()), mix(fnv(enc)));
  EXPECT_EQ(row_hash(s, row.data()), 0x6bc3d5133376278dULL);
}

TEST(Checksum, WidthsDoNotMatterOnlyValues) {
  // Query (a): one i2 column of value 1. An i4 or i1 1 hashes the same.
  uint8_t one2[2], one4[4], one1[1] = {1};
  store<int16_t>(one2, 1);
  store<int32_t>(one4, 1);
  EXPECT_EQ(row_hash(Schema::packed({{"a", Type::i2()}}), one2), 0x5ca6bbcbb1e85355ULL);
  EXPECT_EQ(row_hash(Schema::packed({{"a", Type::i4()}}), one4), 0x5ca6bbcbb1e85355ULL);
  EXPECT_EQ(row_hash(Schema::packed({{"a", Type::i1()}}), one1), 0x5ca6bbcbb1e85355ULL);
  // c3 "ab " and c8 "ab" encode alike; the empty string is just the NUL.
  EXPECT_EQ(row_hash(Schema::packed({{"s", Type::c(3)}}), reinterpret_cast<const uint8_t*>("ab ")),
            row_hash(Schema::packed({{"s", Type::c(8)}}), reinterpret_cast<const uint8_t*>("ab      ")));
  EXPECT_EQ(row_hash(Schema::packed({{"s", Type::c(2)}}), reinterpret_cast<const uint8_t*>("  ")),
            mix(fnv({0})));
  // 0.0 and -0.0 differ (bit-equal values).
  uint8_t pz[8], nz[8];
  store<double>(pz, 0.0);
  store<double>(nz, -0.0);
  Schema f8 = Schema::packed({{"f", Type::f8()}});
  EXPECT_NE(row_hash(f8, pz), row_hash(f8, nz));
}

TEST(Checksum, SumIsOrderFreeDuplicateSensitiveAndWraps) {
  Schema s = sample_layout();
  auto row = sample_row(s);
  std::vector<uint8_t> rows(row);
  rows.insert(rows.end(), row.begin(), row.end());
  store<int16_t>(rows.data() + s.tuple_len, 8);  // second row differs

  Checksum ab, ba;
  ab.add_rows(s, rows.data(), 2);
  ba.add(s, rows.data() + s.tuple_len);
  ba.add(s, rows.data());
  EXPECT_EQ(ab, ba);
  EXPECT_EQ(ab.rows, 2u);
  EXPECT_EQ(ab.sum, row_hash(s, rows.data()) + row_hash(s, rows.data() + s.tuple_len));

  Checksum dup;
  for (int i = 0; i < 3; ++i) dup.add(s, row.data());
  EXPECT_EQ(dup.sum, 3 * row_hash(s, row.data()));  // mod 2^64
  EXPECT_NE(dup.sum, row_hash(s, row.data()));
}

TEST(Checksum, Hex) {
  EXPECT_EQ(checksum_hex(0), "0000000000000000");
  EXPECT_EQ(checksum_hex(0x6bc3d5133376278dULL), "6bc3d5133376278d");
  EXPECT_EQ(checksum_hex(0x0325b0674e76f2c0ULL), "0325b0674e76f2c0");
  EXPECT_EQ(checksum_hex(~0ULL), "ffffffffffffffff");
}

TEST(Checksum, ManyRowsHashedInLockStepMatchTheByteSerialDefinition) {
  // add_rows hashes several rows at once; strings of every stripped length
  // (empty, full, blanks inside, over a word of blanks) and rows left over
  // after the last full group must give the definition's digest.
  Schema s = Schema::packed({{"n", Type::c(19)}, {"i", Type::i1()}, {"f", Type::f4()}, {"t", Type::c(3)}});
  const char* names[] = {"", "a", "ab cd", "bolt", "processor", "x                 y", "nineteen characters",
                         " lead", "gear", "cam", "       ", "ok"};
  const size_t n = sizeof names / sizeof *names;
  std::vector<uint8_t> rows(n * s.tuple_len, ' ');
  uint64_t expect = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* r = rows.data() + i * s.tuple_len;
    std::memcpy(r, names[i], std::strlen(names[i]));
    store<int8_t>(r + 19, int8_t(i % 2 ? -128 : 127 - int(i)));
    store<float>(r + 20, i == 3 ? -0.0f : 0.1f * float(i));
    std::memcpy(r + 24, i % 3 ? "ab " : "xyz", 3);
    std::vector<uint8_t> enc;
    std::string_view name = rt::strip(names[i]);
    enc.insert(enc.end(), name.begin(), name.end());
    enc.push_back(0);
    int64_t iv = load<int8_t>(r + 19);
    for (int b = 0; b < 8; ++b) enc.push_back(uint8_t(uint64_t(iv) >> (8 * b)));
    double fv = double(load<float>(r + 20));
    uint64_t fb;
    std::memcpy(&fb, &fv, 8);
    for (int b = 0; b < 8; ++b) enc.push_back(uint8_t(fb >> (8 * b)));
    const char* t = i % 3 ? "ab" : "xyz";
    enc.insert(enc.end(), t, t + std::strlen(t));
    enc.push_back(0);
    expect += mix(fnv(enc));
  }
  for (size_t count = 0; count <= n; ++count) {
    Checksum all;
    all.add_rows(s, rows.data(), count);
    uint64_t want = 0;
    for (size_t i = 0; i < count; ++i) want += row_hash(s, rows.data() + i * s.tuple_len);
    EXPECT_EQ(all.sum, want) << count << " rows";
    EXPECT_EQ(all.rows, count);
  }
  Checksum all;
  all.add_rows(s, rows.data(), n);
  EXPECT_EQ(all.sum, expect);
}

}  // namespace
}  // namespace quelkit::test
