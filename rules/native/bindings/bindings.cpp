// The Python face of the native engine: the module rules._native (nanobind).
// Everything here (and in bindings_state*.cpp, which this registers) converts between Python objects and the engine's types; the rules
// themselves live in the other files of rules/native/, one per Python rules module.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "bindings_agents.hpp"
#include "bindings_apply.hpp"
#include "bindings_battle.hpp"
#include "bindings_env.hpp"
#include "bindings_legal.hpp"
#include "bindings_odds.hpp"
#include "bindings_queries.hpp"
#include "bindings_state.hpp"
#include "bindings_records.hpp"
#include "dice.hpp"
#include "env_tables.hpp"
#include "reach.hpp"
#include "rules_tables.hpp"

namespace nb = nanobind;
using fray::dice::Pcg64;
using fray::dice::Pcg64State;
using fray::dice::u128;
using fray::bindings::seed_words;

namespace {

nb::object steal_or_raise(PyObject* object) {
  if (object == nullptr) throw nb::python_error();
  return nb::steal(object);
}

nb::object int_from_u128(u128 value) {
  nb::object high = steal_or_raise(PyLong_FromUnsignedLongLong(static_cast<std::uint64_t>(value >> 64)));
  nb::object low = steal_or_raise(PyLong_FromUnsignedLongLong(static_cast<std::uint64_t>(value)));
  nb::object shift = steal_or_raise(PyLong_FromLong(64));
  nb::object shifted = steal_or_raise(PyNumber_Lshift(high.ptr(), shift.ptr()));
  return steal_or_raise(PyNumber_Or(shifted.ptr(), low.ptr()));
}

// A Python integer (or numpy integer) as a non-negative integer below 2**bits.
nb::object checked_index(nb::handle value, int bits, const std::string& field) {
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    throw nb::type_error((field + ": expected an integer, got " +
                          nb::repr(value).c_str()).c_str());
  }
  nb::object number = steal_or_raise(PyNumber_Index(value.ptr()));
  nb::object zero = steal_or_raise(PyLong_FromLong(0));
  nb::object width = steal_or_raise(PyLong_FromLong(bits));
  nb::object rest = steal_or_raise(PyNumber_Rshift(number.ptr(), width.ptr()));
  if (PyObject_RichCompareBool(number.ptr(), zero.ptr(), Py_LT) == 1 ||
      PyObject_RichCompareBool(rest.ptr(), zero.ptr(), Py_NE) == 1) {
    throw nb::value_error((field + ": expected an integer in [0, 2**" + std::to_string(bits) +
                           "), got " + nb::repr(value).c_str()).c_str());
  }
  return number;
}

u128 u128_from_int(nb::handle value, const std::string& field) {
  nb::object number = checked_index(value, 128, field);
  nb::object shift = steal_or_raise(PyLong_FromLong(64));
  nb::object high = steal_or_raise(PyNumber_Rshift(number.ptr(), shift.ptr()));
  const u128 low_part = PyLong_AsUnsignedLongLongMask(number.ptr());
  const u128 high_part = PyLong_AsUnsignedLongLongMask(high.ptr());
  return (high_part << 64) | low_part;
}

nb::dict state_to_dict(const Pcg64State& state) {
  nb::dict inner;
  inner["state"] = int_from_u128(state.state);
  inner["inc"] = int_from_u128(state.inc);
  nb::dict out;
  out["bit_generator"] = "PCG64";
  out["state"] = inner;
  out["has_uint32"] = state.has_uint32 ? 1 : 0;
  out["uinteger"] = state.uinteger;
  return out;
}

nb::handle required(nb::dict mapping, const char* key, const std::string& where) {
  if (!mapping.contains(key)) {
    throw nb::value_error((where + ": expected a key '" + key + "', found none").c_str());
  }
  return mapping[key];
}

