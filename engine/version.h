// The kit's version and the commit it was built from, as `quelkit --version`,
// the reports' files (paper.json, sweep.json, wisconsin.json) and the
// benchmarks' context name them: a figure names the code that measured it.
// Defined in a file cmake/version.cmake writes at every build.
#pragma once

namespace quelkit::harness {

const char* kit_version();  // the project's VERSION: "0.1.0"
// `git describe --always --dirty` of the source tree ("3f2c1a9b0d4e",
// "...-dirty" with changes not committed), or "unknown" outside a repository.
const char* kit_commit();

}  // namespace quelkit::harness
