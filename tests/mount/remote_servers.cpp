#include "tests/mount/remote_servers.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace remote_test {

namespace {

namespace fsys = std::filesystem;

bool executable(const char* path) {
  return access(path, X_OK) == 0;
}

// A port nobody listens on now (the kernel's choice for port 0).
int free_port() {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(s);
  return port;
}

bool accepts(int port) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(s);
  return ok;
}

pid_t start(const std::vector<std::string>& argv, const std::string& out, const std::string& err) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

void stop(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  for (int i = 0; i < 300; ++i) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

std::vector<std::string> lines_of(const fsys::path& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

bool have_nginx() {
  return executable("/usr/sbin/nginx");
}
bool have_python() {
  return executable("/usr/bin/python3");
}

bool make_certificate(const fsys::path& dir) {
  const std::string cmd =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
      "-addext subjectAltName=IP:127.0.0.1 -keyout '" +
      (dir / "key.pem").string() + "' -out '" + (dir / "cert.pem").string() + "' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

Nginx::Nginx(const fsys::path& root, bool tls, const std::string& extra) : tls_(tls) {
  const fsys::path p = dir_.path();
  for (int attempt = 0; attempt < 5 && pid_ < 0; ++attempt) {
    port_ = free_port();
    std::ostringstream conf;
    // As root, nginx's workers would run as nobody, who cannot read the test's private folders.
    if (geteuid() == 0) conf << "user root;\n";
    conf << "worker_processes 1;\nerror_log " << (p / "error.log").string() << ";\n"
         << "events { worker_connections 256; }\n"
         << "http {\n"
         << "  default_type application/octet-stream;\n"
         << "  log_format counted '$request $status $body_bytes_sent $http_range';\n"
         << "  access_log " << (p / "access.log").string() << " counted;\n"
         << "  client_body_temp_path " << (p / "body").string() << ";\n"
         << "  proxy_temp_path " << (p / "proxy").string() << ";\n"
         << "  fastcgi_temp_path " << (p / "fastcgi").string() << ";\n"
         << "  uwsgi_temp_path " << (p / "uwsgi").string() << ";\n"
         << "  scgi_temp_path " << (p / "scgi").string() << ";\n"
         << "  server {\n"
         << "    listen 127.0.0.1:" << port_ << (tls ? " ssl" : "") << ";\n";
    if (tls) {
      conf << "    ssl_certificate " << (p / "cert.pem").string() << ";\n"
           << "    ssl_certificate_key " << (p / "key.pem").string() << ";\n";
    }
    conf << "    root " << fsys::absolute(root).string() << ";\n" << extra << "\n  }\n}\n";
    if (tls && !make_certificate(p)) return;
    std::ofstream(p / "nginx.conf") << conf.str();
    pid_ = start({"/usr/sbin/nginx", "-p", p.string(), "-c", (p / "nginx.conf").string(), "-g",
                  "daemon off; pid " + (p / "nginx.pid").string() + ";"},
                 (p / "out").string(), (p / "err").string());
    for (int i = 0; i < 300 && !accepts(port_); ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {  // the port was taken: try another
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

Nginx::~Nginx() {
  stop(pid_);
}

std::string Nginx::url(const std::string& file) const {
  return (tls_ ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port_) + "/" + file;
}

std::vector<std::string> Nginx::requests() const {
  // nginx writes a request's line once it is answered; give the last one a moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return lines_of(dir_.path() / "access.log");
}

FaultServer::FaultServer(const fsys::path& root, const std::vector<std::string>& args) {
  const fsys::path script = test_support::data_file("../remote/fault_server.py");
  std::vector<std::string> argv = {"/usr/bin/python3",
                                   script.string(),
                                   "--root",
                                   fsys::absolute(root).string(),
                                   "--log",
                                   (dir_ / "requests.log").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const fsys::path out = dir_ / "port";
  pid_ = start(argv, out.string(), (dir_ / "err").string());
  for (int i = 0; i < 500 && port_ == 0; ++i) {
    std::ifstream in(out);
    if (!(in >> port_) || !accepts(port_)) port_ = 0;
    if (port_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

FaultServer::~FaultServer() {
  stop(pid_);
}

std::string FaultServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + path;
}

std::vector<std::string> FaultServer::requests() const {
  return lines_of(dir_ / "requests.log");
}

}  // namespace remote_test
