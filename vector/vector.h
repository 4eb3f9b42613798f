// The vectorized back end ("vector"; X100 / VectorWise / DuckDB style): a
// plan's folded typed IR readied into a program of typed primitives over
// batches of tuples (vector/program.h), with selection vectors for
// conditions, prepared once per plan shape and reused for every parameter
// block, run through a page kernel (batches of live tuples that span pages,
// Entries::pages) or a tuple at a time.
#pragma once

#include <memory>
#include <string>

#include "engine/backend.h"
#include "vector/program.h"

namespace quelkit::vector {

// Registers "vector" with the harness (cli/ calls it once at start-up).
void register_backend();

// The back end itself, without the registry (tests, benchmarks).
// auto_selection: prepared plans keep what they need to lower the other
// selection when the scan switches to it (--selection auto).
std::unique_ptr<harness::Backend> make_backend(const Options& opt, bool auto_selection = false);

// A mode name ("inplace", "gather") and the harness's options (--vector-batch,
// --selection) as Options; false for an unknown mode.
bool parse_mode(const std::string& mode, const harness::PrepareOptions& popt, Options* out);

}  // namespace quelkit::vector
