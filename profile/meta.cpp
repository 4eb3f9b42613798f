// The meta file (meta.h): written and read here only, so its layout is said once.
#include "profile/meta.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace quelkit::profile {

void write_meta_pid(std::ostream& os, long pid) { os << "pid\t" << pid << "\n" << std::flush; }

void write_meta_run(std::ostream& os, const std::string& label, uint64_t reps, uint64_t ns) {
  os << "run\t" << label << "\t" << reps << "\t" << ns << "\n";
}

void write_meta_stmt(std::ostream& os, const StmtMeta& s) {
  os << "stmt\t" << s.label << "\t" << s.k << "\t" << s.line << "\t" << s.tuples << "\t" << s.scanned << "\t"
     << s.rows << "\t" << s.reps << "\t" << s.run_part << "\t" << s.prep_part << "\t" << s.run_map << "\t"
     << s.prep_map << "\t" << s.text << "\n";
}

void write_meta_done(std::ostream& os) { os << "done\n"; }

Meta read_meta(const std::string& path) {
  Meta m;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    std::vector<std::string> v;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, '\t')) v.push_back(x);
    if (v.empty()) continue;
    if (v[0] == "pid" && v.size() > 1) m.pid = std::atol(v[1].c_str());
    else if (v[0] == "done") m.done = true;
    else if (v[0] == "run" && v.size() >= 4) m.runs[v[1]] = {std::stoull(v[2]), std::stoull(v[3])};
    else if (v[0] == "stmt" && v.size() >= 13) {
      StmtMeta s;
      s.label = v[1];
      s.k = std::atoi(v[2].c_str());
      s.line = uint32_t(std::atoi(v[3].c_str()));
      s.tuples = std::stoull(v[4]);
      s.scanned = std::stoull(v[5]);
      s.rows = std::stoull(v[6]);
      s.reps = std::stoull(v[7]);
      s.run_part = std::atoi(v[8].c_str());
      s.prep_part = std::atoi(v[9].c_str());
      s.run_map = size_t(std::stoull(v[10]));
      s.prep_map = size_t(std::stoull(v[11]));
      s.text = v[12];
      m.stmts.push_back(std::move(s));
    }
  }
  return m;
}

}  // namespace quelkit::profile
