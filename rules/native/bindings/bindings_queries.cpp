// The Python face of the map and the queries (part of the module rules._native, registered
// by bindings.cpp): Grid (grid.hpp) built from a GridMap's squares, with its questions and
// threatened_squares (threat_zones.hpp); QueryView, a battle as queries.hpp reads it (a
// Roster, a Grid, the ground items, the initiative order, the round), answering every
// query with Python values (combatant ids, (x, y) tuples) for tests/native/glue/queries.py and
// tests/native/test_queries_differential.py.
#include "bindings_queries.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string_view.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "combatant.hpp"
#include "grid.hpp"
#include "queries.hpp"
#include "threat_zones.hpp"

namespace nb = nanobind;
namespace combatant = fray::combatant;
namespace content = fray::content;
namespace grid = fray::grid;
namespace queries = fray::queries;
using content::kNone;
using grid::Square;

namespace {

// ------------------------------------------------------------ Python values

int integer(nb::handle value, const char* where) {
  if (!PyLong_Check(value.ptr())) {
    throw nb::type_error((std::string(where) + ": expected an integer, got " +
                          nb::repr(value).c_str()).c_str());
  }
  return nb::cast<int>(value);
}

std::string_view text(nb::handle value, const char* where) {
  if (!PyUnicode_Check(value.ptr())) {
    throw nb::type_error((std::string(where) + ": expected a string, got " +
                          nb::repr(value).c_str()).c_str());
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (data == nullptr) throw nb::python_error();
  return {data, static_cast<std::size_t>(size)};
}

Square square_from(nb::handle value, const char* where) {
  if (nb::len(value) != 2) {
    throw nb::value_error((std::string(where) + ": expected an (x, y) pair").c_str());
  }
  return {integer(value[0], where), integer(value[1], where)};
}

nb::tuple square_of(Square square) { return nb::make_tuple(square.x, square.y); }

nb::list squares_of(const std::vector<Square>& squares) {
  nb::list out;
  for (const Square square : squares) out.append(square_of(square));
  return out;
}

nb::str name_of(const std::string& name) { return nb::str(name.data(), name.size()); }

// ------------------------------------------------------------ the map

grid::Grid grid_from(int width, int height, nb::handle walls, nb::handle closed_doors,
                     nb::handle open_doors, nb::handle difficult, nb::handle dark,
                     nb::handle drops) {
  grid::Grid out(width, height);
  for (nb::handle square : walls) out.set_wall(square_from(square, "walls"));
  for (nb::handle square : closed_doors) out.set_door(square_from(square, "closed_doors"), false);
  for (nb::handle square : open_doors) out.set_door(square_from(square, "open_doors"), true);
  for (nb::handle square : difficult) out.set_difficult(square_from(square, "difficult"));
  for (nb::handle square : dark) out.set_dark(square_from(square, "dark"));
  for (nb::handle drop : drops) {
    out.set_drop(square_from(drop[0], "drops"), integer(drop[1], "drops"));
  }
  return out;
}

// ------------------------------------------------------------ the battle view

// A battle as queries.hpp reads it, owning what the QueryState refers to.
struct QueryView {
  combatant::Roster roster;
  grid::Grid grid;
  std::vector<combatant::ItemInstance> ground;
  std::vector<int> initiative_order;
  int round = 0;

  queries::QueryState state() const { return {roster, grid, ground, initiative_order, round}; }

  int number(std::size_t index) const {
    if (index >= roster.combatants.size()) throw nb::index_error("no such combatant");
    return static_cast<int>(index);
  }
  int id_number(nb::handle id, const char* where) const {
    const int found = roster.ids.find(text(id, where));
    if (found == kNone || found >= static_cast<int>(roster.combatants.size())) {
      throw nb::key_error((std::string(where) + ": no combatant " + nb::repr(id).c_str()).c_str());
    }
    return found;
  }
  std::vector<int> id_numbers(nb::handle ids, const char* where) const {
    std::vector<int> out;
    for (nb::handle id : ids) out.push_back(id_number(id, where));
    return out;
  }
  nb::str id(int number) const { return name_of(roster.ids.name(number)); }
  nb::list ids(const std::vector<int>& numbers) const {
    nb::list out;
    for (const int number : numbers) out.append(id(number));
    return out;
  }
};

// The items on the ground (rules.combatant.ItemInstance), interned in the view's roster.
combatant::ItemInstance ground_item(nb::handle inst, combatant::Roster& roster) {
  combatant::ItemInstance out;
  out.uid = roster.uids.intern(text(inst.attr("uid"), "ground.uid"));
  const std::string_view item = text(inst.attr("item"), "ground.item");
  out.item = roster.content->equipment_names.find(item);
  if (out.item == kNone) {
    throw nb::value_error(("ground.item: " + std::string(item) + " is not in the content").c_str());
  }
  const auto state = content::index_in(combatant::kItemStateNames, text(inst.attr("state"), "ground.state"));
  if (!state) throw nb::value_error("ground.state: unknown state");
  out.state = static_cast<combatant::ItemState>(*state);
  out.count = integer(inst.attr("count"), "ground.count");
  nb::object ap = inst.attr("ap");
  if (!ap.is_none()) out.ap = integer(ap, "ground.ap");
  out.lit = nb::cast<bool>(inst.attr("lit"));
  out.nocked = nb::cast<bool>(inst.attr("nocked"));
  out.loaded = nb::cast<bool>(inst.attr("loaded"));
  nb::object square = inst.attr("square");
  if (!square.is_none()) out.square = square_from(square, "ground.square");
  return out;
}

nb::object threats_of(const QueryView& view, const queries::RouteTables& tables) {
  if (!tables.provoking) return nb::none();
  nb::dict out;
  std::size_t i = 0;
  while (i < tables.threats.size()) {
    const Square square = tables.threats[i].first;
    nb::list group;
    for (; i < tables.threats.size() && tables.threats[i].first == square; ++i) {
      group.append(view.id(tables.threats[i].second));
    }
    out[square_of(square)] = nb::frozenset(group);
  }
  return out;
}

void bind_grid(nb::module_& module) {
  nb::class_<grid::Grid>(module, "Grid", "rules.grid.GridMap in the engine (grid.hpp).")
      .def("__init__",
           [](grid::Grid* self, int width, int height, nb::handle walls, nb::handle closed_doors,
              nb::handle open_doors, nb::handle difficult, nb::handle dark, nb::handle drops) {
             new (self) grid::Grid(
                 grid_from(width, height, walls, closed_doors, open_doors, difficult, dark, drops));
           },
           nb::arg("width"), nb::arg("height"), nb::arg("walls"), nb::arg("closed_doors"),
           nb::arg("open_doors"), nb::arg("difficult"), nb::arg("dark"), nb::arg("drops"))
      .def_prop_ro("width", &grid::Grid::width)
      .def_prop_ro("height", &grid::Grid::height)
      .def("in_bounds", [](const grid::Grid& self, nb::handle sq) {
        return self.in_bounds(square_from(sq, "square"));
      })
      .def("blocks_movement", [](const grid::Grid& self, nb::handle sq) {
        return self.blocks_movement(square_from(sq, "square"));
      })
      .def("is_dark", [](const grid::Grid& self, nb::handle sq) {
        return self.is_dark(square_from(sq, "square"));
      })
      .def("drop_depth", [](const grid::Grid& self, nb::handle sq) {
        return self.drop_depth(square_from(sq, "square"));
      })
      .def("step_allowed", [](const grid::Grid& self, nb::handle origin, nb::handle destination) {
        return self.step_allowed(square_from(origin, "origin"),
                                 square_from(destination, "destination"));
      })
      .def("neighbours", [](const grid::Grid& self, nb::handle sq) {
        nb::list out;
        for (const Square near : self.neighbours(square_from(sq, "square"))) {
          out.append(square_of(near));
        }
        return nb::tuple(out);
      })
      .def("open_door", [](grid::Grid& self, nb::handle sq, bool open) {
        try {
          self.open_door(square_from(sq, "square"), open);
        } catch (const std::invalid_argument& error) {
          throw nb::value_error(error.what());
        }
      }, nb::arg("square"), nb::arg("open"), "GridMap.with_door, in place (S12).");
  module.def("chebyshev", [](nb::handle first, nb::handle second) {
    return grid::chebyshev(square_from(first, "first"), square_from(second, "second"));
  });
  module.def("line_of_sight", [](const grid::Grid& map, nb::handle viewer, nb::handle seen) {
    return grid::line_of_sight(map, square_from(viewer, "viewer"), square_from(seen, "seen"));
  }, "rules.grid.line_of_sight (H16).");
  module.def("threatened_squares", [](const grid::Grid& map, nb::handle origin, int reach) {
    return squares_of(fray::threat_zones::threatened_squares(map, square_from(origin, "origin"),
                                                             reach));
  }, "rules.threat_zones.threatened_squares (H12), in the order walked.");
}

}  // namespace

namespace fray::bindings {

void bind_queries(nb::module_& module) {
  bind_grid(module);
  using View = QueryView;
  nb::class_<View>(module, "QueryView",
                   "A battle as rules/native/queries.hpp reads it; combatants by roster index "
                   "in, ids out (tests/native/glue/queries.py builds it).")
      .def("__init__",
           [](View* self, const combatant::Roster& roster, const grid::Grid& map,
              nb::handle ground, nb::handle initiative_order, int round) {
             View view{roster, map, {}, {}, round};
             for (nb::handle inst : ground) view.ground.push_back(ground_item(inst, view.roster));
             view.initiative_order = view.id_numbers(initiative_order, "initiative_order");
             new (self) View(std::move(view));
           },
           nb::arg("roster"), nb::arg("grid"), nb::arg("ground"), nb::arg("initiative_order"),
           nb::arg("round"))
      .def_prop_ro("grid", [](const View& self) { return self.grid; })
      .def("is_unarmed", [](const View& self, std::string_view weapon) {
        const content::Content& tables = *self.roster.content;
        const int row = tables.weapon_names.find(weapon);
        if (row == kNone) throw nb::key_error("no such weapon");
        return queries::is_unarmed(tables, tables.weapons[static_cast<std::size_t>(row)]);
      })
      .def("walk_distance", [](const View& self, nb::handle start, nb::handle end) {
        return queries::walk_distance(self.state(), square_from(start, "start"),
                                      square_from(end, "end"));
      })
      .def("enemies", [](const View& self, std::size_t index) {
        return self.ids(queries::enemies(self.state(), self.number(index)));
      })
      .def("threat_squares", [](const View& self, std::size_t index, std::optional<int> reach) {
        return squares_of(queries::threat_squares(self.state(), self.number(index), reach));
      }, nb::arg("index"), nb::arg("reach") = nb::none())
      .def("weapon_reaches",
           [](const View& self, std::size_t index, std::string_view letter, nb::handle sq) {
             const int reach_letter = self.roster.content->reach_names.find(letter);
             if (reach_letter == kNone) throw nb::key_error("no such reach letter");
             return queries::weapon_reaches(self.state(), self.number(index), reach_letter,
                                            square_from(sq, "square"));
           })
      .def("can_free_attack", [](const View& self, std::size_t enemy, std::size_t provoker) {
        return queries::can_free_attack(self.state(), self.number(enemy), self.number(provoker));
      })
      .def("provokers_at", [](const View& self, std::size_t index, nb::handle sq) {
        std::optional<Square> where;
        if (!sq.is_none()) where = square_from(sq, "square");
        return self.ids(queries::provokers_at(self.state(), self.number(index), where));
      }, nb::arg("index"), nb::arg("square") = nb::none())
      .def("occupied", [](const View& self, nb::handle exclude) {
        const std::vector<int> numbers = self.id_numbers(exclude, "exclude");
        nb::list out;
        for (const auto& [square, number] : queries::occupied(self.state(), numbers).held) {
          out.append(nb::make_tuple(square_of(square), self.id(number)));
        }
        return out;
      }, nb::arg("exclude") = nb::tuple())
      .def("mover_of", [](const View& self, std::size_t index) {
        const queries::Mover mover = queries::mover_of(self.state(), self.number(index));
        const std::vector<int> moving(mover.moving().begin(), mover.moving().end());
        return nb::make_tuple(self.id(mover.body), nb::tuple(self.ids(moving)));
      })
      .def("route_tables", [](const View& self, std::size_t index, bool provoking) {
        const queries::RouteTables tables =
            queries::route_tables(self.state(), self.number(index), provoking);
        return nb::make_tuple(squares_of(tables.blocked), squares_of(tables.no_end),
                              threats_of(self, tables));
      })
      .def("move_budget", [](const View& self, std::size_t index, bool full) {
        return queries::move_budget(self.state(), self.number(index), full);
      })
      .def("free_adjacent", [](const View& self, std::size_t index, bool avoid_drops) {
        return squares_of(queries::free_adjacent(self.state(), self.number(index), avoid_drops));
      }, nb::arg("index"), nb::arg("avoid_drops") = true)
      .def("is_lit", [](const View& self, nb::handle sq) {
        return queries::is_lit(self.state(), square_from(sq, "square"));
      })
      .def("in_range",
           [](const View& self, std::size_t shooter, std::size_t target, int base_range) {
             return queries::in_range(self.state(), self.number(shooter), self.number(target),
                                      base_range);
           })
      .def("spell_target_ok",
           [](const View& self, std::size_t caster, std::size_t target, int spell_range) {
             return queries::spell_target_ok(self.state(), self.number(caster),
                                             self.number(target), spell_range);
           })
      .def("ammo_of", [](const View& self, std::size_t index, std::optional<std::string_view> ammo) {
        const int item = ammo ? self.roster.content->equipment_names.find(*ammo) : kNone;
        if (ammo && item == kNone) return std::optional<std::size_t>();  // nothing carries it
        return queries::ammo_of(self.roster.combatants.at(self.number(index)), item);
      })
      .def("way_back", [](const View& self, nb::handle walked, nb::handle bodies) {
        std::vector<Square> path;
        for (nb::handle sq : walked) path.push_back(square_from(sq, "walked"));
        const std::vector<int> numbers = self.id_numbers(bodies, "bodies");
        return nb::tuple(squares_of(queries::way_back(self.state(), path, numbers)));
      });
}

}  // namespace fray::bindings
