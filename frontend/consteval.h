// The constant evaluator: one typed IR operator applied to constant operands
// with exactly the run-time semantics, through the same runtime rules
// every back end calls (f4 in single precision, checked integers, checked
// conversions, pattern matching, ascii, concat). The fold pass uses it; tests
// and back ends may use it as a reference evaluator.
#pragma once

#include "frontend/ir.h"

namespace quelkit::frontend {

// Applies `op` to args[0..arity-1] (values laid out as ir::Value documents for
// their operand types) and writes a value of type `result` to *out.
// Returns false if evaluation raises a run-time error (*err = its qk_err code)
// or if `op` is a leaf (CONST, ATTR, PARAM: nothing to evaluate, *err = 0).
bool eval_const(ir::Op op, Type result, const ir::Value* args, ir::Value* out, int* err);

}  // namespace quelkit::frontend
