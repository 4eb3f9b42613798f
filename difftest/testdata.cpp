// The test data (testdata.h): the rows of EDGE, the statements that build
// every relation and its storage variants, and the schemas the generator
// binds against.
#include "difftest/testdata.h"

#include <iterator>
#include <map>

#include "bench/workloads/parts.h"

namespace quelkit::difftest {

namespace {

struct EdgeRow {
  const char *id, *i1, *i2, *i4, *f4, *f8, *c1, *c12;
};

// Every row is a QUEL literal expression (negative numbers are unary minus,
// -2147483648 is written as -2147483647 - 1: 2147483648 is no i4 literal).
const EdgeRow kEdge[] = {
    {"1", "0", "0", "0", "0.0", "0.0", "\"a\"", "\"\""},
    {"2", "1", "1", "1", "1.0", "1.0", "\"b\"", "\"a\""},
    {"3", "-1", "-1", "-1", "-1.0", "-1.0", "\"z\"", "\"abc\""},
    {"4", "127", "32767", "2147483647", "3.4028234663852886e38", "1.7976931348623157e308", "\"~\"", "\"ABC\""},
    {"5", "-128", "-32768", "-2147483647 - 1", "-3.4028234663852886e38", "-1.7976931348623157e308", "\" \"",
     "\" abc\""},
    {"6", "2", "2", "2", "-0.0", "-0.0", "\"*\"", "\"a*b?[c]\\\\\""},
    {"7", "100", "10000", "1000000000", "1.401298464324817e-45", "5e-324", "\"?\"", "\"processor\""},
    {"8", "-100", "-10000", "-1000000000", "1.1754943508222875e-38", "2.2250738585072014e-308", "\"[\"",
     "\"black\""},
    {"9", "64", "181", "46340", "0.1", "0.1", "\"\\\\\"", "\"\xc3\xa9t\xc3\xa9\""},
    {"10", "3", "182", "46341", "16777216.0", "9007199254740992.0", "\"A\"", "\"red\""},
    {"11", "7", "-7", "-46341", "16777217.0", "9007199254740993.0", "\"\\\"\"", "\"x\\\"y\""},
    {"12", "10", "255", "65536", "0.5", "2.5", "\"0\"", "\"2.5\""},
    {"13", "-10", "256", "65535", "1.5", "-2.5", "\"9\"", "\"zzzzzzzzzzzz\""},
    {"14", "5", "1000", "2147483646", "2147483648.0", "2147483647.5", "\"a\"", "\"Processor\""},
    {"15", "-5", "-1000", "-2147483647", "-2147483648.0", "-2147483648.9", "\"b\"", "\"a b\""},
    {"16", "126", "32766", "100000", "127.5", "128.0", "\"c\"", "\"abc  \""},
    {"17", "-127", "-32767", "-100000", "-128.5", "-128.99", "\"d\"", "\"ab\""},
    {"18", "50", "5000", "123456789", "1e10", "1e300", "\"e\"", "\"abd\""},
    {"19", "-50", "-5000", "-123456789", "3.0", "1e-300", "\"f\"", "\"b\""},
    {"20", "0", "0", "0", "0.0", "0.0", "\"a\"", "\"\""},
    {"21", "1", "2", "3", "0.25", "0.75", "\"g\"", "\"a\t\""},
    {"22", "99", "99", "99", "99.0", "99.0", "\"h\"", "\"hello world!\""},
};
constexpr int kEdgeHeld = 6;  // the last rows go to overflow pages of the keyed variants

// The columns of EDGE and of the sink, as `create` writes them: the one
// statement of their schemas.
using Columns = std::vector<std::pair<std::string, std::string>>;
const Columns kEdgeColumns = {{"id", "i2"}, {"i1", "i1"}, {"i2", "i2"}, {"i4", "i4"},
                              {"f4", "f4"}, {"f8", "f8"}, {"c1", "c1"}, {"c12", "c12"}};
const Columns kSinkColumns = {{"i1", "i1"}, {"i2", "i2"}, {"i4", "i4"}, {"f4", "f4"}, {"f8", "f8"}, {"c12", "c12"}};

std::string create(const std::string& rel, const Columns& cols) {
  std::string s = "create " + rel + " (";
  for (size_t i = 0; i < cols.size(); ++i) s += (i ? ", " : "") + cols[i].first + " = " + cols[i].second;
  return s + ")\n";
}

std::vector<std::pair<std::string, Type>> attrs_of(const Columns& cols) {
  std::vector<std::pair<std::string, Type>> v;
  for (const auto& [name, format] : cols) v.emplace_back(name, *parse_format(format));
  return v;
}

std::string edge_append(const std::string& rel, const EdgeRow& r) {
  const char* v[] = {r.id, r.i1, r.i2, r.i4, r.f4, r.f8, r.c1, r.c12};
  std::string s = "append to " + rel + " (";
  for (size_t i = 0; i < kEdgeColumns.size(); ++i) s += (i ? ", " : "") + kEdgeColumns[i].first + " = " + v[i];
  return s + ")\n";
}

// A copy of a base relation: the first rows, then `make` (a modify, an
// index), then the held-back rows, which land in overflow pages (the
// paper's keyed setup, in miniature) and an index must take in too.
std::string copy_then(const std::string& rel, const std::string& base, const std::string& var,
                      const std::vector<std::string>& attrs, const std::string& make, const std::string& held_where) {
  std::string list;
  for (size_t i = 0; i < attrs.size(); ++i) list += (i ? ", " : "") + var + "." + attrs[i];
  std::string assign;
  for (size_t i = 0; i < attrs.size(); ++i) assign += (i ? ", " : "") + attrs[i] + " = " + var + "." + attrs[i];
  return "range of " + var + " is " + base + "\nretrieve into " + rel + " (" + list + ") where not (" + held_where +
         ")\n" + make + "\nappend to " + rel + " (" + assign + ") where " + held_where + "\n";
}

std::string keyed_copy(const std::string& rel, const std::string& base, const std::string& var,
                       const std::vector<std::string>& attrs, const std::string& structure, const std::string& key,
                       const std::string& held_where) {
  return copy_then(rel, base, var, attrs, "modify " + rel + " to " + structure + " on " + key, held_where);
}

// A heap with a secondary index on `domains`.
std::string indexed_copy(const std::string& rel, const std::string& base, const std::string& var,
                         const std::vector<std::string>& attrs, const std::string& domains,
                         const std::string& held_where) {
  return copy_then(rel, base, var, attrs, "index on " + rel + " is " + rel + "_x (" + domains + ")", held_where);
}

std::vector<std::pair<std::string, Type>> parts_attrs() {
  std::vector<std::pair<std::string, Type>> v;
  for (const auto& a : harness::parts_schema(TestData::kPartsRows, false).attrs) v.emplace_back(a.name, a.type);
  return v;
}

class TestCatalog final : public CatalogView {
 public:
  TestCatalog() {
    for (const auto& r : TestData::relations()) schemas_.emplace(r.name, Schema::packed(r.attrs));
    schemas_.emplace(TestData::sink().name, Schema::packed(TestData::sink().attrs));
  }
  const Schema* find_schema(std::string_view relation) const override {
    auto it = schemas_.find(relation);
    return it == schemas_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, Schema, std::less<>> schemas_;
};

}  // namespace

const std::vector<TestData::Setup>& TestData::setup() {
  static const std::vector<Setup> v = [] {
    std::vector<Setup> s;
    // PARTS comes from --parts; holes in its pages too.
    s.push_back({"parts", "parts", "range of x is parts\ndelete x where mod(x.pnum, 17) = 0\n"});
    // Deleted tuples leave holes in the pages (line entries 0) that scans and
    // fused kernels must skip, with tuple ordinals in errors unchanged.
    std::string edge = create("edge", kEdgeColumns);
    int n = 0;
    for (const auto& r : kEdge) {
      edge += edge_append("edge", r);
      if (++n % 3 == 0)
        edge += "append to edge (id = " + std::to_string(100 + n) + ", i1 = 0, i2 = 0, i4 = 0, f4 = 0.0, f8 = 0.0, "
                "c1 = \"-\", c12 = \"deleted\")\n";
    }
    edge += "range of x is edge\ndelete x where x.id >= 100\n";
    s.push_back({"edge", "edge", edge});
    std::vector<std::string> ea;
    for (const auto& c : kEdgeColumns) ea.push_back(c.first);
    const std::string held = "x.id > " + std::to_string(std::size(kEdge) - kEdgeHeld);
    for (auto [st, key] : std::vector<std::pair<std::string, std::string>>{
             {"isam", "i1"}, {"hash", "i2"}, {"isam", "i4"}, {"hash", "f4"},
             {"isam", "f8"}, {"hash", "c12"}, {"isam", "c12"}, {"hash", "c1"},
             {"isam", "i2, c12"}, {"hash", "i1, c1"}}) {
      std::string name = key;  // a key of several domains: edge_isam_i2_c12
      for (size_t at; (at = name.find(", ")) != std::string::npos;) name.replace(at, 2, "_");
      std::string rel = "edge_" + st + "_" + name;
      s.push_back({rel, "edge", keyed_copy(rel, "edge", "x", ea, st, key, held)});
    }
    // Heaps with secondary indexes: the generator's selections on i4, or on
    // c12 then f8, go through them.
    for (auto [name, domains] : std::vector<std::pair<std::string, std::string>>{{"i4", "i4"}, {"c12_f8", "c12, f8"}}) {
      std::string rel = "edge_index_" + name;
      s.push_back({rel, "edge", indexed_copy(rel, "edge", "x", ea, domains, held)});
    }
    std::vector<std::string> pa;
    for (const auto& a : parts_attrs()) pa.push_back(a.first);
    const std::string pheld = "x.pnum > 85 or mod(x.pnum, 13) = 0";
    for (auto [st, key] : std::vector<std::pair<std::string, std::string>>{
             {"isam", "pnum"}, {"hash", "pnum"}, {"isam", "pname"}, {"hash", "qoh"}}) {
      std::string rel = "parts_" + st + "_" + key;
      s.push_back({rel, "parts", keyed_copy(rel, "parts", "x", pa, st, key, pheld)});
    }
    s.push_back({"sink", "", create("sink", kSinkColumns)});
    return s;
  }();
  return v;
}

const std::vector<GRelation>& TestData::relations() {
  static const std::vector<GRelation> v = [] {
    std::vector<GRelation> r;
    const auto edge = attrs_of(kEdgeColumns);
    const auto parts = parts_attrs();
    r.push_back({"parts", "parts", parts});
    for (const auto& s : setup()) {
      if (s.base == "edge") r.push_back({s.relation, "edge", edge});
      if (s.base == "parts" && s.relation != "parts") r.push_back({s.relation, "parts", parts});
    }
    return r;
  }();
  return v;
}

const GRelation* TestData::find(const std::string& name) {
  for (const auto& r : relations())
    if (r.name == name) return &r;
  return nullptr;
}

const GRelation& TestData::sink() {
  static const GRelation s{"sink", "", attrs_of(kSinkColumns)};
  return s;
}

const CatalogView& TestData::catalog() {
  static const TestCatalog c;
  return c;
}

std::string TestData::difference(const CatalogView& built) {
  std::vector<const GRelation*> all;
  for (const auto& r : relations()) all.push_back(&r);
  all.push_back(&sink());
  for (const GRelation* r : all) {
    const Schema* s = built.find_schema(r->name);
    if (!s) return "relation " + r->name + " was not built";
    bool same = s->attrs.size() == r->attrs.size();
    for (size_t i = 0; same && i < r->attrs.size(); ++i)
      same = s->attrs[i].name == r->attrs[i].first && s->attrs[i].type == r->attrs[i].second;
    if (!same) return "relation " + r->name + " was built with another schema than the generator's";
  }
  return "";
}

}  // namespace quelkit::difftest
