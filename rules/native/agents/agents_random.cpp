// agents/random_agent.py: RandomAgent.act is self.choose(legal_for(battle)).
#include "agents_random.hpp"

namespace fray::agents {

Choice RandomAgent::act(const View& view) {
  return {static_cast<std::size_t>(seeded_.below(static_cast<int>(view.legal.size()))), {}};
}

}  // namespace fray::agents
