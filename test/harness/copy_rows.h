// The relation of every type that copy's tests (CSV and INGRES formats) write
// and read, and its tuples built by hand, so both formats are checked
// against the same packed bytes.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "frontend/schema.h"
#include "storage/page.h"

namespace quelkit::test {

inline Schema all_types() {
  return Schema::packed({{"a", Type::i1()},
                         {"b", Type::i2()},
                         {"c", Type::i4()},
                         {"d", Type::f4()},
                         {"e", Type::f8()},
                         {"s", Type::c(10)}});
}

inline std::vector<uint8_t> row(const Schema& sc, int a, int b, int32_t c, float d, double e, const std::string& s) {
  std::vector<uint8_t> t(sc.tuple_len);
  harness::store<int8_t>(t.data(), int8_t(a));
  harness::store<int16_t>(t.data() + 1, int16_t(b));
  harness::store<int32_t>(t.data() + 3, c);
  harness::store<float>(t.data() + 7, d);
  harness::store<double>(t.data() + 11, e);
  std::memset(t.data() + 19, ' ', 10);
  std::memcpy(t.data() + 19, s.data(), s.size());
  return t;
}

}  // namespace quelkit::test