// The inverse of state_to_dict; accepts exactly what numpy's bit_generator.state gives.
Pcg64State state_from_dict(nb::handle value) {
  if (!nb::isinstance<nb::dict>(value)) {
    throw nb::type_error((std::string("bit_generator state: expected a dict, got ") +
                          nb::repr(value).c_str()).c_str());
  }
  nb::dict mapping = nb::borrow<nb::dict>(value);
  nb::handle name = required(mapping, "bit_generator", "bit_generator state");
  if (!nb::isinstance<nb::str>(name) || std::string(nb::str(name).c_str()) != "PCG64") {
    throw nb::value_error((std::string("bit_generator state: bit_generator: expected 'PCG64', got ") +
                           nb::repr(name).c_str()).c_str());
  }
  nb::handle inner = required(mapping, "state", "bit_generator state");
  if (!nb::isinstance<nb::dict>(inner)) {
    throw nb::type_error("bit_generator state: state: expected a dict of state and inc");
  }
  nb::dict words = nb::borrow<nb::dict>(inner);
  Pcg64State state;
  state.state = u128_from_int(required(words, "state", "bit_generator state: state"),
                              "bit_generator state: state.state");
  state.inc = u128_from_int(required(words, "inc", "bit_generator state: state"),
                            "bit_generator state: state.inc");
  nb::object has = checked_index(required(mapping, "has_uint32", "bit_generator state"), 1,
                                 "bit_generator state: has_uint32");
  state.has_uint32 = PyLong_AsUnsignedLongLongMask(has.ptr()) != 0;
  nb::object word = checked_index(required(mapping, "uinteger", "bit_generator state"), 32,
                                  "bit_generator state: uinteger");
  state.uinteger = static_cast<std::uint32_t>(PyLong_AsUnsignedLongLongMask(word.ptr()));
  return state;
}

void check_bounds(std::int64_t low, std::int64_t high) {
  if (low >= high) {
    throw nb::value_error(("integers: expected low < high, got low=" + std::to_string(low) +
                           ", high=" + std::to_string(high)).c_str());
  }
}

using Int64Array = nb::ndarray<nb::numpy, std::int64_t, nb::ndim<1>>;
using Float64Array = nb::ndarray<nb::numpy, double, nb::ndim<1>>;
using Int64Input = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename T, typename Array>
Array owned_array(std::vector<T>&& values) {
  auto* data = new std::vector<T>(std::move(values));
  nb::capsule owner(data, [](void* pointer) noexcept { delete static_cast<std::vector<T>*>(pointer); });
  return Array(data->data(), {data->size()}, owner);
}

std::vector<std::uint8_t> square_table(nb::bytes table) {
  const auto* data = static_cast<const std::uint8_t*>(table.data());
  return std::vector<std::uint8_t>(data, data + table.size());
}

// A square (x, y) of Python's: a tuple of two integers.
std::pair<int, int> square_from(nb::handle value, const char* field) {
  if (!nb::isinstance<nb::tuple>(value) || nb::len(value) != 2) {
    throw nb::value_error((std::string(field) + ": expected a square (x, y), got " +
                           nb::repr(value).c_str()).c_str());
  }
  return {nb::cast<int>(value[0]), nb::cast<int>(value[1])};
}

// A new tuple of `size` items, each to be set once with PyTuple_SET_ITEM.
nb::tuple new_tuple(std::size_t size) {
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(size));
  if (tuple == nullptr) throw nb::python_error();
  return nb::steal<nb::tuple>(tuple);
}

// The square (x, y) as Python's tuple, straight through the C API (routes build many).
nb::tuple square_to(int x, int y) {
  nb::tuple square = new_tuple(2);
  PyTuple_SET_ITEM(square.ptr(), 0, steal_or_raise(PyLong_FromLong(x)).release().ptr());
  PyTuple_SET_ITEM(square.ptr(), 1, steal_or_raise(PyLong_FromLong(y)).release().ptr());
  return square;
}

// One query's answer, kept in C++ until asked: the routes in the order first reached,
// the map width their squares are numbered by, and the ids their provokers name.
struct ReachResult {
  fray::reach::Reach reach;
  int width = 1;
  nb::object enemy_ids;
};

