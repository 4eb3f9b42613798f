// The adaptive back end's cost model (adaptive.h): when does compiling the
// next tier pay, and at which LLVM level? Pure arithmetic over figures the
// back end measured (no clock of its own), so its rule is tested with made-up
// numbers. Two small running models per level, both starting from priors and
// moved by every measurement: compile time as a line over IR size, and the
// compiled tier's per-tuple cost as a fraction of the first tier's (kept
// apart for each first tier, threaded code or stencils). FirstTier decides
// that first tier: whether a scan's tuples repay stencil's prepare.
#pragma once

#include <cstdint>

namespace quelkit::adaptive {

// LLVM levels the model chooses among (--jit-opt 0, 1, 2; 3 never paid here).
constexpr int kLevels = 3;

// Compile nanoseconds as a + b * size, fitted by least squares over decayed
// samples (older compiles count less: the machine's load changes), the prior
// line standing in until two sizes have been seen.
class CompileFit {
 public:
  CompileFit(double prior_a, double prior_b) : a0_(prior_a), b0_(prior_b) {}
  void add(double size, double ns);
  double predict(double size) const;
  uint32_t samples() const { return samples_; }

 private:
  static constexpr double kDecay = 0.8;
  double a0_, b0_;
  double n_ = 0, sx_ = 0, sy_ = 0, sxx_ = 0, sxy_ = 0;
  uint32_t samples_ = 0;
};

struct Decision {
  bool compile = false;
  int level = 1;
  double saving_ns = 0;   // estimated saving of the chosen level over the rest of the work
  double compile_ns = 0;  // its estimated compile cost
};

// Which tier a scan starts on: threaded:goto prepares in well under a
// microsecond, stencil:fused in a few (stitching, then sealing its page) but
// runs faster per tuple. The scan's outlook says how many tuples are coming,
// so the choice is made per scan: stencil when its per-tuple saving over
// those tuples exceeds its preparation. Three running averages, each starting
// from a prior and moved by what the back end measures. Until threaded code
// has run a measured scan, its cost is taken as stencil's times the priors'
// ratio: while stencils run every scan, threaded code is never measured, and
// a fixed prior against measured stencils made every scan of a few thousand
// tuples adopt stencils and pay their preparation, slower than threaded code.
class FirstTier {
 public:
  // Do `tuples` tuples repay preparing stencil:fused?
  bool stencil_pays(double tuples) const { return tuples * (threaded_ns() - stencil_ns_) > prepare_ns_; }
  // A stencil preparation took ns.
  void prepared(double ns);
  // A scan's first tier ran at ns per tuple (stencil or threaded).
  void ran(bool stencil, double ns);
  double prepare_ns() const { return prepare_ns_; }
  double threaded_ns() const { return threaded_measured_ ? threaded_ns_ : stencil_ns_ * (kThreadedPrior / kStencilPrior); }
  double stencil_ns() const { return stencil_ns_; }

 private:
  static constexpr double kWeight = 0.2;  // of a new measurement in its average
  static constexpr double kThreadedPrior = 10, kStencilPrior = 7;
  double prepare_ns_ = 8000, threaded_ns_ = kThreadedPrior, stencil_ns_ = kStencilPrior;
  bool threaded_measured_ = false;
};

// The first tier a compiled tier is measured against: its per-tuple ratio to
// threaded code and to stencils are different figures (-O0 code beats
// threaded code on (c) and loses to the stencils), so
// the model keeps one set of ratios per first tier: a ratio learned against
// threaded code sent stencil scans to slower -O0 code.
enum class Base { Threaded = 0, Stencil = 1 };

class CostModel {
 public:
  CostModel();
  // Should the rest of the work (`remaining` tuples at `base_ns` per tuple on
  // the first tier) move to a compiled tier of a plan of `ir_size` nodes?
  // Compiling runs beside the scan, so the tuples the first tier evaluates
  // meanwhile gain nothing; a level is worth it when its saving exceeds its
  // compile cost, and the level with the largest net gain is chosen.
  Decision decide(double base_ns, double remaining, double ir_size, Base base = Base::Threaded) const;
  // A compile of level L over ir_size nodes took ns (wall time of the compiling thread).
  void compiled(int level, double ir_size, double ns);
  // Level L ran at `ratio` times the first tier's per-tuple cost.
  void ran(int level, double ratio, Base base = Base::Threaded);
  double ratio(int level, Base base = Base::Threaded) const { return ratio_[int(base)][level]; }
  double compile_ns(int level, double ir_size) const { return fit_[level].predict(ir_size); }
  // Fewer tuples than this cannot repay any compile, whatever the plan: the
  // cheapest compile (any level, a one-node plan) over the most a compiled tier
  // could save a tuple. A scan with fewer coming is not measured, and its
  // plan not copied for a compile (when each substituted key lookup was
  // prepared anew under --no-plan-cache, each paid that copy).
  double tuples_to_repay_any_compile() const { return repay_tuples_; }
  // The same bound when a compiled tier can save at most `max_saving_ns` a
  // tuple (the most the first tier is expected to cost: a compiled tier cannot
  // save more than the whole of it).
  double tuples_to_repay_any_compile(double max_saving_ns) const {
    return max_saving_ns > 0 && max_saving_ns < kMaxSavingNs ? repay_tuples_ * kMaxSavingNs / max_saving_ns
                                                             : repay_tuples_;
  }
  // The most a compiled tier saves a tuple over a first tier: generous (well
  // above what the paper's plans cost threaded code a tuple), so no scan that
  // could repay a compile is taken for one that cannot.
  static constexpr double kMaxSavingNs = 100;

 private:
  // The ratio decide() assumes for level L: a level not measured yet is
  // taken to be no better than 0.95 of the measured level below it (the
  // kernels are mostly memory-bound: more optimisation buys little, and a
  // prior that promised more would send the model to try the costliest level).
  double assumed_ratio(int level, Base base) const;
  // Any level's compile of a one-node plan: what no compile costs less than
  // (the fits never fall with size).
  double cheapest_compile_ns() const;
  CompileFit fit_[kLevels];
  double ratio_[2][kLevels];
  bool measured_[2][kLevels] = {};
  double repay_tuples_ = 0;  // tuples_to_repay_any_compile(): asked at every scan, moved by compiled()
};

}  // namespace quelkit::adaptive
