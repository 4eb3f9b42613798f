// The paper's queries (a)-(i) on every registered back end and mode, checked
// against the independent Python oracle's answers (test/oracle/expected.json:
// row counts and checksums computed without any quelkit code).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "storage/checksum.h"
#include "support.h"

namespace quelkit::test {
namespace {

using nlohmann::json;

const json& expected() {
  static json j = [] {
    std::ifstream f(std::string(QUELKIT_SOURCE_DIR) + "/test/oracle/expected.json");
    std::stringstream ss;
    ss << f.rdbuf();
    return json::parse(ss.str());
  }();
  return j;
}

class PaperQueries : public ::testing::TestWithParam<std::string> {
 protected:
  void check(Kit& k, char q, const json& want) {
    RunResult r = k.run(kPaperQueries[q - 'a']);
    ASSERT_TRUE(r.ok) << r.err;
    const auto& rep = k.last_report();
    EXPECT_EQ(rep.stats.rows_out, uint64_t(want.at("rows").get<double>())) << "query " << q;
    EXPECT_EQ(harness::checksum_hex(rep.stats.checksum), want.at("checksum").get<std::string>()) << "query " << q;
  }
};

TEST_P(PaperQueries, HeapQueriesMatchOracle) {
  for (const char* n : {"1", "210", "3360"}) {
    Kit k(GetParam(), harness::OutFormat::None);
    k.add_parts(std::stoull(n));
    ASSERT_TRUE(k.run("range of p is parts").ok);
    for (char q : {'a', 'b', 'c', 'd', 'e'}) {  // (e) as a full scan
      SCOPED_TRACE(std::string("size ") + n);
      check(k, q, expected().at("queries").at(n).at(std::string(1, q)));
    }
  }
}

TEST_P(PaperQueries, KeyedQueriesMatchOracleOnIsamAndHash) {
  for (auto s : {harness::Structure::Isam, harness::Structure::Hash, harness::Structure::Heap}) {
    SCOPED_TRACE(harness::structure_name(s));
    Kit k(GetParam(), harness::OutFormat::None);
    k.add_parts(3360, true, s);
    ASSERT_TRUE(k.run("range of p is parts range of q is parts").ok);
    for (char q : {'e', 'f', 'g', 'h', 'i'}) check(k, q, expected().at("keyed").at("3360").at(std::string(1, q)));
  }
}

std::string name_of(const ::testing::TestParamInfo<std::string>& i) { return backend_test_name(i); }

INSTANTIATE_TEST_SUITE_P(AllBackends, PaperQueries, ::testing::ValuesIn(all_backend_modes()), name_of);

}  // namespace
}  // namespace quelkit::test
