// Turning measured costs into a profile (aggregate.h).
#include "profile/aggregate.h"

#include <algorithm>
#include <functional>
#include <iomanip>
#include <set>
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
  // Each instruction is charged once, by the routine it was counted in: a
  // kit routine's to its subsystem, a library routine's to its callers in
  // proportion to their calls' inclusive costs, up through library callers
  // to the nearest kit routine. Charging a kit routine a library call's
  // inclusive cost instead counted twice what the library called back in
  // the kit (std::stable_sort's comparator: 126% in all).
  std::map<CostKey, std::vector<std::pair<CostKey, double>>> callers;  // library routines only
  for (const auto& [e, v] : calls)
    if (v > 0 && !of.kit(e.second) && !(e.first == e.second))
      callers[e.second].emplace_back(e.first, v);
  using Shares = std::map<std::string, double>;  // subsystem -> fraction
  std::map<CostKey, Shares> memo;
  std::set<CostKey> climbing;  // recursion through the library: a caller met again is no caller
  std::function<const Shares&(const CostKey&)> shares = [&](const CostKey& lib) -> const Shares& {
    if (auto it = memo.find(lib); it != memo.end()) return it->second;
    climbing.insert(lib);
    Shares d;
    double weight = 0;
    if (auto it = callers.find(lib); it != callers.end())
      for (const auto& [caller, v] : it->second) {
        if (of.kit(caller)) {
          d[of(caller)] += v;
        } else if (!climbing.count(caller)) {
          for (const auto& [sub, x] : shares(caller)) d[sub] += v * x;
        } else {
          continue;
        }
        weight += v;
      }
    climbing.erase(lib);
    if (weight > 0)
      for (auto& [sub, x] : d) x /= weight;
    else
      d = {{"other", 1.0}};  // no kit routine above it
    return memo[lib] = std::move(d);
  };
  std::map<std::string, double> ch{{"other", 0.0}};
  for (const auto& [k, v] : self) {
    if (of.kit(k)) {
      ch[of(k)] += v;
      continue;
    }
    for (const auto& [sub, x] : shares(k)) ch[sub] += v * x;
  }
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
  std::map<std::string, int> unnamed;  // routines of a role beyond the two named
  for (const auto& l : p.lines) {
    if (l.info.role.empty()) continue;
    Counterpart& c = m[l.info.role];
    c.share += l.share;
    if (c.names.empty() || (std::count(c.names.begin(), c.names.end(), '+') < 1 && l.share >= 0.05))
      c.names += (c.names.empty() ? "" : " + ") + l.info.name;
    else
      ++unnamed[l.info.role];
  }
  // The share is every routine's: say that more than the named are in it.
  for (const auto& [role, n] : unnamed) m[role].names += " + " + std::to_string(n) + " more";
  return m;
}

}  // namespace quelkit::profile
