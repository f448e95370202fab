// hf/ through a real mount (issue 14): the Hugging Face originals come back from hf/*/data,
// model.safetensors read by an independent reader written here in Python (struct + json) holds
// the same bytes, numpy maps data.npy and the safetensors tensors, and `gguffs ls` / `cat` show
// the same tree.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "tests/mount/mount_fixture.hpp"
#include "tests/support/hf_models.hpp"
#include "tests/support/test_support.hpp"

namespace {

using mount_test::MountedModel;
using test_support::read_file;

// An independent safetensors reader: checks the layout rules (8-byte length, JSON, offsets
// contiguous from 0 to the end, sizes = elements * dtype size, 8-byte alignment) and that every
// tensor's bytes equal hf/<name>/data. Prints "ok N" for N tensors.
constexpr const char* kSafetensorsReader = R"PY(
import json, os, struct, sys
hf = sys.argv[1]
sizes = {"F32": 4, "F16": 2, "BF16": 2}
with open(os.path.join(hf, "model.safetensors"), "rb") as f:
    blob = f.read()
(n,) = struct.unpack("<Q", blob[:8])
header = json.loads(blob[8:8 + n].decode("utf-8"))
assert (8 + n) % 8 == 0, "data does not start at a multiple of 8"
buffer = blob[8 + n:]
assert header.pop("__metadata__") == {"format": "pt"}
at = 0
for name, e in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
    begin, end = e["data_offsets"]
    assert begin == at, (name, begin, at)
    assert begin % 8 == 0, (name, begin)
    count = 1
    for d in e["shape"]:
        count *= d
    assert end - begin == count * sizes[e["dtype"]], name
    with open(os.path.join(hf, name, "data"), "rb") as f:
        assert f.read() == buffer[begin:end], name
    with open(os.path.join(hf, name, "info")) as f:
        info = f.read()
    assert "\ndtype: %s\n" % e["dtype"] in info, name
    assert "\nshape: %s\n" % " ".join(map(str, e["shape"])) in info, name
    at = end
assert at == len(buffer), (at, len(buffer))
print("ok", len(header))
)PY";

// numpy maps the safetensors buffer and each data.npy; both agree with each other.
constexpr const char* kNumpyReader = R"PY(
import json, os, struct, sys
import numpy
hf = sys.argv[1]
with open(os.path.join(hf, "model.safetensors"), "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(n))
header.pop("__metadata__")
dtypes = {"F32": "<f4", "F16": "<f2"}
m = numpy.memmap(os.path.join(hf, "model.safetensors"), dtype=numpy.uint8, mode="r", offset=8 + n)
checked = 0
for name, e in header.items():
    if e["dtype"] not in dtypes:
        continue
    b, end = e["data_offsets"]
    a = m[b:end].view(dtypes[e["dtype"]]).reshape(e["shape"])
    npy = numpy.load(os.path.join(hf, name, "data.npy"), mmap_mode="r")
    assert npy.shape == a.shape and npy.dtype == a.dtype, name
    assert (npy.view(numpy.uint8) == a.view(numpy.uint8)).all(), name
    checked += 1
print("ok", checked)
)PY";

bool have_python(const char* module) {
  return access("/usr/bin/python3", X_OK) == 0 &&
         mount_test::run("/usr/bin/python3", {"-c", std::string("import ") + module}).exit_code ==
             0;
}

class HfMount : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_MOUNT();
    model_ = test_support::hf_test_model("llama", 4, 2);
    path_ = dir_ / "hf-llama.gguf";
    model_.writer.write_file(path_.string());
  }
  test_support::TempDir dir_;
  std::filesystem::path path_;
  test_support::HfTestModel model_;
};

TEST_F(HfMount, DataGivesBackTheOriginalsAndSafetensorsTheSameBytes) {
  MountedModel m(path_);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  for (const auto& [name, want] : model_.tensors)
    EXPECT_TRUE(read_file(m / ("hf/" + name + "/data")) == want.data) << name;
  EXPECT_EQ(read_file(m / "hf/unmapped.txt"),
            "rope_freqs.weight: cannot map tensor rope_freqs.weight\n");
  EXPECT_NE(read_file(m / "tensors/blk.0.attn_k.weight/info")
                .find("\nhf_name: model.layers.0.self_attn.k_proj.weight\n"),
            std::string::npos);
  if (!have_python("json")) GTEST_SKIP() << "python3 is not installed";
  const auto r =
      mount_test::run("/usr/bin/python3", {"-c", kSafetensorsReader, (m / "hf").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok " + std::to_string(model_.tensors.size()) + "\n");
}

TEST_F(HfMount, SafetensorsCanBeMapped) {
  MountedModel m(path_);
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const std::string whole = read_file(m / "hf/model.safetensors");
  const int fd = open((m / "hf/model.safetensors").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* p = mmap(nullptr, whole.size(), PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_TRUE(std::string(static_cast<const char*>(p), whole.size()) == whole);
  munmap(p, whole.size());
  close(fd);
  if (!have_python("numpy")) GTEST_SKIP() << "python3-numpy is not installed";
  const auto r = mount_test::run("/usr/bin/python3", {"-c", kNumpyReader, (m / "hf").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok 22\n");  // every tensor but the BF16 one
}

TEST_F(HfMount, LsAndCatShowTheSameTree) {
  MountedModel m(path_, {"-o", "hf_dtype=BF16"});
  ASSERT_TRUE(m.mounted()) << m.result().err;
  const auto ls = mount_test::run_gguffs({"ls", path_.string(), "hf"});
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  std::string listing;
  for (const auto& name : {"config.json", "model.safetensors", "unmapped.txt"})
    listing += std::string(name) + "\n";
  EXPECT_EQ(ls.out.substr(0, listing.size()), listing);
  EXPECT_NE(ls.out.find("\nmodel.layers.1.mlp.down_proj.weight\n"), std::string::npos);
  for (const std::string path :
       {"hf/config.json", "hf/model.layers.1.self_attn.q_proj.weight/data",
        "hf/model.layers.1.self_attn.q_proj.weight/info", "hf/model.safetensors"}) {
    const auto cat = mount_test::run_gguffs({"cat", "-o", "hf_dtype=BF16", path_.string(), path});
    EXPECT_EQ(cat.exit_code, 0) << cat.err;
    EXPECT_TRUE(cat.out == read_file(m / path)) << path;
  }
  EXPECT_NE(read_file(m / "hf/model.layers.1.self_attn.q_proj.weight/info").find("\ndtype: BF16\n"),
            std::string::npos);
}

TEST_F(HfMount, ABadHfDtypeIsAUsageError) {
  const auto r = mount_test::run_gguffs({"ls", "-o", "hf_dtype=F64", path_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gguffs: '-o hf_dtype=F64': hf_dtype is F32, F16 or BF16 (see gguffs --help)\n");
}

}  // namespace
