// Runs a command several times and prints the median wall time, the median CPU time (user +
// system) and the largest peak resident set size, measured with wait4's rusage for the child
// alone. scripts/bench uses it to time whole processes.
//   run_timed RUNS COMMAND [ARGS...]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: run_timed RUNS COMMAND [ARGS...]\n");
    return 2;
  }
  int runs = std::atoi(argv[1]);
  std::vector<double> wall, cpu;
  long max_rss_kib = 0;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);
      execvp(argv[2], argv + 2);
      _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    auto end = std::chrono::steady_clock::now();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "run_timed: %s failed (status %d)\n", argv[2], status);
      return 1;
    }
    wall.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    cpu.push_back((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                  (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
    max_rss_kib = std::max(max_rss_kib, ru.ru_maxrss);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf("wall_ms %.2f cpu_ms %.2f max_rss_mib %.1f runs %d\n", wall[wall.size() / 2],
              cpu[cpu.size() / 2], max_rss_kib / 1024.0, runs);
  return 0;
}
