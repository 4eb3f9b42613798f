// The back-end registry. Back ends add themselves (backends/backends.cpp's
// register_all_backends calls each one's register function); the harness only
// ever looks them up by the name a user gave.
#include "engine/backend.h"

#include <algorithm>
#include <string>

namespace quelkit::harness {

static std::vector<BackendSpec>& registry() {
  static std::vector<BackendSpec> r;
  return r;
}

void register_backend(BackendSpec spec) {
  for (auto& s : registry())
    if (s.name == spec.name) {
      s = std::move(spec);
      return;
    }
  registry().push_back(std::move(spec));
}

const std::vector<BackendSpec>& registered_backends() { return registry(); }

const BackendSpec* find_backend(std::string_view name) {
  for (const auto& s : registry())
    if (s.name == name) return &s;
  return nullptr;
}

std::string backend_settings(std::string_view backend, const PrepareOptions& opt) {
  const BackendSpec* spec = find_backend(backend);
  return spec && spec->settings ? spec->settings(opt) : std::string();
}

std::string jit_settings(const PrepareOptions& opt) {
  const bool lookups_apart = opt.jit_lookup_opt >= 0 && opt.jit_lookup_opt != opt.jit_opt;
  return "-O" + std::to_string(opt.jit_opt) +
         (lookups_apart ? ", lookups -O" + std::to_string(opt.jit_lookup_opt) : std::string()) +
         (opt.jit_native_cpu ? ", native CPU" : ", generic CPU") +
         (opt.jit_checks ? ", checks" : "");
}

const ModeSpec* BackendSpec::mode(std::string_view m) const {
  if (m.empty()) return modes.empty() ? nullptr : &modes.front();
  for (const ModeSpec& s : modes)
    if (s.name == m) return &s;
  return nullptr;
}

bool BackendSpec::dumps(std::string_view form) const {
  return std::any_of(dump_forms.begin(), dump_forms.end(), [&](const DumpForm& f) { return f.name == form; });
}

bool BackendSpec::dumps_by_selection(std::string_view form) const {
  return std::any_of(dump_forms.begin(), dump_forms.end(),
                     [&](const DumpForm& f) { return f.name == form && f.by_selection; });
}

bool has_page_kernel(std::string_view backend, std::string_view mode) {
  const BackendSpec* b = find_backend(backend);
  const ModeSpec* m = b ? b->mode(mode) : nullptr;
  return m && m->page_kernel;
}

}  // namespace quelkit::harness
