// Runs the fuzz target (frontend_fuzz.cpp) over files and directories given
// on the command line, without libFuzzer: the seed corpus, the query corpus
// and any finding copied into test/fuzz/corpus once fixed (./kit fuzz says
// so) stay crash-free in every build (ctest fuzz_replay). A path that is
// missing, unreadable or holds no file fails the run: a replay of nothing
// would pass.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  size_t n = 0;
  bool ok = true;
  auto run = [&](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      std::cerr << "fuzz replay: cannot read " << p << "\n";
      ok = false;
      return;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    // Prefixes too: truncated input is the commonest malformed text. Every
    // prefix of a file up to 4 KiB (libFuzzer's -max_len in ./kit fuzz),
    // about 64 of a longer one (the query corpus's larger files).
    const size_t step = s.size() <= 4096 ? 1 : 1 + s.size() / 64;
    for (size_t k = 0; k < s.size(); k += step)
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), k);
    ++n;
  };
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    const size_t before = n;
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) run(e.path());
    } else if (std::filesystem::exists(p, ec)) {
      run(p);
    }
    if (n == before) {
      std::cerr << "fuzz replay: no input in " << p << "\n";
      ok = false;
    }
  }
  std::cout << "fuzz replay: " << n << " inputs" << (ok ? ", no crash" : "") << "\n";
  return ok && n ? 0 : 1;
}
