// agents/random_agent.py in C++: RandomAgent, uniform over the legal actions
// (options[below(len(options))], the same draws as the Python agent's from the same seed).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "agents_base.hpp"

namespace fray::agents {

class RandomAgent final : public Agent {
 public:
  explicit RandomAgent(const std::vector<std::uint32_t>& seed_words) : seeded_(seed_words) {}
  Choice act(const View& view) override;
  std::unique_ptr<Agent> clone() const override { return std::make_unique<RandomAgent>(*this); }
  const char* name() const override { return "random"; }

 private:
  Seeded seeded_;
};

}  // namespace fray::agents
