// Printing profiles (print.h): fixed-width tables for people, and the JSON
// document, written by hand with its numbers rounded (percent to 4 decimals,
// others to 3).
#include "cli/profile/print.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "harness/measure.h"

namespace quelkit::profile {

namespace {

using harness::kSubsystemNames;

// A count with thousands separators (prec 0), or a fixed-point number.
std::string num(double v, int prec = 0) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  std::string s = os.str();
  if (prec == 0) {
    std::string out;
    int n = 0;
    for (size_t i = s.size(); i-- > 0;) {
      out.insert(out.begin(), s[i]);
      if (++n % 3 == 0 && i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) out.insert(out.begin(), ',');
    }
    return out;
  }
  return s;
}

std::string pct(double v) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << v << "%";
  return os.str();
}

std::string fit(std::string s, size_t w) {
  if (s.size() > w) s = s.substr(0, w - 1) + "~";
  return s;
}

bool is_interp(const BackendProfile& p) { return p.label.starts_with("interp"); }

// ---------------------------------------------------------------- tables

// Paper routines the kit has no counterpart of, and why.
const char* kNoCounterpart[][2] = {
    {"READ", "none: pages are in memory"},
    {"GET", "inside the scan loop (inlined)"},
};

void print_table3(std::ostream& os, const BackendProfile& p, bool instructions) {
  auto cp = counterparts(p);
  os << "\n  beside the paper's Table 3 (1976 INGRES on a VAX 11/780, % of CPU time):\n";
  os << "    " << std::left << std::setw(11) << "INGRES" << std::right << std::setw(7) << "%" << "  " << std::left
     << std::setw(17) << "what" << "| quelkit " << p.label << std::right << "\n";
  for (const auto& r : paper_table3()) {
    os << "    " << std::left << std::setw(11) << r.name << std::right << std::setw(7) << pct(r.percent) << "  "
       << std::left << std::setw(17) << r.what << "| " << std::right;
    auto it = cp.find(r.name);
    if (it != cp.end() && it->second.share >= 0.05) {
      os << std::setw(6) << pct(it->second.share) << "  " << it->second.names << "\n";
    } else {
      const char* why = "not seen";
      for (const auto& n : kNoCounterpart)
        if (std::strcmp(n[0], r.name) == 0) why = n[1];
      os << std::setw(6) << "-" << "  " << why << "\n";
    }
  }
  double rest = 0;
  for (const auto& r : paper_table3()) rest += r.percent;
  os << "    (the paper's eight routines: " << pct(rest) << " of INGRES's time; here "
     << (instructions ? "% of instructions" : "% of sampled time") << ")\n";
}

