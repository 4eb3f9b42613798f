// Printing profiles (print.h): fixed-width tables for people, and the JSON
// document, built with nlohmann-json in the key order the document has always
// had, its numbers rounded as before (percent to 4 decimals, others to 3).
#include "profile/print.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/backend.h"
#include "engine/measure.h"

namespace quelkit::profile {

namespace {

using harness::kSubsystemNames;
using Json = nlohmann::ordered_json;

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

// The routines, most costly first: --top of them, the rest summed.
void print_routines(std::ostream& os, const BackendProfile& p, const Options& o, bool ins, double tt) {
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
}

// The settings that shaped a back end's code, as --stats names them.
std::string backend_settings(const std::string& label, const Options& o) {
  return harness::backend_settings(std::string_view(label).substr(0, label.find(':')), o.code.prepare());
}

void print_profile(std::ostream& os, const BackendProfile& p, const Options& o) {
  bool ins = p.method == "callgrind";
  const std::string settings = backend_settings(p.label, o);
  os << "\n== " << p.label << (settings.empty() ? "" : " [" + settings + "]") << " ";
  if (ins) {
    os << "-- " << num(p.total) << " instructions (callgrind; run phase only, " << o.reps
       << (o.reps == 1 ? " evaluation" : " evaluations") << " per statement, preparation excluded)\n";
  } else {
    os << "-- " << num(p.total) << " cpu-clock samples (perf, " << o.freq << " Hz) over "
       << num(double(p.ns) / 1e9, 2) << " s: " << p.executions
       << (p.executions == 1 ? " execution of the script" : " executions of the script")
       << (o.cold ? " (plan cache cleared each time)" : " (plan cache warm)");
    if (p.executions) os << ", " << num(double(p.ns) / double(p.executions) / 1e3, 1) << " us each";
    os << "\n";
    // A share of n samples is off by about sqrt(n)/N: at 400, 5 points.
    if (p.total < 400)
      os << "   only " << num(p.total) << " samples: shares are rough (about +-" << num(100 / std::sqrt(p.total), 0)
         << " points); sample longer (--seconds)\n";
  }
  for (const auto& s : p.stmts) {
    os << "   q" << s.k << " (line " << s.line << ") " << fit(s.text, 70) << "\n      " << s.tuples
       << (s.tuples == 1 ? " tuple" : " tuples") << ", " << s.scanned << " scanned, " << s.rows
       << (s.rows == 1 ? " row" : " rows");
    if (ins) {
      double per = s.reps ? double(s.run_cost) / double(s.reps) : 0;
      os << "; " << num(per) << " instructions per execution, ";
      if (s.tuples) os << num(per / double(s.tuples), 1) << " per tuple";
      else os << "no tuple to count per";
      if (s.prep_part) os << "; cold preparation " << num(double(s.prep_cost)) << " instructions";
    }
    os << "\n";
  }
  double tt = tuples_total(p);
  if (o.top > 0) print_routines(os, p, o, ins, tt);
  else os << "\n";  // --top 0: the split alone
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

// v with `prec` decimals, trailing zeros dropped (17.1, 3360), as a JSON
// number: whole values as integers, so that they print without ".0".
Json number(double v, int prec = 3) {
  if (!std::isfinite(v)) return nullptr;
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  double r = std::strtod(os.str().c_str(), nullptr);
  if (r == std::trunc(r) && std::fabs(r) < 9e15) return static_cast<int64_t>(r);
  return r;
}

// The subsystems in print order, each with its share.
Json subsystem_shares(const std::map<std::string, double>& shares) {
  Json j = Json::object();
  for (std::string_view sub : kSubsystemNames) {
    auto it = shares.find(std::string(sub));
    j[std::string(sub)] = number(it == shares.end() ? 0 : it->second, 4);
  }
  return j;
}

Json backend_json(const BackendProfile& p, const Options& o) {
  bool ins = p.method == "callgrind";
  auto c = p.label.find(':');
  double tt = tuples_total(p);
  Json b;
  b["backend"] = p.label.substr(0, c);
  b["mode"] = c == std::string::npos ? "" : p.label.substr(c + 1);
  b["label"] = p.label;
  b["settings"] = backend_settings(p.label, o);
  b["total"] = number(p.total, 0);
  if (ins) {
    b["instructions_per_tuple"] = number(tt > 0 ? p.total / tt : 0, 3);
  } else {
    b["executions"] = p.executions;
    b["ns"] = p.ns;
  }
  Json stmts = Json::array();
  for (const auto& s : p.stmts) {
    Json j;
    j["stmt"] = s.k;
    j["line"] = s.line;
    j["text"] = s.text;
    j["tuples"] = s.tuples;
    j["rows_scanned"] = s.scanned;
    j["rows_out"] = s.rows;
    if (ins) {
      double per = s.reps ? double(s.run_cost) / double(s.reps) : 0;
      j["reps"] = s.reps;
      j["instructions"] = s.run_cost;
      j["instructions_per_execution"] = number(per, 3);
      j["instructions_per_tuple"] = s.tuples ? number(per / double(s.tuples), 3) : Json(nullptr);
      j["prepare_instructions"] = s.prep_part ? Json(s.prep_cost) : Json(nullptr);
    }
    stmts.push_back(std::move(j));
  }
  b["statements"] = std::move(stmts);
  Json routines = Json::array();
  for (const Line& l : p.lines) {
    Json j;
    j["routine"] = l.info.name;
    j["percent"] = number(l.share, 4);
    j["count"] = number(l.count, 0);
    if (ins) j["per_tuple"] = number(tt > 0 ? l.count / tt : 0, 4);
    j["subsystem"] = l.info.subsystem;
    j["role"] = l.info.role;
    j["what"] = l.info.what;
    routines.push_back(std::move(j));
  }
  b["routines"] = std::move(routines);
  b["subsystems"] = subsystem_shares(p.subsystems);
  b["subsystems_self"] = subsystem_shares(p.self_subsystems);
  if (is_interp(p)) {
    auto cp = counterparts(p);
    Json t3 = Json::array();
    for (const auto& r : paper_table3()) {
      auto it = cp.find(r.name);
      Json j;
      j["routine"] = r.name;
      j["paper_percent"] = number(r.percent);
      j["percent"] = number(it == cp.end() ? 0 : it->second.share, 4);
      j["counterpart"] = it == cp.end() ? "" : it->second.names;
      t3.push_back(std::move(j));
    }
    b["table3"] = std::move(t3);
  }
  return b;
}

// What shaped the measurement beyond the method: a profile is reproduced
// from these. parts as --parts writes it ("3360:isam:wide").
std::vector<std::string> parts_specs(const Options& o) {
  std::vector<std::string> v;
  for (const auto& p : o.parts)
    v.push_back(std::to_string(p.rows) + ":" + harness::structure_name(p.s) + (p.wide ? ":wide" : ""));
  return v;
}

std::string settings_line(const Options& o, const std::string& method) {
  // Every code-shaping option, given or not, but --vector-batch only where
  // given (its default is the vector back end's own).
  std::string s = "settings: --jit-opt " + std::to_string(o.code.jit_opt) + " (" + o.code.jit_cpu + " CPU)" +
                  ", --jit-lookup-opt " +
                  (o.code.jit_lookup_opt < 0 ? std::string("same") : std::to_string(o.code.jit_lookup_opt)) +
                  (o.code.jit_checks ? ", --jit-checks" : "") + ", --selection " + o.code.selection +
                  (o.code.vector_batch ? ", --vector-batch " + std::to_string(o.code.vector_batch) : "") +
                  ", --page-size " + std::to_string(o.page_size);
  if (method == "perf")
    s += std::string(", --format ") + (o.format == harness::OutFormat::None  ? "none"
                                       : o.format == harness::OutFormat::Csv ? "csv"
                                                                             : "table") +
         ", --freq " + std::to_string(o.freq) + (o.cold ? ", --cold" : "");
  for (const auto& p : parts_specs(o)) s += ", --parts " + p;
  return s;
}

}  // namespace

void print_report(std::ostream& os, const std::vector<BackendProfile>& ps, const Options& o, const std::string& method,
                  const std::string& note) {
  os << "quelkit profile: " << (method == "perf" ? "cpu-clock sampling (perf record)" : "instruction counts (callgrind)")
     << "; machine: " << harness::machine_description() << "\n"
     << settings_line(o, method) << "\n";
  if (method == "perf")
    os << "each execution: parse, bind, evaluate"
       << (o.format == harness::OutFormat::None ? "" : ", format the rows (to /dev/null)")
       << "; statements that change the database are evaluated, not applied\n";
  else
    os << "run phase only: " << o.reps << (o.reps == 1 ? " warm evaluation" : " warm evaluations")
       << " per statement (plan cache warm, every prepare() "
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
      for (const auto& s : p.stmts)
        os << std::setw(12) << (s.tuples ? num(double(s.run_cost) / double(s.reps) / double(s.tuples), 1) : "-");
      double tt = tuples_total(p);
      os << std::setw(13) << num(tt > 0 ? p.total / tt : 0, 1) << "\n";
    }
  }
}

