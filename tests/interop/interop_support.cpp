#include "tests/interop/interop_support.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

#include "tests/mount/mount_fixture.hpp"
#include "tests/support/split_builders.hpp"
#include "tests/support/test_support.hpp"
#include "tests/support/tiny_llama.hpp"

namespace interop {
namespace {

const std::filesystem::path kBuildDir = GGUFFS_BUILD_DIR;
const std::filesystem::path kInteropDir = GGUFFS_INTEROP_DIR;

std::filesystem::path npm_dir() {
  return kBuildDir / "interop-npm";
}
std::filesystem::path data_dir() {
  return kBuildDir / "interop-data";
}

// Runs fn while holding an exclusive lock on a file in the build folder, so test processes that
// ctest runs in parallel generate each model once.
template <typename Fn>
void with_build_lock(Fn fn) {
  std::filesystem::create_directories(data_dir());
  const int fd = open((data_dir() / ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) throw std::runtime_error("cannot lock interop-data");
  try {
    fn();
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
}

// Writes the model through write(tmp) and renames it into place, unless it is there already.
template <typename Write>
std::filesystem::path generated(const std::string& name, Write write) {
  const auto path = data_dir() / name;
  with_build_lock([&] {
    if (std::filesystem::exists(path)) return;
    write(path);
  });
  return path;
}

std::string python_imports(const std::string& module) {
  if (access(debian_python().c_str(), X_OK) != 0) {
    return "Debian's python3 (" + debian_python() + ") is not installed";
  }
  const auto r = mount_test::run(debian_python(), {"-c", "import " + module});
  if (r.exit_code != 0)
    return "python3 cannot import " + module + " (Debian: python3-" + module + ")";
  return "";
}

}  // namespace

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

std::string node_clients_unavailable() {
  static std::once_flag once;
  static std::string why;
  std::call_once(once, [] {
    const auto r = mount_test::run((kInteropDir / "setup_npm.sh").string(), {kBuildDir.string()});
    if (r.exit_code != 0) why = "npm clients unavailable: " + r.err;
  });
  return why;
}

std::string debian_python() {
  return "/usr/bin/python3";
}
std::string numpy_unavailable() {
  return python_imports("numpy");
}
std::string torch_unavailable() {
  return python_imports("torch");
}

std::filesystem::path tiny_llama_model() {
  return generated("tiny-llama.gguf", [](const std::filesystem::path& path) {
    const auto model = test_support::make_tiny_llama(test_support::data_file("gpt2-vocab.gguf"),
                                                     test_support::TinyLlamaTypes::mixed);
    model.write_split(data_dir(), "tiny-llama", 3);
    model.write(path.string() + ".tmp");
    std::filesystem::rename(path.string() + ".tmp", path);
  });
}

std::vector<std::filesystem::path> tiny_llama_shards() {
  tiny_llama_model();  // writes the shards first
  std::vector<std::filesystem::path> shards;
  for (uint16_t no = 0; no < 3; ++no) {
    shards.push_back(test_support::shard_file(data_dir(), "tiny-llama", no, 3));
  }
  return shards;
}

std::filesystem::path tiny_llama_float_model() {
  return generated("tiny-llama-float.gguf", [](const std::filesystem::path& path) {
    test_support::make_tiny_llama(test_support::data_file("gpt2-vocab.gguf"),
                                  test_support::TinyLlamaTypes::float_only)
        .write(path.string() + ".tmp");
    std::filesystem::rename(path.string() + ".tmp", path);
  });
}

NodeResult run_node_script(const std::string& script, const std::vector<std::string>& args) {
  std::vector<std::string> argv{(npm_dir() / script).string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = mount_test::run("/usr/bin/env", [&] {
    std::vector<std::string> a{"node"};
    a.insert(a.end(), argv.begin(), argv.end());
    return a;
  }());
  NodeResult out;
  out.exit_code = r.exit_code;
  out.err = r.err;
  out.json = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  return out;
}

nlohmann::json run_llama(const std::filesystem::path& model, const std::vector<std::string>& args) {
  std::vector<std::string> a{model.string()};
  a.insert(a.end(), args.begin(), args.end());
  const auto r = run_node_script("llama.mjs", a);
  EXPECT_EQ(r.exit_code, 0) << "llama.cpp on " << model << ": " << r.json.dump() << "\n" << r.err;
  return r.json;
}

}  // namespace interop
