// Tuples for the interpreter's tests: a relation with one attribute of every
// type and rows chosen to hit each operator's edges (zero, extremes, -0.0,
// trailing blanks, bytes above 0x7f), plus the PARTS layout of the paper.
#pragma once

#include <cfloat>
#include <climits>
#include <string>
#include <vector>

#include "test/interp/interp_test_util.h"

namespace quelkit::test {

// Writes attribute values into a tuple of a schema, by name.
class TupleWriter {
 public:
  explicit TupleWriter(const Schema& s) : s_(s), bytes_(s.tuple_len, 0) {}
  TupleWriter& i(const char* name, int64_t v) {
    const Attribute& a = at(name);
    switch (a.type.kind) {
      case Tk::I1: harness::store<int8_t>(p(a), int8_t(v)); break;
      case Tk::I2: harness::store<int16_t>(p(a), int16_t(v)); break;
      default: harness::store<int32_t>(p(a), int32_t(v)); break;
    }
    return *this;
  }
  TupleWriter& f4(const char* name, float v) {
    harness::store<float>(p(at(name)), v);
    return *this;
  }
  TupleWriter& f8(const char* name, double v) {
    harness::store<double>(p(at(name)), v);
    return *this;
  }
  TupleWriter& c(const char* name, const std::string& v) {
    const Attribute& a = at(name);
    std::string b = v;
    b.resize(a.type.len, ' ');
    std::memcpy(p(a), b.data(), a.type.len);
    return *this;
  }
  std::vector<uint8_t> bytes() const { return bytes_; }

 private:
  const Attribute& at(const char* name) {
    int i = s_.find(name);
    EXPECT_GE(i, 0) << name;
    return s_.attrs[size_t(i)];
  }
  uint8_t* p(const Attribute& a) { return bytes_.data() + a.offset; }
  const Schema& s_;
  std::vector<uint8_t> bytes_;
};

struct Fixture {
  Schema all = Schema::packed({{"a1", Type::i1()},
                               {"a2", Type::i2()},
                               {"a4", Type::i4()},
                               {"b4", Type::f4()},
                               {"b8", Type::f8()},
                               {"c10", Type::c(10)},
                               {"c3", Type::c(3)}});
  std::vector<std::vector<uint8_t>> rows;

  Fixture() {
    auto row = [&](int64_t a1, int64_t a2, int64_t a4, float b4, double b8, const char* c10, const char* c3) {
      rows.push_back(
          TupleWriter(all).i("a1", a1).i("a2", a2).i("a4", a4).f4("b4", b4).f8("b8", b8).c("c10", c10).c("c3", c3).bytes());
    };
    row(7, -300, 100000, 2.5f, -0.75, "bolt", "ab");
    row(-128, 32767, INT_MAX, -0.0f, 1e300, "processor", "abc");
    row(0, 0, 0, 0.0f, 0.0, "", "");
    row(127, -32768, INT_MIN, 3.4e38f, -1e-300, "nut", "nut");
    row(-1, 2, -7, -16.25f, 2.0, "z\xe9", "a b");
    row(3, 25, 46341, 1e-3f, -0.0, "ab  ", "ab");
    row(1, 1, 1, 1.0f, 1.0, "nut bolt", "n");
    row(-100, 300, 16777217, 16777216.0f, 9.5, "ab*", "a?");
  }
};

// The paper's PARTS relation (34-byte tuples).
inline Schema parts_schema() {
  return Schema::packed({{"pnum", Type::i2()},
                         {"pname", Type::c(20)},
                         {"color", Type::c(8)},
                         {"weight", Type::i2()},
                         {"qoh", Type::i2()}});
}

inline std::vector<uint8_t> part(const Schema& s, int pnum, const char* pname, const char* color, int weight,
                                 int qoh) {
  return TupleWriter(s).i("pnum", pnum).c("pname", pname).c("color", color).i("weight", weight).i("qoh", qoh).bytes();
}

}  // namespace quelkit::test
