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
    } else if (a == "--edit") {
      cl.edit = true;
    } else if (a == "--overlay" || a == "--type") {
      if (i + 1 >= args.size()) throw UsageError("option " + a + " needs an argument");
      (a == "--type" ? cl.type : cl.overlay) = args[++i];
    } else if (a == "--single") {
      cl.single = true;
    } else if (a == "--data") {
      cl.check_data = true;
    } else if (a == "--json") {
      cl.json = true;
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
  if (std::erase(cl.mount_options, std::string("edit")) != 0) cl.edit = true;
  for (auto it = cl.mount_options.begin(); it != cl.mount_options.end();) {
    if (it->rfind("overlay=", 0) == 0) {
      cl.overlay = it->substr(8);
      if (cl.overlay.empty()) throw UsageError("-o overlay needs a file name");
      cl.edit = true;
      it = cl.mount_options.erase(it);
    } else {
      ++it;
    }
  }
  const std::string command = positional.empty() ? "" : positional[0];
  if (command == "export") {
    if (positional.size() != 3 || cl.overlay.empty())
      throw UsageError("usage: gguffs export MODEL.gguf --overlay FILE OUT.gguf");
    cl.action = CommandLine::Action::export_;
    cl.model = positional[1];
    cl.path = positional[2];
    return cl;
  }
  if (command == "set" || command == "unset") {
    const bool set = command == "set";
    if (positional.size() != (set ? 4u : 3u))
      throw UsageError(set ? "usage: gguffs set MNT KEY [--type TYPE] VALUE"
                           : "usage: gguffs unset MNT KEY");
    cl.action = set ? CommandLine::Action::set : CommandLine::Action::unset;
    cl.mount_point = positional[1];
    cl.key = positional[2];
    if (set) cl.value = positional[3];
    return cl;
  }
  if (!cl.type.empty()) throw UsageError("--type belongs to gguffs set");
  if (cl.action == CommandLine::Action::unmount) {
    if (positional.size() != 1) throw UsageError("usage: gguffs -u MOUNTPOINT");
    cl.mount_point = positional[0];
    return cl;
  }
  const bool checking = !positional.empty() && positional[0] == "check";
  if (cl.check_data && !checking) throw UsageError("--data belongs to gguffs check");
  const bool diffing = !positional.empty() && positional[0] == "diff";
  if (cl.json && !diffing) throw UsageError("--json belongs to gguffs diff");
  if (diffing) {
    if (positional.size() != 3) throw UsageError("usage: gguffs diff [--json] A.gguf B.gguf");
    cl.action = CommandLine::Action::diff;
    cl.model = positional[1];
    cl.other_model = positional[2];
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
    if (positional.size() != 2)
      throw UsageError("usage: gguffs " + positional[0] + (checking ? " [--data]" : "") + " FILE");
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
         "       gguffs check [--data] MODEL.gguf\n"
         "       gguffs ls [-l] MODEL.gguf [PATH]\n"
         "       gguffs cat MODEL.gguf PATH\n"
         "       gguffs diff [--json] A.gguf B.gguf\n"
         "       gguffs -u MOUNTPOINT\n"
         "       gguffs --edit [-o overlay=FILE] MODEL.gguf MOUNTPOINT\n"
         "       gguffs set MNT KEY [--type TYPE] VALUE\n"
         "       gguffs unset MNT KEY\n"
         "       gguffs export MODEL.gguf --overlay FILE OUT.gguf\n"
         "\n"
         "Mounts a GGUF model read-only: summary.txt, model.gguf, metadata.json, tensors.tsv,\n"
         "tensors.json, metadata/<key>, tensors/<name>/{info,data,...}, hf/ (Hugging Face names,\n"
         "model.safetensors, config.json). Returns once the mount\n"
         "is ready. Without MOUNTPOINT: ./<model name without .gguf>, created and removed again.\n"
         "ls and cat show what the mount would show at PATH, without mounting.\n"
         "diff compares keys and tensors (bytes too); exit 0 when the same, 1 when different.\n"
         "Unmount with: gguffs -u MOUNTPOINT (or fusermount3 -u MOUNTPOINT)\n"
         "\n"
         "options:\n"
         "  -v                 print what was parsed, how long it took, and the warnings\n"
         "  -l                 (ls) long listing, like ls -l\n"
         "  --data             (check) also validate every tensor's bytes as llama.cpp does\n"
         "                     with check_tensors (NaN/Inf values and scales); exit 10 when\n"
         "                     llama.cpp would refuse the model\n"
         "  --json             (diff) one JSON object instead of lines\n"
         "  -u                 unmount MOUNTPOINT\n"
         "  -f                 stay in the foreground\n"
         "  -d                 debug output (implies -f)\n"
         "  -s                 single-threaded (no worker threads for reads)\n"
         "  --edit, -o edit    metadata/ writable: write a key's file to change it, rm, mv,\n"
         "                     create; model.gguf and the other files follow at once\n"
         "  -o overlay=FILE    keep the edits in FILE across remounts (implies --edit)\n"
         "  --single           a shard of a split model (NAME-00001-of-00003.gguf) alone,\n"
         "                     as an ordinary file; by default all shards mount as one\n"
         "  -o hf_dtype=T      quantized tensors in hf/ decode to T: F32 (default),\n"
         "                     F16 or BF16\n"
         "  -o opt[,opt...]    FUSE mount options (allow_other, default_permissions,\n"
         "                     fsname=NAME, ...); ro unless --edit; fstab's\n"
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
         "  9 FUSE unavailable, 10 tensor data llama.cpp would refuse (check --data),\n"
         "  11 remote file not found, 12 remote access denied, 13 remote server unusable\n"
         "  (no Range support, bad answers, network failure), 14 an edit overlay made for\n"
         "  another model or unreadable\n";
}

}  // namespace gguffs
