// copy in University INGRES's formats (storage/ingres_copy.h): a write/read
// round trip in every format over every type's awkward values, the copy
// manual page's own examples, its conversions, and one test per error the
// reader or writer reports (kind, message with its file place, position).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include <unistd.h>

#include "storage/ingres_copy.h"
#include "storage/page.h"
#include "test/harness/copy_rows.h"

namespace quelkit::test {
namespace {

using namespace harness;

const SrcPos kPos{2, 5};
const SourceRef kSrc = std::make_shared<Source>("t.quel", "\ncopy r () from \"x\"\n");


// `name = fmt` as the parser hands it over (fmt as written).
IngresColumn col(const std::string& name, const std::string& fmt) {
  auto f = parse_copy_format(fmt);
  EXPECT_TRUE(f) << fmt;
  return {name, f.value_or(CopyFormat{}), {}, {}};
}

std::vector<uint8_t> parse(const std::string& data, const Schema& sc, const std::vector<IngresColumn>& cols) {
  return parse_ingres(data, "data", sc, cols, kPos, kSrc);
}

std::string write(const Schema& sc, const std::vector<IngresColumn>& cols, const std::vector<std::vector<uint8_t>>& rows) {
  IngresWriter w(sc, cols, "out", kPos, kSrc);
  for (const auto& r : rows) w.add(r.data());
  return w.bytes();
}

// The error f raises, or a failure if it raises none.
template <class F>
Error error_of(F f) {
  try {
    f();
  } catch (const QuelError& e) {
    return e.err;
  }
  ADD_FAILURE() << "no error";
  return {};
}

Error parse_error(const std::string& data, const Schema& sc, const std::vector<IngresColumn>& cols) {
  return error_of([&] { parse(data, sc, cols); });
}

void expect_io(const Error& e, const std::string& message) {
  EXPECT_EQ(e.kind, ErrKind::IO);
  EXPECT_EQ(e.message, message);
  EXPECT_EQ(e.pos, kPos);
}

std::vector<std::vector<uint8_t>> awkward_rows(const Schema& sc) {
  return {
      row(sc, -128, -32768, INT32_MIN, 0.1f, 0.1, "plain"),
      row(sc, 127, 32767, INT32_MAX, -0.0f, -0.0, "a,b\tc|d"),
      row(sc, 0, 0, 0, std::numeric_limits<float>::max(), 1e300, "back\\sl"),
      row(sc, 1, -1, 7, 1e-45f, 5e-324, "two\nlines"),
      row(sc, 5, 6, 8, 3.0f, 2.5, ""),
      row(sc, 5, 6, 8, 16777216.0f, 1.0 / 3, "  lead sp"),
  };
}

TEST(IngresCopy, RoundTripsInEveryFormat) {
  const Schema sc = all_types();
  const auto rows = awkward_rows(sc);
  std::vector<uint8_t> want;
  for (const auto& r : rows) want.insert(want.end(), r.begin(), r.end());
  const std::vector<std::vector<IngresColumn>> lists = {
      {},  // the bulk copy
      {col("a", "i1"), col("b", "i2"), col("c", "i4"), col("d", "f4"), col("e", "f8"), col("s", "c10")},
      // binary fields in another order and width, with a record separator
      {col("s", "c10"), col("e", "f8"), col("d", "f8"), col("c", "i4"), col("b", "i4"), col("a", "i2"),
       col("nl", "d1")},
      // text fields: fixed, then ended by each kind of delimiter
      {col("a", "c4"), col("b", "c6"), col("c", "c11"), col("d", "c16"), col("e", "c24"), col("s", "c10")},
      {col("a", "c0comma"), col("b", "c0tab"), col("c", "c0\"|"), col("d", "c0sp"), col("e", "c0nul"),
       col("s", "c0nl")},
      {col("s", "c0colon"), col("a", "c0dash"), col("b", "c0lparen"), col("c", "c0rparen"), col("d", "c0z"),
       col("e", "c0&")},
      // the manual's into example: bare c0 with dummy delimiters
      {col("s", "c0"), col("comma", "d1"), col("a", "c0"), col("tab", "d1"), col("b", "c0"), col("comma", "d1"),
       col("c", "c0"), col("comma", "d1"), col("d", "c0"), col("comma", "d1"), col("e", "c0"), col("nl", "d2")},
  };
  for (const auto& cols : lists) {
    std::string data = write(sc, cols, rows);
    SCOPED_TRACE(data);
    // Reading skips what a copy into's dummies wrote: d1 reads as dN, the
    // bare c0's delimiters end their fields, the extra newline of nl = d2
    // as a d1.
    std::vector<IngresColumn> back;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].fmt.kind == CopyFormat::Dummy && i > 0 && cols[i - 1].fmt.kind == CopyFormat::Var) {
        if (cols[i].fmt.len > 1) back.push_back(col("x", "d" + std::to_string(cols[i].fmt.len - 1)));
        continue;
      }
      back.push_back(cols[i]);
    }
    EXPECT_EQ(parse(data, sc, back), want);  // bit-equal, -0.0 and subnormals included
  }
}

