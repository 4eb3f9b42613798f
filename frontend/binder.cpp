// The binder: resolves names against range declarations and the catalog,
// types every expression and makes every conversion an explicit IR node, so
// back ends never decide a type rule themselves. The IR conventions here
// (integers computed in i4, one conversion node straight from an operand's
// type to its operator's class, patterns as MATCH_C/NOMATCH_C with the value
// first) are what every back end relies on; DESIGN.md states the language rules.
#include <array>
#include <optional>

#include "frontend/frontend.h"
#include "runtime/runtime.h"
#include "runtime/runtime_inline.h"

namespace quelkit::frontend {

namespace {

using ast::Expr;
using ir::Generic;
using ir::NodePtr;
using ir::Op;

// A type of fixed size (a character type needs a length; never asked for here).
Type type_of(Tk k) { return k == Tk::C ? Type::i4() : Type{k, type_info(k).size}; }

// The type in which a binary numeric operator computes: any f8 makes it f8,
// else any f4 makes it f4, else integers are computed in i4.
Tk numeric_class(Type a, Type b) {
  if (a.kind == Tk::F8 || b.kind == Tk::F8) return Tk::F8;
  if (a.kind == Tk::F4 || b.kind == Tk::F4) return Tk::F4;
  return Tk::I4;
}

std::string type_text(Type t) { return t.kind == Tk::B ? std::string("a condition") : type_name(t); }

// A string literal written in the query is a pattern (on either side of = or
// !=) when it holds an unescaped * ? or [ (runtime_inline.h's escapes).
bool is_pattern_literal(const Expr& e) { return e.kind == Expr::String && rt::is_pattern_text(e.text); }

class Binder {
 public:
  Binder(const RangeTable& ranges, const CatalogView& catalog, const SourceRef& src, BoundQuery& q)
      : ranges_(ranges), catalog_(catalog), src_(src), q_(q) {}

  void retrieve(const ast::Stmt& s) {
    q_.kind = BoundKind::Retrieve;
    q_.unique = s.unique;
    if (!s.relation.empty()) {
      if (catalog_.find_schema(s.relation))
        fail(ErrKind::Name, s.relation_pos, "relation '" + s.relation + "' already exists");
      q_.into = s.relation;
    }
    auto check = [&](const std::string& name, const ast::Target& t) {
      if (s.relation.empty()) return;
      // (f) retrieves p.qoh and q.qoh: equal names are fine on the terminal,
      // but a relation cannot have two attributes of one name.
      if (name == "all") fail(ErrKind::Name, t.pos, kAllReserved);
      check_unique_target(name, t.pos, "duplicate target name '" + name + "'" + from_all(t));
    };
    auto take = [&](const std::string& name, NodePtr e, const ast::Target& t) {
      if (e->type.kind == Tk::B)
        fail(ErrKind::Type, t.expr->pos,
             t.what.empty() ? "target '" + name + "' is a condition; a target must be a number or characters"
                            : t.what + " is a condition; it must be a number or characters");
      q_.targets.push_back({name, std::move(e), -1, t.pos});
    };
    target_list(s, check, take);
    qual(s);
    for (const auto& k : s.sort) {
      int found = -1;
      for (size_t i = 0; i < q_.targets.size(); ++i) {
        if (q_.targets[i].name != k.name) continue;
        if (found >= 0) fail(ErrKind::Name, k.pos, "sort key '" + k.name + "' names more than one target");
        found = int(i);
      }
      if (found < 0) fail(ErrKind::Name, k.pos, "sort key '" + k.name + "' is not a target name");
      q_.sort.push_back({found, k.descending, k.pos});
    }
  }

  void append(const ast::Stmt& s) {
    q_.kind = BoundKind::Append;
    const Schema* schema = catalog_.find_schema(s.relation);
    if (!schema) fail(ErrKind::Name, s.relation_pos, "there is no relation '" + s.relation + "'");
    q_.relation = s.relation;
    assignments(s, *schema, s.relation);
    qual(s);
  }