// A route as the tuple (destination, cost, path, provokers, end_parity) that
// rules.routes.Route takes; a provoker is enemy_ids[its number].
nb::tuple route_to(const fray::reach::Route& route, int width, nb::handle enemy_ids) {
  nb::tuple path = new_tuple(route.path.size());
  for (std::size_t i = 0; i < route.path.size(); ++i) {
    nb::tuple square = square_to(route.path[i] % width, route.path[i] / width);
    PyTuple_SET_ITEM(path.ptr(), static_cast<Py_ssize_t>(i), square.release().ptr());
  }
  nb::tuple provokers = new_tuple(route.provokers.size());
  for (std::size_t i = 0; i < route.provokers.size(); ++i) {
    nb::object id = enemy_ids[route.provokers[i]];
    PyTuple_SET_ITEM(provokers.ptr(), static_cast<Py_ssize_t>(i), id.release().ptr());
  }
  return nb::make_tuple(square_to(route.x, route.y), route.cost, path, provokers,
                        route.end_parity);
}

// [((x, y), cost)] of a sweep's destinations.
nb::list destination_list(const std::vector<fray::reach::Destination>& found) {
  nb::list out;
  for (const fray::reach::Destination& destination : found) {
    out.append(nb::make_tuple(nb::make_tuple(destination.x, destination.y), destination.cost));
  }
  return out;
}

fray::reach::Query query_from(nb::handle start, int parity, std::int64_t budget,
                              std::vector<int> blocked, std::vector<int> no_end,
                              const std::vector<int>& threat_squares,
                              const std::vector<int>& threat_enemies, std::size_t enemy_count) {
  if (threat_squares.size() != threat_enemies.size()) {
    throw nb::value_error("threats: expected as many squares as enemies");
  }
  fray::reach::Query query;
  std::tie(query.x, query.y) = square_from(start, "start");
  query.parity = parity;
  query.budget = budget;
  query.blocked = std::move(blocked);
  query.no_end = std::move(no_end);
  query.threats.reserve(threat_squares.size());
  for (std::size_t i = 0; i < threat_squares.size(); ++i) {
    if (threat_enemies[i] < 0 || static_cast<std::size_t>(threat_enemies[i]) >= enemy_count) {
      throw nb::value_error("threats: expected enemy numbers indexing enemy_ids");
    }
    query.threats.emplace_back(threat_squares[i], threat_enemies[i]);
  }
  return query;
}

}  // namespace

namespace fray::bindings {

std::vector<std::uint32_t> seed_words(nb::handle seed) {
  if (PyBool_Check(seed.ptr()) || !PyIndex_Check(seed.ptr())) {
    throw nb::type_error((std::string("seed: expected a non-negative integer, got ") +
                          nb::repr(seed).c_str()).c_str());
  }
  nb::object number = steal_or_raise(PyNumber_Index(seed.ptr()));
  nb::object zero = steal_or_raise(PyLong_FromLong(0));
  if (PyObject_RichCompareBool(number.ptr(), zero.ptr(), Py_LT) == 1) {
    throw nb::value_error((std::string("seed: expected a non-negative integer, got ") +
                           nb::repr(seed).c_str()).c_str());
  }
  nb::object shift = steal_or_raise(PyLong_FromLong(32));
  std::vector<std::uint32_t> words;
  do {
    words.push_back(static_cast<std::uint32_t>(PyLong_AsUnsignedLongLongMask(number.ptr())));
    number = steal_or_raise(PyNumber_Rshift(number.ptr(), shift.ptr()));
  } while (PyObject_RichCompareBool(number.ptr(), zero.ptr(), Py_GT) == 1);
  return words;
}

}  // namespace fray::bindings

