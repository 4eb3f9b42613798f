// QUEL statements as SQL for the SQLite reference of the Wisconsin report
// (wisconsin_run.h): the part of the language the study's scripts use, from
// the parser's AST, so the scripts in bench/workloads/wisconsin stay the one source of
// the statements. Variables are the relations' own names, as the scripts
// write them (no range statements): `tenk1.unique2` is SQL's `tenk1.unique2`.
#pragma once

#include <string>

#include "frontend/ast.h"

namespace quelkit {

// The SQL of `s`, or "" where there is no faithful translation (an aggregate
// function outside a retrieve, an operator the catalogue gives no SQL
// spelling, sort by, other statement kinds). Operators and functions are spelled from the
// operator catalogue's SQL column, as difftest's SQLite oracle spells them:
//   retrieve [unique] (T) where Q   SELECT [DISTINCT] T FROM vars WHERE Q
//   retrieve into R (T) where Q     CREATE TABLE R AS SELECT ...
//   append to R (a = e, ...)        INSERT INTO R (a, ...) SELECT e, ... [FROM vars WHERE Q]
//   delete v where Q                DELETE FROM v WHERE Q (one variable only)
//   replace v (a = e) where Q       UPDATE v SET a = e WHERE Q (one variable only)
//   destroy R                       DROP TABLE R
//   begin, end, abort               BEGIN, COMMIT, ROLLBACK
// `v.all` is `v.*`; a simple aggregate is a scalar subquery over its own
// variables, COALESCE'd to 0 where SQL gives NULL over no rows (QUEL gives 0).
// An aggregate function (`by`) in a retrieve is what INGRES made of it: a
// common table expression aggN(b1, ..., v) of every distinct by value of the
// whole relation LEFT JOINed to the qualifying values, grouped (so a group the
// qualification empties has 0), joined back on aggN.bi = by_i:
//   WITH agg1 AS (SELECT d.b1, COALESCE(count(i.x), 0) AS v FROM (SELECT DISTINCT
//   r.k AS b1 FROM r) AS d LEFT JOIN (SELECT r.k AS b1, r.a AS x FROM r WHERE Q)
//   AS i ON d.b1 = i.b1 GROUP BY d.b1) SELECT ... agg1.v ... WHERE (agg1.b1 = r.k)
// SELECT DISTINCT where INGRES's by-list rule has it range over the groups
// (r named only through its by values); "" where several by lists make that
// more than DISTINCT can say.
std::string quel_to_sql(const frontend::ast::Stmt& s);

}  // namespace quelkit
