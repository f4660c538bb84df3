#pragma once
// The Scylla cluster's configuration from the parameters the `scylla` and `fanout` kinds both
// declare (nodes, shards_per_node, replication_factor, consistency, placement,
// background_writes, background_scale, task_quota, compaction_shares, write_timeout,
// read_timeout). Not validated: a kind adjusts it first, the cluster validates what it gets.
#include <algorithm>

#include "models/scylla/cluster.hpp"
#include "sim/params.hpp"

namespace skysim::scenarios {

inline scylla::ScyllaConfig scylla_config_from(const sim::ParamValues& v, double scenario_scale) {
  scylla::ScyllaConfig sc;
  sc.nodes = static_cast<std::uint32_t>(v.count("nodes"));
  sc.shards_per_node = static_cast<std::uint32_t>(v.count("shards_per_node"));
  sc.rf = static_cast<std::uint32_t>(v.count("replication_factor"));
  sc.cl = scylla::parse_consistency(v.choice("consistency"));
  sc.placement = scylla::parse_placement(v.choice("placement"));
  sc.background_writes_per_s = v.rate_per_s("background_writes");
  sc.scale = std::min(1.0, v.real("background_scale") * scenario_scale);
  sc.reactor.task_quota = v.duration("task_quota");
  sc.reactor.shares[static_cast<std::size_t>(scylla::Group::Compaction)] =
      v.real("compaction_shares");
  sc.write_timeout = v.duration("write_timeout");
  sc.read_timeout = v.duration("read_timeout");
  return sc;
}

}  // namespace skysim::scenarios