void print_profile(std::ostream& os, const BackendProfile& p, const Options& o) {
  bool ins = p.method == "callgrind";
  os << "\n== " << p.label << " ";
  if (ins) {
    os << "-- " << num(p.total) << " instructions (callgrind; run phase only, " << o.reps
       << " evaluations per statement, preparation excluded)\n";
  } else {
    os << "-- " << num(p.total) << " cpu-clock samples (perf, " << o.freq << " Hz) over "
       << num(double(p.ns) / 1e9, 2) << " s: " << p.executions << " executions of the script"
       << (o.cold ? " (plan cache cleared each time)" : " (plan cache warm)");
    if (p.executions) os << ", " << num(double(p.ns) / double(p.executions) / 1e3, 1) << " us each";
    os << "\n";
  }
  for (const auto& s : p.stmts) {
    os << "   q" << s.k << " (line " << s.line << ") " << fit(s.text, 70) << "\n      " << s.tuples
       << (s.tuples == 1 ? " tuple" : " tuples") << ", " << s.scanned << " scanned, " << s.rows << " rows";
    if (ins) {
      double per = s.reps ? double(s.run_cost) / double(s.reps) : 0;
      os << "; " << num(per) << " instructions per execution, " << num(per / double(s.tuples), 1) << " per tuple";
      if (s.prep_part) os << "; cold preparation " << num(double(s.prep_cost)) << " instructions";
    }
    os << "\n";
  }
  double tt = tuples_total(p);
  os << "\n  " << std::setw(7) << (ins ? "% instr" : "% time");
  if (ins) os << std::setw(11) << "per tuple";
  os << "  " << std::left << std::setw(44) << "routine" << std::setw(17) << "subsystem" << "what it does" << std::right
     << "\n";
  int shown = 0;
  double rest = 0;
  int rest_n = 0;
  for (const auto& l : p.lines) {
    if (shown >= o.top || l.share < 0.05) {
      rest += l.share;
      ++rest_n;
      continue;
    }
    ++shown;
    os << "  " << std::setw(7) << pct(l.share);
    if (ins) os << std::setw(11) << num(tt > 0 ? l.count / tt : 0, 1);
    os << "  " << std::left << std::setw(44) << fit(l.info.name, 43) << std::setw(17) << l.info.subsystem << l.info.what
       << std::right << "\n";
  }
  if (rest_n) os << "  " << std::setw(7) << pct(rest) << "  (" << rest_n << " more routines)\n";
  os << "  by subsystem (library routines and the kernel charged to the kit routine calling them):\n   ";
  bool first = true;
  for (std::string_view sub : kSubsystemNames) {
    auto it = p.subsystems.find(std::string(sub));
    double v = it == p.subsystems.end() ? 0 : it->second;
    os << (first ? " " : ", ") << sub << " " << pct(v);
    first = false;
  }
  os << "\n";
  if (is_interp(p)) print_table3(os, p, ins);
}

// ---------------------------------------------------------------- JSON

std::string jstr(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20) o += ' ';
    else o += c;
  }
  return o + "\"";
}

std::string jnum(double v, int prec = 3) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  std::string s = os.str();
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

void print_report(std::ostream& os, const std::vector<BackendProfile>& ps, const Options& o, const std::string& method,
                  const std::string& note) {
  os << "quelkit profile: " << (method == "perf" ? "cpu-clock sampling (perf record)" : "instruction counts (callgrind)")
     << "; machine: " << harness::machine_description() << "\n";
  if (method == "perf")
    os << "each execution: parse, bind, evaluate"
       << (o.format == harness::OutFormat::None ? "" : ", format the rows (to /dev/null)")
       << "; statements that change the database are evaluated, not applied\n";
  else
    os << "run phase only: " << o.reps << " warm evaluations per statement (plan cache warm, every prepare() "
       << "excluded);\nper tuple = instructions / (evaluations x tuples in the statement's largest relation)\n";
  if (!note.empty()) os << note << "\n";
  for (const auto& p : ps) print_profile(os, p, o);
  if (method == "callgrind" && ps.size() > 1) {
    // Instructions per tuple, statements across, back ends down.
    os << "\ninstructions per tuple (run phase)\n  " << std::left << std::setw(18) << "back end" << std::right;
    for (const auto& s : ps[0].stmts) os << std::setw(12) << ("q" + std::to_string(s.k));
    os << std::setw(14) << "all\n";
    for (const auto& p : ps) {
      os << "  " << std::left << std::setw(18) << p.label << std::right;
      for (const auto& s : p.stmts) os << std::setw(12) << num(double(s.run_cost) / double(s.reps) / double(s.tuples), 1);
      double tt = tuples_total(p);
      os << std::setw(13) << num(tt > 0 ? p.total / tt : 0, 1) << "\n";
    }
  }
}

