#include "fs/cli/mount_helper_options.hpp"

#include <array>

namespace gguffs {

bool is_ignored_mount_option(std::string_view option) {
  static constexpr std::array<std::string_view, 26> kIgnored = {
      "defaults",    "auto",          "noauto",   "user",       "nouser",   "users",
      "owner",       "group",         "_netdev",  "nofail",     "relatime", "norelatime",
      "strictatime", "nostrictatime", "lazytime", "nolazytime", "diratime", "nodiratime",
      "iversion",    "noiversion",    "mand",     "nomand",     "silent",   "loud",
      "symfollow",   "nosymfollow"};
  for (const std::string_view name : kIgnored)
    if (option == name) return true;
  return option.rfind("x-", 0) == 0 || option.rfind("comment=", 0) == 0;
}

std::vector<std::string> without_ignored_mount_options(const std::vector<std::string>& options) {
  std::vector<std::string> kept;
  for (const std::string& o : options)
    if (!is_ignored_mount_option(o)) kept.push_back(o);
  return kept;
}

}  // namespace gguffs
