// The level-synchronous search of plain queries over bitboards (reach_sweep.hpp).
#include "reach_sweep.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>

namespace fray::reach {

namespace {

void set_bit(Board& board, int index) {
  board[static_cast<std::size_t>(index >> 6)] |= std::uint64_t{1} << (index & 63);
}

void clear_bit(Board& board, int index) {
  board[static_cast<std::size_t>(index >> 6)] &= ~(std::uint64_t{1} << (index & 63));
}

// `from`'s first `words` words moved by `shift` bit indices (positive: towards higher
// ones) and ORed into `out`'s first `words` words; bits moved past either end are dropped.
void shifted(const Board& from, int shift, int words, Board& out) {
  const int whole = (shift >= 0 ? shift : -shift) >> 6;
  const int part = (shift >= 0 ? shift : -shift) & 63;
  if (shift >= 0) {
    for (int i = 0; i < words - whole; ++i) out[i + whole] |= from[i] << part;
    if (part == 0) return;
    for (int i = 0; i < words - 1 - whole; ++i) out[i + whole + 1] |= from[i] >> (64 - part);
  } else {
    for (int i = whole; i < words; ++i) out[i - whole] |= from[i] >> part;
    if (part == 0) return;
    for (int i = whole + 1; i < words; ++i) out[i - whole - 1] |= from[i] << (64 - part);
  }
}

// A sweep's tables, kept with their capacity between this thread's sweeps (a sweep never
// starts inside another).
struct Scratch {
  std::vector<std::array<Board, 2>> pending;
  std::vector<int> cost_at;
};

// This thread's; not inlined, so that a sweep keeps the address (GCC would look the
// thread-local up again at each use in the loops).
[[gnu::noinline]] Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

}  // namespace

SweepTables::SweepTables(const MapTable& map, const std::vector<std::uint8_t>& steps) {
  const int squares = map.width * map.height;
  words = (squares + 63) / 64;
  for (int k = 0; k < 8; ++k) shift[k] = KING_STEPS[k][1] * map.width + KING_STEPS[k][0];
  for (int square = 0; square < squares; ++square) {
    for (int k = 0; k < 8; ++k) {
      if ((steps[static_cast<std::size_t>(square)] & (1U << k)) != 0) set_bit(step_from[k], square);
    }
    if (map.difficult[static_cast<std::size_t>(square)] != 0) set_bit(difficult, square);
    if (map.drop[static_cast<std::size_t>(square)] != 0) set_bit(drop, square);
  }
  by_column.resize(static_cast<std::size_t>(squares));
  column_of.resize(static_cast<std::size_t>(squares));
  for (int x = 0; x < map.width; ++x) {
    for (int y = 0; y < map.height; ++y) {
      const int column = x * map.height + y;
      by_column[static_cast<std::size_t>(column)] = {x, y};
      column_of[static_cast<std::size_t>(y * map.width + x)] = column;
    }
  }
}

namespace {

// The sweep on boards of W words (W >= the map's words: the words past the map's stay
// empty, since a step's target is always a square of the map). Narrow: every step moves
// a bit by less than a word (the map's width + 1 < 64), so a step is step_into's one
// pass; otherwise `shifted`. The loops run over all W words, a count fixed at compile
// time, which the compiler unrolls and vectorizes.
template <int W, bool Narrow>
std::vector<Destination> sweep_words(const MapTable& map, const Costs& costs,
                                     const SweepTables& tables, const Query& query,
                                     bool unprovoked) {
  const int width = map.width;
  const int squares = width * map.height;
  const int largest = std::max({costs.orthogonal, costs.diagonal[0], costs.diagonal[1]}) *
                      costs.difficult_multiplier;
  // no shortest route repeats a node, so none costs more than the nodes' count of steps
  const std::int64_t longest = std::int64_t{2} * squares * largest;
  const int limit = static_cast<int>(std::min(query.budget, longest));
  const int source = query.y * width + query.x;
  // settled[parity]: the nodes whose cost is known, the forbidden ones from the start
  // (never entered; the start's own node is settled at level 0 whatever its square)
  Board forbidden{};
  for (const int square : query.blocked) {
    if (square >= 0 && square < squares) set_bit(forbidden, square);
  }
  // kept: the squares whose nodes are left (every one but the drops, S23, and with
  // `unprovoked` the threatened ones, H13)
  Board kept{};
  for (int i = 0; i < W; ++i) kept[i] = ~tables.drop[i];
  Board left_start{};  // the start's node leaves even a drop square, never a threatened one
  left_start[static_cast<std::size_t>(source >> 6)] = std::uint64_t{1} << (source & 63);
  if (unprovoked) {
    for (const auto& threat : query.threats) {
      if (threat.first >= 0 && threat.first < squares) {
        clear_bit(kept, threat.first);
        clear_bit(left_start, threat.first);
      }
    }
  }
  std::array<Board, 2> settled{forbidden, forbidden};
  clear_bit(settled[static_cast<std::size_t>(query.parity)], source);
  // pending[level % ring][parity]: the nodes a step reaches at that level (a step costs
  // at most `largest`, so the next `largest` levels are all that is ever pending)
  Scratch& scratch = thread_scratch();
  const int ring = largest + 1;
  scratch.pending.assign(static_cast<std::size_t>(ring), {});
  set_bit(scratch.pending[0][static_cast<std::size_t>(query.parity)], source);
  scratch.cost_at.resize(static_cast<std::size_t>(squares));
  int* const cost_at = scratch.cost_at.data();  // valid where `reached` has the column
  Board reached{};  // by column (SweepTables::by_column): the squares reached so far
  int last = 0;     // the highest level anything is pending at
  for (int level = 0; level <= last && level <= limit; ++level) {
    std::array<Board, 2>& now = scratch.pending[static_cast<std::size_t>(level % ring)];
    std::array<Board, 2> fresh;
    for (std::size_t parity = 0; parity < 2; ++parity) {
      for (int i = 0; i < W; ++i) {
        const std::uint64_t word = now[parity][i] & ~settled[parity][i];
        fresh[parity][i] = word;
        settled[parity][i] |= word;
        now[parity][i] = 0;
      }
    }
    for (int i = 0; i < W; ++i) {
      // the squares whose first node is settled now: their chosen route costs `level`
      for (std::uint64_t first = fresh[0][i] | fresh[1][i]; first != 0; first &= first - 1) {
        const int square = i * 64 + std::countr_zero(first);
        const int column = tables.column_of[static_cast<std::size_t>(square)];
        const std::uint64_t bit = std::uint64_t{1} << (column & 63);
        std::uint64_t& word = reached[static_cast<std::size_t>(column >> 6)];
        if ((word & bit) != 0) continue;
        word |= bit;
        cost_at[square] = level;
      }
    }
    if (level == limit) break;
    for (int parity = 0; parity < 2; ++parity) {
      // none leave a drop square (S23) but the start's node (the only node of level 0)
      const Board& leaving = level == 0 ? left_start : kept;
      Board from;
      std::uint64_t any = 0;
      for (int i = 0; i < W; ++i) {
        from[i] = fresh[static_cast<std::size_t>(parity)][i] & leaving[i];
        any |= from[i];
      }
      if (any == 0) continue;
      // the orthogonal steps' targets, then the diagonal ones': each kind costs the same
      // and ends on the same parity (S18/H14: a diagonal costs diagonal[parity] and flips
      // it)
      for (int kind = 0; kind < 2; ++kind) {
        Board to{};
        for (int k = 4 * kind; k < 4 * kind + 4; ++k) {
          if constexpr (Narrow) {
            step_into<W>(from, tables.step_from[k], tables.shift[k], to);
          } else {
            Board moving;
            for (int i = 0; i < W; ++i) moving[i] = from[i] & tables.step_from[k][i];
            shifted(moving, tables.shift[k], W, to);
          }
        }
        const int step = kind == 0 ? costs.orthogonal : costs.diagonal[static_cast<std::size_t>(parity)];
        const auto onto = static_cast<std::size_t>(kind == 0 ? parity : 1 - parity);
        // H13: entering difficult terrain multiplies the step
        const int easy_level = level + step;
        const int hard_level = level + step * costs.difficult_multiplier;
        Board& easy = scratch.pending[static_cast<std::size_t>(easy_level % ring)][onto];
        Board& hard = scratch.pending[static_cast<std::size_t>(hard_level % ring)][onto];
        std::uint64_t easy_any = 0, hard_any = 0;
        for (int i = 0; i < W; ++i) {
          const std::uint64_t easy_word = to[i] & ~tables.difficult[i];
          const std::uint64_t hard_word = to[i] & tables.difficult[i];
          easy[i] |= easy_word;
          hard[i] |= hard_word;
          easy_any |= easy_word;
          hard_any |= hard_word;
        }
        if (easy_any != 0) last = std::max(last, easy_level);
        if (hard_any != 0) last = std::max(last, hard_level);
      }
    }
  }
  // the destinations: the squares reached but the start and those no move may end on, in
  // column order
  clear_bit(reached, tables.column_of[static_cast<std::size_t>(source)]);
  for (const int square : query.no_end) {
    if (square >= 0 && square < squares) clear_bit(reached, tables.column_of[static_cast<std::size_t>(square)]);
  }
  int count = 0;
  for (int i = 0; i < W; ++i) count += std::popcount(reached[i]);
  std::vector<Destination> out(static_cast<std::size_t>(count));
  std::size_t next = 0;
  for (int i = 0; i < W; ++i) {
    for (std::uint64_t word = reached[i]; word != 0; word &= word - 1) {
      const auto [x, y] = tables.by_column[static_cast<std::size_t>(i * 64 + std::countr_zero(word))];
      out[next++] = {x, y, cost_at[y * width + x]};
    }
  }
  return out;
}

}  // namespace

std::vector<Destination> sweep(const MapTable& map, const Costs& costs, const SweepTables& tables,
                               const Query& query, bool unprovoked) {
  // boards of 4, 8 or 16 words, the fewest that hold the map
  const bool narrow = map.width + 1 < 64;
  if (tables.words <= 4) {
    return narrow ? sweep_words<4, true>(map, costs, tables, query, unprovoked)
                  : sweep_words<4, false>(map, costs, tables, query, unprovoked);
  }
  if (tables.words <= 8) {
    return narrow ? sweep_words<8, true>(map, costs, tables, query, unprovoked)
                  : sweep_words<8, false>(map, costs, tables, query, unprovoked);
  }
  return narrow ? sweep_words<16, true>(map, costs, tables, query, unprovoked)
                : sweep_words<16, false>(map, costs, tables, query, unprovoked);
}

}  // namespace fray::reach
