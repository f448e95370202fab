#include "fs/cli/cli.hpp"

#include "fs/cli/mount_helper_options.hpp"
#include "gguf/source/disk_cache.hpp"

namespace gguffs {

namespace {

void split_options(const std::string& list, std::vector<std::string>& out) {
  std::string current;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == '\\' && i + 1 < list.size()) {
      current += '\\';
      current += list[++i];
    } else if (list[i] == ',') {
      if (!current.empty()) out.push_back(current);
      current.clear();
    } else {
      current += list[i];
    }
  }
  if (!current.empty()) out.push_back(current);
}

void check_option(const std::string& option) {
  if (option == "rw") throw UsageError("the mount is read-only; '-o rw' is not supported");
}

// Moves the remote options out of the list handed to libfuse.
void take_remote_options(CommandLine& cl) {
  std::vector<std::string> rest;
  for (const std::string& o : cl.mount_options) {
    if (o.starts_with("cacert=")) {
      cl.cacert = o.substr(7);
      if (cl.cacert.empty()) throw UsageError("-o cacert needs a file");
    } else if (o.starts_with("cache_size=")) {
      cl.cache_size = parse_size(o.substr(11));
    } else if (o == "cache_dir") {
      cl.cache_dir = gguf::default_cache_dir();
    } else if (o.starts_with("cache_dir=")) {
      cl.cache_dir = o.substr(10);
      if (cl.cache_dir.empty()) throw UsageError("-o cache_dir= needs a folder");
    } else {
      rest.push_back(o);
    }
  }
  cl.mount_options = std::move(rest);
}

// Options that shape the tree rather than the FUSE mount: taken out of mount_options.
void take_tree_options(CommandLine& cl) {
  constexpr std::string_view kHfDtype = "hf_dtype=";
  std::vector<std::string> kept;
  for (const std::string& o : cl.mount_options) {
    if (o.rfind(kHfDtype, 0) != 0) {
      kept.push_back(o);
      continue;
    }
    const auto dtype = gguf::hf::parse_dtype(std::string_view(o).substr(kHfDtype.size()));
    if (!dtype) throw UsageError("'-o " + o + "': hf_dtype is F32, F16 or BF16");
    cl.hf_dtype = *dtype;
  }
  cl.mount_options = std::move(kept);
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args) {
  CommandLine cl;
  std::vector<std::string> positional;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_done || a.empty() || a[0] != '-' || a == "-") {
      positional.push_back(a);
    } else if (a == "--") {
      options_done = true;
    } else if (a == "-h" || a == "--help") {
      cl.action = CommandLine::Action::help;
      return cl;
    } else if (a == "-V" || a == "--version") {
      cl.action = CommandLine::Action::version;
      return cl;
    } else if (a == "-f") {
      cl.foreground = true;
    } else if (a == "-d") {
      cl.debug = cl.foreground = true;
    } else if (a == "-s") {
      cl.single_thread = true;
    } else if (a == "-u") {
      cl.action = CommandLine::Action::unmount;
    } else if (a == "-l") {
      cl.long_listing = true;
    } else if (a == "-v") {
      cl.verbose = true;
    } else if (a == "--single") {
      cl.single = true;
    } else if (a == "-o" || a.rfind("-o", 0) == 0) {
      std::string list = a.size() > 2 ? a.substr(2) : "";
      if (a == "-o") {
        if (i + 1 >= args.size()) throw UsageError("option -o needs an argument");
        list = args[++i];
      }
      split_options(list, cl.mount_options);
    } else {
      throw UsageError("unknown option '" + a + "'");
    }
  }
  cl.mount_options = without_ignored_mount_options(cl.mount_options);  // fstab's noauto, ...
  take_tree_options(cl);
  for (const std::string& option : cl.mount_options) check_option(option);
  take_remote_options(cl);
  if (cl.action == CommandLine::Action::unmount) {
    if (positional.size() != 1) throw UsageError("usage: gguffs -u MOUNTPOINT");
    cl.mount_point = positional[0];
    return cl;
  }
  const bool listing = !positional.empty() && positional[0] == "ls";
  if (cl.long_listing && !listing) throw UsageError("-l belongs to gguffs ls");
  if (listing || (!positional.empty() && positional[0] == "cat")) {
    cl.action = listing ? CommandLine::Action::ls : CommandLine::Action::cat;
    const size_t n = positional.size();
    if (listing ? (n < 2 || n > 3) : n != 3)
      throw UsageError(listing ? "usage: gguffs ls [-l] MODEL [PATH]"
                               : "usage: gguffs cat MODEL PATH");
    cl.model = positional[1];
    if (positional.size() == 3) cl.path = positional[2];
    return cl;
  }

  if (!positional.empty() && (positional[0] == "summary" || positional[0] == "check")) {
    cl.action =
        positional[0] == "summary" ? CommandLine::Action::summary : CommandLine::Action::check;
    if (positional.size() != 2) throw UsageError("usage: gguffs " + positional[0] + " FILE");
    cl.model = positional[1];
    return cl;
  }
  if (positional.empty() || positional.size() > 2)
    throw UsageError("expected MODEL.gguf and MOUNTPOINT");
  cl.model = positional[0];
  if (positional.size() == 2) cl.mount_point = positional[1];  // else ./<model name>
  return cl;
}

