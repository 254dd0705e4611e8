// The Python face of the map and the queries (bindings_queries.cpp): Grid, QueryView and
// the map's module functions (chebyshev, line_of_sight, threatened_squares).
#pragma once

#include <nanobind/nanobind.h>

namespace fray::bindings {

// Adds Grid, QueryView, chebyshev, line_of_sight and threatened_squares to the module.
void bind_queries(nanobind::module_& module);

}  // namespace fray::bindings