void print_json(std::ostream& os, const std::vector<BackendProfile>& ps, const Options& o, const std::string& method,
                const std::string& note) {
  Json doc;
  doc["tool"] = "quelkit profile";
  doc["method"] = method;
  doc["unit"] = method == "callgrind" ? "instructions" : "cpu-clock samples";
  doc["note"] = note.empty() ? Json(nullptr) : Json(note);
  doc["machine"] = harness::machine_description();
  doc["settings"] = {{"jit_opt", o.code.jit_opt},
                     {"jit_lookup_opt", o.code.jit_lookup_opt},
                     {"jit_cpu", o.code.jit_cpu},
                     {"jit_checks", o.code.jit_checks},
                     {"selection", o.code.selection},
                     // null: the vector back end's default
                     {"vector_batch", o.code.vector_batch ? Json(o.code.vector_batch) : Json(nullptr)},
                     {"page_size", o.page_size},
                     {"parts", parts_specs(o)}};
  if (method == "perf")  // how the sampled repetitions format their rows; callgrind's format none
    doc["settings"]["format"] = o.format == harness::OutFormat::None  ? "none"
                                : o.format == harness::OutFormat::Csv ? "csv"
                                                                      : "table";
  if (method == "callgrind") {
    doc["reps"] = o.reps;
  } else {
    doc["freq"] = o.freq;
    doc["seconds"] = number(o.seconds);
    doc["cold"] = o.cold;
  }
  Json paper = Json::array();
  for (const auto& r : paper_table3()) paper.push_back({{"routine", r.name}, {"percent", number(r.percent)}, {"what", r.what}});
  doc["paper_table3"] = std::move(paper);
  Json backends = Json::array();
  for (const auto& p : ps) backends.push_back(backend_json(p, o));
  doc["backends"] = std::move(backends);
  // Statement texts come from the user's files: bytes that are not UTF-8 become U+FFFD.
  os << doc.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
}

}  // namespace quelkit::profile
