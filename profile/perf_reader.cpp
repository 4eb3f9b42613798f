// Reading perf's formats (perf_reader.h): the perf map of JIT code and the
// samples `perf script` prints.
#include "profile/perf_reader.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace quelkit::profile {

std::vector<MapEntry> read_perf_map(const std::string& path, size_t lines) {
  std::vector<MapEntry> m;
  std::ifstream f(path);
  std::string line;
  for (size_t n = 0; n < lines && std::getline(f, line); ++n) {
    std::istringstream ls(line);
    MapEntry e;
    std::string a, z;
    if (!(ls >> a >> z)) continue;
    std::getline(ls >> std::ws, e.name);
    e.start = std::strtoull(a.c_str(), nullptr, 16);
    e.size = std::strtoull(z.c_str(), nullptr, 16);
    if (e.size) m.push_back(std::move(e));
  }
  // A later entry at the same address (code freed and the memory reused) wins.
  std::stable_sort(m.begin(), m.end(), [](const MapEntry& x, const MapEntry& y) { return x.start < y.start; });
  std::vector<MapEntry> out;
  for (auto& e : m) {
    if (!out.empty() && out.back().start == e.start) out.back() = std::move(e);
    else out.push_back(std::move(e));
  }
  return out;
}

const MapEntry* find_in_map(const std::vector<MapEntry>& map, uint64_t addr) {
  auto it = std::upper_bound(map.begin(), map.end(), addr, [](uint64_t a, const MapEntry& e) { return a < e.start; });
  if (it == map.begin()) return nullptr;
  --it;
  return addr < it->start + it->size ? &*it : nullptr;
}

namespace {

// One frame of a chain: "\t    7f01ab12 symbol name (dso)". Code perf found
// in anonymous memory is generated code, whatever perf calls its object; so
// is an address it could not name that the perf map holds.
// Where perf saw a shared object's code mapped: its start and file offset
// (perf prints an address it cannot name in a file as an offset into it).
struct ExecMap {
  uint64_t start = 0, pgoff = 0;
};
using ExecMaps = std::map<std::string, ExecMap, std::less<>>;

// "PERF_RECORD_MMAP2 pid/tid: [0x7f..(0x1000) @ 0x1000 fe:00 ino gen]: r-xp /path"
// (--show-mmap-events): an executable mapping, noted by its path.
void read_mmap(const std::string& line, ExecMaps& maps) {
  const size_t open = line.find('['), at = line.find(" @ ", open), close = line.find("]: ", at);
  if (open == std::string::npos || at == std::string::npos || close == std::string::npos) return;
  const std::string rest = line.substr(close + 3);  // "r-xp /path"
  const size_t sp = rest.find(' ');
  if (sp == std::string::npos || sp < 3 || rest[2] != 'x') return;
  ExecMap m;
  m.start = std::strtoull(line.c_str() + open + 1, nullptr, 16);
  m.pgoff = std::strtoull(line.c_str() + at + 3, nullptr, 16);
  maps[rest.substr(sp + 1)] = m;
}

bool read_frame(const std::string& line, const std::vector<MapEntry>& map, const ExecMaps& maps, CostKey* k) {
  size_t a = line.find_first_not_of(" \t");
  if (a == std::string::npos) return false;
  size_t sp = line.find(' ', a);
  if (sp == std::string::npos) return false;
  const uint64_t ip = std::strtoull(line.c_str() + a, nullptr, 16);
  std::string rest = line.substr(sp + 1);
  std::string dso;
  if (!rest.empty() && rest.back() == ')') {
    size_t open = rest.rfind(" (");
    if (open != std::string::npos) {
      dso = rest.substr(open + 2, rest.size() - open - 3);
      rest.resize(open);
    }
  }
  if (dso.starts_with("[kernel")) dso = "[kernel]";
  if (dso.find("/perf-") != std::string::npos || dso.starts_with("[JIT]") || dso == "//anon" ||
      dso.starts_with("[anon"))
    dso = "[JIT]";
  if (rest == "[unknown]" && dso != "[kernel]" && dso != "[JIT]") {
    auto m = maps.find(dso);
    const uint64_t addr = m == maps.end() ? ip : m->second.start + ip - m->second.pgoff;
    if (const MapEntry* e = find_in_map(map, addr)) rest = e->name, dso = "[JIT]";
  }
  if (rest == "[unknown]" && dso == "[JIT]") rest = "[JIT] unnamed";
  *k = {dso, rest};
  return true;
}

}  // namespace

void read_perf_script(std::istream& in, std::string_view backend, Costs& out, const std::vector<MapEntry>& map) {
  SubsystemOf sub_of(backend);
  std::string line;
  std::vector<CostKey> chain;
  auto flush = [&] {
    if (chain.empty()) return;
    out.self[chain[0]] += 1;
    std::string s = "other";
    for (const auto& k : chain)
      if (sub_of(k) != "other") {
        s = sub_of(k);
        if (sub_of(chain[0]) == "other") out.via[chain[0]][k] += 1;
        break;
      }
    out.charged[s] += 1;
    chain.clear();
  };
  ExecMaps maps;
  while (std::getline(in, line)) {
    CostKey k;
    if (line.find("PERF_RECORD_") != std::string::npos) read_mmap(line, maps);
    else if (line.find_first_not_of(" \t") == std::string::npos) flush();
    else if (read_frame(line, map, maps, &k)) chain.push_back(std::move(k));
  }
  flush();
}

}  // namespace quelkit::profile
