// Batches of every size give tuple-at-a-time's answers: every corpus file
// (test/queries) runs on the 1976 interpreter and every vector mode in one
// session, which compares rows bit for bit and errors exactly (code,
// position, relation, tuple) and reports "back ends disagree" otherwise —
// with batches of 1, 2, 5 and 1024 tuples (a page split into several
// batches, batches of one, a page in one batch) on the files' own page sizes
// and on 4 KiB pages, where a page holds over a hundred narrow tuples.
#include <filesystem>

#include "difftest/corpus.h"
#include "vector_test_util.h"

namespace quelkit::test {
namespace {

struct Case {
  std::string file;
  uint32_t batch;
  bool big_pages;
};

std::vector<Case> cases() {
  std::vector<Case> v;
  for (const auto& f : difftest::corpus_files(QUELKIT_SOURCE_DIR "/test/queries"))
    for (uint32_t b : {1u, 2u, 5u, 1024u})
      for (bool big : {false, true}) v.push_back({f, b, big});
  return v;
}

class Batches : public ::testing::TestWithParam<Case> {};

TEST_P(Batches, AgreeWithTheInterpreter) {
  const Case& c = GetParam();
  difftest::CorpusFile f = difftest::load_corpus(c.file);
  KitOptions o;
  o.batch = c.batch;
  o.page_size = c.big_pages ? 4096 : f.page_size ? f.page_size : harness::kDefaultPageSize;
  Kit k("interp:switch,vector:all", o);
  if (!f.parts.empty()) {
    harness::PartsSpec p;
    std::string err;
    ASSERT_TRUE(harness::parse_parts_spec(f.parts, &p, &err)) << err;
    k.add_parts(p.rows, p.wide, p.s);
  }
  if (!f.wisconsin.empty()) k.add_wisconsin(f.wisconsin);
  // Case by case, as the corpus runs (a case may fail to parse).
  for (const auto& cs : f.cases) {
    auto r = k.run(f.text.substr(cs.begin, cs.end - cs.begin), f.name);
    EXPECT_EQ(r.err.find("disagree"), std::string::npos) << f.name << ":" << cs.line << "\n" << r.err;
  }
  EXPECT_FALSE(k.reports().empty());
}

INSTANTIATE_TEST_SUITE_P(Corpus, Batches, ::testing::ValuesIn(cases()), [](const ::testing::TestParamInfo<Case>& i) {
  std::string s = std::filesystem::path(i.param.file).stem().string() + "_batch" + std::to_string(i.param.batch) +
                  (i.param.big_pages ? "_4k" : "");
  for (auto& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
});

}  // namespace
}  // namespace quelkit::test