TEST(IngresCopy, BulkCopyIsTheTupleImage) {
  const Schema sc = all_types();
  const auto rows = awkward_rows(sc);
  std::string image;
  for (const auto& r : rows) image.append(reinterpret_cast<const char*>(r.data()), r.size());
  EXPECT_EQ(write(sc, {}, rows), image);
  // Through a file, as copy into / copy from do it.
  const std::string path = ::testing::TempDir() + "/quelkit_ingres_copy_" + std::to_string(::getpid());
  Relation rel("r", sc);
  for (const auto& r : rows) rel.insert(r.data());
  write_ingres_file(path, rel, {}, kPos, kSrc);
  const std::vector<uint8_t> back = read_ingres_file(path, sc, {}, kPos, kSrc);
  EXPECT_EQ(std::string(back.begin(), back.end()), image);
  std::filesystem::remove(path);
  // Read and written at once, it checks what the field-by-field path checks.
  const auto nan = row(sc, 1, 2, 3, std::numeric_limits<float>::quiet_NaN(), 0, "x");
  expect_io(parse_error(image + std::string(nan.begin(), nan.end()), sc, {}),
            "data: record 7 (byte 181): column d: the f4 is not a finite number");
  expect_io(error_of([&] { write(sc, {}, {rows[0], nan}); }), "out: record 2: attribute d: holds a non-finite value");
}

TEST(IngresCopy, ManualExamples) {
  const Schema emp = Schema::packed({{"name", Type::c(10)}, {"sal", Type::f4()}, {"bdate", Type::i2()},
                                     {"mgr", Type::c(10)}});
  auto tuple = [&](const std::string& name, float sal, int bdate, const std::string& mgr) {
    std::vector<uint8_t> t(emp.tuple_len, ' ');
    std::memcpy(t.data(), name.data(), name.size());
    store<float>(t.data() + 10, sal);
    store<int16_t>(t.data() + 14, int16_t(bdate));
    std::memset(t.data() + 16, ' ', 10);
    std::memcpy(t.data() + 16, mgr.data(), mgr.size());
    return t;
  };
  // copy emp (name=c10,sal=f4,bdate=i2,mgr=c10,xxx=d1) from ...: fixed
  // fields, the dummy's byte read and dropped, its name no attribute's.
  std::string fixed = "Blow      ";
  float sal = 1200.5f;
  int16_t bdate = 1947;
  fixed.append(reinterpret_cast<const char*>(&sal), 4).append(reinterpret_cast<const char*>(&bdate), 2);
  fixed += "Smith     \n";
  EXPECT_EQ(parse(fixed, emp, {col("name", "c10"), col("sal", "f4"), col("bdate", "i2"), col("mgr", "c10"),
                               col("xxx", "d1")}),
            tuple("Blow", 1200.5f, 1947, "Smith"));
  // copy emp (name=c0,comma=d1,sal=c0,nl=d1) into ...: the name at the
  // domain's width, its comma escaped, the dummies' delimiters by name.
  EXPECT_EQ(write(emp, {col("name", "c0"), col("comma", "d1"), col("sal", "c0"), col("nl", "d1")},
                  {tuple("Blow, Joe", 1200.5f, 0, "")}),
            "Blow\\, Joe ,1200.5\n");
  // name = c0: "Blow\, Joe," is accepted as "Blow, Joe"; a bare c0 ends at
  // the first comma, tab or newline; c0"Z" at a Z; d0 reads and drops.
  EXPECT_EQ(parse("Blow\\, Joe,12\tx\n", emp, {col("name", "c0"), col("sal", "c0"), col("mgr", "c0")}),
            tuple("Blow, Joe", 12, 0, "x"));
  EXPECT_EQ(parse("AbcZskip me%7\n", emp, {col("name", "c0\"Z"), col("x", "d0\"%"), col("bdate", "c0nl")}),
            tuple("Abc", 0, 7, ""));
  // Into: d0 writes nothing, d0delim its delimiter, dN its name's N times.
  EXPECT_EQ(write(emp, {col("bdate", "c0"), col("x", "d0"), col("y", "d0tab"), col("dash", "d3"), col("sp", "d1"),
                        col("q", "d2"), col("mgr", "c3"), col("nul", "d1")},
                  {tuple("", 0, -5, "Jones")}),
            std::string("-5\t--- qqJon\0", 13));
}

