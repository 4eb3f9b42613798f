// Build step 3 of the stencil back end: the stencils clang-19 compiled
// (stencils.o) into the header prepare includes, checked against the table
// they were generated from (variants.h's fingerprint).
//
//   quelkit_stencil_extract STENCILS.o OUT.h
#include <cstdio>
#include <fstream>
#include <iostream>

#include "jit/stencil/extract.h"
#include "jit/stencil/variants.h"

int main(int argc, char** argv) {
  using namespace quelkit::jit::stencil;
  if (argc != 3) {
    std::cerr << "usage: quelkit_stencil_extract STENCILS.o OUT.h\n";
    return 2;
  }
  Extracted x;
  std::string err;
  if (!extract(argv[1], "qs_", kNumStencils, &x, &err)) {
    std::cerr << "quelkit_stencil_extract: error: " << err << "\n";
    return 1;
  }
  if (!x.has_fingerprint || x.fingerprint != fingerprint()) {
    std::cerr << "quelkit_stencil_extract: error: " << argv[1]
              << " was not made from this stencil table (qs_fingerprint differs): stale stencils\n";
    return 1;
  }
  std::ofstream out(argv[2]);
  out << write_header(x, "stencils.o");
  if (!out) {
    std::cerr << "quelkit_stencil_extract: error: cannot write " << argv[2] << "\n";
    return 1;
  }
  size_t bytes = 0, trail = 0;
  for (const auto& s : x.stencils) {
    bytes += s.bytes.size();
    trail += s.trail != Sym::Data;
  }
  std::printf("quelkit_stencil_extract: %zu stencils, %zu bytes of code, %zu with a droppable trailing jump\n",
              x.stencils.size(), bytes, trail);
  return 0;
}
