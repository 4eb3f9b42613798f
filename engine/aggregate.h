// QUEL aggregates, evaluated as INGRES's decomposition did: before the
// statement that holds them, each simple aggregate as a one-variable query
// whose value replaces it, each aggregate function (`by`) as a temporary
// relation of (by values, value) over the whole relation's groups, joined back
// to the statement on its by list, or, where the statement names the by
// list's variables only through its values, ranged over in their place
// (INGRES's by-list rule). The inner retrieves run as ordinary plans
// on the statement's back end; this file only accumulates (DESIGN.md).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "runtime/accumulate.h"
#include "engine/engine.h"

namespace quelkit::harness {

class Session;

// True if the statement's target list or qualification holds an aggregate.
bool has_aggregates(const frontend::ast::Stmt& s);
// A deep copy of a statement's fields (those of a retrieve, append, replace,
// delete, copy, create and modify), to be rewritten without touching the parse.
frontend::ast::StmtPtr clone_statement(const frontend::ast::Stmt& s);

// One statement's aggregates evaluated on one runner. While it lives, the
// temporary relations of its aggregate functions are in the session's catalog
// and their range variables in its range table; it removes them when it goes.
class AggregateScope {
 public:
  AggregateScope(Session& session, Runner& runner, const frontend::ast::Stmt& s, const SourceRef& src);
  ~AggregateScope();
  AggregateScope(const AggregateScope&) = delete;
  AggregateScope& operator=(const AggregateScope&) = delete;

  // False if an inner query (or the accumulation) failed: `failed` is its result.
  bool ok() const { return failed_.ok; }
  Result& failed() { return failed_; }
  // The statement with every aggregate replaced (valid when ok()).
  const frontend::ast::Stmt& statement() const { return *stmt_; }
  // What the inner queries scanned, prepared and took (added to the statement's).
  const ExecStats& stats() const { return stats_; }

 private:
  void drop_temporaries();
  void rewrite(frontend::ast::ExprPtr& e, std::vector<frontend::ast::ExprPtr>* joins);
  using Aggs = std::vector<const frontend::ast::Expr*>;
  struct AccumFree {
    void operator()(qk_accum* a) const noexcept { qk_accum_free(a); }
  };
  using AccumBlock = std::unique_ptr<qk_accum, AccumFree>;
  // Aggregates of one by list (or none) and one qualification whose
  // arguments cannot raise, accumulated in one scan (DESIGN.md "Aggregates"):
  // computed when the first of them is reached, each one's own errors
  // raised when it is reached, so the statement fails as evaluating them one
  // after another in text order would.
  struct Shared {
    Aggs members;  // text order
    bool done = false;
    AccumBlock acc;                // simple: the accumulators; function: the values' group table
    std::vector<Type> arg_types;   // each member's argument
    std::string temp;              // function: the temporary relation
  };
  void find_shared();
  frontend::ast::ExprPtr simple(const frontend::ast::Expr& agg);
  frontend::ast::ExprPtr function(const frontend::ast::Expr& agg, std::vector<frontend::ast::ExprPtr>* joins);
  // Member k of a Shared (computing it first if it is not done).
  frontend::ast::ExprPtr shared_simple(Shared& sh, size_t k);
  frontend::ast::ExprPtr shared_function(Shared& sh, size_t k, std::vector<frontend::ast::ExprPtr>* joins);
  void compute_function(Shared& sh, frontend::BoundQuery valued_q, std::vector<frontend::ast::ExprPtr>* joins);
  Result inner(const Aggs& aggs, bool with_arg, bool with_qual, AccumBlock* acc);
  Result inner(const Aggs& aggs, frontend::BoundQuery bq, bool with_arg, AccumBlock* acc);
  frontend::BoundQuery bind_inner(const Aggs& aggs, bool with_arg, bool with_qual);
  void hash_joined(const std::vector<frontend::ast::ExprPtr>& joins);

  Session& session_;
  Runner& runner_;
  SourceRef src_;
  frontend::ast::StmtPtr stmt_;
  std::vector<std::string> temps_;  // relation = range variable name
  // Temporaries made but not hashed yet, and the by value to hash each on.
  std::vector<std::pair<std::string, int>> unhashed_;
  ExecStats stats_;
  Result failed_;
  int inner_queries_ = 0;  // run so far: the next is q<statement>_a<inner_queries_ + 1>
  std::vector<std::unique_ptr<Shared>> shared_;
  std::vector<std::pair<const frontend::ast::Expr*, std::pair<Shared*, size_t>>> member_of_;
};

}  // namespace quelkit::harness