namespace {

// rules/reach.py (S17, S18, H12-H14, S23) over compiled tables; rules/bridge/reach.py
// compiles them from a GridMap, the occupancy and the threat zones.
void bind_reach_result(nb::module_& module) {
  nb::class_<ReachResult>(module, "ReachResult",
                          "The answer of ReachGraph.reachable, its routes built when asked.")
      .def("__len__", [](const ReachResult& self) { return self.reach.size(); })
      .def("index",
           [](const ReachResult& self) {
             nb::dict out;
             for (std::size_t i = 0; i < self.reach.size(); ++i) {
               const auto [x, y] = self.reach.destination(i);
               nb::object number = steal_or_raise(PyLong_FromSize_t(i));
               if (PyDict_SetItem(out.ptr(), square_to(x, y).ptr(), number.ptr()) != 0) {
                 throw nb::python_error();
               }
             }
             return out;
           },
           "{destination (x, y): its number}, in the order first reached.")
      .def("route",
           [](const ReachResult& self, std::size_t number) {
             if (number >= self.reach.size()) throw nb::index_error("route: no such number");
             return route_to(self.reach.route(number), self.width, self.enemy_ids);
           },
           nb::arg("number"),
           "Route number `number` as (destination, cost, path, provokers, end_parity).");
}

// ReachGraph(width, height, blocks, difficult, drop, costs...): the map's tables and costs.
void new_reach_graph(fray::reach::ReachGraph* self, int width, int height, nb::bytes blocks,
                     nb::bytes difficult, nb::bytes drop, int orthogonal_cost,
                     std::pair<int, int> diagonal_costs, int difficult_multiplier) {
  fray::reach::MapTable map;
  map.width = width;
  map.height = height;
  map.blocks = square_table(blocks);
  map.difficult = square_table(difficult);
  map.drop = square_table(drop);
  fray::reach::Costs costs;
  costs.orthogonal = orthogonal_cost;
  costs.diagonal = {diagonal_costs.first, diagonal_costs.second};
  costs.difficult_multiplier = difficult_multiplier;
  new (self) fray::reach::ReachGraph(std::move(map), costs);
}

void bind_reach_graph(nb::module_& module) {
  nb::class_<fray::reach::ReachGraph>(
      module, "ReachGraph",
      "rules.reach.ReachGraph over compiled tables: one map, one set of movement costs.")
      .def("__init__", &new_reach_graph,
           nb::arg("width"), nb::arg("height"), nb::arg("blocks"), nb::arg("difficult"),
           nb::arg("drop"), nb::arg("orthogonal_cost"), nb::arg("diagonal_costs"),
           nb::arg("difficult_multiplier"),
           "Tables of width * height bytes in reading order, nonzero where a square blocks "
           "movement (walls, closed doors), is difficult terrain, is a drop.")
      .def_prop_ro("width", [](const fray::reach::ReachGraph& self) { return self.map().width; })
      .def_prop_ro("height", [](const fray::reach::ReachGraph& self) { return self.map().height; })
      .def("step",
           [](const fray::reach::ReachGraph& self, nb::handle a, nb::handle b, int parity) -> nb::object {
             const auto [ax, ay] = square_from(a, "a");
             const auto [bx, by] = square_from(b, "b");
             const auto taken = self.step(ax, ay, bx, by, parity);
             if (!taken) return nb::none();
             return nb::make_tuple(taken->first, taken->second);
           },
           nb::arg("a"), nb::arg("b"), nb::arg("parity"),
           "(cost, parity after) of one step from a to b, or None if illegal.")
      .def("path_cost",
           [](const fray::reach::ReachGraph& self, nb::sequence path, int parity) {
             std::vector<std::pair<int, int>> squares;
             for (nb::handle square : path) squares.push_back(square_from(square, "path"));
             return self.path_cost(squares, parity);
           },
           nb::arg("path"), nb::arg("parity"),
           "(cost, end parity) of walking path; ValueError on an illegal step.")
      .def("reachable",
           [](const fray::reach::ReachGraph& self, nb::handle start, int parity,
              std::int64_t budget, std::vector<int> blocked, std::vector<int> no_end,
              const std::vector<int>& threat_squares, const std::vector<int>& threat_enemies,
              nb::sequence enemy_ids) {
             const fray::reach::Query query =
                 query_from(start, parity, budget, std::move(blocked), std::move(no_end),
                            threat_squares, threat_enemies, nb::len(enemy_ids));
             return ReachResult{self.reachable(query), self.map().width,
                                nb::borrow<nb::object>(enemy_ids)};
           },
           nb::arg("start"), nb::arg("parity"), nb::arg("budget"), nb::arg("blocked"),
           nb::arg("no_end"), nb::arg("threat_squares"), nb::arg("threat_enemies"),
           nb::arg("enemy_ids"),
           "A ReachResult: every destination's route, in the order first reached. Squares are indices y * width + x; threats are "
           "(threat_squares[i], threat_enemies[i]) pairs numbering enemies into enemy_ids, "
           "which must be sorted (provokers of one step are listed in that order).")
      .def("cheapest",
           [](const fray::reach::ReachGraph& self, nb::handle start, int parity,
              nb::handle destination, std::int64_t budget, std::vector<int> blocked,
              std::vector<int> no_end, const std::vector<int>& threat_squares,
              const std::vector<int>& threat_enemies, nb::sequence enemy_ids) -> nb::object {
             const fray::reach::Query query =
                 query_from(start, parity, budget, std::move(blocked), std::move(no_end),
                            threat_squares, threat_enemies, nb::len(enemy_ids));
             const auto [x, y] = square_from(destination, "destination");
             auto route = self.cheapest(query, x, y);
             if (!route) return nb::none();
             return route_to(*route, self.map().width, enemy_ids);
           },
           nb::arg("start"), nb::arg("parity"), nb::arg("destination"), nb::arg("budget"),
           nb::arg("blocked"), nb::arg("no_end"), nb::arg("threat_squares"),
           nb::arg("threat_enemies"), nb::arg("enemy_ids"),
           "The chosen route to destination as reachable gives it, or None.")
      .def("destinations",
           [](const fray::reach::ReachGraph& self, nb::handle start, int parity,
              std::int64_t budget, std::vector<int> blocked, std::vector<int> no_end) {
             const fray::reach::Query query = query_from(start, parity, budget, std::move(blocked),
                                                         std::move(no_end), {}, {}, 0);
             return destination_list(self.destinations(query));
           },
           nb::arg("start"), nb::arg("parity"), nb::arg("budget"), nb::arg("blocked"),
           nb::arg("no_end"),
           "[((x, y), cost)] of a plain query's destinations in (x, y) order: reachable's "
           "without the routes (the turn's listing).")
      .def("free_destinations",
           [](const fray::reach::ReachGraph& self, nb::handle start, int parity,
              std::int64_t budget, std::vector<int> blocked, std::vector<int> no_end,
              const std::vector<int>& threat_squares, const std::vector<int>& threat_enemies,
              nb::sequence enemy_ids) {
             const fray::reach::Query query =
                 query_from(start, parity, budget, std::move(blocked), std::move(no_end),
                            threat_squares, threat_enemies, nb::len(enemy_ids));
             return destination_list(self.free_destinations(query));
           },
           nb::arg("start"), nb::arg("parity"), nb::arg("budget"), nb::arg("blocked"),
           nb::arg("no_end"), nb::arg("threat_squares"), nb::arg("threat_enemies"),
           nb::arg("enemy_ids"),
           "[((x, y), cost)] in (x, y) order of the destinations whose chosen route "
           "provokes nobody (the scripted agents' moves).");
}

// rules/dice.py's stream: numpy's PCG64 draw for draw (dice.hpp).
void bind_dice(nb::module_& module) {
  nb::class_<Pcg64>(module, "Pcg64",
                    "numpy's PCG64 with Generator.integers / Generator.random, draw for draw.")
      .def("__init__",
           [](Pcg64* self, nb::handle seed) { new (self) Pcg64(Pcg64::from_seed(seed_words(seed))); },
           nb::arg("seed"), "The stream of numpy.random.default_rng(seed).")
      .def_static("from_state", [](nb::handle state) { return Pcg64(state_from_dict(state)); },
                  nb::arg("state"), "The stream whose numpy bit_generator.state is `state`.")
      .def_prop_rw(
          "state", [](const Pcg64& self) { return state_to_dict(self.state()); },
          [](Pcg64& self, nb::handle state) { self.set_state(state_from_dict(state)); },
          "The state as numpy's bit_generator.state dict (a fresh dict; settable).")
      .def("integers",
           [](Pcg64& self, std::int64_t low, std::int64_t high) {
             check_bounds(low, high);
             return self.integers(low, high);
           },
           nb::arg("low"), nb::arg("high"), "Generator.integers(low, high): low <= n < high.")
      .def("integers_array",
           [](Pcg64& self, Int64Input low, Int64Input high) {
             if (low.shape(0) != high.shape(0)) {
               throw nb::value_error("integers_array: low and high differ in length");
             }
             std::vector<std::int64_t> out(low.shape(0));
             for (std::size_t i = 0; i < out.size(); ++i) {
               check_bounds(low(i), high(i));
               out[i] = self.integers(low(i), high(i));
             }
             return owned_array<std::int64_t, Int64Array>(std::move(out));
           },
           nb::arg("low"), nb::arg("high"),
           "Generator.integers(low, high) for arrays: one draw per pair, in order.")
      .def("random", &Pcg64::random, "Generator.random(): a float in [0, 1).")
      .def("random_array",
           [](Pcg64& self, std::size_t count) {
             std::vector<double> out(count);
             for (double& value : out) value = self.random();
             return owned_array<double, Float64Array>(std::move(out));
           },
           nb::arg("count"), "Generator.random(count).")
      .def("die", [](Pcg64& self, int sides) {
             if (sides < 1) throw nb::value_error("die: expected sides >= 1");
             return self.die(sides);
           },
           nb::arg("sides"), "One die, 1..sides: integers(1, sides + 1).")
      .def("__getstate__", [](const Pcg64& self) { return state_to_dict(self.state()); })
      .def("__setstate__",
           [](Pcg64& self, nb::handle state) { new (&self) Pcg64(state_from_dict(state)); })
      .def("__copy__", [](const Pcg64& self) { return Pcg64(self.state()); })
      .def("__deepcopy__", [](const Pcg64& self, nb::handle) { return Pcg64(self.state()); },
           nb::arg("memo"));
}

}  // namespace

