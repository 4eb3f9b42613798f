// Made-up rows of the paper report (bench/measure/paper_run.h) for the tests of
// its blocks: cells whose repetitions took given times, in the order taken.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "bench/measure/paper_run.h"

namespace quelkit::report {

// A cell whose repetitions took these ns, in the order taken.
inline Cell cell(const std::string& name, CellKind kind, std::vector<double> samples) {
  Cell c;
  c.runner = name;
  c.kind = kind;
  c.m.samples = samples;
  std::sort(samples.begin(), samples.end());
  c.m.median_ns = samples[samples.size() / 2];
  c.m.min_ns = samples.front();
  c.m.max_ns = samples.back();
  c.m.reps = int(samples.size());
  return c;
}

inline Row heap_row(const char* q, uint64_t size, std::vector<Cell> cells) {
  Row r;
  r.query = q;
  r.size = size;
  r.cells = std::move(cells);
  return r;
}

}  // namespace quelkit::report
