// The destinations of a plain query (no threats) and their costs, without the routes:
// what ReachGraph::reachable lists (rules/reach_search.py dijkstra and routes.py
// Reach), found by a level-synchronous search over bitboards of the whole map.
//
// A plain search's cost of a node is its shortest-path cost, whatever order the nodes are
// settled in; a destination's chosen route costs the cheaper of its two parities' nodes
// (routes.py Reach._pick). So the squares first reached at cost c, over both parities,
// are the destinations costing c. The routes themselves (which path among equal ones)
// depend on the settling order and are not computed here: the turn's listing needs only
// the squares and their costs (legal.cpp walk), a taken move's route comes from
// ReachGraph::cheapest. Each level moves the nodes settled at it one step in each of the
// eight KING_STEPS at once (a shift of the board by the step's index difference), so a
// query costs (its budget) x (8 steps x 2 parities) x (the map's 64-bit words): on maps up
// to kSweepSquares squares, where that is far below Dial's search of the window.
// tests/native/test_reach_differential.py checks every destination and cost against the
// Python search.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "reach.hpp"

namespace fray::reach {

// Maps up to this many squares (16 words of 64 bits) are swept; larger ones are searched.
inline constexpr int kSweepSquares = 1024;

// A bitboard of the map: bit y * width + x.
using Board = std::array<std::uint64_t, kSweepSquares / 64>;

// The squares of `from` in `mask` (those a step may leave), moved by `shift` bit indices
// (positive: towards higher ones) and ORed into `to`, over boards of W words, for a shift
// of less than a word (|shift| < 64: a king step's on a map narrower than 63 squares):
// each word with the carry from its neighbour, in one pass. The count of words is fixed
// at compile time, so the loops unroll and vectorize.
template <int W>
void step_into(const Board& from, const Board& mask, int shift, Board& to) {
  std::array<std::uint64_t, W + 2> moving{};  // moving[i + 1]: word i; the two ends zero
  for (int i = 0; i < W; ++i) moving[i + 1] = from[i] & mask[i];
  if (shift > 0) {
    for (int i = 0; i < W; ++i) to[i] |= moving[i + 1] << shift | moving[i] >> (64 - shift);
  } else if (shift < 0) {
    for (int i = 0; i < W; ++i) to[i] |= moving[i + 1] >> -shift | moving[i + 2] << (64 + shift);
  } else {
    for (int i = 0; i < W; ++i) to[i] |= moving[i + 1];
  }
}

// The bare map's boards (built once per ReachGraph when the map is small enough).
struct SweepTables {
  int words = 0;                 // 64-bit words a board of the map uses
  std::array<Board, 8> step_from{};  // squares from which KING_STEPS[k] is a legal step (H13)
  std::array<int, 8> shift{};    // KING_STEPS[k]'s index difference, dy * width + dx
  Board difficult{};             // difficult terrain (H13)
  Board drop{};                  // drops (S23): entered, never passed through
  // the squares in (x, y) order, as Python sorts them: column-major index x * height + y
  // -> (x, y), and each square's (reading order y * width + x) column-major index
  std::vector<std::array<int, 2>> by_column;
  std::vector<int> column_of;

  SweepTables(const MapTable& map, const std::vector<std::uint8_t>& steps);
};

// The destinations of `query` with their costs, in (x, y) order as Python sorts squares.
// Its threats are ignored (a plain query), unless `unprovoked`: then only routes that
// leave no threatened square (the start's included) are followed, giving the
// destinations a route provoking nobody reaches (H13) and the cheapest such route's cost.
// The query is checked by the caller (ReachGraph::destinations, free_destinations); its
// budget is at least 0.
std::vector<Destination> sweep(const MapTable& map, const Costs& costs, const SweepTables& tables,
                               const Query& query, bool unprovoked = false);

}  // namespace fray::reach
