// Typed IR for back-end tests, made the way the engine makes it: QUEL text
// parsed and bound by the real binder (frontend::parse, frontend::bind), so
// no test types an expression itself. One range variable is the plan's
// tuple; the attributes of a second become PARAM nodes, as tuple
// substitution makes them (engine/decompose.cpp).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "frontend/frontend.h"
#include "engine/plan.h"

namespace quelkit::test {

class QuelPlan {
 public:
  // `var` ranges over the tuple's relation, of layout `in`.
  QuelPlan(std::string var, Schema in) : var_(std::move(var)), in_(std::move(in)) {
    schemas_.emplace("tuple", in_);
    ranges_.set(var_, "tuple");
  }
  QuelPlan(const QuelPlan&) = delete;  // the catalog refers to this object's schemas
  QuelPlan& operator=(const QuelPlan&) = delete;
  // `var`'s attributes are the parameter block, of layout `params`.
  QuelPlan& params(std::string var, Schema params) {
    param_var_ = std::move(var);
    params_ = std::move(params);
    schemas_.emplace("params", params_);
    ranges_.set(param_var_, "params");
    return *this;
  }
  // A relation a statement may name (an append's).
  QuelPlan& relation(const std::string& name, Schema s) {
    schemas_.emplace(name, std::move(s));
    return *this;
  }

  // One statement, bound, parameters substituted. A binder error fails the test.
  frontend::BoundQuery bind(const std::string& statement) {
    auto src = std::make_shared<Source>("test.quel", statement);
    frontend::BoundQuery q;
    try {
      auto stmts = frontend::parse(src);
      EXPECT_EQ(stmts.size(), 1u) << statement;
      q = frontend::bind(*stmts.at(0), ranges_, catalog_, src);
    } catch (QuelError& e) {
      ADD_FAILURE() << e.err.format();
      return q;
    }
    int pv = -1;
    for (size_t i = 0; i < q.vars.size(); ++i)
      if (q.vars[i].name == param_var_) pv = int(i);
    if (q.qual) q.qual = substitute(*q.qual, pv);
    for (auto& t : q.targets) t.expr = substitute(*t.expr, pv);
    return q;
  }

  // A retrieve (or append) over the tuple as a plan: qualification, targets,
  // their row layout (an append's: its relation's column types), parameter
  // layout and scratch. Unfolded, as the 1976 interpreter takes it.
  harness::Plan plan(const std::string& statement) {
    frontend::BoundQuery q = bind(statement);
    harness::Plan p;
    p.name = "t";
    p.in = in_;
    p.params = params_;
    p.qual = std::move(q.qual);
    const Schema* into = q.kind == frontend::BoundKind::Append ? catalog_.find_schema(q.relation) : nullptr;
    std::vector<std::pair<std::string, Type>> cols;
    for (auto& t : q.targets) {
      cols.emplace_back(t.name, into ? into->attrs[size_t(t.column)].type : t.expr->type);
      p.targets.push_back(std::move(t.expr));
    }
    p.out = Schema::packed(cols);
    p.scratch_size = q.scratch_size;
    return p;
  }

  // One expression bound alone: a value as a target, a condition as a
  // qualification. *scratch: the scratch its bytes need.
  ir::NodePtr expr(const std::string& text, uint32_t* scratch = nullptr) {
    // Ask the binder quietly which of the two it is, then bind for real.
    bool condition = false;
    try {
      auto src = std::make_shared<Source>("test.quel", "retrieve (x = " + text + ")");
      frontend::bind(*frontend::parse(src).at(0), ranges_, catalog_, src);
    } catch (QuelError&) {
      condition = true;
    }
    frontend::BoundQuery q = bind(condition ? "retrieve (x = 1) where " + text : "retrieve (x = " + text + ")");
    if (scratch) *scratch = q.scratch_size;
    if (condition) return std::move(q.qual);
    return q.targets.empty() ? nullptr : std::move(q.targets[0].expr);
  }

  // The type the binder gives an expression.
  Type type(const std::string& text) {
    ir::NodePtr e = expr(text);
    return e ? e->type : Type::b();
  }

 private:
  class Catalog final : public CatalogView {
   public:
    explicit Catalog(const std::map<std::string, Schema, std::less<>>& s) : s_(s) {}
    const Schema* find_schema(std::string_view relation) const override {
      auto it = s_.find(relation);
      return it == s_.end() ? nullptr : &it->second;
    }

   private:
    const std::map<std::string, Schema, std::less<>>& s_;
  };

  // The parameter variable's attributes as PARAM nodes (slot = attribute).
  ir::NodePtr substitute(const ir::Node& n, int param_var) {
    if (n.op == ir::Op::ATTR && n.var == param_var && param_var >= 0) {
      auto p = ir::make_node(ir::Op::PARAM, n.type, n.pos);
      p->slot = n.attr;
      p->offset = params_.attrs[size_t(n.attr)].offset;
      return p;
    }
    std::vector<ir::NodePtr> kids;
    for (const auto& k : n.kid) kids.push_back(k ? substitute(*k, param_var) : nullptr);
    return ir::copy_with_kids(n, std::move(kids));
  }

  std::string var_, param_var_;
  Schema in_, params_;
  std::map<std::string, Schema, std::less<>> schemas_;
  Catalog catalog_{schemas_};
  frontend::RangeTable ranges_;
};

// The first node, in preorder, of generic operator g that the text wrote (an
// implicit conversion is the binder's, not written): what a test names to
// find the position an error must carry.
inline const ir::Node* find_written(const ir::Node& n, ir::Generic g) {
  if (ir::op_info(n.op).generic == g && !n.implicit) return &n;
  for (const auto& k : n.kid)
    if (k)
      if (const ir::Node* f = find_written(*k, g)) return f;
  return nullptr;
}

// A copy of n with the literal at `at` made parameter `slot` of `params`, as
// tuple substitution makes a value a parameter: same type, same position.
inline ir::NodePtr literal_as_param(const ir::Node& n, SrcPos at, const Schema& params, int slot) {
  if (n.op == ir::Op::CONST && n.pos == at) {
    EXPECT_EQ(n.type, params.attrs[size_t(slot)].type);
    auto p = ir::make_node(ir::Op::PARAM, n.type, n.pos);
    p->slot = slot;
    p->offset = params.attrs[size_t(slot)].offset;
    return p;
  }
  std::vector<ir::NodePtr> kids;
  for (const auto& k : n.kid) kids.push_back(k ? literal_as_param(*k, at, params, slot) : nullptr);
  return ir::copy_with_kids(n, std::move(kids));
}

}  // namespace quelkit::test
