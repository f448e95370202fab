// Who may enter a mount: only the mounting user unless allow_other is asked for, and with
// allow_other the kernel enforces the files' permissions (default_permissions).
#include <gtest/gtest.h>

#include <string>

#include "fs/cli/cli.hpp"
#include "fs/fuse/mount.hpp"

namespace {

std::string options_for(const std::vector<std::string>& args) {
  return gguffs::fuse_option_list(gguffs::parse_command_line(args));
}

TEST(HostileOptions, OtherUsersAreNotLetInByDefault) {
  const std::string list = options_for({"m.gguf", "mnt"});
  EXPECT_EQ(list.find("allow_other"), std::string::npos) << list;
  EXPECT_EQ(list.find("allow_root"), std::string::npos) << list;
  EXPECT_EQ(list.rfind("ro,", 0), 0u) << list;
}

TEST(HostileOptions, AllowOtherBringsDefaultPermissions) {
  for (const char* option : {"allow_other", "allow_root", "fsname=x,allow_other"}) {
    const std::string list = options_for({"-o", option, "m.gguf", "mnt"});
    EXPECT_NE(list.find(",default_permissions"), std::string::npos) << list;
  }
  // Given explicitly: not repeated.
  const std::string list = options_for({"-o", "allow_other,default_permissions", "m.gguf", "mnt"});
  EXPECT_EQ(list.find("default_permissions"), list.rfind("default_permissions")) << list;
}

TEST(HostileOptions, ReadWriteCannotBeAskedFor) {
  EXPECT_THROW(options_for({"-o", "rw", "m.gguf", "mnt"}), gguffs::UsageError);
  EXPECT_EQ(options_for({"-o", "ro", "m.gguf", "mnt"}).find(",ro"), std::string::npos);
}

}  // namespace
