// The battle's dice stream (rules/dice.py, rules/roller.py; S4, H2): numpy's PCG64 bit
// generator and the Generator draws fray makes, bit for bit, so the native engine rolls
// exactly the dice the Python engine rolls from the same seed or the same saved state.
//
//   numpy.random.default_rng(seed)      Pcg64::from_seed(seed_words(seed))
//   rng.integers(low, high)  (int64)    Pcg64::integers(low, high)
//   rng.random()                        Pcg64::random()
//   rng.bit_generator.state             Pcg64State (state, inc, has_uint32, uinteger)
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace fray::dice {

using u128 = unsigned __int128;

// numpy's SeedSequence(entropy).generate_state(4, uint64) for entropy given as uint32
// words, lowest first (an integer seed n >= 0 is its base-2**32 digits; 0 is {0}).
std::array<std::uint64_t, 4> seed_sequence_state(std::span<const std::uint32_t> entropy);

// What numpy's PCG64.state dict holds.
struct Pcg64State {
  u128 state = 0;
  u128 inc = 0;
  bool has_uint32 = false;
  std::uint32_t uinteger = 0;

  friend bool operator==(const Pcg64State&, const Pcg64State&) = default;
};

// PCG64 (XSL-RR 128/64) with numpy's 32-bit half-word buffer, and numpy Generator's
// bounded integers (Lemire's method, int64 bounds) and doubles on top of it.
class Pcg64 {
 public:
  explicit Pcg64(const Pcg64State& state) : state_(state) {}

  // numpy.random.default_rng(seed) for a seed given as SeedSequence entropy words.
  static Pcg64 from_seed(std::span<const std::uint32_t> entropy);

  const Pcg64State& state() const { return state_; }
  void set_state(const Pcg64State& state) { state_ = state; }

  std::uint64_t next_uint64();
  std::uint32_t next_uint32();

  // Generator.integers(low, high) with the default int64 dtype: one integer in
  // [low, high). Requires low < high.
  std::int64_t integers(std::int64_t low, std::int64_t high);

  // Generator.random(): a double in [0, 1) from the top 53 bits of one 64-bit output.
  double random();

  // One die with `sides` faces, 1..sides: integers(1, sides + 1).
  int die(int sides) { return static_cast<int>(integers(1, static_cast<std::int64_t>(sides) + 1)); }

 private:
  std::uint64_t bounded_uint64(std::uint64_t range);  // [0, range], range inclusive
  Pcg64State state_;
};

}  // namespace fray::dice
