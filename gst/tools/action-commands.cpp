/* cvis-action inspect and match: argument parsing, the library calls, text and JSON output. */
#include "action-commands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "actionlearn.hpp"
#include "common/backend.hpp"

namespace cvis::action_tool {

namespace {

using actionlearn::Dictionary;
using actionmatch::Graph;
using actionmatch::MatchResult;

int fail(const std::string& why) {
  std::fprintf(stderr, "cvis-action: %s\n", why.c_str());
  return kExitFailure;
}

int usage(const std::string& why) {
  std::fprintf(stderr, "cvis-action: %s; try --help\n", why.c_str());
  return kExitUsage;
}

// Options of the form --name VALUE or --name=VALUE, flags, and positional arguments.
struct Args {
  std::vector<std::string> positional;
  bool json = false;
  std::string backend = "auto", distance = "energy", threads = "0";
};

bool parse_args(int argc, char** argv, bool match_options, Args* a, std::string* err) {
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i], value;
    if (s.rfind("--", 0) != 0 || s == "--") {
      a->positional.push_back(s);
      continue;
    }
    const size_t eq = s.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = s.substr(eq + 1);
      s = s.substr(0, eq);
    }
    if (s == "--json" && !inline_value) {
      a->json = true;
      continue;
    }
    std::string* target = nullptr;
    if (match_options && s == "--backend")
      target = &a->backend;
    if (match_options && s == "--distance")
      target = &a->distance;
    if (match_options && s == "--threads")
      target = &a->threads;
    if (!target) {
      *err = "unknown option " + s;
      return false;
    }
    if (!inline_value) {
      if (i + 1 >= argc) {
        *err = "option " + s + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    *target = value;
  }
  return true;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const char* onoff(bool b) {
  return b ? "on" : "off";
}

std::string frames_of(const Graph& g) {
  if (g.size() == 0)
    return "-";
  return std::to_string(g.frame.front()) + ".." + std::to_string(g.frame.back());
}

void print_params_json(const actionmatch::Params& p) {
  std::printf("\"params\": {\"lambda1\": %s, \"lambda2\": %s, \"lambda3\": %s, \"T\": %d, "
              "\"causality\": %s, \"dummies\": %s, \"dummy_cost\": %s}",
              num(p.lambda1).c_str(), num(p.lambda2).c_str(), num(p.lambda3).c_str(), p.T,
              json_string(actionmatch::causality_name(p.causality)).c_str(),
              p.dummies ? "true" : "false", num(p.dummy_cost).c_str());
}

} // namespace

int cmd_inspect(int argc, char** argv) {
  Args a;
  std::string err;
  if (!parse_args(argc, argv, false, &a, &err))
    return usage(err);
  if (a.positional.size() != 1)
    return usage("inspect takes one dictionary file");
  Dictionary d;
  const Status s = actionlearn::load_dictionary(a.positional[0], &d);
  if (!s.ok())
    return fail(s.message());
  const actionmatch::Params& p = d.params;
  // The version the writer uses for this content (the lowest that says it).
  const unsigned version = actionlearn::dictionary_version(d);
  if (a.json) {
    std::printf("{\"dictionary\": %s, \"version\": %u, \"dim\": %d, \"flow_histogram\": \"%s\", "
                "\"speed_split\": %.9g, ",
                json_string(a.positional[0]).c_str(), version, d.dim,
                stip::flow_histogram_name(d.flow), d.speed_split);
    print_params_json(p);
    if (d.has_ridge()) {
      std::printf(", \"classifier\": {\"kind\": \"ridge\", \"features\": \"%s\", \"distance\": "
                  "\"%s\", \"alpha\": %s, \"classes\": [",
                  actionlearn::ridge_features_name(d.ridge.features),
                  actionmatch::distance_name(d.ridge_distance), num(d.ridge_alpha).c_str());
      for (size_t q = 0; q < d.classes.size(); ++q)
        std::printf("%s%s", q ? ", " : "", json_string(d.classes[q]).c_str());
      std::printf("], \"prototypes\": [");
      for (size_t i = 0; i < d.prototypes.size(); ++i)
        std::printf("%s%d", i ? ", " : "", d.prototypes[i]);
      std::printf("]}");
    } else {
      std::printf(", \"classifier\": {\"kind\": \"prototypes\"}");
    }
    std::printf(", \"models\": [");
    for (size_t i = 0; i < d.models.size(); ++i) {
      const actionmatch::Model& m = d.models[i];
      std::printf("%s\n  {\"index\": %zu, \"label\": %s, \"source\": %s, \"nodes\": %d, "
                  "\"first_frame\": %d, \"last_frame\": %d}",
                  i ? "," : "", i, json_string(m.label).c_str(), json_string(m.source).c_str(),
                  m.graph.size(), m.graph.frame.front(), m.graph.frame.back());
    }
    std::printf("\n]}\n");
    return kExitOk;
  }
  std::printf("dictionary %s: version %u, %zu models, descriptor dim %d\n", a.positional[0].c_str(),
              version, d.models.size(), d.dim);
  if (d.flow != stip::FlowHistogram::kPaper)
    std::printf("descriptor: %s flow histogram, speed split %g pixels/frame\n",
                stip::flow_histogram_name(d.flow), d.speed_split);
  std::printf("parameters: lambda1 %g, lambda2 %g, lambda3 %g, T %d%s, causality %s, dummies %s, "
              "W_d %g\n",
              p.lambda1, p.lambda2, p.lambda3, p.T, p.T == 0 ? " (no limit)" : "",
              actionmatch::causality_name(p.causality), onoff(p.dummies), p.dummy_cost);
  if (d.has_ridge())
    std::printf("classifier: ridge over the %s%s distances to all %zu models, %zu classes, alpha "
                "%g; %zu of the models are prototypes\n",
                d.ridge.features == actionlearn::RidgeFeatures::kClassMean ? "class means of the "
                                                                           : "",
                actionmatch::distance_name(d.ridge_distance), d.models.size(), d.classes.size(),
                d.ridge_alpha, d.prototypes.size());
  else
    std::printf("classifier: nearest model (prototypes)\n");
  std::printf("%5s  %-20s %5s  %-13s %s\n", "model", "label", "nodes", "frames", "source");
  for (size_t i = 0; i < d.models.size(); ++i) {
    const actionmatch::Model& m = d.models[i];
    std::printf("%5zu  %-20s %5d  %-13s %s\n", i, m.label.c_str(), m.graph.size(),
                frames_of(m.graph).c_str(), m.source.c_str());
  }
  return kExitOk;
}

int cmd_match(int argc, char** argv) {
  Args a;
  std::string err;
  if (!parse_args(argc, argv, true, &a, &err))
    return usage(err);
  if (a.positional.size() != 2)
    return usage("match takes a dictionary file and a scene file");
  Backend requested;
  if (!parse_backend(a.backend, &requested))
    return usage("unknown backend '" + a.backend + "'");
  actionmatch::Distance distance;
  if (!actionmatch::parse_distance(a.distance, &distance)) {
    return usage("unknown distance '" + a.distance + "' (energy or appearance)");
  }
  char* end = nullptr;
  const long threads = std::strtol(a.threads.c_str(), &end, 10);
  if (*end != '\0' || end == a.threads.c_str() || threads < 0 || threads > 4096) {
    return usage("bad thread count '" + a.threads + "'");
  }
  Dictionary d;
  Status s = actionlearn::load_dictionary(a.positional[0], &d);
  if (!s.ok())
    return fail(s.message());
  std::vector<Graph> blocks;
  s = actionlearn::load_scene_file(a.positional[1], &blocks);
  if (!s.ok())
    return fail(s.message());
  if (blocks[0].dim != d.dim) {
    return fail(a.positional[1] + ": descriptors of dim " + std::to_string(blocks[0].dim) +
                ", the dictionary's are of dim " + std::to_string(d.dim));
  }
  Backend backend;
  s = resolve_backend(requested, &backend);
  if (!s.ok())
    return fail(s.message());
  if (backend == Backend::kCuda) {
    s = select_cuda_device(0);
    if (!s.ok())
      return fail(s.message());
  }
  auto matcher = actionmatch::make_matcher(backend, &s, static_cast<int>(threads));
  if (!matcher)
    return fail(s.message());
  s = matcher->configure(d.params, d.models);
  if (!s.ok())
    return fail(s.message());
  std::vector<MatchResult> results;
  actionmatch::MatchStats stats;
  s = matcher->match(blocks.data(), static_cast<int>(blocks.size()), &results, &stats, nullptr);
  if (!s.ok())
    return fail(s.message());

  const size_t nm = d.models.size();
  // Per block: models ranked by the distance (infeasible last, then by model index).
  std::vector<std::vector<size_t>> order(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (size_t m = 0; m < nm; ++m)
      order[b].push_back(m);
    std::stable_sort(order[b].begin(), order[b].end(), [&](size_t x, size_t y) {
      return actionmatch::distance(results[b * nm + x], distance) <
             actionmatch::distance(results[b * nm + y], distance);
    });
  }
  if (a.json) {
    std::printf("{\"dictionary\": %s, \"scene\": %s, \"backend\": \"%s\", \"distance\": \"%s\", ",
                json_string(a.positional[0]).c_str(), json_string(a.positional[1]).c_str(),
                backend_name(backend), actionmatch::distance_name(distance));
    print_params_json(d.params);
    std::printf(",\n \"stats\": {\"pairs\": %lld, \"cells\": %lld, \"evaluations\": %lld},\n"
                " \"blocks\": [",
                static_cast<long long>(stats.pairs), static_cast<long long>(stats.cells),
                static_cast<long long>(stats.evaluations));
    for (size_t b = 0; b < blocks.size(); ++b) {
      const MatchResult& best = results[b * nm + order[b][0]];
      std::printf("%s\n  {\"block\": %zu, \"nodes\": %d, \"best\": ", b ? "," : "", b,
                  blocks[b].size());
      if (best.feasible) {
        std::printf("{\"model\": %zu, \"label\": %s, \"distance\": %s}", order[b][0],
                    json_string(d.models[order[b][0]].label).c_str(),
                    num(actionmatch::distance(best, distance)).c_str());
      } else {
        std::printf("null");
      }
      std::printf(", \"matches\": [");
      for (size_t m = 0; m < nm; ++m) {
        const MatchResult& r = results[b * nm + m];
        std::printf("%s\n   {\"model\": %zu, \"label\": %s, \"feasible\": %s", m ? "," : "", m,
                    json_string(d.models[m].label).c_str(), r.feasible ? "true" : "false");
        if (r.feasible) {
          std::printf(", \"energy\": %s, \"appearance\": %s, \"distortion\": %s, "
                      "\"energy_fixed\": %lld, \"appearance_fixed\": %lld, "
                      "\"distortion_fixed\": %lld, \"dummies\": %d, \"assignment\": [",
                      num(r.energy()).c_str(), num(r.appearance()).c_str(),
                      num(r.distortion()).c_str(), static_cast<long long>(r.energy_q),
                      static_cast<long long>(r.appearance_q),
                      static_cast<long long>(r.distortion_q), r.dummies);
          for (size_t i = 0; i < r.assignment.size(); ++i) {
            std::printf("%s%d", i ? ", " : "", r.assignment[i]);
          }
          std::printf("]");
        }
        std::printf("}");
      }
      std::printf("]}");
    }
    std::printf("\n]}\n");
    return kExitOk;
  }
  std::printf("dictionary %s: %zu models (dim %d); scene %s: %zu block(s); backend %s; "
              "ranked by %s\n",
              a.positional[0].c_str(), nm, d.dim, a.positional[1].c_str(), blocks.size(),
              backend_name(backend), actionmatch::distance_name(distance));
  for (size_t b = 0; b < blocks.size(); ++b) {
    std::printf("block %zu: %d nodes, frames %s\n", b, blocks[b].size(),
                frames_of(blocks[b]).c_str());
    std::printf("%5s %5s  %-20s %14s %14s %14s %7s  %s\n", "rank", "model", "label", "energy",
                "appearance", "distortion", "dummies", "assignment (- = dummy)");
    for (size_t k = 0; k < nm; ++k) {
      const size_t m = order[b][k];
      const MatchResult& r = results[b * nm + m];
      std::printf("%5zu %5zu  %-20s ", k + 1, m, d.models[m].label.c_str());
      if (!r.feasible) {
        std::printf("%14s\n", "infeasible");
        continue;
      }
      std::printf("%14.6f %14.6f %14.6f %7d  ", r.energy(), r.appearance(), r.distortion(),
                  r.dummies);
      for (size_t i = 0; i < r.assignment.size(); ++i) {
        if (r.assignment[i] == actionmatch::kDummy)
          std::printf("%s-", i ? " " : "");
        else
          std::printf("%s%d", i ? " " : "", r.assignment[i]);
      }
      std::printf("\n");
    }
  }
  std::printf("trellis: %lld pairs, %lld cells, %lld candidate evaluations\n",
              static_cast<long long>(stats.pairs), static_cast<long long>(stats.cells),
              static_cast<long long>(stats.evaluations));
  return kExitOk;
}

} // namespace cvis::action_tool