  void replace(const ast::Stmt& s) {
    q_.kind = BoundKind::Replace;
    q_.update_var = var(s.var, s.var_pos);
    q_.update_pos = s.var_pos;
    // A copy: vars_ may grow (and reallocate) while the assignments bind.
    Schema schema = q_.vars[size_t(q_.update_var)].schema;
    q_.relation = q_.vars[size_t(q_.update_var)].relation;
    assignments(s, schema, q_.relation);
    qual(s);
  }

  void delete_(const ast::Stmt& s) {
    q_.kind = BoundKind::Delete;
    q_.update_var = var(s.var, s.var_pos);
    q_.relation = q_.vars[size_t(q_.update_var)].relation;
    qual(s);
  }

 private:
  [[noreturn]] void fail(ErrKind k, SrcPos pos, std::string msg) const {
    throw_error(k, pos, src_, std::move(msg));
  }

  static constexpr const char* kAllReserved = "'all' cannot be an attribute name (v.all means every attribute of v)";

  void check_unique_target(const std::string& name, SrcPos pos, const std::string& msg) const {
    for (const auto& b : q_.targets)
      if (b.name == name) fail(ErrKind::Name, pos, msg);
  }

  static std::string from_all(const ast::Target& t) {
    return t.all ? " (from " + t.expr->text + ".all)" : std::string();
  }

  // Walks a target list: check(name, entry) before each entry's expression is
  // bound, take(name, typed expression, entry) after. A bare `v.all` is one
  // entry per attribute of v, in order, each named after its attribute.
  template <class Check, class Take>
  void target_list(const ast::Stmt& s, Check&& check, Take&& take) {
    for (const auto& t : s.targets) {
      if (!t.all) {
        check(t.name, t);
        take(t.name, expr(*t.expr), t);
        continue;
      }
      int vi = var(t.expr->text, t.expr->pos);
      const Schema& schema = q_.vars[size_t(vi)].schema;  // binding attributes adds no variable
      for (size_t ai = 0; ai < schema.attrs.size(); ++ai) {
        std::string name = schema.attrs[ai].name;
        check(name, t);
        take(name, attr_node(vi, int(ai), t.expr->pos), t);
      }
    }
  }

  void qual(const ast::Stmt& s) {
    if (!s.where) return;
    q_.qual = expr(*s.where);
    if (q_.qual->type.kind != Tk::B)
      fail(ErrKind::Type, s.where->pos,
           "a where clause must be a condition, not " + type_name(q_.qual->type));
  }

  // append/replace `(attr = expr, ...)`: each expression is converted to its
  // column's exact numeric type here (range checked at run time); characters
  // are stored as they are and the harness pads or truncates them.
  // `v.all` assigns each attribute of v to the attribute of its name.
  void assignments(const ast::Stmt& s, const Schema& schema, const std::string& relation) {
    auto check = [&](const std::string& name, const ast::Target& t) {
      if (schema.find(name) < 0)
        fail(ErrKind::Name, t.pos, "relation '" + relation + "' has no attribute '" + name + "'" + from_all(t));
      check_unique_target(name, t.pos, "attribute '" + name + "' is assigned twice" + from_all(t));
    };
    auto take = [&](const std::string& name, NodePtr e, const ast::Target& t) {
      int col = schema.find(name);
      Type ct = schema.attrs[size_t(col)].type;
      Type et = e->type;
      if (et.kind == Tk::B)
        fail(ErrKind::Type, t.expr->pos, "cannot assign a condition to attribute '" + name + "'");
      if (ct.is_numeric() && et.is_numeric()) {
        // The conversion is the attribute's: its range error points at the
        // attribute assigned (`v` of `v = x.v + 10`), not at the operator of
        // an expression that did not overflow.
        const ir::Node* operand = e.get();
        e = convert(std::move(e), ct.kind, true);
        if (e.get() != operand) e->pos = t.pos;
      } else if (ct.is_char() != et.is_char()) {
        fail(ErrKind::Type, t.expr->pos,
             std::string("cannot assign ") + (et.is_char() ? "characters" : "a number") + " to " +
                 type_name(ct) + " attribute '" + name + "'" + from_all(t));
      }
      q_.targets.push_back({name, std::move(e), col, t.pos});
    };
    target_list(s, check, take);
  }

