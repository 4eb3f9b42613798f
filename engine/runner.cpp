// A Runner (engine.h): one back end in one mode, handing out prepared plans
// from its cache or prepared afresh, and counting prepare time and JIT phases
// into the statement's statistics.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/measure.h"

namespace quelkit::harness {

void ExecStats::add_scan(const ExecStats& o) {
  rows_scanned += o.rows_scanned;
  accumulated = join_access_paths(accumulated, o.accumulated);
  rows_qualified += o.rows_qualified;
  index_pages += o.index_pages;
  index_fetched += o.index_fetched;
  prepares += o.prepares;
  cache_hits += o.cache_hits;
  prepare_ns += o.prepare_ns;
  plan_ns += o.plan_ns;
  lookup_ns += o.lookup_ns;
  irgen_ns += o.irgen_ns;
  opt_ns += o.opt_ns;
  codegen_ns += o.codegen_ns;
  dump_ns += o.dump_ns;
  TierReport r;
  r.tuples.assign(o.tier_tuples.begin(), o.tier_tuples.end());
  r.bg_compiles = o.bg_compiles;
  r.bg_abandoned = o.bg_abandoned;
  r.bg_wall_ns = o.bg_compile_wall_ns;
  r.bg_cpu_ns = o.bg_compile_cpu_ns;
  r.switch_page = o.tier_switch_page;
  add_tiers(r, pages_walked);
  pages_walked += o.pages_walked;
}

std::string join_access_paths(const std::string& first, const std::string& then) {
  if (first.empty()) return then;
  if (then.empty()) return first;
  return first + "; " + then;
}

std::string join_selections(const std::string& first, const std::string& then) {
  auto entries = [](const std::string& list) {
    std::vector<std::string> out;
    for (size_t at = 0; at < list.size();) {
      const size_t end = std::min(list.find("; ", at), list.size());
      out.push_back(list.substr(at, end - at));
      at = end + 2;
    }
    return out;
  };
  std::vector<std::string> seen = entries(first);
  std::string out = first;
  for (const std::string& one : entries(then)) {
    if (one.empty() || std::find(seen.begin(), seen.end(), one) != seen.end()) continue;
    out += (out.empty() ? "" : "; ") + one;
    seen.push_back(one);
  }
  return out;
}

void ExecStats::add_tiers(const TierReport& r, uint64_t pages_before) {
  for (const auto& [name, n] : r.tuples) {
    // Most scans report the tier the last one did: look there first.
    if (!tier_tuples.empty() && tier_tuples.back().first == name) {
      tier_tuples.back().second += n;
      continue;
    }
    auto it = std::find_if(tier_tuples.begin(), tier_tuples.end(), [&](const auto& t) { return t.first == name; });
    if (it == tier_tuples.end()) tier_tuples.emplace_back(name, n);
    else it->second += n;
  }
  if (tier_switch_page < 0 && r.switch_page >= 0) tier_switch_page = int64_t(pages_before) + r.switch_page;
  bg_compiles += r.bg_compiles;
  bg_abandoned += r.bg_abandoned;
  bg_compile_wall_ns += r.bg_wall_ns;
  bg_compile_cpu_ns += r.bg_cpu_ns;
}

std::string ExecStats::tiers() const {
  std::string text;
  for (const auto& [name, n] : tier_tuples) text += (text.empty() ? "" : ", ") + name + " " + std::to_string(n);
  return text;
}

Runner::Runner(std::string name, std::string mode, std::unique_ptr<Backend> be, RunnerOptions opt,
               PrepareOptions popt)
    : name_(std::move(name)), mode_(std::move(mode)), backend_(std::move(be)), opt_(std::move(opt)),
      popt_(popt) {}

HeldPlan* Runner::get(const Plan& plan, const std::string& cache_key, const uint8_t* params, HeldPlan& scratch,
                      ExecStats& st) {
  const bool reuse = backend_->reuses_plans();
  PlanCache& cache = opt_.plan_cache ? cache_ : statement_plans_;
  const std::string& key = cache_key;
  const uint64_t l0 = phase_ns();
  if (reuse) {
    if (HeldPlan* h = cache.find(key)) {
      ++st.cache_hits;
      st.lookup_ns += phase_ns() - l0;
      return h;
    }
  }
  // A back end without plan reuse lowers a substituted query again for every
  // substituted tuple, as INGRES did: that is the execution its design
  // implies, so only a statement's first lowering of a plan is prepare, and
  // the others stay on the run clock (docs/stats.md). Timed apart, they had
  // taken half the interpreter's join work off its per-tuple figure.
  // Plans of one key differ in their literals' values (plan.h): a lowering
  // is again only for the same values too.
  const bool again =
      !reuse && !lowered_.insert(plan.literal_block.empty()
                                     ? key
                                     : key + "=" + std::string(plan.literal_block.begin(), plan.literal_block.end()))
                     .second;
  st.lookup_ns += phase_ns() - l0;
  const bool dumping = !opt_.dumps.empty() && opt_.dump_out && !dumped_.count(plan.key);
  // Prepare is timed whatever phase_timing says: it is kept apart from run
  // time everywhere (quelkit short's -prep column reads it from its timed runs).
  uint64_t t0 = now_ns();
  std::unique_ptr<Prepared> p;
  try {
    p = backend_->prepare(plan, params);
  } catch (...) {
    // A prepare that failed (a compile's error): its dump is what shows why.
    // A dump that fails as well leaves the prepare's error to be reported.
    if (dumping) {
      try {
        dump(plan, nullptr, params);
      } catch (...) {
      }
    }
    throw;
  }
  ++st.prepares;
  if (!again) {
    st.prepare_ns += now_ns() - t0;
    st.irgen_ns += p->times.irgen_ns;
    st.opt_ns += p->times.opt_ns;
    st.codegen_ns += p->times.codegen_ns;
  }
  // The dump after the prepare, and off both clocks: printed before it, a
  // dump's own code generation (LLVM's first module, a stencil stitched)
  // warmed what the prepare then did, and its printing was charged to run_ns.
  if (dumping) {
    const uint64_t d0 = phase_ns();
    dump(plan, p.get(), params);
    st.dump_ns += phase_ns() - d0;
  }
  if (reuse) {
    const uint64_t i0 = phase_ns();
    HeldPlan* h = cache.insert(key, std::move(p), plan_positions(plan));
    st.lookup_ns += phase_ns() - i0;
    return h;
  }
  scratch = HeldPlan{std::move(p), {}, false, {}};
  return &scratch;
}

Entries Runner::entries(Prepared& p, Use use, Selection s, ExecStats& st) {
  const PrepareTimes before = p.times;
  Entries e = p.entries(use, s);
  // Code generated for them, as the back end timed it: off the run clock.
  st.prepare_ns += p.times.lazy_ns - before.lazy_ns;
  st.irgen_ns += p.times.irgen_ns - before.irgen_ns;
  st.opt_ns += p.times.opt_ns - before.opt_ns;
  st.codegen_ns += p.times.codegen_ns - before.codegen_ns;
  return e;
}

void Runner::dump(const Plan& plan, Prepared* p, const uint8_t* params) {
  dumped_.insert(plan.key);
  std::ostream& os = *opt_.dump_out;
  const BackendSpec* spec = find_backend(name_);
  // Under auto a scan starts with branch and may switch to nobranch (scan.cpp,
  // selection.h): a dump of one variant showed code that need not be what
  // ran, so both are printed, each said. A plan every tuple of which
  // qualifies runs branch only.
  // (No prepared plan: its prepare failed, and the variant it started with is printed.)
  const bool both = popt_.selection == Selection::Auto && p &&
                    p->entries(Use::Page, Selection::Auto).page && !plan.always_qualifies();
  const Selection asked = popt_.selection == Selection::NoBranch ? Selection::NoBranch : Selection::Branch;
  // The plan's literals are parameter slots (plan.h): their values, so a
  // reader of a form that loads `param@8` still sees the constant. (The
  // 1976 interpreter reads the unfolded trees, constants and all.)
  if (!plan.literal_block.empty() && backend_->reuses_plans())
    os << "-- parameters " << plan.name << " (" << label() << "): " << literal_text(plan) << "\n";
  for (const auto& form : opt_.dumps) {
    const bool by_variant = both && spec && spec->dumps_by_selection(form);
    if (!by_variant) {
      os << "-- " << form << " " << plan.name << " (" << label() << ")\n";
      backend_->dump(plan, form, params, asked, os);
      continue;
    }
    os << "-- " << form << " " << plan.name << " (" << label()
       << "), --selection auto: branch, which a scan starts with\n";
    backend_->dump(plan, form, params, Selection::Branch, os);
    os << "-- " << form << " " << plan.name << " (" << label()
       << "), --selection auto: nobranch, which a scan may switch to (--stats' selection says which ran)\n";
    backend_->dump(plan, form, params, Selection::NoBranch, os);
  }
}


}  // namespace quelkit::harness