TEST(IngresCopy, ConvertsAsTheManualSays) {
  const Schema sc = all_types();
  // Text into numbers, blanks around them allowed (fixed fields are padded);
  // text into characters padded or truncated on the right.
  EXPECT_EQ(parse("  -7 30000 120.5 1e3 a much longer text\n", sc,
                  {col("a", "c4"), col("b", "c6"), col("c", "c3"), col("d", "c0sp"), col("e", "c0sp"),
                   col("s", "c0nl")}),
            row(sc, -7, 30000, 12, 0.5f, 1000, "a much lon"));
  // Binary numbers into characters as their text, characters into binary
  // numbers by their text (both ways).
  const Schema t = Schema::packed({{"n", Type::c(6)}, {"m", Type::i2()}});
  std::string data;
  int32_t v = -4200;
  data.append(reinterpret_cast<const char*>(&v), 4);
  data += " 99 \n";
  std::vector<uint8_t> want(t.tuple_len, ' ');
  std::memcpy(want.data(), "-4200", 5);
  store<int16_t>(want.data() + 6, 99);
  EXPECT_EQ(parse(data, t, {col("n", "i4"), col("m", "c4"), col("nl", "d1")}), want);
  EXPECT_EQ(write(t, {col("n", "i4"), col("m", "c4"), col("nl", "d1")}, {want}),
            data.substr(0, 4) + "  99\n");  // numbers right-justified in cN
  // An integer into a float domain converts; f8 into f4 rounds.
  double third = 1.0 / 3;
  std::string d8(reinterpret_cast<const char*>(&third), 8);
  std::vector<uint8_t> got = parse(d8 + "\n", sc, {col("d", "f8"), col("nl", "d1")});
  EXPECT_EQ(load<float>(got.data() + 7), float(third));
  // A float into an integer truncates toward zero, as assignment does; one
  // out of the integer's range is an error.
  std::string fl;
  for (float x : {2.7f, -2.7f, 127.9f, 128.0f}) fl.append(reinterpret_cast<const char*>(&x), 4);
  expect_io(parse_error(fl, sc, {col("a", "f4")}), "data: record 4 (byte 12): column a: 128 does not fit attribute a (i1)");
  got = parse(fl.substr(0, 12), sc, {col("a", "f4")});
  EXPECT_EQ(int8_t(got[0]), 2);
  EXPECT_EQ(int8_t(got[sc.tuple_len]), -2);
  EXPECT_EQ(int8_t(got[2 * sc.tuple_len]), 127);
  EXPECT_EQ(write(sc, {col("d", "i2")}, {row(sc, 0, 0, 0, -3.9f, 0, "")}), std::string("\xfd\xff", 2));
}

TEST(IngresCopy, BadNumbersAndOverflowAreErrorsAtTheirLine) {
  const Schema sc = all_types();
  expect_io(parse_error("1,2\n3,x4\n", sc, {col("a", "c0"), col("b", "c0nl")}),
            "data:2: column b: \"x4\" is not an integer");
  expect_io(parse_error("1\n2\n300\n", sc, {col("a", "c0nl")}), "data:3: column a: 300 is out of range for i1");
  expect_io(parse_error("1\n\n", sc, {col("c", "c0nl")}), "data:2: column c: \"\" is not an integer");
  expect_io(parse_error("1e39\n", sc, {col("d", "c0nl")}), "data:1: column d: 1e39 is out of range for f4");
  // A binary number too large for its domain, and a NaN, at their record and byte.
  int32_t big = 40000;
  expect_io(parse_error(std::string("\0\0\0\0", 4) + std::string(reinterpret_cast<const char*>(&big), 4), sc,
                        {col("b", "i4")}),
            "data: record 2 (byte 4): column b: 40000 does not fit attribute b (i2)");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  expect_io(parse_error(std::string(reinterpret_cast<const char*>(&nan), 4), sc, {col("d", "f4")}),
            "data: record 1 (byte 0): column d: the f4 is not a finite number");
  // Writing: a number that does not fit its format, a character domain that is no number.
  const Schema t = Schema::packed({{"n", Type::c(6)}, {"m", Type::i4()}});
  std::vector<uint8_t> tup(t.tuple_len, ' ');
  std::memcpy(tup.data(), "12x", 3);
  store<int32_t>(tup.data() + 6, 123456);
  expect_io(error_of([&] { write(t, {col("m", "i2")}, {tup}); }),
            "out: record 1: attribute m: 123456 does not fit format i2");
  expect_io(error_of([&] { write(t, {col("m", "c4")}, {tup}); }),
            "out: record 1: attribute m: 123456 does not fit format c4");
  expect_io(error_of([&] { write(t, {col("n", "i2")}, {tup}); }), "out: record 1: attribute n: \"12x\" is not an integer");
}