  // Index of range variable `name`, added on first use. An undeclared name
  // that is a relation ranges over that relation.
  int var(const std::string& name, SrcPos pos) {
    for (size_t i = 0; i < q_.vars.size(); ++i)
      if (q_.vars[i].name == name) return int(i);
    const std::string* declared = ranges_.find(name);
    std::string relation = declared ? *declared : name;
    const Schema* schema = catalog_.find_schema(relation);
    if (!schema) {
      if (declared)
        fail(ErrKind::Name, pos,
             "range variable '" + name + "' ranges over '" + relation + "', which does not exist");
      fail(ErrKind::Name, pos, "'" + name + "' is neither a range variable nor a relation");
    }
    q_.vars.push_back({name, relation, *schema, pos});
    return int(q_.vars.size()) - 1;
  }

  // One conversion node straight from n's type to `to` (none if equal).
  // Implicit ones carry their operand's position, explicit ones the call's.
  static NodePtr convert(NodePtr n, Tk to, bool implicit, SrcPos call_pos = {}) {
    if (n->type.kind == to) return n;
    Op op = Op::CONST;
    cvt_op(n->type.kind, to, &op);  // every numeric pair has a row in ops.def
    SrcPos at = implicit ? n->pos : call_pos;
    NodePtr c = ir::make_node(op, type_of(to), at, std::move(n));
    c->implicit = implicit;
    return c;
  }

  static NodePtr widen(NodePtr n) {
    return n->type.is_int() ? convert(std::move(n), Tk::I4, true) : std::move(n);
  }

  static NodePtr typed(Generic g, Tk operand, Type result, SrcPos pos, NodePtr a, NodePtr b = nullptr) {
    Op op = Op::CONST;
    typed_op(g, operand, &op);  // callers only ask for rows that exist
    return ir::make_node(op, result, pos, std::move(a), std::move(b));
  }

  void scratch(ir::Node& n) {
    n.scratch = q_.scratch_size;
    q_.scratch_size += n.type.len;
  }

  // Where an unclosed '[' of a pattern literal is in the source: its text
  // (Token::raw) lost a byte for each \" escape, so walk the literal as written.
  SrcPos pattern_pos(SrcPos lit, uint32_t index) const {
    std::string_view line = src_ ? src_->line(lit.line) : std::string_view();
    size_t raw = lit.col;  // 0-based index of the first byte after the opening quote
    for (uint32_t i = 0; i < index && raw < line.size(); ++i)
      raw += (line[raw] == '\\' && raw + 1 < line.size() && line[raw + 1] == '"') ? 2 : 1;
    return {lit.line, uint32_t(raw + 1)};
  }