NB_MODULE(_native, module) {
  module.doc() = "fray's native engine (issue 23): rules/native/*.cpp; see docs/architecture.md";
  // The digests of the tables the engine was built from (rules/native/generate_tables.py),
  // by header: tests/native/test_generated_tables.py checks them against the Python.
  nb::dict digests;
  digests["rules_tables.hpp"] = FRAY_RULES_TABLES_DIGEST;
  digests["env_tables.hpp"] = FRAY_ENV_TABLES_DIGEST;
  module.attr("TABLES_DIGEST") = digests;

  // rules/content/ and rules/combatant.py: compiled content and combatants with their
  // derived values (bindings_state.cpp, bindings_state_read.cpp).
  fray::bindings::bind_state(module);
  // The records the engine and Python exchange: Action, Decision and event records
  // (actions.hpp, events.hpp; bindings_records.cpp, rules/bridge/records.py).
  fray::records::bind_records(module);
  // rules/grid.py, rules/threat_zones.py, rules/queries.py: the map and the read-only
  // questions (grid.hpp, threat_zones.hpp, queries.hpp; bindings_queries.cpp).
  fray::bindings::bind_queries(module);
  fray::bindings::bind_battle(module);  // rules/state.py, frames.py: BattleState (bindings_battle.cpp)
  fray::bindings::bind_legal(module);  // rules/legal.py: turn_actions (bindings_legal.cpp)
  fray::bindings::bind_apply(module);  // rules/harm.py ...: the native step (bindings_apply.cpp)
  fray::bindings::bind_agents(module);  // agents/*.py: NativeAgent (bindings_agents.cpp)
  fray::bindings::bind_env(module);  // env/*.py: the env step in C++ (bindings_env.cpp)
  fray::bindings::bind_odds(module);  // rules/odds: exact odds in double (bindings_odds.cpp)
  // rules/reach.py and rules/dice.py (here, with their conversions above)
  bind_reach_result(module);
  bind_reach_graph(module);
  bind_dice(module);
}
