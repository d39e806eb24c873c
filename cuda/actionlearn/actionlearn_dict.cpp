// The binary dictionary file, versions 1 to 4 (FORMAT.md): writer, and a reader that checks every
// field before it uses it, so a truncated, corrupt or foreign file is an error naming what is
// wrong.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "actionlearn.hpp"
#include "actionlearn_dict_ridge.hpp"
#include "actionlearn_io.hpp"

namespace cvis::actionlearn {

using namespace actionmatch;
using namespace stip;
using io::Reader;
using io::Writer;

namespace {

constexpr char kMagic[8] = {'C', 'V', 'I', 'S', 'A', 'C', 'T', 'D'};
constexpr size_t kHeaderBytes = 80;   // version 1
constexpr size_t kHeaderBytesV2 = 96; // version 2: + flow histogram, reserved, speed split
constexpr size_t kCrcOffset = 24;
constexpr uint32_t kFlagDummies = 1u;
constexpr uint32_t kMaxModels = 1000000;

uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n) {
  static uint32_t table[256];
  static const bool init = [] {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    return true;
  }();
  (void)init;
  for (size_t i = 0; i < n; ++i)
    crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return crc;
}

// CRC-32 (zlib's) of the file with the 4 checksum bytes taken as zero.
uint32_t file_crc(const uint8_t* data, size_t size) {
  const uint8_t zero[4] = {0, 0, 0, 0};
  uint32_t crc = 0xFFFFFFFFu;
  crc = crc32_update(crc, data, kCrcOffset);
  crc = crc32_update(crc, zero, 4);
  crc = crc32_update(crc, data + kCrcOffset + 4, size - kCrcOffset - 4);
  return crc ^ 0xFFFFFFFFu;
}

Status parse_model(Reader* rd, int index, int dim, Model* m) {
  const std::string who = "model " + std::to_string(index);
  CVIS_RETURN_IF_ERROR(rd->need(4, who + " label length"));
  const uint32_t label_len = rd->u32();
  if (label_len < 1 || label_len > 255) {
    return io_error(who + ": label length " + std::to_string(label_len) + " out of range 1..255");
  }
  CVIS_RETURN_IF_ERROR(rd->need(label_len, who + " label"));
  m->label = rd->str(label_len);
  const std::string named = who + " ('" + m->label + "')";
  CVIS_RETURN_IF_ERROR(rd->need(4, named + " source length"));
  const uint32_t source_len = rd->u32();
  if (source_len > 1023) {
    return io_error(named + ": source length " + std::to_string(source_len) +
                    " out of range 0..1023");
  }
  CVIS_RETURN_IF_ERROR(rd->need(source_len, named + " source"));
  m->source = rd->str(source_len);
  CVIS_RETURN_IF_ERROR(rd->need(4, named + " node count"));
  const uint32_t nodes = rd->u32();
  if (nodes < static_cast<uint32_t>(kMinModelNodes) || nodes > kMaxModelNodes) {
    return io_error(named + ": " + std::to_string(nodes) + " nodes, out of range " +
                    std::to_string(kMinModelNodes) + ".." + std::to_string(kMaxModelNodes));
  }
  CVIS_RETURN_IF_ERROR(rd->need(size_t{12} * nodes, named + " node table"));
  Graph& g = m->graph;
  g = Graph();
  g.dim = dim;
  for (uint32_t i = 0; i < nodes; ++i) {
    g.frame.push_back(static_cast<int32_t>(rd->u32()));
    g.x.push_back(rd->f32());
    g.y.push_back(rd->f32());
  }
  CVIS_RETURN_IF_ERROR(rd->need(size_t{4} * nodes * dim, named + " descriptors"));
  g.desc.resize(static_cast<size_t>(nodes) * dim);
  for (float& v : g.desc)
    v = rd->f32();
  return Status::Ok();
}

Status parse(const uint8_t* data, size_t size, Dictionary* out) {
  if (size == 0)
    return io_error("empty file");
  if (std::memcmp(data, kMagic, size < 8 ? size : 8) != 0) {
    return io_error("not a cvis-action dictionary (bad magic; expected \"CVISACTD\")");
  }
  if (size < 12) {
    return io_error("truncated header: " + std::to_string(size) + " of " +
                    std::to_string(kHeaderBytes) + " bytes");
  }
  Reader rd(data, size);
  rd.str(8);
  const uint32_t version = rd.u32();
  if (version < 1 || version > kDictionaryVersion) {
    return io_error("unsupported dictionary version " + std::to_string(version) +
                    " (this build reads versions 1.." + std::to_string(kDictionaryVersion) + ")");
  }
  const size_t header_expected = version == 1 ? kHeaderBytes : kHeaderBytesV2; // v3: as v2
  if (size < header_expected) {
    return io_error("truncated header: " + std::to_string(size) + " of " +
                    std::to_string(header_expected) + " bytes");
  }
  const uint32_t header_bytes = rd.u32();
  if (header_bytes != header_expected) {
    return io_error("header size " + std::to_string(header_bytes) + ", version " +
                    std::to_string(version) + " has " + std::to_string(header_expected));
  }
  const uint64_t file_bytes = rd.u64();
  if (file_bytes > size) {
    return io_error("truncated: " + std::to_string(size) + " bytes of the " +
                    std::to_string(file_bytes) + " the header declares");
  }
  if (file_bytes < size) {
    return io_error(std::to_string(size - file_bytes) + " bytes of trailing data after the " +
                    std::to_string(file_bytes) + " the header declares");
  }
  const uint32_t crc = rd.u32();
  Dictionary d;
  const uint32_t dim = rd.u32();
  if (dim < 1 || dim > static_cast<uint32_t>(kMaxDim)) {
    return io_error("header: dim " + std::to_string(dim) + " out of range 1.." +
                    std::to_string(kMaxDim));
  }
  d.dim = static_cast<int>(dim);
  const uint32_t models = rd.u32();
  if (models < 1 || models > kMaxModels) {
    return io_error("header: model count " + std::to_string(models) + " out of range 1.." +
                    std::to_string(kMaxModels));
  }
  const uint32_t flags = rd.u32();
  if (flags & ~kFlagDummies) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "header: unknown flag bits 0x%x", flags & ~kFlagDummies);
    return io_error(buf);
  }
  d.params.dummies = flags & kFlagDummies;
  d.params.T = static_cast<int32_t>(rd.u32());
  const uint32_t causality = rd.u32();
  if (causality > 2) {
    return io_error("header: causality " + std::to_string(causality) + " unknown (0..2)");
  }
  d.params.causality = static_cast<Causality>(causality);
  d.params.lambda1 = rd.f64();
  d.params.lambda2 = rd.f64();
  d.params.lambda3 = rd.f64();
  d.params.dummy_cost = rd.f64();
  Status v = validate(d.params);
  if (!v.ok())
    return io_error("header: " + v.message());
  if (version >= 2) {
    const uint32_t flow = rd.u32();
    if (flow > static_cast<uint32_t>(FlowHistogram::kSpeed))
      return io_error("header: flow histogram " + std::to_string(flow) + " unknown (0..1)");
    d.flow = static_cast<FlowHistogram>(flow);
    const uint32_t reserved = rd.u32();
    if (reserved != 0)
      return io_error("header: reserved field " + std::to_string(reserved) + " (must be 0)");
    d.speed_split = rd.f64();
    v = validate_descriptor_kind(d);
    if (!v.ok())
      return io_error("header: " + v.message());
  }
  // Every model takes at least this much: check before allocating for a corrupt count.
  const uint64_t least = 4 + 1 + 4 + 4 + uint64_t{kMinModelNodes} * (12 + 4 * uint64_t{dim});
  if (least * models > rd.left()) {
    return io_error("header: " + std::to_string(models) + " models of dim " + std::to_string(dim) +
                    " need at least " + std::to_string(least * models) + " bytes, the file has " +
                    std::to_string(rd.left()) + " after the header");
  }
  d.models.resize(models);
  for (uint32_t i = 0; i < models; ++i) {
    CVIS_RETURN_IF_ERROR(parse_model(&rd, static_cast<int>(i), d.dim, &d.models[i]));
  }
  if (version >= 3)
    CVIS_RETURN_IF_ERROR(detail::parse_ridge(&rd, version, &d));
  if (rd.left() != 0) {
    return io_error(
        std::to_string(rd.left()) + " bytes after the last " +
        (version >= 3 ? std::string("section") : "model (of " + std::to_string(models) + ")"));
  }
  const uint32_t computed = file_crc(data, size);
  if (computed != crc) {
    char buf[96];
    std::snprintf(buf, sizeof buf,
                  "checksum mismatch (stored 0x%08x, computed 0x%08x): corrupt file", crc,
                  computed);
    return io_error(buf);
  }
  v = validate(d);
  if (!v.ok())
    return io_error(v.message());
  *out = std::move(d);
  return Status::Ok();
}

