#include "fs/cli/data_check_command.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "fs/cli/exit_codes.hpp"
#include "gguf/split.hpp"
#include "gguf/validate/model_check.hpp"

namespace gguffs {

namespace {

// "\rchecked 1.2 of 4.0 GB (30%), 2.1 GB/s", rewritten in place; cleared at the end.
class ProgressLine {
 public:
  void operator()(uint64_t done, uint64_t total) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
    const double percent =
        total != 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0;
    fmt::print(stderr, "\rchecked {:.2f} of {:.2f} GB ({:.0f}%), {:.2f} GB/s\033[K",
               static_cast<double>(done) / 1e9, static_cast<double>(total) / 1e9, percent,
               rate / 1e9);
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (shown_) fmt::print(stderr, "\r\033[K");
  }

 private:
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  bool shown_ = false;
};

}  // namespace

int run_data_check(const gguf::ModelSet& set) {
  const std::string warnings = gguf::render_set_warnings(set);
  std::fwrite(warnings.data(), 1, warnings.size(), stdout);
  std::fflush(stdout);
  ProgressLine line;
  gguf::CheckProgress progress;
  if (isatty(STDERR_FILENO))
    progress = [&line](uint64_t done, uint64_t total) { line(done, total); };
  const gguf::ModelCheck check = gguf::check_model_data(set, 0, progress);
  line.clear();
  const std::string report = gguf::render_model_check(check);
  std::fwrite(report.data(), 1, report.size(), stdout);
  return check.refused_count() != 0 ? kExitInvalidData : kExitOk;
}

}  // namespace gguffs
