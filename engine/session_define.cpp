// define view, define integrity and define permit for a session (session.h):
// each definition is checked whole (its names and types bound as a retrieve
// would bind them, an integrity constraint's truth over the relation on
// every back end) before it is added, so a failed definition adds nothing.
// The rewriting of statements by them is engine/query_modification.cpp's.
#include <algorithm>

#include "engine/aggregate.h"
#include "engine/quel_statements.h"
#include "engine/session.h"

namespace quelkit::harness {

using frontend::ast::Expr;
using frontend::ast::Stmt;

Asker Session::asker() const {
  return {cat_.usercode(), owner_, session_terminal(opt_.terminal), opt_.clock ? opt_.clock() : wall_clock_now()};
}

Session::Modified Session::modify(const Stmt& s, const SourceRef& src) {
  QueryModification::Modified m = qmod_.modify(s, ranges_, cat_, asker(), src);
  return {std::move(m.stmt), std::make_unique<ScopedVars>(ranges_, std::move(m.vars))};
}

void Session::set_user(const std::string& user) {
  cat_.set_usercode(session_user(user));
  catalog_changed();  // usercode's value and the permits that apply are the new user's
}

namespace {

// A retrieve of `targets` (or of `v.first`) where `qual`: how a definition's
// names and types are checked, and an integrity constraint's truth counted.
frontend::ast::StmtPtr check_query(const Stmt& s) {
  auto q = clone_statement(s);
  q->kind = Stmt::Retrieve;
  q->relation.clear();
  q->var.clear();
  return q;
}

frontend::ast::ExprPtr attr_of(const std::string& var, const std::string& attr, SrcPos pos) {
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Attr;
  e->text = var;
  e->attr = attr;
  e->pos = pos;
  return e;
}

}  // namespace

void Session::exec_define(const Stmt& s, const SourceRef& src) {
  const std::string what = s.define_what;
  Asker owner = asker();
  owner.user = owner_;  // a definition is bound as its owner sees the relations
  // Binds `q` as modified by the views it uses; the modified statement and
  // its binding are checked, not kept.
  auto bind_check = [&](const Stmt& q) {
    if (frontend::ast::Expr const* a = q.where ? first_aggregate(*q.where) : nullptr; a && what != "view")
      throw_error(ErrKind::Name, a->pos, src, what + " on " + s.var + ": a constraint cannot hold aggregates");
    QueryModification::Modified m = qmod_.modify(q, ranges_, cat_, owner, src);
    ScopedVars vars(ranges_, std::move(m.vars));
    const Stmt& mq = m.stmt ? *m.stmt : q;
    // A definition with aggregates is bound when a query uses it (the
    // binder takes no aggregate: the session evaluates them first).
    for (const auto& t : mq.targets)
      if (first_aggregate(*t.expr)) return;
    if (mq.where && first_aggregate(*mq.where)) return;
    frontend::bind(mq, ranges_, cat_, src);
  };
  if (what == "view") {
    const std::string name = lowercase(s.relation);
    if (cat_.find(name) || is_system_catalog(name) || qmod_.is_view(name))
      throw_error(ErrKind::Name, s.relation_pos, src, "relation '" + s.relation + "' already exists");
    // The view manual page: its definer must own the relations it is over.
    if (asker().user != owner_)
      throw_error(ErrKind::Name, s.relation_pos, src,
                  "view " + name + ": its relations are owned by " + owner_ + ", not " + asker().user);
    auto q = check_query(s);
    // `e.all` in a view: every domain of e's relation, by its name.
    for (size_t i = 0; i < q->targets.size(); ++i) {
      if (!q->targets[i].all) continue;
      const std::string var = q->targets[i].expr->text;
      const SrcPos pos = q->targets[i].pos;
      const Schema* schema = cat_.find_schema(qmod_.relation_of(var, ranges_, cat_));
      if (!schema) throw_error(ErrKind::Name, pos, src, var + ".all in a view: name the domains of a view over a view");
      q->targets.erase(q->targets.begin() + long(i));
      for (size_t k = 0; k < schema->attrs.size(); ++k) {
        frontend::ast::Target t;
        t.name = schema->attrs[k].name;
        t.pos = pos;
        t.expr = attr_of(var, t.name, pos);
        q->targets.insert(q->targets.begin() + long(i + k), std::move(t));
      }
      i += schema->attrs.size() - 1;
    }
    for (size_t i = 0; i < q->targets.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (q->targets[i].name == q->targets[j].name)
          throw_error(ErrKind::Name, q->targets[i].pos, src, "domain " + q->targets[i].name + " given twice");
    bind_check(*q);
    std::vector<std::pair<std::string, std::string>> vars;
    for (const auto& [v, pos] : variables_of(*q)) vars.emplace_back(v, qmod_.relation_of(v, ranges_, cat_));
    q->begin = s.begin;
    q->end = s.end;
    q->relation = s.relation;
    qmod_.add_view(*q, std::move(vars), src);
    catalog_changed();
    return;
  }
  // integrity and permit: on a relation of the session's, by its owner
  const std::string rel = qmod_.relation_of(s.var, ranges_, cat_);
  if (rel.empty()) throw_error(ErrKind::Name, s.var_pos, src, "there is no range variable or relation '" + s.var + "'");
  if (qmod_.is_view(rel)) throw_error(ErrKind::Name, s.var_pos, src, what + " on " + rel + ": it is a view");
  const Relation& r = user_relation(rel, s.var_pos, src);
  if (asker().user != owner_)
    throw_error(ErrKind::Name, s.var_pos, src,
                what + " on " + rel + ": the relation is owned by " + owner_ + ", not " + asker().user);
  for (size_t i = 0; i < s.permit_domains.size(); ++i)
    if (r.schema().find(s.permit_domains[i]) < 0)
      throw_error(ErrKind::Name, s.permit_domain_positions[i], src,
                  "relation " + rel + " has no domain '" + s.permit_domains[i] + "'");
  auto q = check_query(s);
  q->targets.clear();
  frontend::ast::Target t;
  t.name = r.schema().attrs.front().name;
  t.pos = s.var_pos;
  t.expr = attr_of(s.var, t.name, s.var_pos);
  q->targets.push_back(std::move(t));
  for (const auto& [v, pos] : variables_of(*q))
    if (v != s.var)
      throw_error(ErrKind::Name, pos, src,
                  what + " on " + rel + ": its qualification names " + s.var + " alone, not " + v);
  bind_check(*q);
  if (what == "permit") {
    qmod_.add_permit(rel, s, src);
    catalog_changed();
    return;
  }
  // The constraint must hold now (the integrity manual page): its negation
  // is counted on every back end, which must agree.
  auto neg = std::make_unique<Expr>();
  neg->kind = Expr::Unary;
  neg->op = "not";
  neg->pos = s.where->pos;
  neg->args.push_back(std::move(q->where));
  q->where = std::move(neg);
  const frontend::BoundQuery bq = frontend::bind(*q, ranges_, cat_, src);
  std::optional<uint64_t> failing;
  for (auto& runner : runners_) {
    Result res = evaluate(bq, *runner, src, false);
    if (!res.ok) throw QuelError(res.error);
    if (failing && *failing != res.nrows())
      throw_error(ErrKind::Runtime, s.pos, src,
                  "back ends disagree on the tuples that fail the constraint (" + std::to_string(*failing) + " and " +
                      std::to_string(res.nrows()) + ")");
    failing = res.nrows();
  }
  if (failing && *failing)
    throw_error(ErrKind::Runtime, s.define_pos, src,
                "integrity on " + rel + ": the constraint does not hold initially (" + std::to_string(*failing) +
                    (*failing == 1 ? " tuple fails it)" : " tuples fail it)"));
  qmod_.add_integrity(rel, s, src);
  catalog_changed();
}

}  // namespace quelkit::harness
