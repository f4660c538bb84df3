#include "scenarios/model_registry.hpp"

#include <set>
#include <stdexcept>
#include <string>

#include "scenarios/machine.hpp"

namespace skysim::scenarios {

std::string_view error_text(std::string_view text) {
  // A node-based set: what it hands out never moves. Per thread, as the validation suite runs
  // simulations on threads; the few distinct reasons of a run stay until the thread ends.
  if (text.empty()) return {};  // no reason (a success) is nothing to keep
  thread_local std::set<std::string, std::less<>> texts;
  auto it = texts.find(text);
  if (it == texts.end()) it = texts.emplace(text).first;
  return *it;
}

void Instance::set(std::string_view name, const sim::ParamValue&) {
  throw std::invalid_argument(path_ + ": parameter '" + std::string(name) +
                              "' cannot change during a run");
}

void Registry::add(ServiceKind kind) {
  if (kind.name.empty() || !kind.build) {
    throw std::invalid_argument("Registry::add: a kind needs a name and a factory");
  }
  for (std::size_t i = 0; i < kind.params.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (kind.params[i].name == kind.params[j].name) {
        throw std::invalid_argument("Registry::add: " + kind.name + " declares '" +
                                    kind.params[i].name + "' twice");
      }
    }
  }
  std::string name = kind.name;
  if (!kinds_.emplace(name, std::move(kind)).second) {
    throw std::invalid_argument("Registry::add: kind '" + name + "' registered twice");
  }
}

const ServiceKind* Registry::find(std::string_view name) const {
  auto it = kinds_.find(name);
  return it == kinds_.end() ? nullptr : &it->second;
}

std::vector<const ServiceKind*> Registry::kinds() const {
  std::vector<const ServiceKind*> out;
  for (const auto& [name, k] : kinds_) out.push_back(&k);
  return out;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, k] : kinds_) out.push_back(name);
  return out;
}

Instance* World::find(std::string_view path) const {
  auto it = instances_.find(path);
  return it == instances_.end() ? nullptr : it->second.get();
}

std::vector<Instance*> World::hosts(std::string_view datacenter, std::string_view service) const {
  std::vector<Instance*> out;
  std::string prefix = std::string(datacenter) + "/" + std::string(service) + "/";
  for (int i = 0;; ++i) {
    Instance* h = find(prefix + std::to_string(i));
    if (!h) break;
    out.push_back(h);
  }
  return out;
}

Instance& World::add(std::unique_ptr<Instance> instance) {
  if (!instance) throw std::invalid_argument("World::add: null instance");
  std::string path = instance->path();
  auto [it, fresh] = instances_.emplace(path, std::move(instance));
  if (!fresh) throw std::invalid_argument("World::add: two instances at " + path);
  built_.push_back(it->second.get());
  return *it->second;
}

World::World(sim::Simulation& sim, sim::MetricsRegistry& metrics)
    : sim_(sim), metrics_(metrics) {}

void World::add_machine(std::unique_ptr<Machine> machine) {
  std::string path = machine->path();
  if (!machines_.emplace(path, std::move(machine)).second) {
    throw std::invalid_argument("World::add_machine: two machines at " + path);
  }
}

Machine& World::machine(std::string_view path) const {
  auto it = machines_.find(path);
  if (it == machines_.end()) throw std::logic_error("no machine " + std::string(path));
  return *it->second;
}

World::~World() {
  // Last built, first destroyed: a host that drives a peer built before it (a fan-out writing
  // into a scylla service's cluster) goes while that peer still exists.
  for (auto b = built_.rbegin(); b != built_.rend(); ++b) {
    instances_.find((*b)->path())->second.reset();
  }
}

std::uint32_t World::host_number(std::string_view path) {
  auto it = host_numbers_.find(path);
  if (it != host_numbers_.end()) return it->second;
  const auto n = static_cast<std::uint32_t>(host_numbers_.size() + 1);
  host_numbers_.emplace(std::string(path), n);
  return n;
}

}  // namespace skysim::scenarios