  NodePtr expr(const Expr& e) {
    switch (e.kind) {
      case Expr::Int: {
        ir::Value v;
        v.i = e.ival;
        return ir::make_const(int_literal_type(e.ival), v, e.pos);
      }
      case Expr::Float: {
        ir::Value v;
        v.f8 = e.fval;
        return ir::make_const(Type::f8(), v, e.pos);
      }
      case Expr::String: {
        // A value: its escapes resolved (a backslash makes the next character
        // ordinary). The pattern side of = and != is bound from the text as
        // written, whose escapes the matcher reads (comparison()).
        ir::Value v;
        v.s = rt::unescape(e.text);
        return ir::make_const(Type::c(unsigned(v.s.size())), v, e.pos);
      }
      case Expr::Attr: {
        int vi = var(e.text, e.pos);
        const BoundVar& bv = q_.vars[size_t(vi)];
        if (e.attr == "all")
          fail(ErrKind::Name, e.pos,
               "'" + e.text + ".all' stands for every attribute: it can only be a target list entry of its own");
        int ai = bv.schema.find(e.attr);
        if (ai < 0)
          fail(ErrKind::Name, e.pos,
               "relation '" + bv.relation + "' (variable " + bv.name + ") has no attribute '" + e.attr + "'");
        return attr_node(vi, ai, e.pos);
      }
      case Expr::Unary: return unary(e);
      case Expr::Binary: return binary(e);
      case Expr::Call: return call(e);
      case Expr::Value: {
        ir::Value v;
        const Type t = e.value_type;
        if (t.is_int()) v.i = e.ival;
        else if (t.kind == Tk::F4) v.f4 = float(e.fval);
        else if (t.kind == Tk::F8) v.f8 = e.fval;
        else v.s = e.text;
        return ir::make_const(t, v, e.pos);
      }
      case Expr::Aggregate:  // the session replaces every aggregate it allows by its value
        fail(ErrKind::Type, e.pos, "an aggregate cannot appear inside another aggregate");
    }
    fail(ErrKind::Type, e.pos, "unknown expression");
  }

  NodePtr attr_node(int vi, int ai, SrcPos pos) const {
    const Attribute& a = q_.vars[size_t(vi)].schema.attrs[size_t(ai)];
    auto n = ir::make_node(Op::ATTR, a.type, pos);
    n->var = vi;
    n->attr = ai;
    n->offset = a.offset;
    return n;
  }

  // Operators and functions: the catalogue (ops.def) names the generic
  // operator and its typing rule; the rule's case below types the operands,
  // inserts their conversions and picks the typed row.
  NodePtr unary(const Expr& e) {
    NodePtr a = expr(*e.args[0]);
    if (e.op == "+") {  // no node: +x is x
      if (!a->type.is_numeric())
        fail(ErrKind::Type, e.pos, "unary '" + e.op + "' needs a number, not " + type_text(a->type));
      return a;
    }
    Generic g;
    if (!ir::generic_by_quel(e.op, 1, false, &g)) fail(ErrKind::Type, e.pos, "unknown operator '" + e.op + "'");
    std::vector<NodePtr> args;
    args.push_back(std::move(a));
    return apply(e, g, std::move(args), false);
  }

  NodePtr binary(const Expr& e) {
    Generic g;
    if (!ir::generic_by_quel(e.op, 2, false, &g)) fail(ErrKind::Type, e.pos, "unknown operator '" + e.op + "'");
    std::vector<NodePtr> args;  // two, or an and/or's n (ast.h)
    args.reserve(e.args.size());
    for (const auto& a : e.args) args.push_back(expr(*a));
    return apply(e, g, std::move(args), false);
  }

  NodePtr call(const Expr& e) {
    // `usercode` (no parentheses: the parser makes it a call of no
    // arguments) is a constant of the session, never a pattern.
    if (e.text == "usercode" && e.args.empty()) {
      ir::Value v;
      v.s = catalog_.usercode();
      return ir::make_const(Type::c(unsigned(v.s.size())), v, e.pos);
    }
    // The explicit conversions are spelled by their target type (types.def).
    std::optional<Tk> to;
    for (int i = 0; i < kNumTk; ++i)
      if (*kTypes[i].convert_fn && e.text == kTypes[i].convert_fn) to = Tk(i);
    Generic g = Generic::Cvt;
    if (!to) {
      bool known = false;
      for (int arity : {1, 2}) known = known || ir::generic_by_quel(e.text, arity, true, &g);
      if (!known) fail(ErrKind::Name, e.pos, "unknown function '" + e.text + "'");
    }
    int arity = to ? 1 : ir::generic_info(g).arity;
    if (int(e.args.size()) != arity)
      fail(ErrKind::Type, e.pos,
           "'" + e.text + "' takes " + std::to_string(arity) + (arity == 1 ? " argument" : " arguments") +
               ", not " + std::to_string(e.args.size()));
    std::vector<NodePtr> a;
    for (const auto& arg : e.args) a.push_back(expr(*arg));
    if (to) {
      need_numbers(e, a);
      return convert(std::move(a[0]), *to, false, e.pos);
    }
    return apply(e, g, std::move(a), true);
  }

