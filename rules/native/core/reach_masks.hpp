// The provoked sets of the label-setting search (reach_search.cpp; H13): a set of
// enemies as K 64-bit words, the Python search's int mask, and the table that numbers the
// sets one search meets.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace fray::reach {

// A set of enemies, bit n for enemy n, in K 64-bit words (the Python search's int mask).
template <std::size_t K>
struct Bits {
  std::array<std::uint64_t, K> words{};

  Bits operator|(const Bits& other) const {
    Bits out;
    for (std::size_t k = 0; k < K; ++k) out.words[k] = words[k] | other.words[k];
    return out;
  }
  bool subset_of(const Bits& other) const {
    for (std::size_t k = 0; k < K; ++k) {
      if ((words[k] & ~other.words[k]) != 0) return false;
    }
    return true;
  }
  int count() const {
    int total = 0;
    for (std::uint64_t word : words) total += std::popcount(word);
    return total;
  }
  bool operator==(const Bits& other) const = default;
};

template <std::size_t K>
struct BitsHash {
  std::size_t operator()(const Bits<K>& bits) const {
    std::uint64_t hash = 0x9e3779b97f4a7c15ULL;
    for (std::uint64_t word : bits.words) {
      hash ^= word + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
    }
    return static_cast<std::size_t>(hash);
  }
};

// Provoked sets met by one search, each stored once; id 0 is the empty set.
template <std::size_t K>
class MaskTable {
 public:
  MaskTable() { intern(Bits<K>{}); }
  int intern(const Bits<K>& bits) {
    auto [where, added] = ids_.try_emplace(bits, static_cast<int>(masks_.size()));
    if (added) {
      masks_.push_back(bits);
      counts_.push_back(bits.count());
    }
    return where->second;
  }
  int unite(int a, int b) {
    if (b == 0 || a == b) return a;
    if (a == 0) return b;
    return intern(masks_[a] | masks_[b]);
  }
  bool subset(int a, int b) const { return a == b || masks_[a].subset_of(masks_[b]); }
  int count(int id) const { return counts_[id]; }
  int size() const { return static_cast<int>(masks_.size()); }

 private:
  std::vector<Bits<K>> masks_;
  std::vector<int> counts_;
  std::unordered_map<Bits<K>, int, BitsHash<K>> ids_;
};

}  // namespace fray::reach
