// The options that shape a back end's code, as a command holds them once
// parsed: --jit-opt, --jit-lookup-opt, --jit-checks, --jit-cpu, --vector-batch
// and --selection. The session, difftest and profile take all six, declared in one place
// (cli::add_code_options in command.h), so that none of them lacks one the
// others take; prepare() turns them into what the back ends read. Kept apart
// from command.h so that the holders of these values need not see CLI11.
#pragma once

#include <cstdint>
#include <string>

#include "engine/backend.h"
#include "engine/selection.h"

namespace quelkit::cli {

struct CodeOptions {
  int jit_opt = harness::PrepareOptions{}.jit_opt;
  int jit_lookup_opt = harness::PrepareOptions{}.jit_lookup_opt;  // -1: same as jit_opt
  bool jit_checks = false;
  std::string jit_cpu = "generic";  // generic | native, validated while parsing
  uint32_t vector_batch = 0;        // 0: the vector back end's default
  std::string selection = "auto";   // branch | nobranch | auto, validated while parsing

  harness::PrepareOptions prepare() const {
    harness::PrepareOptions p;
    p.jit_opt = jit_opt;
    p.jit_lookup_opt = jit_lookup_opt;
    p.jit_checks = jit_checks;
    p.jit_native_cpu = jit_cpu == "native";
    p.vector_batch = vector_batch;
    harness::parse_selection(selection, &p.selection);
    return p;
  }
};

}  // namespace quelkit::cli