std::string model_name(const Model& m) {
  return "model '" + m.label + "': ";
}

} // namespace

Status validate_descriptor_kind(const Dictionary& d) {
  if (d.flow == FlowHistogram::kPaper) {
    if (d.speed_split != 0)
      return invalid_argument("speed split " + std::to_string(d.speed_split) +
                              " with the paper's flow histogram (must be 0)");
    return Status::Ok();
  }
  if (d.flow != FlowHistogram::kSpeed)
    return invalid_argument("unknown flow histogram");
  if (!(d.speed_split >= kMinSpeedSplit && d.speed_split <= kMaxSpeedSplit))
    return invalid_argument("speed split " + std::to_string(d.speed_split) + " out of range " +
                            std::to_string(kMinSpeedSplit) + ".." + std::to_string(kMaxSpeedSplit));
  if (d.dim != kSpeedDescriptorDim)
    return invalid_argument("dim " + std::to_string(d.dim) +
                            " with the speed flow histogram (its descriptors have " +
                            std::to_string(kSpeedDescriptorDim) + " values)");
  return Status::Ok();
}

Status validate(const Dictionary& d) {
  CVIS_RETURN_IF_ERROR(validate(d.params));
  CVIS_RETURN_IF_ERROR(validate_descriptor_kind(d));
  if (d.dim < 1 || d.dim > kMaxDim) {
    return invalid_argument("dictionary dim " + std::to_string(d.dim) + " out of range 1.." +
                            std::to_string(kMaxDim));
  }
  if (d.models.empty())
    return invalid_argument("dictionary without models");
  for (size_t i = 0; i < d.models.size(); ++i) {
    const Model& m = d.models[i];
    CVIS_RETURN_IF_ERROR(validate_model(m));
    if (m.graph.dim != d.dim) {
      return invalid_argument(model_name(m) + "dim " + std::to_string(m.graph.dim) +
                              " differs from the dictionary's " + std::to_string(d.dim));
    }
  }
  return detail::validate_ridge(d);
}

