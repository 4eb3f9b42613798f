// Turning measured costs into a profile (aggregate.h).
#include "cli/profile/aggregate.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace quelkit::profile {

const std::string& SubsystemOf::operator()(const CostKey& k) {
  auto it = memo_.find(k);
  if (it == memo_.end()) it = memo_.emplace(k, classify(k, backend_).subsystem).first;
  return it->second;
}

std::map<std::string, double> charge_subsystems(const std::map<CostKey, double>& self,
                                                const std::map<std::pair<CostKey, CostKey>, double>& calls,
                                                std::string_view backend) {
  SubsystemOf of(backend);
  std::map<std::string, double> ch;
  double total = 0, charged = 0;
  for (const auto& [k, v] : self) {
    total += v;
    if (of.kit(k)) ch[of(k)] += v, charged += v;
  }
  // Library routines calling each other are inside the inclusive cost of the
  // kit's call, so only calls from the kit into a library count.
  for (const auto& [e, v] : calls) {
    if (!of.kit(e.first) || of.kit(e.second)) continue;
    ch[of(e.first)] += v;
    charged += v;
  }
  ch["other"] = std::max(0.0, total - charged);
  return ch;
}

Via library_callers(const std::map<std::pair<CostKey, CostKey>, double>& calls, std::string_view backend) {
  SubsystemOf of(backend);
  Via via;
  for (const auto& [e, v] : calls)
    if (of.kit(e.first) && !of.kit(e.second)) via[e.second][e.first] += v;
  return via;
}

void finish(BackendProfile& p, const Costs& c) {
  std::map<std::string, Line> by_name;
  for (const auto& [key, count] : c.self) {
    RoutineInfo info = classify(key, p.label);
    Line& l = by_name[info.name];
    if (l.info.name.empty()) l.info = info;
    l.count += count;
    if (auto it = c.via.find(key); it != c.via.end())
      for (const auto& [caller, v] : it->second) l.via[classify(caller, p.label).name] += v;
  }
  // Say where the biggest share of a library routine came from.
  for (auto& [n, l] : by_name) {
    double all = 0, best = 0;
    std::string from;
    for (const auto& [caller, v] : l.via) {
      all += v;
      if (v > best) best = v, from = caller;
    }
    if (from.empty() || all <= 0) continue;
    std::ostringstream share;
    share << std::fixed << std::setprecision(0) << 100.0 * best / all;
    l.info.what += "; " + (best >= 0.995 * all ? std::string("from ") : share.str() + "% from ") + from;
  }
  p.total = 0;
  for (const auto& [n, l] : by_name) p.total += l.count;
  for (auto& [n, l] : by_name) {
    l.share = p.total > 0 ? 100.0 * l.count / p.total : 0;
    p.self_subsystems[l.info.subsystem] += l.share;
    p.lines.push_back(l);
  }
  for (const auto& [sub, v] : c.charged) p.subsystems[sub] = p.total > 0 ? 100.0 * v / p.total : 0;
  std::sort(p.lines.begin(), p.lines.end(), [](const Line& a, const Line& b) {
    return a.count != b.count ? a.count > b.count : a.info.name < b.info.name;
  });
}

double tuples_total(const BackendProfile& p) {
  double t = 0;
  for (const auto& s : p.stmts) t += double(s.tuples) * double(s.reps);
  return t;
}

std::map<std::string, Counterpart> counterparts(const BackendProfile& p) {
  std::map<std::string, Counterpart> m;
  for (const auto& l : p.lines) {
    if (l.info.role.empty()) continue;
    Counterpart& c = m[l.info.role];
    c.share += l.share;
    if (c.names.empty() || (std::count(c.names.begin(), c.names.end(), '+') < 1 && l.share >= 0.05))
      c.names += (c.names.empty() ? "" : " + ") + l.info.name;
  }
  return m;
}

}  // namespace quelkit::profile
