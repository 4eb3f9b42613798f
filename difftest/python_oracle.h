// The Python oracle for `quelkit difftest`'s random queries that raise: the
// first runtime error of a query — its code, the position of the operator
// that raised it, and the tuple it raised on — computed by a second
// implementation (test/oracle/oracle.py difftest, the Python standard
// library and docs/DESIGN.md's rules, sharing no code with the kit), run as a
// child process. SQLite cannot check these (kDifferences "error"), and the
// back ends share the runtime's rules, so without it an error was checked
// only back end against back end.
//
// The child gets the heaps `edge` and `parts` once, tuple by tuple in scan
// order, then one bound query a line (its typed IR as JSON) and answers with
// the first error it finds, or why it cannot evaluate the query.
#pragma once

#include <memory>
#include <string>

#include "frontend/bound.h"
#include "storage/catalog.h"

namespace quelkit::difftest {

class PythonOracle {
 public:
  ~PythonOracle();
  // Starts `python3 script difftest` and hands it the heaps of `cat`.
  // nullptr (and *err) when it cannot be started or refuses them.
  static std::unique_ptr<PythonOracle> open(const harness::Catalog& cat, const std::string& script, std::string* err);

  struct Answer {
    bool evaluated = false;  // false: `skipped` says why (two variables, an update, an operator it lacks)
    std::string skipped;
    bool raised = false;  // evaluated: whether it found an error, and which
    Error error;          // code, pos, relation and tuple (message: the code's)
  };
  // The first error of q (as bound) by the oracle's evaluation; false (and
  // *err) if the child failed (died, wrote something unreadable).
  bool ask(const frontend::BoundQuery& q, Answer* a, std::string* err);

  // The default script: the kit's source tree's test/oracle/oracle.py.
  static std::string default_script();

 private:
  PythonOracle() = default;
  bool send(const std::string& line, std::string* err);
  bool receive(std::string* line, std::string* err);
  int fd_ = -1;
  int pid_ = -1;
  std::string buffered_;
};

}  // namespace quelkit::difftest