void print_json(std::ostream& os, const std::vector<BackendProfile>& ps, const Options& o, const std::string& method,
                const std::string& note) {
  os << "{\"tool\":\"quelkit profile\",\"method\":" << jstr(method)
     << ",\"unit\":" << jstr(method == "callgrind" ? "instructions" : "cpu-clock samples")
     << ",\"note\":" << (note.empty() ? "null" : jstr(note));
  if (method == "callgrind") os << ",\"reps\":" << o.reps;
  else os << ",\"freq\":" << o.freq << ",\"seconds\":" << jnum(o.seconds) << ",\"cold\":" << (o.cold ? "true" : "false");
  os << ",\"paper_table3\":[";
  for (size_t i = 0; i < paper_table3().size(); ++i) {
    const auto& r = paper_table3()[i];
    os << (i ? "," : "") << "{\"routine\":" << jstr(r.name) << ",\"percent\":" << jnum(r.percent)
       << ",\"what\":" << jstr(r.what) << "}";
  }
  os << "],\"backends\":[";
  for (size_t b = 0; b < ps.size(); ++b) {
    const BackendProfile& p = ps[b];
    auto c = p.label.find(':');
    double tt = tuples_total(p);
    os << (b ? "," : "") << "\n{\"backend\":" << jstr(p.label.substr(0, c))
       << ",\"mode\":" << jstr(c == std::string::npos ? "" : p.label.substr(c + 1)) << ",\"label\":" << jstr(p.label)
       << ",\"total\":" << jnum(p.total, 0);
    if (p.method == "callgrind") os << ",\"instructions_per_tuple\":" << jnum(tt > 0 ? p.total / tt : 0, 3);
    else os << ",\"executions\":" << p.executions << ",\"ns\":" << p.ns;
    os << ",\"statements\":[";
    for (size_t i = 0; i < p.stmts.size(); ++i) {
      const auto& s = p.stmts[i];
      os << (i ? "," : "") << "{\"stmt\":" << s.k << ",\"line\":" << s.line << ",\"text\":" << jstr(s.text)
         << ",\"tuples\":" << s.tuples << ",\"rows_scanned\":" << s.scanned << ",\"rows_out\":" << s.rows;
      if (p.method == "callgrind") {
        double per = s.reps ? double(s.run_cost) / double(s.reps) : 0;
        os << ",\"reps\":" << s.reps << ",\"instructions\":" << s.run_cost
           << ",\"instructions_per_execution\":" << jnum(per, 3)
           << ",\"instructions_per_tuple\":" << jnum(per / double(s.tuples), 3)
           << ",\"prepare_instructions\":" << (s.prep_part ? std::to_string(s.prep_cost) : "null");
      }
      os << "}";
    }
    os << "],\"routines\":[";
    for (size_t i = 0; i < p.lines.size(); ++i) {
      const Line& l = p.lines[i];
      os << (i ? "," : "") << "\n {\"routine\":" << jstr(l.info.name) << ",\"percent\":" << jnum(l.share, 4)
         << ",\"count\":" << jnum(l.count, 0);
      if (p.method == "callgrind") os << ",\"per_tuple\":" << jnum(tt > 0 ? l.count / tt : 0, 4);
      os << ",\"subsystem\":" << jstr(l.info.subsystem) << ",\"role\":" << jstr(l.info.role)
         << ",\"what\":" << jstr(l.info.what) << "}";
    }
    os << "],\"subsystems\":{";
    bool first = true;
    for (std::string_view sub : kSubsystemNames) {
      auto it = p.subsystems.find(std::string(sub));
      os << (first ? "" : ",") << jstr(sub) << ":" << jnum(it == p.subsystems.end() ? 0 : it->second, 4);
      first = false;
    }
    os << "},\"subsystems_self\":{";
    first = true;
    for (std::string_view sub : kSubsystemNames) {
      auto it = p.self_subsystems.find(std::string(sub));
      os << (first ? "" : ",") << jstr(sub) << ":" << jnum(it == p.self_subsystems.end() ? 0 : it->second, 4);
      first = false;
    }
    os << "}";
    if (is_interp(p)) {
      auto cp = counterparts(p);
      os << ",\"table3\":[";
      for (size_t i = 0; i < paper_table3().size(); ++i) {
        const auto& r = paper_table3()[i];
        auto it = cp.find(r.name);
        os << (i ? "," : "") << "{\"routine\":" << jstr(r.name) << ",\"paper_percent\":" << jnum(r.percent)
           << ",\"percent\":" << jnum(it == cp.end() ? 0 : it->second.share, 4)
           << ",\"counterpart\":" << jstr(it == cp.end() ? "" : it->second.names) << "}";
      }
      os << "]";
    }
    os << "}";
  }
  os << "]}\n";
}

}  // namespace quelkit::profile