  // A function's operands must be numbers.
  void need_numbers(const Expr& e, const std::vector<NodePtr>& a) {
    for (const auto& n : a) {
      if (n->type.is_char())
        fail(ErrKind::Type, e.pos, "'" + e.text + "' needs a number: cannot convert characters to numbers");
      if (!n->type.is_numeric())
        fail(ErrKind::Type, e.pos, "'" + e.text + "' needs a number, not " + type_text(n->type));
    }
  }

  // An operator's operands must be numbers: the message names the operator.
  void need_numbers_op(const Expr& e, const std::vector<NodePtr>& a) {
    for (const auto& n : a)
      if (!n->type.is_numeric()) {
        if (a.size() == 1)
          fail(ErrKind::Type, e.pos, "unary '" + e.op + "' needs a number, not " + type_text(n->type));
        fail(ErrKind::Type, e.pos,
             "'" + e.op + "' needs numbers, not " + type_text(a[0]->type) + " and " + type_text(a[1]->type));
      }
  }

  // Types the operands of g by its typing rule and builds its typed node.
  NodePtr apply(const Expr& e, Generic g, std::vector<NodePtr> a, bool function) {
    const ir::GenericInfo& gi = ir::generic_info(g);
    const std::string& spelled = function ? e.text : e.op;
    auto numbers = [&] { function ? need_numbers(e, a) : need_numbers_op(e, a); };
    auto node = [&](Tk operand, Type result) {
      NodePtr n = typed(g, operand, result, e.pos, std::move(a[0]), a.size() > 1 ? std::move(a[1]) : nullptr);
      if (gi.scratch) scratch(*n);
      return n;
    };
    switch (gi.typing) {
      case ir::Typing::None:
        break;
      case ir::Typing::Keep: {  // a number widened to i4 if an integer; keeps its type
        numbers();
        a[0] = widen(std::move(a[0]));
        Type t = a[0]->type;
        return node(t.kind, t);
      }
      case ir::Typing::Numeric: {  // both to their common type
        numbers();
        Tk cls = numeric_class(a[0]->type, a[1]->type);
        for (auto& n : a) n = convert(std::move(n), cls, true);
        return node(cls, type_of(cls));
      }
      case ir::Typing::Float8: {
        numbers();
        for (auto& n : a) n = convert(std::move(n), Tk::F8, true);
        return node(Tk::F8, Type::f8());
      }
      case ir::Typing::Integer: {
        for (const auto& n : a)
          if (!n->type.is_int())
            fail(ErrKind::Type, e.pos, "'" + spelled + "' takes integers, not " + type_text(n->type));
        for (auto& n : a) n = widen(std::move(n));
        return node(Tk::I4, Type::i4());
      }
      case ir::Typing::Compare:
        return comparison(e, g, std::move(a[0]), std::move(a[1]));
      case ir::Typing::Logic: {
        for (const auto& n : a)
          if (n->type.kind != Tk::B)
            fail(ErrKind::Type, e.pos,
                 a.size() == 1 ? "the operand of '" + spelled + "' must be a condition, not " + type_text(n->type)
                               : "the operands of '" + spelled + "' must be conditions, not " + type_text(n->type));
        if (a.size() > 2) {  // and/or of n operands: one n-ary node (ir.h)
          Op op = Op::CONST;
          typed_op(g, Tk::B, &op);
          return ir::make_nary(op, Type::b(), e.pos, std::move(a));
        }
        return node(Tk::B, Type::b());
      }
      case ir::Typing::Ascii: {
        numbers();
        static constexpr unsigned width[] = {6, 6, 11, 15, 24};  // i1 i2 i4 f4 f8
        Tk k = a[0]->type.kind;
        return node(k, Type::c(width[int(k)]));
      }
      case ir::Typing::Concat: {
        for (const auto& n : a)
          if (!n->type.is_char())
            fail(ErrKind::Type, e.pos, "'" + spelled + "' takes characters, not " + type_text(n->type));
        unsigned len = unsigned(a[0]->type.len) + a[1]->type.len;
        if (len > 255)
          fail(ErrKind::Type, e.pos,
               spelled + " result would be " + std::to_string(len) + " characters wide (at most 255)");
        return node(Tk::C, Type::c(len));
      }
    }
    fail(ErrKind::Type, e.pos, "'" + spelled + "' cannot be used here");
  }

