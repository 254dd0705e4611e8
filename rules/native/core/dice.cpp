// The battle's dice stream: numpy's PCG64 and Generator draws (see dice.hpp).
// Written from the published algorithms (PCG by M. O'Neill; Lemire, "Fast Random Integer
// Generation in an Interval", 2019; numpy's SeedSequence hashing) and checked against
// numpy draw for draw in tests/native/test_dice_stream.py.
#include "dice.hpp"

#include <limits>

namespace fray::dice {
namespace {

// --- SeedSequence (numpy.random.SeedSequence, pool of four 32-bit words) ---------------
constexpr std::uint32_t kInitA = 0x43b0d7e5;
constexpr std::uint32_t kMultA = 0x931e8875;
constexpr std::uint32_t kInitB = 0x8b51f9dd;
constexpr std::uint32_t kMultB = 0x58f38ded;
constexpr std::uint32_t kMixMultL = 0xca01f9dd;
constexpr std::uint32_t kMixMultR = 0x4973f715;
constexpr unsigned kXShift = 16;
constexpr std::size_t kPoolSize = 4;

std::uint32_t hashmix(std::uint32_t value, std::uint32_t& hash_const) {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> kXShift;
  return value;
}

std::uint32_t mix(std::uint32_t x, std::uint32_t y) {
  std::uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> kXShift;
  return result;
}

// --- PCG64: 128-bit LCG, XSL-RR output ----------------------------------------------------
constexpr u128 kMultiplier =
    (static_cast<u128>(2549297995355413924ULL) << 64) + 4865540595714422341ULL;

std::uint64_t rotate_right(std::uint64_t value, unsigned rotation) {
  return (value >> rotation) | (value << ((-rotation) & 63U));
}

}  // namespace

std::array<std::uint64_t, 4> seed_sequence_state(std::span<const std::uint32_t> entropy) {
  std::array<std::uint32_t, kPoolSize> pool{};
  std::uint32_t hash_const = kInitA;
  for (std::size_t i = 0; i < kPoolSize; ++i) {
    pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0U, hash_const);
  }
  for (std::size_t source = 0; source < kPoolSize; ++source) {
    for (std::size_t target = 0; target < kPoolSize; ++target) {
      if (source != target) pool[target] = mix(pool[target], hashmix(pool[source], hash_const));
    }
  }
  for (std::size_t source = kPoolSize; source < entropy.size(); ++source) {
    for (std::size_t target = 0; target < kPoolSize; ++target) {
      pool[target] = mix(pool[target], hashmix(entropy[source], hash_const));
    }
  }
  // generate_state(4, uint64): eight 32-bit words cycled from the pool, paired low-first.
  std::array<std::uint32_t, 2 * 4> words{};
  std::uint32_t out_const = kInitB;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::uint32_t value = pool[i % kPoolSize];
    value ^= out_const;
    out_const *= kMultB;
    value *= out_const;
    value ^= value >> kXShift;
    words[i] = value;
  }
  std::array<std::uint64_t, 4> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint64_t>(words[2 * i]) |
             (static_cast<std::uint64_t>(words[2 * i + 1]) << 32);
  }
  return out;
}

Pcg64 Pcg64::from_seed(std::span<const std::uint32_t> entropy) {
  const auto words = seed_sequence_state(entropy);
  const u128 init_state = (static_cast<u128>(words[0]) << 64) | words[1];
  const u128 init_sequence = (static_cast<u128>(words[2]) << 64) | words[3];
  Pcg64State seeded;
  seeded.inc = (init_sequence << 1U) | 1U;
  seeded.state = seeded.state * kMultiplier + seeded.inc;
  seeded.state += init_state;
  seeded.state = seeded.state * kMultiplier + seeded.inc;
  return Pcg64(seeded);
}

std::uint64_t Pcg64::next_uint64() {
  state_.state = state_.state * kMultiplier + state_.inc;
  const auto high = static_cast<std::uint64_t>(state_.state >> 64);
  const auto low = static_cast<std::uint64_t>(state_.state);
  return rotate_right(high ^ low, static_cast<unsigned>(high >> 58U));
}

// numpy hands out a 64-bit output as two 32-bit draws, the low half first.
std::uint32_t Pcg64::next_uint32() {
  if (state_.has_uint32) {
    state_.has_uint32 = false;
    return state_.uinteger;
  }
  const std::uint64_t next = next_uint64();
  state_.has_uint32 = true;
  state_.uinteger = static_cast<std::uint32_t>(next >> 32);
  return static_cast<std::uint32_t>(next & 0xffffffffULL);
}

// numpy's random_bounded_uint64 with use_masked = false: a value in [0, range].
std::uint64_t Pcg64::bounded_uint64(std::uint64_t range) {
  if (range == 0) return 0;
  if (range <= 0xffffffffULL) {
    if (range == 0xffffffffULL) return next_uint32();
    // Lemire on 32 bits: scale one 32-bit draw, reject the biased low part.
    const auto exclusive = static_cast<std::uint32_t>(range + 1);
    std::uint64_t scaled = static_cast<std::uint64_t>(next_uint32()) * exclusive;
    auto leftover = static_cast<std::uint32_t>(scaled & 0xffffffffULL);
    if (leftover < exclusive) {
      const std::uint32_t threshold =
          (std::numeric_limits<std::uint32_t>::max() - static_cast<std::uint32_t>(range)) %
          exclusive;
      while (leftover < threshold) {
        scaled = static_cast<std::uint64_t>(next_uint32()) * exclusive;
        leftover = static_cast<std::uint32_t>(scaled & 0xffffffffULL);
      }
    }
    return scaled >> 32;
  }
  if (range == std::numeric_limits<std::uint64_t>::max()) return next_uint64();
  // Lemire on 64 bits.
  const std::uint64_t exclusive = range + 1;
  u128 scaled = static_cast<u128>(next_uint64()) * exclusive;
  auto leftover = static_cast<std::uint64_t>(scaled);
  if (leftover < exclusive) {
    const std::uint64_t threshold =
        (std::numeric_limits<std::uint64_t>::max() - range) % exclusive;
    while (leftover < threshold) {
      scaled = static_cast<u128>(next_uint64()) * exclusive;
      leftover = static_cast<std::uint64_t>(scaled);
    }
  }
  return static_cast<std::uint64_t>(scaled >> 64);
}

std::int64_t Pcg64::integers(std::int64_t low, std::int64_t high) {
  // The closed range [low, high - 1] as numpy computes it, in unsigned arithmetic.
  const std::uint64_t range =
      static_cast<std::uint64_t>(high) - 1U - static_cast<std::uint64_t>(low);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + bounded_uint64(range));
}

double Pcg64::random() {
  return static_cast<double>(next_uint64() >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace fray::dice
