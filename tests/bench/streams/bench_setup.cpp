// The many-streams benchmark's setup: command line, chains, decoders per GPU, run configurations.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "bench.hpp"

namespace bench {

bool parse_args(int argc, char** argv, Options* o) {
  const char* env_clip = std::getenv("CVIS_TEST_H264");
  o->clip = env_clip ? env_clip : "";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--clip")
      o->clip = next();
    else if (a == "--chain") // one more chain, "custom": gst-launch text between decoder and sink
      o->custom = next();
    else if (a == "--chains")
      o->chains = split(next());
    else if (a == "--ns") {
      o->ns.clear();
      for (auto& v : split(next()))
        o->ns.push_back(std::atoi(v.c_str()));
    } else if (a == "--gpus") {
      o->gpus.clear();
      for (auto& v : split(next()))
        o->gpus.push_back(std::max(1, std::atoi(v.c_str())));
      if (o->gpus.empty())
        o->gpus.push_back(1);
    } else if (a == "--warmup")
      o->warmup = std::atof(next().c_str());
    else if (a == "--measure")
      o->measure = std::atof(next().c_str());
    else if (a == "--budget")
      o->budget = std::atof(next().c_str());
    else if (a == "--out")
      o->out = next();
    else if (a == "--realtime")
      o->realtime = true;
    else if (a == "--gpu-slots") {
      const std::string v = next();
      char* end = nullptr;
      const long k = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || k < 0 || k > 100000) {
        fprintf(stderr, "bench_streams: --gpu-slots needs a number 0..100000, not '%s'\n",
                v.c_str());
        return false;
      }
      o->gpu_slots = static_cast<int>(k);
    } else if (a == "--no-ab")
      o->ab = false;
    else if (a == "--no-profile")
      o->profile = false;
    else if (a == "--child")
      o->child = true;
    else if (a == "--per-pipeline-context")
      o->per_pipeline = true;
    else if (a == "--decoder")
      o->decoder = next();
    else if (a == "--soak")
      o->soak = std::atof(next().c_str());
    else if (a == "--sample")
      o->sample = std::atof(next().c_str());
    else if (a == "--element-props")
      o->props = next();
    else {
      fprintf(stderr, "bench_streams: unknown argument %s (see the source's header)\n", a.c_str());
      return false;
    }
  }
  return true;
}

bool has_feature(const char* name) {
  GstPluginFeature* f = gst_registry_lookup_feature(gst_registry_get(), name);
  if (f)
    gst_object_unref(f);
  return f != nullptr;
}

std::string with_props(const std::string& launch, const std::string& props) {
  if (props.empty())
    return launch;
  std::stringstream in(launch), out;
  std::string tok;
  while (in >> tok) {
    out << tok << " ";
    if (tok.rfind("cuda", 0) == 0 && tok.find('=') == std::string::npos)
      out << props << " ";
  }
  std::string s = out.str();
  return s.empty() ? s : s.substr(0, s.size() - 1);
}

std::map<guint, std::string> decoders_by_device(const std::string& decoder) {
  std::map<guint, std::string> out;
  std::vector<std::string> names = {decoder};
  const size_t n = decoder.size();
  if (n > 3 && decoder.compare(n - 3, 3, "dec") == 0)
    for (int k = 1; k < 64; ++k)
      names.push_back(decoder.substr(0, n - 3) + "device" + std::to_string(k) + "dec");
  for (const std::string& name : names) {
    if (!has_feature(name.c_str()))
      continue;
    GstElement* e = gst_element_factory_make(name.c_str(), nullptr);
    if (!e)
      continue;
    GParamSpec* p = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "cuda-device-id");
    if (p && p->value_type == G_TYPE_UINT) {
      guint device = 0;
      g_object_get(e, "cuda-device-id", &device, nullptr);
      out.emplace(device, name);
    }
    gst_object_unref(e);
  }
  return out;
}

std::vector<Placement> placements(const Options& o, std::string* left_out) {
  std::vector<Placement> places;
  const std::map<guint, std::string> by_device = decoders_by_device(o.decoder);
  for (int g : o.gpus) {
    Placement p;
    p.gpus = g;
    for (int d = 0; d < g; ++d) {
      auto it = by_device.find(static_cast<guint>(d));
      if (g == 1 || by_device.empty()) // as given: one GPU, or a CPU decoder for every stream
        p.decoders.push_back(o.decoder);
      else if (it != by_device.end())
        p.decoders.push_back(it->second);
    }
    if (static_cast<int>(p.decoders.size()) == g) {
      if (g > 1) {
        std::string where;
        for (int d = 0; d < g; ++d)
          where +=
              (d ? ", " : "") + std::string("device ") + std::to_string(d) + ": " + p.decoders[d];
        printf("bench_streams: --gpus %d: %s\n", g, where.c_str());
      }
      places.push_back(p);
      continue;
    }
    std::string found;
    for (auto& [d, name] : by_device)
      found += (found.empty() ? "" : ", ") + name + " on device " + std::to_string(d);
    *left_out += "--gpus " + std::to_string(g) + " left out: needs " + o.decoder +
                 " on CUDA devices 0.." + std::to_string(g - 1) + ", found " +
                 (found.empty() ? "none" : found) + "\n";
  }
  if (by_device.empty() && !places.empty() && places.back().gpus > 1)
    printf("bench_streams: %s has no cuda-device-id (not a GPU decoder): only the chains are "
           "placed per device\n",
           o.decoder.c_str());
  return places;
}

std::vector<Chain> all_chains() {
  std::vector<Chain> c;
  const bool track = has_feature("cudarcdtrack");
  const std::string seg = "cudamedian3d output=frame";
  const std::string full =
      track ? seg + " ! cudarcdtrack init-roi-type=foreground ! cudacedd regions=rois"
            : seg + " ! cudacedd regions=both";
  const std::string note = track ? "" : "cudarcdtrack not in this plugin: CEDD of frame and blobs";
  c.push_back({"decode", "", ""});
  c.push_back({"bgsub", "cudabgsub output=frame", ""});
  c.push_back({"median3d", seg, ""});
  c.push_back({"median3d+cedd", seg + " ! cudacedd", ""});
  c.push_back({"full", full, note});
  c.push_back({"full+overlay", full + " ! cudaroioverlay", note});
  return c;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

std::string fmt(const char* f, double v) {
  if (v < 0)
    return "n/a";
  char b[64];
  snprintf(b, sizeof b, f, v);
  return b;
}

// A run of `per_gpu` streams on each GPU of `place`.
streams::Config make_config(const Options& o, const std::string& launch, int per_gpu,
                            const Placement& place) {
  streams::Config c;
  c.clip = o.clip;
  c.chain = launch;
  c.decoder = o.decoder;
  c.n = per_gpu * place.gpus;
  c.gpus = place.gpus;
  if (place.gpus > 1)
    for (int d = 0; d < place.gpus; ++d) {
      c.device_decoders.push_back(place.decoders[d]);
      c.device_chains.push_back(with_props(launch, "cuda-device-id=" + std::to_string(d)));
    }
  c.warmup_s = o.warmup;
  c.measure_s = o.measure;
  c.realtime = o.realtime;
  // Paced streams deliver 30 fps exactly when they keep up: 1% short (0.2 s behind after 20 s)
  // counts as not keeping up.
  c.real_time_fps = o.realtime ? 29.7 : 30.0;
  return c;
}

} // namespace bench
