// Shared fixtures for the front-end tests: a tiny in-memory CatalogView with
// the paper's PARTS relation, a relation with one attribute of every format,
// an EMP relation with an f4 salary, and helpers that parse, bind and catch
// errors in one call.
#pragma once

#include <charconv>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "frontend/frontend.h"

namespace quelkit::frontend::fetest {

class TestCatalog : public CatalogView {
 public:
  TestCatalog() {
    rels_["parts"] = Schema::packed({{"pnum", Type::i2()},
                                     {"pname", Type::c(20)},
                                     {"color", Type::c(8)},
                                     {"weight", Type::i2()},
                                     {"qoh", Type::i2()}});
    // One attribute of every format: a1 i1, a2 i2, a4 i4, r4 f4, r8 f8, s c10, w c200.
    rels_["every"] = Schema::packed({{"a1", Type::i1()},
                                     {"a2", Type::i2()},
                                     {"a4", Type::i4()},
                                     {"r4", Type::f4()},
                                     {"r8", Type::f8()},
                                     {"s", Type::c(10)},
                                     {"w", Type::c(200)}});
    rels_["emp"] = Schema::packed({{"name", Type::c(10)}, {"salary", Type::f4()}, {"dept", Type::i2()}});
  }
  const Schema* find_schema(std::string_view relation) const override {
    auto it = rels_.find(std::string(relation));
    return it == rels_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, Schema> rels_;
};

inline SourceRef source(const std::string& text) { return std::make_shared<Source>("t.quel", text); }

// p ranges over parts, e over emp, x over every.
inline RangeTable default_ranges() {
  RangeTable r;
  r.set("p", "parts");
  r.set("e", "emp");
  r.set("x", "every");
  return r;
}

// Parses `text` (one statement) and binds it.
inline BoundQuery bind_text(const std::string& text, const RangeTable& ranges = default_ranges()) {
  static TestCatalog catalog;
  SourceRef src = source(text);
  auto stmts = parse(src);
  EXPECT_EQ(stmts.size(), 1u);
  return frontend::bind(*stmts.at(0), ranges, catalog, src);
}

// The error a piece of text raises when parsed (and bound, if `bind_too`);
// kind Usage with message "no error" if it raises none.
inline Error error_of(const std::string& text, bool bind_too = true) {
  static TestCatalog catalog;
  RangeTable ranges = default_ranges();
  SourceRef src = source(text);
  try {
    auto stmts = parse(src);
    if (bind_too)
      for (const auto& s : stmts)
        if (s->kind == ast::Stmt::Retrieve || s->kind == ast::Stmt::Append ||
            s->kind == ast::Stmt::Replace || s->kind == ast::Stmt::Delete)
          frontend::bind(*s, ranges, catalog, src);
  } catch (const QuelError& e) {
    return e.err;
  }
  Error none;
  none.kind = ErrKind::Usage;
  none.message = "no error";
  return none;
}

// Compact "kind line:col message" text, so one EXPECT shows everything.
inline std::string err_text(const Error& e) {
  return std::string(errkind_name(e.kind)) + " " + std::to_string(e.pos.line) + ":" +
         std::to_string(e.pos.col) + " " + e.message;
}

// A compact one-line tree for expectations: `LT_I4(~CVT_I2_I4(ATTR0.4:i2), i2:3)`.
// `~` marks a binder-inserted (implicit) conversion; constants print as
// type:value (floats as std::to_chars' shortest form, others as
// ir::format_value), attributes as ATTR<var>.<attr>:<type>.
inline std::string tree(const ir::Node& n) {
  if (n.op == ir::Op::CONST) {
    std::string v = ir::format_value(n.type, n.val);
    char buf[64];
    if (n.type.kind == Tk::F4) v.assign(buf, std::to_chars(buf, buf + sizeof buf, n.val.f4).ptr);
    if (n.type.kind == Tk::F8) v.assign(buf, std::to_chars(buf, buf + sizeof buf, n.val.f8).ptr);
    if (n.type.kind == Tk::C) v = "\"" + n.val.s + "\"";
    if (n.type.kind == Tk::B) v = std::to_string(n.val.i);
    return type_name(n.type) + ":" + v;
  }
  if (n.op == ir::Op::ATTR)
    return "ATTR" + std::to_string(n.var) + "." + std::to_string(n.attr) + ":" + type_name(n.type);
  std::string s = (n.implicit ? "~" : "") + std::string(ir::op_name(n.op)) + "(";
  const size_t kids = ir::is_nary(n.op) ? n.kid.size() : size_t(n.arity());  // and/or: n operands
  for (size_t i = 0; i < kids; ++i) s += (i ? ", " : "") + tree(*n.kid[i]);
  return s + ")";
}

}  // namespace quelkit::frontend::fetest
