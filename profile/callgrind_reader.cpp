// Reading callgrind's output (callgrind_reader.h): the uncompressed format with
// one cost line per instruction address, so that generated code, which
// callgrind only knows as "0x..." in object "???", can be named from the perf map.
#include "profile/callgrind_reader.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

namespace quelkit::profile {

bool read_callgrind(const std::string& path, const std::vector<MapEntry>& jit_map, CallgrindPart& out) {
  std::ifstream f(path);
  if (!f) return false;
  constexpr std::string_view kTrigger = "desc: Trigger: Client Request: ";
  std::string line, ob, fn, cob, cfn;
  bool unknown = false;  // the current function is code callgrind could not name
  bool call = false;     // the cost line after calls= is the call's inclusive cost
  uint64_t call_target = 0;
  auto jit_key = [&](uint64_t addr) -> CostKey {
    const MapEntry* e = find_in_map(jit_map, addr);
    return {"[JIT]", e ? e->name : "[JIT] unnamed"};
  };
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    char c = line[0];
    if (c == '#') continue;
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '*') {
      std::istringstream ls(line);
      std::string pos;
      uint64_t cost = 0;
      ls >> pos >> cost;
      uint64_t addr = std::strtoull(pos.c_str(), nullptr, 16);
      CostKey here = unknown ? jit_key(addr) : CostKey{ob, fn};
      if (call) {
        call = false;
        std::string callee_ob = cob.empty() ? ob : cob;
        CostKey callee =
            callee_ob == "???" && cfn.starts_with("0x") ? jit_key(call_target) : CostKey{callee_ob, cfn};
        cob.clear();
        if (cost) out.calls[{here, callee}] += cost;
        continue;
      }
      if (!cost) continue;
      out.total += cost;
      out.self[here] += cost;
      continue;
    }
    if (line.starts_with("calls=")) {
      call = true;
      std::istringstream ls(line.substr(6));
      std::string count, target;
      ls >> count >> target;
      call_target = std::strtoull(target.c_str(), nullptr, 16);
      continue;
    }
    if (line.starts_with("ob=")) {
      ob = line.substr(3);
    } else if (line.starts_with("fn=")) {
      fn = line.substr(3);
      unknown = ob == "???" && fn.starts_with("0x");
    } else if (line.starts_with("cob=")) {
      cob = line.substr(4);
    } else if (line.starts_with("cfn=")) {
      cfn = line.substr(4);
    } else if (line.starts_with(kTrigger)) {
      out.trigger = line.substr(kTrigger.size());
    }
  }
  return true;
}

}  // namespace quelkit::profile
