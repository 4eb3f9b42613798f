// Calls of a prepared plan's entry points outside a scan, made as the scan
// makes them (engine/backend.h: ctx->plan set to the entries' state first),
// for tests that drive one plan by hand.
#pragma once

#include "engine/backend.h"

namespace quelkit::test {

inline int qualify(harness::Prepared& p, const uint8_t* tuple, qk_ctx* ctx) {
  const harness::Entries e = p.entries(harness::Use::Tuple, harness::Selection::Branch);
  ctx->plan = e.state;
  return e.qualify(tuple, ctx);
}

inline int project(harness::Prepared& p, const uint8_t* tuple, uint8_t* row, qk_ctx* ctx) {
  const harness::Entries e = p.entries(harness::Use::Tuple, harness::Selection::Branch);
  ctx->plan = e.state;
  return e.project(tuple, row, ctx);
}

// The page kernel in the variant it runs now (Selection::Auto).
inline int64_t run_page(harness::Prepared& p, const uint8_t* page, uint8_t* rows, qk_ctx* ctx) {
  const harness::Entries e = p.entries(harness::Use::Page, harness::Selection::Auto);
  ctx->plan = e.state;
  return e.page(page, rows, ctx);
}

inline bool has_kernel(harness::Prepared& p) {
  return p.entries(harness::Use::Page, harness::Selection::Auto).page != nullptr;
}

}  // namespace quelkit::test
