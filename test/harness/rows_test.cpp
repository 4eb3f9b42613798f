// The terminal table (harness/rows.h print_table): borders line up by the
// columns a value takes on a terminal, not by its bytes, and control
// characters and bytes that are not UTF-8 are escaped (\xNN, as the error
// echo shows them) rather than sent to the terminal. CSV keeps the bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "harness/page.h"
#include "harness/result_rows.h"
#include "harness/rows.h"

namespace quelkit::test {
namespace {

using namespace harness;

// One c12 and one i4 per row; the characters blank padded as stored.
std::string table_of(const std::vector<std::string>& names, bool csv = false) {
  const Schema s = Schema::packed({{"name", Type::c(12)}, {"n", Type::i4()}});
  ResultRows rows(s.tuple_len);
  int32_t n = 0;
  for (const auto& v : names) {
    std::vector<uint8_t> row(s.tuple_len, ' ');
    std::memcpy(row.data(), v.data(), std::min<size_t>(v.size(), 12));
    store<int32_t>(row.data() + 12, ++n);
    rows.append(row.data(), 1);
  }
  std::ostringstream os;
  if (csv) print_csv(os, s, rows);
  else print_table(os, s, rows);
  return os.str();
}

TEST(Rows, TableColumnsAreTerminalColumnsNotBytes) {
  // é in two bytes; 日本, two wide characters of two columns each; e and a
  // combining acute, one column: every line is as wide as the rule.
  EXPECT_EQ(table_of({"h\xc3\xa9llo", "\xe6\x97\xa5\xe6\x9c\xac", "e\xcc\x81", "plain"}),
            "+-----+-+\n"
            "|name |n|\n"
            "+-----+-+\n"
            "|h\xc3\xa9llo|1|\n"
            "|\xe6\x97\xa5\xe6\x9c\xac |2|\n"
            "|e\xcc\x81    |3|\n"
            "|plain|4|\n"
            "+-----+-+\n"
            "(4 rows)\n");
}

TEST(Rows, TableEscapesControlCharactersAndBytesThatAreNotUtf8) {
  // A tab, a newline, a C0 and a C1 control, two bytes that are no UTF-8, and
  // a wide character cut short by the c12 it was stored in.
  EXPECT_EQ(table_of({"a\tb", "two\nl", "x\x01y", "\xc2\x85", "\xff\xfe", "ab\xe6\x97\xa5\xe6\x9c\xac\xe6\x97\xa5\xe6"}),
            "+------------+-+\n"
            "|name        |n|\n"
            "+------------+-+\n"
            "|a\\x09b      |1|\n"
            "|two\\x0al    |2|\n"
            "|x\\x01y      |3|\n"
            "|\\xc2\\x85    |4|\n"
            "|\\xff\\xfe    |5|\n"
            "|ab\xe6\x97\xa5\xe6\x9c\xac\xe6\x97\xa5\\xe6|6|\n"
            "+------------+-+\n"
            "(6 rows)\n");
  // CSV is exact: the same bytes, quoted where CSV needs it.
  EXPECT_EQ(table_of({"a\tb", "two\nl", "\xff\xfe"}, true), "name,n\na\tb,1\n\"two\nl\",2\n\xff\xfe,3\n");
}

}  // namespace
}  // namespace quelkit::test
