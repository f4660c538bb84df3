#include "scenarios/explain.hpp"

#include <algorithm>
#include <cstdio>

#include "scenarios/machine.hpp"
#include "scenarios/param_scaling.hpp"
#include "scenarios/program.hpp"
#include "scenarios/units.hpp"

namespace skysim::scenarios {
namespace {

std::string range_of(const sim::ParamSpec& p) {
  std::string s;
  if (p.min) s += ">= " + format_bound(p, *p.min);
  if (p.max) s += std::string(s.empty() ? "" : ", ") + "<= " + format_bound(p, *p.max);
  if (!p.choices.empty()) {
    for (std::size_t i = 0; i < p.choices.size(); ++i) s += (i ? " | " : "") + p.choices[i];
  }
  return s.empty() ? "-" : s;
}

std::string type_of(const sim::ParamSpec& p) {
  std::string t = sim::to_string(p.type);
  if (p.type == sim::ParamType::Distribution && !p.unit.empty()) t = p.unit + " " + t;
  return t;
}

// The description with what the run does to the value: settable, scaled.
std::string doc_of(const sim::ParamSpec& p, bool settable_note) {
  std::string doc = p.doc;
  if (p.scaling != sim::Scaling::None) doc += std::string(" [") + scaling_note(p.scaling) + "]";
  if (settable_note && p.settable) doc += " [settable at run time]";
  return doc;
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// One table of parameters: markdown (the reference page) or aligned text (the terminal).
std::string param_table(const std::vector<sim::ParamSpec>& params, bool markdown,
                        bool run_time_column = true) {
  std::string out;
  if (markdown) {
    out += run_time_column ? "| parameter | type | default | range | run-time | description |\n"
                             "|---|---|---|---|---|---|\n"
                           : "| parameter | type | default | range | description |\n"
                             "|---|---|---|---|---|\n";
    for (const auto& p : params) {
      out += "| `" + p.name + "` | " + type_of(p) + " | " +
             (p.default_text ? "`" + md_escape(*p.default_text) + "`" : "**required**") + " | " +
             md_escape(range_of(p)) + " | " +
             (run_time_column ? std::string(p.settable ? "yes" : "no") + " | " : "") +
             md_escape(doc_of(p, false)) + " |\n";
    }
    return out;
  }
  char line[1024];
  std::snprintf(line, sizeof line, "%-22s %-22s %-30s %-22s %s\n", "parameter", "type", "default",
                "range", "description");
  out += line;
  for (const auto& p : params) {
    std::string doc = doc_of(p, true);
    std::snprintf(line, sizeof line, "%-22s %-22s %-30s %-22s %s\n", p.name.c_str(),
                  type_of(p).c_str(), p.default_text ? p.default_text->c_str() : "(required)",
                  range_of(p).c_str(), doc.c_str());
    out += line;
  }
  return out;
}

// What a `program:` may hold: its clients' keys and every step type with its parameters.
std::string program_reference(bool markdown) {
  std::string out;
  if (markdown) {
    out +=
        "### Its `program:`\n\n"
        "`program: {clients: {NAME: {target: SERVICE, ...}}, handlers: {NAME: [steps]}}`. "
        "Each handler is an endpoint of the service; each step is `- TYPE: {params}`. "
        "A client's `target` is `service` (this datacenter first) or `datacenter.service`. "
        "How-to: docs/scenarios.md, \"Writing a service in YAML\". " +
        md_escape(deploy_rule()) +
        "\n\n"
        "Client keys besides `target`:\n\n" +
        param_table(client_params(), true, false) + "\n";
    for (const auto& t : step_types()) {
      out += "Step `" + t.name + "`" + (t.has_body() ? " (takes `" + t.body_key + ": [steps]`)" : "") + ": " +
             md_escape(t.doc) + ".\n\n" + param_table(t.params, true, false) + "\n";
    }
    return out;
  }
  out += "\nprogram: {clients: {NAME: {target: SERVICE, ...}}, handlers: {NAME: [steps]}}\n" +
         deploy_rule() + "\n\nclient keys besides target:\n" + param_table(client_params(), false);
  for (const auto& t : step_types()) {
    out += "\nstep " + t.name + (t.has_body() ? " (takes " + t.body_key + ": [steps])" : "") + ": " + t.doc +
           "\n" + param_table(t.params, false);
  }
  return out;
}

}  // namespace

std::string explain_kinds(const Registry& r) {
  std::string out = "Service kinds (skysim explain KIND for parameters):\n";
  for (const ServiceKind* k : r.kinds()) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-20s %s\n", k->name.c_str(), k->doc.c_str());
    out += line;
  }
  out += "\nMachines that go-services and memcached servers share (datacenters.DC.machines): "
         "skysim explain machine\n";
  return out;
}

std::string explain_machine(bool markdown) {
  const std::string what =
      "A machine that several services' processes share, declared per datacenter as "
      "`machines: {NAME: {count: N, params: {...}}}` (count: how many such machines, default 1) "
      "and named by a go-service's or a memcached's `machine: NAME` (its host i runs on "
      "machine i; a service has at most `count` hosts). One kernel: one socket table, so the "
      "ephemeral port range, TIME_WAIT and connect()'s port rule count every process's "
      "sockets; one set of cores, which every process's runnable threads (a memcached's "
      "workers too) share under the machine's scheduler; one memory, past which the kernel's "
      "OOM killer kills the process with the most RSS (a memcached's items count). Each process keeps its own Go "
      "runtime and container memory limit, and its death frees its own threads and sockets "
      "only. A service on a machine may not set these parameters itself. How-to: docs/scenarios.md, \"Machines: services that share a host\".";
  if (markdown) {
    return "## Machines\n\n" + md_escape(what) + "\n\n" + param_table(machine_params(), true, false) +
           "\n";
  }
  return "machine: " + what + "\n\n" + param_table(machine_params(), false);
}

const char* how_of(sim::PanelHow h) {
  switch (h) {
    case sim::PanelHow::kLevel: return "level";
    case sim::PanelHow::kRate: return "rate per second";
    case sim::PanelHow::kSharePercent: return "share of the first in %";
  }
  return "?";
}

// The kind's panels of `skysim report`, one line each: title | series | unit | how.
std::string panels_of(const ServiceKind& k, bool markdown) {
  if (!k.report_panels) return "";
  std::string out = markdown ? "Report panels (`skysim report RUN_DIR`):\n\n| panel | series | unit | "
                               "drawn as |\n|---|---|---|---|\n"
                             : "\nreport panels (skysim report RUN_DIR): title | series | unit | drawn as\n";
  for (const auto& p : k.report_panels({})) {
    std::string series;
    for (const auto& n : p.series) series += (series.empty() ? "" : ", ") + n;
    std::string how = std::string(how_of(p.how)) + (p.log_y ? ", log scale" : "");
    out += markdown ? "| " + md_escape(p.title) + " | `" + series + "` | " + p.unit + " | " + how + " |\n"
                    : "  " + p.title + " | " + series + " | " + p.unit + " | " + how + "\n";
  }
  return out + (markdown ? "\n" : "");
}

std::string explain_kind(const ServiceKind& k, bool markdown) {
  std::string out;
  std::string endpoints;
  for (const auto& e : k.endpoints) endpoints += (endpoints.empty() ? "" : ", ") + e;
  if (k.runs_program) endpoints = "the handlers of its program";
  if (markdown) {
    out += "## `" + k.name + "`\n\n" + k.doc +
           "\n\nEndpoints: " +
           (endpoints.empty() ? "none" : k.runs_program ? endpoints : "`" + endpoints + "`") +
           "\n\n";
    out += param_table(k.params, true);
    return out + "\n" + panels_of(k, true) + (k.runs_program ? program_reference(true) : "");
  }
  out +=
      k.name + ": " + k.doc + "\nendpoints: " + (endpoints.empty() ? "none" : endpoints) + "\n\n";
  out += param_table(k.params, false);
  return out + panels_of(k, false) + (k.runs_program ? program_reference(false) : "");
}

std::string reference_markdown(const Registry& r) {
  std::string out =
      "# Scenario reference: service kinds and their parameters\n\n"
      "<!-- Generated by `skysim explain --markdown`; do not edit by hand. "
      "tests/scenarios/test_explain.cpp fails when this file is out of date; "
      "regenerate with scripts/gen-scenario-reference.sh "
      "(or SKYSIM_REGENERATE_DOCS=1 test_scenarios). -->\n\n"
      "Each kind is declared once in the model registry (scenarios/model_registry.hpp); the "
      "loader, the validator, `skysim explain` and this page all read that declaration. "
      "Parameters go under `datacenters.DC.services.SVC.params` (or `host_overrides.I`); "
      "those marked run-time may be changed by a timeline `set:` entry. Units are described "
      "in docs/scenarios.md. A scenario writes full-size values; at `scale` < 1 those marked "
      "[x scale] reach the model times scale (rounded, at least 1 unless 0) and those marked "
      "[/ scale] divided by it (docs/scenarios.md, \"Scale\"); a kind whose parameters carry "
      "no mark documents its own rule.\n\n";
  for (const ServiceKind* k : r.kinds()) out += explain_kind(*k, true);
  out += explain_machine(true);
  return out;
}

}  // namespace skysim::scenarios
