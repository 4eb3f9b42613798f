// Runs the fuzz target (frontend_fuzz.cpp) over files and directories given
// on the command line, without libFuzzer: the seed corpus, past findings and
// the query corpus stay crash-free in every build (ctest fuzz_replay).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  size_t n = 0;
  auto run = [&](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    // Every prefix too: truncated input is the commonest malformed text.
    for (size_t k = 0; k < s.size(); k += 1 + s.size() / 64)
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), k);
    ++n;
  };
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file()) run(e.path());
    } else {
      run(p);
    }
  }
  std::cout << "fuzz replay: " << n << " inputs, no crash\n";
  return n ? 0 : 1;
}