  NodePtr comparison(const Expr& e, Generic g, NodePtr l, NodePtr r) {
    Type lt = l->type, rt = r->type;
    if (lt.kind == Tk::B || rt.kind == Tk::B)
      fail(ErrKind::Type, e.pos, "'" + e.op + "' compares numbers or characters, not conditions");
    if (lt.is_char() != rt.is_char())
      fail(ErrKind::Type, e.pos, "cannot compare characters with numbers");
    if (lt.is_char()) {
      if (g == Generic::Eq || g == Generic::Ne) {
        // Two patterns have no value to match: reject rather than pick a side.
        if (is_pattern_literal(*e.args[0]) && is_pattern_literal(*e.args[1]))
          fail(ErrKind::Type, e.pos,
               "cannot compare two patterns (string literals with * ? or [): one side of '" + e.op +
                   "' must be a value");
        const Expr* pat = is_pattern_literal(*e.args[1]) ? e.args[1].get()
                          : is_pattern_literal(*e.args[0]) ? e.args[0].get() : nullptr;
        if (pat) {
          if (pat == e.args[0].get()) std::swap(l, r);
          ir::Value text;
          text.s = pat->text;  // the matcher reads its escapes
          r = ir::make_const(Type::c(unsigned(text.s.size())), text, pat->pos);
          uint32_t bad = 0;
          const auto* p = reinterpret_cast<const uint8_t*>(pat->text.data());
          if (qk_pattern_check(p, uint32_t(pat->text.size()), &bad) != 0)
            fail(ErrKind::Type, pattern_pos(pat->pos, bad), "unclosed '[' in pattern");
          g = g == Generic::Eq ? Generic::Match : Generic::NoMatch;
        }
      }
      return typed(g, Tk::C, Type::b(), e.pos, std::move(l), std::move(r));
    }
    Tk cls = numeric_class(lt, rt);
    l = convert(std::move(l), cls, true);
    r = convert(std::move(r), cls, true);
    return typed(g, cls, Type::b(), e.pos, std::move(l), std::move(r));
  }

  const RangeTable& ranges_;
  const CatalogView& catalog_;
  SourceRef src_;
  BoundQuery& q_;
};

}  // namespace

Type int_literal_type(int64_t v) { return v >= -32768 && v <= 32767 ? Type::i2() : Type::i4(); }

BoundQuery bind(const ast::Stmt& stmt, const RangeTable& ranges, const CatalogView& catalog,
                const SourceRef& src) {
  BoundQuery q;
  q.pos = stmt.pos;
  Binder b(ranges, catalog, src, q);
  switch (stmt.kind) {
    case ast::Stmt::Retrieve: b.retrieve(stmt); break;
    case ast::Stmt::Append: b.append(stmt); break;
    case ast::Stmt::Replace: b.replace(stmt); break;
    case ast::Stmt::Delete: b.delete_(stmt); break;
    default:
      throw_error(ErrKind::Usage, stmt.pos, src, "only retrieve, append, replace and delete are bound");
  }
  return q;
}

}  // namespace quelkit::frontend