uint32_t dictionary_version(const Dictionary& d) {
  if (d.has_ridge())
    return d.ridge.features == RidgeFeatures::kDistance ? 3 : 4;
  return d.flow == FlowHistogram::kPaper ? 1 : 2;
}

void describe(const FrontEndParams& p, Dictionary* d) {
  d->dim = descriptor_dim(p);
  d->flow = p.flow_histogram;
  d->speed_split = p.flow_histogram == FlowHistogram::kSpeed ? p.speed_split : 0.0;
}

Status serialize_dictionary(const Dictionary& d, std::vector<uint8_t>* out) {
  CVIS_RETURN_IF_ERROR(validate(d));
  std::vector<uint8_t> buf;
  buf.reserve(4096);
  Writer w(&buf);
  w.bytes(std::string(kMagic, sizeof kMagic));
  // The lowest version that says everything: older builds read those files.
  const uint32_t version = dictionary_version(d);
  const bool v1 = version == 1;
  w.u32(version);
  w.u32(static_cast<uint32_t>(v1 ? kHeaderBytes : kHeaderBytesV2));
  w.u64(0); // file size, set below
  w.u32(0); // checksum, set below
  w.u32(static_cast<uint32_t>(d.dim));
  w.u32(static_cast<uint32_t>(d.models.size()));
  w.u32(d.params.dummies ? kFlagDummies : 0u);
  w.u32(static_cast<uint32_t>(d.params.T));
  w.u32(static_cast<uint32_t>(d.params.causality));
  w.f64(d.params.lambda1);
  w.f64(d.params.lambda2);
  w.f64(d.params.lambda3);
  w.f64(d.params.dummy_cost);
  if (!v1) {
    w.u32(static_cast<uint32_t>(d.flow));
    w.u32(0);
    w.f64(d.speed_split);
  }
  for (const Model& m : d.models) {
    w.u32(static_cast<uint32_t>(m.label.size()));
    w.bytes(m.label);
    w.u32(static_cast<uint32_t>(m.source.size()));
    w.bytes(m.source);
    const Graph& g = m.graph;
    w.u32(static_cast<uint32_t>(g.size()));
    for (int i = 0; i < g.size(); ++i) {
      w.u32(static_cast<uint32_t>(g.frame[i]));
      w.f32(g.x[i]);
      w.f32(g.y[i]);
    }
    for (float v : g.desc)
      w.f32(v);
  }
  if (d.has_ridge())
    detail::write_ridge(d, version, &w);
  const uint64_t size = buf.size();
  for (int i = 0; i < 8; ++i)
    buf[16 + i] = static_cast<uint8_t>(size >> (8 * i));
  const uint32_t crc = file_crc(buf.data(), buf.size());
  for (int i = 0; i < 4; ++i)
    buf[kCrcOffset + i] = static_cast<uint8_t>(crc >> (8 * i));
  *out = std::move(buf);
  return Status::Ok();
}

Status parse_dictionary(const uint8_t* data, size_t size, Dictionary* out) {
  *out = Dictionary();
  out->models.clear();
  if (!data && size > 0)
    return io_error("no data");
  static const uint8_t kEmpty[1] = {0};
  return parse(data ? data : kEmpty, size, out);
}

Status save_dictionary(const std::string& path, const Dictionary& d) {
  std::vector<uint8_t> buf;
  Status s = serialize_dictionary(d, &buf);
  if (!s.ok())
    return Status(s.code(), path + ": " + s.message());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f)
    return io_error(path + ": cannot create: " + std::strerror(errno));
  const bool ok = std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed)
    return io_error(path + ": write failed: " + std::strerror(errno));
  return Status::Ok();
}

Status load_dictionary(const std::string& path, Dictionary* out) {
  *out = Dictionary();
  out->models.clear();
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    return io_error(path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> buf;
  uint8_t chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
    buf.insert(buf.end(), chunk, chunk + n);
  const bool err = std::ferror(f);
  const int read_errno = errno;
  std::fclose(f);
  if (err)
    return io_error(path + ": read failed: " + std::strerror(read_errno));
  Status s = parse_dictionary(buf.data(), buf.size(), out);
  if (!s.ok())
    return io_error(path + ": " + s.message());
  return Status::Ok();
}

} // namespace cvis::actionlearn
