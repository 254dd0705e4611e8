// Replays numpy's draws (tests/native/dice_vectors.py on stdin) on the native dice stream
// (rules/native/dice.cpp). Built without Python, with -fsanitize=address,undefined, by
// .ci/run; exits 1 at the first difference, naming the line.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "dice.hpp"

using fray::dice::Pcg64;
using fray::dice::Pcg64State;
using fray::dice::u128;

namespace {

int fail(long line_number, const std::string& line, const std::string& why) {
  std::cerr << "dice_check: line " << line_number << ": " << why << ": " << line << "\n";
  return 1;
}

}  // namespace

int main() {
  std::optional<Pcg64> stream;
  std::string line;
  long line_number = 0;
  long draws = 0;
  while (std::getline(std::cin, line)) {
    ++line_number;
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (kind == "seed") {
      std::size_t count = 0;
      fields >> count;
      std::vector<std::uint32_t> words(count);
      for (auto& word : words) fields >> word;
      stream.emplace(Pcg64::from_seed(words));
      continue;
    }
    if (!stream) return fail(line_number, line, "no seed yet");
    if (kind == "state") {
      std::uint64_t state_high = 0, state_low = 0, inc_high = 0, inc_low = 0;
      int has_uint32 = 0;
      std::uint32_t uinteger = 0;
      fields >> state_high >> state_low >> inc_high >> inc_low >> has_uint32 >> uinteger;
      Pcg64State expected;
      expected.state = (static_cast<u128>(state_high) << 64) | state_low;
      expected.inc = (static_cast<u128>(inc_high) << 64) | inc_low;
      expected.has_uint32 = has_uint32 != 0;
      expected.uinteger = uinteger;
      if (!(stream->state() == expected)) return fail(line_number, line, "state differs");
      stream.emplace(expected);  // continue from a stream loaded from the saved state
    } else if (kind == "int") {
      std::int64_t low = 0, high = 0, value = 0;
      fields >> low >> high >> value;
      const std::int64_t got = stream->integers(low, high);
      ++draws;
      if (got != value) return fail(line_number, line, "drew " + std::to_string(got));
    } else if (kind == "random") {
      std::string text;
      fields >> text;
      const double value = std::strtod(text.c_str(), nullptr);
      const double got = stream->random();
      ++draws;
      if (got != value) return fail(line_number, line, "drew another double");
    } else {
      return fail(line_number, line, "unknown line");
    }
  }
  if (draws == 0) {
    std::cerr << "dice_check: no draws read\n";
    return 1;
  }
  std::printf("dice_check: %ld draws, 0 differences\n", draws);
  return 0;
}
