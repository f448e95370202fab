// data.f32 and data.npy through a real mount: every alltypes tensor against ggml's own float32
// output (ref/<index>.f32) or the stored bytes, read whole, in odd chunks, at random offsets and
// through mmap.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fs/tree/names.hpp"
#include "gguf/parser.hpp"
#include "gguf/types.hpp"
#include "gguf/writer.hpp"
#include "tests/mount/mount_fixture.hpp"
#include "tests/support/npy_reader.hpp"

namespace {

namespace fsys = std::filesystem;
using mount_test::MountedModel;
using test_support::data_file;
using test_support::read_file;

const fsys::path kAlltypes = data_file("alltypes/alltypes.gguf");

// numpy's dtype for the types data.npy serves as stored (manifest names); others are '<f4'.
const std::map<std::string, std::string> kStoredDtypes = {
    {"f32", "<f4"}, {"f16", "<f2"}, {"f64", "<f8"}, {"i8", "|i1"},
    {"i16", "<i2"}, {"i32", "<i4"}, {"i64", "<i8"},
};

std::string pread_all(int fd, uint64_t off, size_t len) {
  std::string out(len, '\0');
  size_t done = 0;
  while (done < len) {
    const ssize_t n = pread(fd, out.data() + done, len - done, static_cast<off_t>(off + done));
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  return out;
}

// The file read with read(2) calls of chunk bytes.
std::string read_in_chunks(const fsys::path& path, size_t chunk) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << path;
  std::string all, buf(chunk, '\0');
  ssize_t n;
  while ((n = read(fd, buf.data(), chunk)) > 0) all.append(buf, 0, static_cast<size_t>(n));
  EXPECT_EQ(n, 0) << path;
  close(fd);
  return all;
}

std::string ref_of(const test_support::ManifestRow& row) {
  return read_file(data_file("alltypes/" + row.ref_file));
}

fsys::path tensor_dir(const MountedModel& m, const std::string& name) {
  return m / ("tensors/" + gguffs::names::encode(name));
}

TEST(DecodedMount, EveryDataF32EqualsGgmlAtRandomOffsetsInChunksAndWhole) {
  REQUIRE_MOUNT();
  MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  std::mt19937_64 rng(44);
  for (const auto& row : test_support::alltypes_manifest()) {
    SCOPED_TRACE(row.name);
    const fsys::path f32 = tensor_dir(m, row.name) / "data.f32";
    const std::string want = ref_of(row);
    struct stat st;
    ASSERT_EQ(stat(f32.c_str(), &st), 0);
    EXPECT_EQ(static_cast<uint64_t>(st.st_size), row.elements * 4);

    // Random offsets first, before the page cache holds the file.
    const int fd = open(f32.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    for (int k = 0; k < 20; ++k) {
      const uint64_t off = rng() % want.size();
      const size_t len = 1 + rng() % 3000;
      EXPECT_TRUE(pread_all(fd, off, len) == want.substr(off, len)) << off << " +" << len;
    }
    EXPECT_EQ(pread_all(fd, want.size(), 100).size(), 0u) << "past the end";
    EXPECT_EQ(pread_all(fd, want.size() + 5000, 100).size(), 0u) << "past the end";
    close(fd);

    EXPECT_TRUE(read_in_chunks(f32, 1000) == want);
    if (want.size() <= 64 * 1024) {
      EXPECT_TRUE(read_in_chunks(f32, 7) == want);
    }
    EXPECT_TRUE(read_file(f32) == want);
  }
}

TEST(DecodedMount, EveryDataNpyHasDtypeShapeAndPayload) {
  REQUIRE_MOUNT();
  MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const auto model = gguf::parse_file(kAlltypes.string());
  const std::string file = read_file(kAlltypes);
  for (const auto& row : test_support::alltypes_manifest()) {
    SCOPED_TRACE(row.name);
    const fsys::path dir = tensor_dir(m, row.name);
    const std::string npy = read_file(dir / "data.npy");
    const test_support::ParsedNpy p = test_support::parse_npy(npy);
    EXPECT_EQ(p.major, 1);
    EXPECT_EQ(p.minor, 0);
    EXPECT_EQ(p.header_size % 64, 0u);
    const auto stored = kStoredDtypes.find(row.type_name);
    const std::string dtype = stored == kStoredDtypes.end() ? "<f4" : stored->second;
    EXPECT_EQ(p.dict.at("descr"), "'" + dtype + "'");
    EXPECT_EQ(p.dict.at("fortran_order"), "False");
    const std::vector<uint64_t> shape(row.dims.rbegin(), row.dims.rend());
    EXPECT_EQ(p.dict.at("shape"), test_support::shape_text(shape));

    const std::string payload = npy.substr(p.header_size);
    const gguf::TensorInfo& t = model->tensors.at(static_cast<size_t>(row.index));
    if (stored != kStoredDtypes.end())
      EXPECT_TRUE(payload == file.substr(t.file_offset, row.bytes)) << "the stored bytes";
    else
      EXPECT_TRUE(payload == ref_of(row)) << "ggml's float32";
    struct stat st;
    ASSERT_EQ(stat((dir / "data.npy").c_str(), &st), 0);
    EXPECT_EQ(static_cast<uint64_t>(st.st_size), npy.size());

    const std::string info = read_file(dir / "info");
    EXPECT_NE(info.find("\nnpy_dtype: " + dtype + "\n"), std::string::npos) << info;
  }
}

TEST(DecodedMount, MappedFilesEqualTheReference) {
  REQUIRE_MOUNT();
  MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  for (const auto& row : test_support::alltypes_manifest()) {
    if (row.name != "blk.0.ffn_gate.weight" && row.name != "types.iq2_xxs.weight") continue;
    SCOPED_TRACE(row.name);
    const std::string want = ref_of(row);
    for (const char* file : {"data.f32", "data.npy"}) {
      const fsys::path path = tensor_dir(m, row.name) / file;
      const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      ASSERT_GE(fd, 0);
      struct stat st;
      ASSERT_EQ(fstat(fd, &st), 0);
      const auto size = static_cast<size_t>(st.st_size);
      void* p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
      ASSERT_NE(p, MAP_FAILED) << file << ": " << std::strerror(errno);
      const std::string mapped(static_cast<const char*>(p), size);
      // data.npy: the float32 payload ends the file.
      ASSERT_GE(mapped.size(), want.size());
      EXPECT_TRUE(mapped.substr(mapped.size() - want.size()) == want) << file;
      munmap(p, size);
      close(fd);
    }
  }
}

TEST(DecodedMount, TypesWithoutADecoderGetNoDecodedFilesAndSayWhy) {
  REQUIRE_MOUNT();
  test_support::TempDir dir;
  gguf::Writer w;
  w.add_tensor("plain", {4}, gguf::type_id::F32, std::string(16, '\0'));
  w.add_tensor("q81", {32}, gguf::type_id::Q8_1, std::string(36, '\0'));
  w.add_tensor_raw("unknown", {8}, 99, 128, std::string(32, '\0'));
  w.write_file((dir / "m.gguf").string());
  MountedModel m(dir / "m.gguf");
  ASSERT_TRUE(m.mounted()) << m.result().err;
  EXPECT_TRUE(fsys::is_regular_file(m / "tensors/plain/data.f32"));
  EXPECT_TRUE(fsys::is_regular_file(m / "tensors/plain/data.npy"));
  for (const char* name : {"q81", "unknown"}) {
    EXPECT_TRUE(fsys::is_regular_file(m / "tensors" / name / "data")) << name;
    EXPECT_FALSE(fsys::exists(m / "tensors" / name / "data.f32")) << name;
    EXPECT_FALSE(fsys::exists(m / "tensors" / name / "data.npy")) << name;
  }
  EXPECT_NE(
      read_file(m / "tensors/q81/info").find("\ndecoded: none (Q8_1 has no ggml dequantizer)\n"),
      std::string::npos);
  EXPECT_NE(read_file(m / "tensors/unknown/info").find("\ndecoded: none (unknown type id 99)\n"),
            std::string::npos);
}

TEST(DecodedMount, MissingBlocksOfAPartialFileAreAnIoError) {
  REQUIRE_MOUNT();
  test_support::TempDir dir;
  const std::string whole = read_file(kAlltypes);
  // Cut inside rank4.weight (F16, data at 5280 + 460128, 768 bytes): its first 100 values are
  // there, the rest is not.
  test_support::write_file(dir / "cut.gguf", whole.substr(0, 5280 + 460128 + 200));
  MountedModel m(dir / "cut.gguf");
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const fsys::path f32 = m / "tensors/rank4.weight/data.f32";
  struct stat st;
  ASSERT_EQ(stat(f32.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 384 * 4);
  const int fd = open(f32.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  char buf[4096];
  EXPECT_EQ(pread(fd, buf, sizeof buf, 0), -1);
  EXPECT_EQ(errno, EIO);
  close(fd);
  // output.weight lies before the cut and decodes in full.
  for (const auto& row : test_support::alltypes_manifest()) {
    if (row.name == "output.weight") {
      EXPECT_TRUE(read_file(m / "tensors/output.weight/data.f32") == ref_of(row));
    }
  }
}

// Optional: numpy itself maps data.npy (only when Debian's python3-numpy is installed).
TEST(DecodedMount, NumpyLoadsDataNpyMapped) {
  REQUIRE_MOUNT();
  if (access("/usr/bin/python3", X_OK) != 0 ||
      mount_test::run("/usr/bin/python3", {"-c", "import numpy"}).exit_code != 0)
    GTEST_SKIP() << "python3-numpy is not installed";
  MountedModel m(kAlltypes);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const std::string script =
      "import sys, numpy\n"
      "a = numpy.load(sys.argv[1], mmap_mode='r')\n"
      "b = numpy.fromfile(sys.argv[2], '<f4').reshape(a.shape)\n"
      "print(a.dtype.str, a.shape, bool((a.view('<u4') == b.view('<u4')).all()))\n";
  const std::string dir = tensor_dir(m, "blk.0.attn_v.weight").string();
  const auto r =
      mount_test::run("/usr/bin/python3", {"-c", script, dir + "/data.npy", dir + "/data.f32"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "<f4 (64, 256) True\n");
}

}  // namespace
