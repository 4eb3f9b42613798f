// The terminal table (engine/rows.h print_table): borders line up by the
// columns a value takes on a terminal, not by its bytes, and control
// characters and bytes that are not UTF-8 are escaped (\xNN, as the error
// echo shows them) rather than sent to the terminal. CSV keeps the bytes.
// Ctrl-C cancels a result being printed, between two rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "storage/budget.h"
#include "storage/page.h"
#include "engine/result_rows.h"
#include "engine/rows.h"
#include "runtime/runtime.h"

namespace quelkit::test {
namespace {

using namespace harness;

const Schema kNameN = Schema::packed({{"name", Type::c(12)}, {"n", Type::i4()}});

// One c12 and one i4 per row; the characters blank padded as stored.
void fill(ResultRows& rows, const std::vector<std::string>& names) {
  const Schema& s = kNameN;
  int32_t n = 0;
  for (const auto& v : names) {
    std::vector<uint8_t> row(s.tuple_len, ' ');
    std::memcpy(row.data(), v.data(), std::min<size_t>(v.size(), 12));
    store<int32_t>(row.data() + 12, ++n);
    rows.append(row.data(), 1);
  }
}

std::string table_of(const std::vector<std::string>& names, bool csv = false) {
  ResultRows rows(kNameN.tuple_len);
  fill(rows, names);
  std::ostringstream os;
  if (csv) print_csv(os, kNameN, rows);
  else print_table(os, kNameN, rows);
  return os.str();
}

// A terminal whose user presses Ctrl-C once `at` lines have reached it
// (no buffer: every character written reaches it at once).
class CtrlCAfterLines : public std::streambuf {
 public:
  explicit CtrlCAfterLines(size_t at) : at_(at) {}
  const std::string& str() const { return text_; }

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) seen(char(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* p, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) seen(p[i]);
    return n;
  }

 private:
  void seen(char c) {
    text_ += c;
    if (c == '\n' && ++lines_ == at_) request_cancel();
  }
  std::string text_;
  size_t at_, lines_ = 0;
};

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

TEST(Rows, CtrlCStopsAResultBeingPrintedAfterAWholeRow) {
  const size_t n = 5000;
  ResultRows rows(kNameN.tuple_len);
  fill(rows, std::vector<std::string>(n, "part"));
  for (bool csv : {false, true}) {
    SCOPED_TRACE(csv ? "csv" : "table");
    clear_cancel();
    CtrlCAfterLines term(100);
    std::ostream os(&term);
    bool cancelled = false;
    try {
      csv ? print_csv(os, kNameN, rows) : print_table(os, kNameN, rows);
    } catch (QuelError& e) {
      cancelled = e.err.code == QK_ERR_CANCELLED;
    }
    clear_cancel();
    EXPECT_TRUE(cancelled);
    const std::string out = term.str();
    const size_t lines = size_t(std::count(out.begin(), out.end(), '\n'));
    // Stopped soon after the Ctrl-C, not at the end; the last line a whole row.
    EXPECT_GE(lines, 100u);
    EXPECT_LT(lines, 100u + 2048u);
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.back(), '\n');
    // The row numbered as the lines before it say (n, 4 columns wide in the table).
    const std::string k = std::to_string(csv ? lines - 1 : lines - 3);
    const std::string last = out.substr(out.rfind('\n', out.size() - 2) + 1);
    EXPECT_EQ(last, csv ? "part," + k + "\n" : "|part|" + std::string(4 - k.size(), ' ') + k + "|\n");
  }
}

}  // namespace
}  // namespace quelkit::test
