#include "fs/fuse/readahead.hpp"

#include <limits.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

namespace gguffs {

namespace {

// mountinfo writes space, tab, newline and backslash in paths as octal escapes.
std::string mountinfo_escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    switch (c) {
      case ' ':
        out += "\\040";
        break;
      case '\t':
        out += "\\011";
        break;
      case '\n':
        out += "\\012";
        break;
      case '\\':
        out += "\\134";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// "major:minor" of the filesystem mounted last at path, or "" if there is none.
std::string device_of_mount(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line, device;
  const std::string wanted = mountinfo_escape(path);
  while (std::getline(in, line)) {
    // id parent major:minor root mount-point options ...
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    if (!(fields >> id >> parent >> dev >> root >> point)) continue;
    if (point == wanted) device = dev;  // the last match is the top of the stack
  }
  return device;
}

}  // namespace

std::string resolve_mount_point(const std::string& mount_point) {
  char resolved[PATH_MAX];
  return realpath(mount_point.c_str(), resolved) ? std::string(resolved) : mount_point;
}

void raise_readahead(const std::string& resolved_mount_point, unsigned kib) {
  const std::string device = device_of_mount(resolved_mount_point);
  if (device.empty()) return;
  std::ofstream knob("/sys/class/bdi/" + device + "/read_ahead_kb");
  if (knob) knob << kib << '\n';
}

}  // namespace gguffs