uint64_t parse_size(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string suffix = text.substr(digits);
  int shift = 0;
  if (suffix == "K" || suffix == "k" || suffix == "KiB")
    shift = 10;
  else if (suffix == "M" || suffix == "m" || suffix == "MiB")
    shift = 20;
  else if (suffix == "G" || suffix == "g" || suffix == "GiB")
    shift = 30;
  else if (suffix == "T" || suffix == "t" || suffix == "TiB")
    shift = 40;
  else if (!suffix.empty())
    digits = 0;
  if (digits == 0 || digits > 12)
    throw UsageError("'" + text + "' is not a size (like 512M or 2G)");
  return std::stoull(text.substr(0, digits)) << shift;
}

std::string usage_text() {
  return "usage: gguffs [options] MODEL.gguf [MOUNTPOINT]\n"
         "MODEL may be a path, an http(s):// URL or hf://OWNER/REPO/FILE.gguf[@REVISION]\n"
         "       gguffs summary MODEL.gguf\n"
         "       gguffs check MODEL.gguf\n"
         "       gguffs ls [-l] MODEL.gguf [PATH]\n"
         "       gguffs cat MODEL.gguf PATH\n"
         "       gguffs -u MOUNTPOINT\n"
         "\n"
         "Mounts a GGUF model read-only: summary.txt, model.gguf, metadata.json, tensors.tsv,\n"
         "tensors.json, metadata/<key>, tensors/<name>/{info,data,...}, hf/ (Hugging Face names,\n"
         "model.safetensors, config.json). Returns once the mount\n"
         "is ready. Without MOUNTPOINT: ./<model name without .gguf>, created and removed again.\n"
         "ls and cat show what the mount would show at PATH, without mounting.\n"
         "Unmount with: gguffs -u MOUNTPOINT (or fusermount3 -u MOUNTPOINT)\n"
         "\n"
         "options:\n"
         "  -v                 print what was parsed, how long it took, and the warnings\n"
         "  -l                 (ls) long listing, like ls -l\n"
         "  -u                 unmount MOUNTPOINT\n"
         "  -f                 stay in the foreground\n"
         "  -d                 debug output (implies -f)\n"
         "  -s                 single-threaded (no worker threads for reads)\n"
         "  --single           a shard of a split model (NAME-00001-of-00003.gguf) alone,\n"
         "                     as an ordinary file; by default all shards mount as one\n"
         "  -o hf_dtype=T      quantized tensors in hf/ decode to T: F32 (default),\n"
         "                     F16 or BF16\n"
         "  -o opt[,opt...]    FUSE mount options (allow_other, default_permissions,\n"
         "                     fsname=NAME, ...); the mount is always ro; fstab's\n"
         "                     noauto, user, _netdev, relatime... are ignored\n"
         "  -o cacert=FILE     (URLs) verify the server with the CA certificates in FILE\n"
         "  -o cache_size=SIZE (URLs) memory for downloaded blocks (default 256M)\n"
         "  -o cache_dir[=DIR] (URLs) keep downloaded blocks on disk, in DIR (default\n"
         "                     $XDG_CACHE_HOME/gguffs or ~/.cache/gguffs)\n"
         "  -h, --help         this text\n"
         "  -V, --version      the version\n"
         "\n"
         "exit codes: 0 ok, 1 internal error, 2 usage, 3 cannot read the model, 4 not GGUF,\n"
         "  5 unsupported version, 6 malformed, 7 split model problem, 8 mount point problem,\n"
         "  9 FUSE unavailable, 11 remote file not found, 12 remote access denied,\n"
         "  13 remote server unusable (no Range support, bad answers, network failure)\n";
}

}  // namespace gguffs
