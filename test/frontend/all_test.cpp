// `v.all` (every attribute of v, in order, under its own name): the parser
// marks a bare `v.all` target list entry, the binder expands it in retrieve
// (to the terminal or into a relation), append and replace; anywhere else, and
// `all` as an attribute name, is an error at its position.
#include <gtest/gtest.h>

#include "test_catalog.h"

namespace quelkit::frontend {
namespace {

using fetest::bind_text;
using fetest::err_text;
using fetest::error_of;
using fetest::source;
using fetest::tree;

std::string err(const std::string& text) { return err_text(error_of(text)); }

// "name=tree@line:col" for every bound target.
std::string targets(const BoundQuery& q) {
  std::string out;
  for (const auto& t : q.targets)
    out += (out.empty() ? "" : " ") + t.name + "=" + tree(*t.expr) + "@" + std::to_string(t.pos.line) + ":" +
           std::to_string(t.pos.col) + (t.column >= 0 ? "->" + std::to_string(t.column) : "");
  return out;
}

TEST(All, ParserMarksOnlyABareEntry) {
  auto s = parse(source("retrieve (P.ALL, x = p.all, p.pnum)"));
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0]->targets.size(), 3u);
  EXPECT_TRUE(s[0]->targets[0].all);
  EXPECT_EQ(s[0]->targets[0].name, "all");
  EXPECT_FALSE(s[0]->targets[1].all);
  EXPECT_FALSE(s[0]->targets[2].all);
  EXPECT_EQ(dump_ast(*parse(source("retrieve into t (p.all)"))[0]), "(retrieve (into t) (targets (all p.all)))");
}

TEST(All, RetrieveExpandsInOrder) {
  EXPECT_EQ(targets(bind_text("retrieve (p.all)")),
            "pnum=ATTR0.0:i2@1:11 pname=ATTR0.1:c20@1:11 color=ATTR0.2:c8@1:11 weight=ATTR0.3:i2@1:11 "
            "qoh=ATTR0.4:i2@1:11");
  // Between other entries; variables in order of first appearance.
  BoundQuery q = bind_text("retrieve (e.name, emp.all, n = p.qoh) where p.pnum = e.dept");
  EXPECT_EQ(targets(q),
            "name=ATTR0.0:c10@1:11 name=ATTR1.0:c10@1:19 salary=ATTR1.1:f4@1:19 dept=ATTR1.2:i2@1:19 "
            "n=ATTR2.4:i2@1:28");
  ASSERT_EQ(q.vars.size(), 3u);
  EXPECT_EQ(q.vars[1].name, "emp");
  // Sort keys see the expanded names.
  q = bind_text("retrieve (p.all) sort by qoh:d");
  ASSERT_EQ(q.sort.size(), 1u);
  EXPECT_EQ(q.sort[0].target, 4);
  EXPECT_TRUE(q.sort[0].descending);
}

TEST(All, TwoVariablesOnTheTerminal) {
  RangeTable r = fetest::default_ranges();
  r.set("q", "parts");
  BoundQuery q = bind_text("retrieve (p.all, q.all) where p.pnum = q.pnum", r);
  ASSERT_EQ(q.targets.size(), 10u);
  EXPECT_EQ(q.targets[5].name, "pnum");
  EXPECT_EQ(q.targets[5].expr->var, 1);
}

TEST(All, RetrieveInto) {
  BoundQuery q = bind_text("retrieve into t (x.all) where x.a4 > 1");
  EXPECT_EQ(q.into, "t");
  ASSERT_EQ(q.targets.size(), 7u);
  EXPECT_EQ(q.targets[6].name, "w");
  EXPECT_EQ(q.targets[6].expr->type, Type::c(200));
  // A relation cannot have two attributes of one name.
  EXPECT_EQ(err("retrieve into t (p.all, parts.all)"), "name 1:25 duplicate target name 'pnum' (from parts.all)");
  EXPECT_EQ(err("retrieve into t (p.all, qoh = 1)"), "name 1:25 duplicate target name 'qoh'");
  EXPECT_EQ(err("retrieve into t (qoh = 1, p.all)"), "name 1:27 duplicate target name 'qoh' (from p.all)");
  EXPECT_EQ(err("retrieve into t (all = 1)"),
            "name 1:18 'all' cannot be an attribute name (v.all means every attribute of v)");
}

TEST(All, AppendAndReplaceAssignByName) {
  EXPECT_EQ(targets(bind_text("append to parts (p.all) where p.qoh > 3")),
            "pnum=ATTR0.0:i2@1:18->0 pname=ATTR0.1:c20@1:18->1 color=ATTR0.2:c8@1:18->2 "
            "weight=ATTR0.3:i2@1:18->3 qoh=ATTR0.4:i2@1:18->4");
  EXPECT_EQ(targets(bind_text("replace p (parts.all) where p.pnum = parts.pnum")),
            "pnum=ATTR1.0:i2@1:12->0 pname=ATTR1.1:c20@1:12->1 color=ATTR1.2:c8@1:12->2 "
            "weight=ATTR1.3:i2@1:12->3 qoh=ATTR1.4:i2@1:12->4");
  EXPECT_EQ(err("append to emp (p.all)"), "name 1:16 relation 'emp' has no attribute 'pnum' (from p.all)");
  EXPECT_EQ(err("append to parts (pnum = 1, p.all)"),
            "name 1:28 attribute 'pnum' is assigned twice (from p.all)");
}

TEST(All, ElsewhereIsAnError) {
  const char* msg = "'p.all' stands for every attribute: it can only be a target list entry of its own";
  EXPECT_EQ(err("retrieve (t = p.all)"), std::string("name 1:15 ") + msg);
  EXPECT_EQ(err("retrieve (t = p.all + 1)"), std::string("name 1:15 ") + msg);
  EXPECT_EQ(err("retrieve (p.pnum) where p.all = 1"), std::string("name 1:25 ") + msg);
  EXPECT_EQ(err("retrieve (z.all)"), "name 1:11 'z' is neither a range variable nor a relation");
  EXPECT_EQ(err_text(error_of("create r (a = i2, all = i4)", false)),
            "syntax 1:19 'all' cannot be an attribute name (v.all means every attribute of v)");
}

}  // namespace
}  // namespace quelkit::frontend