TEST(IngresCopy, ShortAndUnendedFieldsAreErrors) {
  const Schema sc = all_types();
  // A short fixed field: the record and the byte it starts at.
  expect_io(parse_error(std::string(29 + 5, 'a'), sc, {}),
            "data: record 2 (byte 32): column c: the file ends after 2 of its 4 bytes (a short record)");
  expect_io(parse_error("1234567", sc, {col("c", "c4"), col("s", "c4")}),
            "data: record 1 (byte 4): column s: the file ends after 3 of its 4 bytes (a short record)");
  expect_io(parse_error("1,2,\n3,4", sc, {col("a", "c0comma"), col("b", "c0comma"), col("x", "d1")}),
            "data: record 2 (byte 7): column b: the file ends before the ',' that ends it");
  // The last line without its newline ends its record.
  EXPECT_EQ(parse("1\n2", sc, {col("a", "c0nl")}).size(), 2 * size_t(sc.tuple_len));
  // /dev/zero read as c0nl: the field limit, not a read without end.
  expect_io(parse_error(std::string(kIngresMaxFieldBytes + 1, '\0'), sc, {col("s", "c0nl")}),
            "data:1: column s: longer than 1 MiB with no newline (is the format right?)");
  // A backslash at the end escapes nothing.
  expect_io(parse_error("ab\\", sc, {col("s", "c0comma")}), "data: record 1 (byte 0): column s: the file ends before the ',' that ends it");
}

TEST(IngresCopy, ColumnListErrorsAreAtTheirCaret) {
  const Schema sc = all_types();
  const SrcPos name{2, 10}, fmt{2, 14};
  auto e = parse_error("", sc, {{"zz", *parse_copy_format("c0"), name, fmt}});
  EXPECT_EQ(e.kind, ErrKind::Name);
  EXPECT_EQ(e.message, "copy: no attribute zz");
  EXPECT_EQ(e.pos, name);
  e = parse_error("", sc, {col("a", "c0"), {"a", *parse_copy_format("i2"), name, fmt}});
  EXPECT_EQ(e.message, "copy: attribute a listed twice");
  EXPECT_EQ(e.pos, name);
  // A dummy's name is no attribute's when reading; writing, it names a delimiter.
  EXPECT_TRUE(parse("", sc, {{"zz", *parse_copy_format("d1"), name, fmt}}).empty());
  e = error_of([&] { IngresWriter w(sc, {{"zz", *parse_copy_format("d1"), name, fmt}}, "out", kPos, kSrc); });
  EXPECT_EQ(e.kind, ErrKind::Name);
  EXPECT_EQ(e.pos, name);
  EXPECT_NE(e.message.find("'zz' names none"), std::string::npos) << e.message;
}

TEST(IngresCopy, FormatNames) {
  for (const char* ok : {"c0", "c0nl", "c0tab", "c0sp", "c0nul", "c0null", "c0comma", "c0colon", "c0dash",
                         "c0lparen", "c0rparen", "c0x", "c0&", "c0\"Z", "d0", "d0nl", "d1", "d255", "c1", "c255",
                         "i1", "i2", "i4", "f4", "f8"})
    EXPECT_TRUE(parse_copy_format(ok)) << ok;
  for (const char* bad : {"c", "d", "c256", "d256", "d01", "d1nl", "c0newline", "c0\"ab", "c0\"", "i8", "x0", "c1nl"})
    EXPECT_FALSE(parse_copy_format(bad)) << bad;
  EXPECT_EQ(parse_copy_format("c0\"Z")->delim, 'Z');  // quoted: as written
  EXPECT_EQ(parse_copy_format("c0nul")->delim, 0);
  EXPECT_EQ(parse_copy_format("c0")->delim, CopyFormat::kAnyEnd);
  EXPECT_EQ(parse_copy_format("d7")->len, 7u);
}

}  // namespace
}  // namespace quelkit::test
