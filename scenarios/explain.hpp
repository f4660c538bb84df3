#pragma once
// Human and Markdown renderings of the registry: `skysim explain [KIND] [--markdown]` and the
// generated docs/scenario-reference.md both come from here, so they cannot disagree.
#include <string>

#include "scenarios/model_registry.hpp"

namespace skysim::scenarios {

std::string explain_kinds(const Registry& r);                   // one line per kind
std::string explain_kind(const ServiceKind& k, bool markdown);  // parameter table
// What a machine (`datacenters.DC.machines.NAME`) takes: its keys and parameters.
std::string explain_machine(bool markdown);
// The whole docs/scenario-reference.md.
std::string reference_markdown(const Registry& r);

}  // namespace skysim::scenarios
