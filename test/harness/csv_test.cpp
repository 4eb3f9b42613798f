// copy's CSV: a write/read round trip over every type's awkward values, the
// header mapping rules, and one test per error the reader or writer reports
// (kind, position and the `file:line:` prefix).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <unistd.h>

#include "storage/csv.h"
#include "test/harness/copy_rows.h"
#include "bench/workloads/parts.h"

namespace quelkit::test {
namespace {

using namespace harness;

const SrcPos kPos{4, 9};
const SourceRef kSrc = std::make_shared<Source>("t.quel", "\n\n\ncopy r (a = i4) from \"x\"\n");


std::vector<uint8_t> parse(const std::string& text, const Schema& sc, std::vector<CopyColumn> cols = {}) {
  return parse_csv(text, "data.csv", sc, cols, kPos, kSrc);
}

// The error parse() raises, or a failure if it raises none.
Error parse_error(const std::string& text, const Schema& sc, std::vector<CopyColumn> cols = {}) {
  try {
    parse(text, sc, cols);
  } catch (const QuelError& e) {
    return e.err;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

void expect_io(const Error& e, const std::string& message) {
  EXPECT_EQ(e.kind, ErrKind::IO);
  EXPECT_EQ(e.message, message);
  EXPECT_EQ(e.pos, kPos);
  EXPECT_EQ(e.src, kSrc);
}

// A file in this process's own temporary directory, which is removed, with
// whatever is left in it, when the process ends.
std::string temp_path(const std::string& leaf) {
  struct Dir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("quelkit_csv_test_" + std::to_string(::getpid()));
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  std::filesystem::create_directories(dir.path);
  return (dir.path / leaf).string();
}

TEST(Csv, RoundTripsEveryType) {
  Schema sc = all_types();
  std::vector<std::vector<uint8_t>> rows = {
      row(sc, -128, -32768, INT32_MIN, 0.1f, 0.1, "plain"),
      row(sc, 127, 32767, INT32_MAX, -0.0f, -0.0, "a,b"),
      row(sc, 0, 0, 0, std::numeric_limits<float>::max(), 1e300, "say \"hi\""),
      row(sc, 1, -1, 7, 1e-45f, 5e-324, "two\nlines"),
      row(sc, 5, 6, 8, 3.0f, 2.5, ""),
      row(sc, 5, 6, 8, 16777216.0f, 1.0 / 3, "  lead"),
  };
  CsvWriter w(sc, {}, "out.csv", kPos, kSrc);
  for (const auto& r : rows) w.add(r.data());
  EXPECT_EQ(w.text().substr(0, w.text().find('\n')), "a,b,c,d,e,s");
  EXPECT_NE(w.text().find("\n127,32767,2147483647,-0,-0,\"a,b\"\n"), std::string::npos) << w.text();
  EXPECT_NE(w.text().find(",0.1,0.1,plain\n"), std::string::npos) << w.text();
  EXPECT_NE(w.text().find("\"say \"\"hi\"\"\""), std::string::npos);
  EXPECT_NE(w.text().find(",3,2.5,\n"), std::string::npos);

  std::vector<uint8_t> back = parse(w.text(), sc);
  std::vector<uint8_t> want;
  for (const auto& r : rows) want.insert(want.end(), r.begin(), r.end());
  EXPECT_EQ(back, want);  // bit-equal, -0.0 and subnormals included

  // Through a file, as copy into / copy from do it.
  std::string path = temp_path("round.csv");
  Relation rel("r", sc);
  for (const auto& r : rows) rel.insert(r.data());
  write_csv_file(path, rel, {}, kPos, kSrc);
  EXPECT_EQ(read_csv_file(path, sc, {}, kPos, kSrc), want);
  std::filesystem::remove(path);
}

TEST(Csv, ColumnsMapByHeaderNameCaseInsensitively) {
  Schema sc = all_types();
  // Extra header columns are ignored; unlisted attributes are 0 or blank;
  // CRLF line ends are accepted; a value may be given in a narrower format.
  std::string text = "S,extra,C,B\r\nxy,ignored,-5,12\r\n\"q\",,40000,-3\r\n";
  auto got = parse(text, sc, {{"c", Type::i4()}, {"s", Type::c(4)}, {"b", Type::i2()}});
  std::vector<uint8_t> want = row(sc, 0, 12, -5, 0, 0, "xy");
  auto r2 = row(sc, 0, -3, 40000, 0, 0, "q");
  want.insert(want.end(), r2.begin(), r2.end());
  EXPECT_EQ(got, want);
  // An integer format into a float attribute converts.
  auto f = parse("d,e\n3,-4\n", sc, {{"d", Type::i4()}, {"e", Type::i2()}});
  EXPECT_EQ(load<float>(f.data() + 7), 3.0f);
  EXPECT_EQ(load<double>(f.data() + 11), -4.0);
  // A header alone is an empty relation; a trailing blank in a char is padding.
  EXPECT_TRUE(parse("a,b,c,d,e,s\n", sc).empty());
  auto pad = parse("s\nabcdefghij   \n", sc, {{"s", Type::c(10)}});
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(pad.data() + 19), 10), "abcdefghij");
  // A one-column file may hold an empty value on an empty line.
  auto one = parse("s\n\nz\n", sc, {{"s", Type::c(10)}});
  ASSERT_EQ(one.size(), 2 * sc.tuple_len);
  EXPECT_EQ(one[19], ' ');
  EXPECT_EQ(one[sc.tuple_len + 19], 'z');
}

TEST(Csv, ReaderErrors) {
  Schema sc = all_types();
  std::vector<CopyColumn> b_only{{"b", Type::i2()}};
  std::vector<CopyColumn> s_only{{"s", Type::c(3)}};
  std::vector<CopyColumn> d_only{{"d", Type::f4()}};
  std::vector<CopyColumn> e_only{{"e", Type::f8()}};

  expect_io(parse_error("", sc, b_only), "data.csv:1: no header line");
  expect_io(parse_error("x,y\n1,2\n", sc, b_only), "data.csv:1: no column b in the header");
  // Lines ended by CR alone read as one: the message says why b is not found.
  expect_io(parse_error("a,b\r1,2\r", sc, {{"b", Type::i2()}, {"s", Type::c(3)}}),
            "data.csv:1: no column b in the header (it holds a carriage return: lines that end in CR alone are not "
            "read as lines)");
  // A name with blanks around it is not the column: the message says which it is.
  expect_io(parse_error("a ,b \n1,2\n", sc, b_only),
            "data.csv:1: no column b in the header (the header has \"b \": blanks around a name are part of it)");
  expect_io(parse_error("b,B\n1,2\n", sc, b_only), "data.csv:1: column b appears twice in the header");
  expect_io(parse_error("b,x\n1,2\n3\n", sc, b_only), "data.csv:3: expected 2 fields, found 1");
  expect_io(parse_error("b\n1\n2,3\n", sc, b_only), "data.csv:3: expected 1 fields, found 2");
  expect_io(parse_error("b\n1\n 2\n", sc, b_only), "data.csv:3: column b: \" 2\" is not an integer");
  expect_io(parse_error("b\n1.0\n", sc, b_only), "data.csv:2: column b: \"1.0\" is not an integer");
  expect_io(parse_error("b\n\n", sc, b_only), "data.csv:2: column b: \"\" is not an integer");
  expect_io(parse_error("b\n+1\n", sc, b_only), "data.csv:2: column b: \"+1\" is not an integer");
  expect_io(parse_error("b\n32768\n", sc, b_only), "data.csv:2: column b: 32768 is out of range for i2");
  expect_io(parse_error("b\n99999999999999999999\n", sc, b_only),
            "data.csv:2: column b: 99999999999999999999 is out of range for i2");
  // Fits the column's format but not the attribute.
  expect_io(parse_error("b\n40000\n", sc, {{"b", Type::i4()}}),
            "data.csv:2: column b: 40000 does not fit attribute b (i2)");
  expect_io(parse_error("d\n1e39\n", sc, {{"d", Type::f8()}}),
            "data.csv:2: column d: 1e39 does not fit attribute d (f4)");
  expect_io(parse_error("d\n1e39\n", sc, d_only), "data.csv:2: column d: 1e39 is out of range for f4");
  expect_io(parse_error("e\n1e999\n", sc, e_only), "data.csv:2: column e: 1e999 is out of range for f8");
  expect_io(parse_error("e\nnan\n", sc, e_only), "data.csv:2: column e: \"nan\" is not a finite number");
  expect_io(parse_error("e\ninf\n", sc, e_only), "data.csv:2: column e: \"inf\" is not a finite number");
  expect_io(parse_error("e\n1.5x\n", sc, e_only), "data.csv:2: column e: \"1.5x\" is not a number");
  expect_io(parse_error("s\nabcd\n", sc, s_only), "data.csv:2: column s: value longer than c3");
  expect_io(parse_error("s\nabcdefghijk\n", sc, {{"s", Type::c(20)}}),
            "data.csv:2: column s: abcdefghijk does not fit attribute s (c10)");
  // Quoting: line numbers are those where the record starts.
  expect_io(parse_error("s,b\n\"a\nb\",1\nx,\"2\n", sc, s_only), "data.csv:4: unterminated quoted field");
  // A misplaced quote, or what follows a closing one, by line and column.
  expect_io(parse_error("s,b\n\"a\"b,1\n", sc, s_only), "data.csv:2:4: unexpected character after a closing quote");
  expect_io(parse_error("s,b\n\"a\"\rb,1\n", sc, s_only), "data.csv:2:5: unexpected character after a closing quote");
  expect_io(parse_error("s,b\nx,1\n\"a\nb\"c,1\n", sc, s_only),
            "data.csv:4:3: unexpected character after a closing quote");
  expect_io(parse_error("s,b\na\"b,1\n", sc, s_only), "data.csv:2:2: quote in an unquoted field");
  expect_io(parse_error("s,b\nab,1\"\n", sc, s_only), "data.csv:2:5: quote in an unquoted field");
  expect_io(parse_error("s,b\n\"x\ny\",1\nabcd,1\n", sc, s_only), "data.csv:4: column s: value longer than c3");
}

TEST(Csv, ColumnListErrors) {
  Schema sc = all_types();
  auto kind_of = [&](std::vector<CopyColumn> cols, bool write) {
    try {
      if (write)
        CsvWriter(sc, cols, "x.csv", kPos, kSrc);
      else
        parse("a,b,c,d,e,s\n", sc, cols);
    } catch (const QuelError& e) {
      EXPECT_EQ(e.err.pos, kPos);
      return std::make_pair(e.err.kind, e.err.message);
    }
    return std::make_pair(ErrKind::Usage, std::string("no error"));
  };
  EXPECT_EQ(kind_of({{"zz", Type::i2()}}, false), std::make_pair(ErrKind::Name, std::string("copy: no attribute zz")));
  EXPECT_EQ(kind_of({{"b", Type::i2()}, {"B", Type::i4()}}, false),
            std::make_pair(ErrKind::Name, std::string("copy: attribute B listed twice")));
  EXPECT_EQ(kind_of({{"b", Type::c(5)}}, false),
            std::make_pair(ErrKind::Type, std::string("copy: cannot convert c5 to i2 for b")));
  EXPECT_EQ(kind_of({{"c", Type::f8()}}, false),
            std::make_pair(ErrKind::Type, std::string("copy: cannot convert f8 to i4 for c")));
  EXPECT_EQ(kind_of({{"s", Type::i4()}}, false),
            std::make_pair(ErrKind::Type, std::string("copy: cannot convert i4 to c10 for s")));
  EXPECT_EQ(kind_of({{"e", Type::i4()}}, true),
            std::make_pair(ErrKind::Type, std::string("copy: cannot convert f8 to i4 for e")));
  EXPECT_EQ(kind_of({{"c", Type::f8()}}, true), std::make_pair(ErrKind::Usage, std::string("no error")));
}

TEST(Csv, WriterErrorsAndFiles) {
  Schema sc = all_types();
  CsvWriter w(sc, {{"c", Type::i2()}, {"s", Type::c(3)}}, "out.csv", kPos, kSrc);
  w.add(row(sc, 0, 0, 5, 0, 0, "ab").data());
  w.add(row(sc, 0, 0, 6, 0, 0, "x\ny").data());
  try {
    w.add(row(sc, 0, 0, 40000, 0, 0, "ab").data());
    ADD_FAILURE() << "no error";
  } catch (const QuelError& e) {
    // header, "5,ab", then the quoted value spans lines 3 and 4.
    expect_io(e.err, "out.csv:5: attribute c does not fit column format i2");
  }
  try {
    w.add(row(sc, 0, 0, 1, 0, 0, "abcd").data());
    ADD_FAILURE() << "no error";
  } catch (const QuelError& e) {
    expect_io(e.err, "out.csv:5: attribute s does not fit column format c3");
  }

  std::string missing = temp_path("no/such/dir.csv");
  try {
    read_csv_file(missing, sc, {}, kPos, kSrc);
    ADD_FAILURE() << "no error";
  } catch (const QuelError& e) {
    expect_io(e.err, "cannot open " + missing + ": No such file or directory");
  }
  try {
    CsvWriter(sc, {}, missing, kPos, kSrc).save();
    ADD_FAILURE() << "no error";
  } catch (const QuelError& e) {
    expect_io(e.err, "cannot open " + missing + ": No such file or directory");
  }
}

TEST(Csv, PartsCsvLoadsBackIntoTheSameTuples) {
  for (bool wide : {false, true}) {
    std::ostringstream os;
    write_parts_csv(os, 210, wide);
    Schema sc = parts_schema(210, wide);
    std::vector<CopyColumn> cols = {{"pnum", Type::i2()},
                                    {"pname", Type::c(20)},
                                    {"color", Type::c(8)},
                                    {"weight", Type::i2()},
                                    {"qoh", Type::i2()}};
    auto got = parse(os.str(), sc, cols);
    auto rel = make_parts(210, wide, Structure::Heap);
    std::vector<uint8_t> want;
    rel->for_each([&](Tid, const uint8_t* t) { want.insert(want.end(), t, t + sc.tuple_len); });
    EXPECT_EQ(got, want) << wide;
  }
}

}  // namespace
}  // namespace quelkit::test

