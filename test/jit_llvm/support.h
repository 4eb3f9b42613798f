// Helpers for the LLVM back-end tests: a relation of hand-chosen edge values
// (every run-time error the language has, -0.0, NaN, infinities, blanks and
// pattern characters, spread over two pages so kernels report errors through
// err_slot), sessions over chosen back ends, evaluation of one statement on
// every runner, and a bit-exact comparison of two results.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backends.h"
#include "frontend/frontend.h"
#include "storage/page.h"
#include "engine/session.h"

namespace quelkit::test {

// e(a = i4, b = i2, c = i1, f = f4, d = f8, s = c10, u = c4): 40 ordinary rows,
// then the edge rows 41..46 (tuple ordinals), on two 1024-byte pages.
inline std::unique_ptr<harness::Relation> edge_relation(const std::string& name = "e") {
  Schema s = Schema::packed({{"a", Type::i4()},
                             {"b", Type::i2()},
                             {"c", Type::i1()},
                             {"f", Type::f4()},
                             {"d", Type::f8()},
                             {"s", Type::c(10)},
                             {"u", Type::c(4)}});
  auto rel = std::make_unique<harness::Relation>(name, s);
  auto row = [&](int32_t a, int16_t b, int8_t c, float f, double d, const char* str, const char* u) {
    std::vector<uint8_t> t(s.tuple_len, ' ');
    harness::store<int32_t>(t.data() + s.attrs[0].offset, a);
    harness::store<int16_t>(t.data() + s.attrs[1].offset, b);
    harness::store<int8_t>(t.data() + s.attrs[2].offset, c);
    harness::store<float>(t.data() + s.attrs[3].offset, f);
    harness::store<double>(t.data() + s.attrs[4].offset, d);
    std::memcpy(t.data() + s.attrs[5].offset, str, std::min<size_t>(std::strlen(str), 10));
    std::memcpy(t.data() + s.attrs[6].offset, u, std::min<size_t>(std::strlen(u), 4));
    rel->insert(t.data());
  };
  static const char* const names[] = {"bolt", "nut", "processor", "cam  ", "a*b", "gear"};
  static const char* const codes[] = {"ab", "cd", "a", "b c"};
  for (int i = 1; i <= 40; ++i)
    row(i * 7 - 100, int16_t(1 + i % 5), int8_t(1 + i % 3), float(i) * 0.25f - 3.0f, i * 1.5 - 20.0, names[i % 6],
        codes[i % 4]);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  row(1, 2, 3, 1.5f, 2.5, "abc", "ab");                                                  // 41
  row(-7, -3, -128, -0.0f, -0.0, "abc   ", "a*");                                        // 42
  row(INT32_MIN, 32767, -1, 3e38f, 1e308, "processor", "[a");                           // 43
  row(INT32_MAX, -32768, 0, 1e-45f, nan, "", "zz");                                      // 44
  row(0, 0, 127, float(inf), -4.0, "a\\b", "x");                                         // 45
  row(46341, 100, 10, 0.1f, -inf, "ABC", "  x ");                                        // 46
  return rel;
}

inline harness::SessionOptions options(const std::string& backends, int level, bool checks,
                                       bool native_cpu = false) {
  register_all_backends();
  harness::SessionOptions o;
  o.backends = harness::parse_backend_list(backends);
  o.format = harness::OutFormat::None;
  o.prepare.jit_opt = level;
  o.prepare.jit_checks = checks;
  o.prepare.jit_native_cpu = native_cpu;
  return o;
}

// A session with the edge relation e and ranges t and v over it.
struct Kit {
  std::ostringstream out, err;
  std::unique_ptr<harness::Session> session;

  explicit Kit(const harness::SessionOptions& o) {
    session = std::make_unique<harness::Session>(o, out, err);
    session->catalog().add(edge_relation());
    run("range of t is e range of v is e");
  }
  bool run(const std::string& text) { return session->run(std::make_shared<Source>("t.quel", text)); }

  // Evaluates one retrieve on every runner (nothing applied).
  std::vector<harness::Result> evaluate(const std::string& text) {
    auto src = std::make_shared<Source>("q.quel", text);
    auto stmts = frontend::parse(src);
    frontend::BoundQuery q = frontend::bind(*stmts.at(0), session->ranges(), session->catalog(), src);
    std::vector<harness::Result> rs;
    for (auto& r : session->runners()) rs.push_back(session->evaluate(q, *r, src, true));
    return rs;
  }
};

// "" if a and b are the same answer: rows bit for bit, or the same error
// (code, message, position, relation, tuple ordinal).
inline std::string differ(const harness::Result& a, const harness::Result& b) {
  if (a.ok != b.ok)
    return std::string("one failed: ") + (a.ok ? b.error.format() : a.error.format());
  if (!a.ok) {
    if (a.error == b.error) return "";
    return "different errors: " + a.error.format() + " (tuple " + std::to_string(a.error.tuple) + ") vs " +
           b.error.format() + " (tuple " + std::to_string(b.error.tuple) + ")";
  }
  if (a.nrows() != b.nrows()) return "row counts " + std::to_string(a.nrows()) + " vs " + std::to_string(b.nrows());
  if (!(a.rows == b.rows)) return "row bytes differ";
  if (a.checksum.sum != b.checksum.sum) return "checksums differ";
  return "";
}

}  // namespace quelkit::test
