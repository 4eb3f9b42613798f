// The cost model (model.h). Priors are where a fresh process starts: compile
// times of the paper's plans on the machine this was written on (quelkit
// --stats, llvm:fused at --jit-opt 0/1/2, CPU time, with the IR size of
// backend.cpp's ir_size), and per-tuple ratios of llvm:fused to the first
// tier, one set against threaded code and one against stencils (the
// constructor says where each came from). Each compile and each compiled scan
// then moves them. FirstTier's priors: stencil:fused's cold prepare of the
// paper's plans plus the first entry into newly sealed code, and per-tuple
// costs of threaded:goto and stencil:fused on (b)-(d) at 100k tuples (the
// figures: docs/DESIGN.md, Measurements).
#include "adaptive/model.h"

#include <algorithm>
#include <cmath>

namespace quelkit::adaptive {

void FirstTier::prepared(double ns) {
  if (ns > 0 && std::isfinite(ns)) prepare_ns_ += kWeight * (ns - prepare_ns_);
}

void FirstTier::ran(bool stencil, double ns) {
  if (!(ns > 0) || !std::isfinite(ns)) return;
  if (!stencil && !threaded_measured_) {
    threaded_ns_ = threaded_ns();  // the estimate the average moves from
    threaded_measured_ = true;
  }
  double& avg = stencil ? stencil_ns_ : threaded_ns_;
  avg += kWeight * (std::min(ns, 10 * avg) - avg);  // one page that stalled must not swing it
}

void CompileFit::add(double size, double ns) {
  n_ = n_ * kDecay + 1;
  sx_ = sx_ * kDecay + size;
  sy_ = sy_ * kDecay + ns;
  sxx_ = sxx_ * kDecay + size * size;
  sxy_ = sxy_ * kDecay + size * ns;
  ++samples_;
}

double CompileFit::predict(double size) const {
  const double prior = a0_ + b0_ * size;
  if (n_ <= 0) return prior;
  const double mx = sx_ / n_, my = sy_ / n_;
  const double var = sxx_ / n_ - mx * mx;
  double slope;
  if (var > 1.0) {
    slope = (sxy_ / n_ - mx * my) / var;  // a line through the sizes seen
  } else {
    // One size seen: the prior's shape scaled to pass through what was measured.
    const double at = a0_ + b0_ * mx;
    slope = at > 0 ? b0_ * my / at : 0;
  }
  slope = std::max(0.0, slope);
  // Never below a quarter of what was measured: a fit over near sizes can
  // extrapolate to nothing.
  return std::max(my + slope * (size - mx), 0.25 * my);
}

// Ratio priors: against threaded code, the kit's earlier single set; against
// stencils, which are native code already, no gain at -O0 (it measured slower
// on (c)) and a little from LLVM's optimisation.
CostModel::CostModel()
    : fit_{CompileFit(250e3, 60e3), CompileFit(1.0e6, 250e3), CompileFit(4e6, 900e3)},
      ratio_{{0.85, 0.8, 0.8}, {1.0, 0.9, 0.9}},
      repay_tuples_(cheapest_compile_ns() / kMaxSavingNs) {}

double CostModel::cheapest_compile_ns() const {
  double c = fit_[0].predict(1);
  for (int l = 1; l < kLevels; ++l) c = std::min(c, fit_[l].predict(1));
  return c;
}

void CostModel::compiled(int level, double ir_size, double ns) {
  if (level >= 0 && level < kLevels) fit_[level].add(ir_size, ns);
  repay_tuples_ = cheapest_compile_ns() / kMaxSavingNs;
}

void CostModel::ran(int level, double ratio, Base base) {
  if (level < 0 || level >= kLevels || !(ratio > 0) || !std::isfinite(ratio)) return;
  ratio = std::clamp(ratio, 0.05, 2.0);  // one noisy page must not wreck the model
  const int b = int(base);
  ratio_[b][level] = measured_[b][level] ? 0.5 * ratio_[b][level] + 0.5 * ratio : ratio;
  measured_[b][level] = true;
}

double CostModel::assumed_ratio(int level, Base base) const {
  const int b = int(base);
  double r = ratio_[b][level];
  if (!measured_[b][level])
    for (int l = level - 1; l >= 0; --l)
      if (measured_[b][l]) {
        r = std::max(r, 0.95 * ratio_[b][l]);
        break;
      }
  return r;
}

Decision CostModel::decide(double base_ns, double remaining, double ir_size, Base base) const {
  Decision best;
  double best_net = 0;
  if (!(base_ns > 0) || !(remaining > 0)) return best;
  for (int l = 0; l < kLevels; ++l) {
    const double c = fit_[l].predict(ir_size);
    const double fast_ns = base_ns * assumed_ratio(l, base);
    if (fast_ns >= base_ns) continue;
    // While it compiles, the first tier keeps scanning: those tuples gain nothing.
    const double after = std::max(0.0, remaining - c / base_ns);
    const double saving = after * (base_ns - fast_ns);
    const double net = saving - c;
    if (net > best_net) {
      best_net = net;
      best.compile = true;
      best.level = l;
      best.saving_ns = saving;
      best.compile_ns = c;
    }
  }
  return best;
}

}  // namespace quelkit::adaptive