namespace quelkit::test {
namespace {

using namespace harness;

// copy streams its file: a file without line breaks (/dev/zero never ends)
// stops at the record limit with an error at line 1, having held about one
// record, instead of reading until memory runs out.
TEST(Csv, ARecordLongerThanTheLimitStopsTheRead) {
  Schema sc = Schema::packed({{"a", Type::i4()}});
  try {
    read_csv_file("/dev/zero", sc, {}, kPos, kSrc);
    ADD_FAILURE() << "no error";
  } catch (const QuelError& e) {
    EXPECT_EQ(e.err.kind, ErrKind::IO);
    EXPECT_NE(e.err.message.find("/dev/zero:1: record longer than 1 MiB"), std::string::npos) << e.err.message;
  }
  // The same limit on text in memory, one byte past it; a record just
  // under it is only data.
  std::string long_field(kCsvMaxRecordBytes, 'x');
  Error e = parse_error("a\n" + long_field + "\n", sc);
  EXPECT_NE(e.message.find("data.csv:2: record longer than"), std::string::npos) << e.message;
  e = parse_error("a\n" + long_field.substr(0, kCsvMaxRecordBytes - 2) + "\n", sc);
  EXPECT_NE(e.message.find("data.csv:2: column a: "), std::string::npos) << e.message.substr(0, 80);
}

// Editors on Windows begin UTF-8 files with a byte-order mark; it is not
// part of the first column's name, in text or in a file.
TEST(Csv, AByteOrderMarkIsSkipped) {
  Schema sc = Schema::packed({{"a", Type::i4()}, {"b", Type::i4()}});
  std::vector<uint8_t> want(8);
  store<int32_t>(want.data(), 1);
  store<int32_t>(want.data() + 4, 2);
  EXPECT_EQ(parse("\xef\xbb\xbf" "a,b\n1,2\n", sc), want);
  const std::string path = temp_path("bom.csv");
  std::ofstream(path, std::ios::binary) << "\xef\xbb\xbf" "a,b\r\n1,2\r\n";
  EXPECT_EQ(read_csv_file(path, sc, {}, kPos, kSrc), want);
  std::filesystem::remove(path);
  // Only at the start: elsewhere the bytes are data.
  Error e = parse_error("a,b\n\xef\xbb\xbf" "1,2\n", sc);
  EXPECT_NE(e.message.find("is not an integer"), std::string::npos) << e.message;
}

TEST(Csv, AnEmptyLineIsNoRecordUnderSeveralColumnsAndAnEmptyFieldUnderOne) {
  // An editor's newline at the end, or a blank line between records: under a
  // header of several columns nothing else could be meant.
  Schema sc = Schema::packed({{"a", Type::i4()}, {"b", Type::i4()}});
  std::vector<uint8_t> want(16);
  store<int32_t>(want.data(), 1);
  store<int32_t>(want.data() + 4, 2);
  store<int32_t>(want.data() + 8, 3);
  store<int32_t>(want.data() + 12, 4);
  EXPECT_EQ(parse("a,b\n1,2\n\n3,4\n\n", sc), want);
  EXPECT_EQ(parse("a,b\r\n1,2\r\n\r\n3,4\r\n\r\n", sc), want);
  // A line holding "" is a field, not an empty line; the line numbers still count the empty ones.
  expect_io(parse_error("a,b\n1,2\n\n\"\"\n", sc), "data.csv:4: expected 2 fields, found 1");
  expect_io(parse_error("a,b\n\n1,x\n", sc), "data.csv:3: column b: \"x\" is not an integer");
  // Under one column an empty line is an empty field: blank characters, or not a number.
  Schema one = Schema::packed({{"s", Type::c(2)}});
  EXPECT_EQ(parse("s\nab\n\n", one), (std::vector<uint8_t>{'a', 'b', ' ', ' '}));
  expect_io(parse_error("b\n1\n\n", all_types(), {{"b", Type::i2()}}), "data.csv:3: column b: \"\" is not an integer");
}

}  // namespace
}  // namespace quelkit::test
