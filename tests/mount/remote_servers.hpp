// Test servers for remote models, on 127.0.0.1 at a free port, started and stopped by the test:
// Debian's nginx (a real server: Range, If-Range, strong ETags) with a generated configuration,
// and tests/remote/fault_server.py (Python's standard library) for the faults.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/test_support.hpp"

namespace remote_test {

// True when nginx and python3 are installed (the tests skip themselves otherwise).
bool have_nginx();
bool have_python();

// A self-signed certificate for 127.0.0.1, made with `openssl req` into dir (cert.pem, key.pem).
bool make_certificate(const std::filesystem::path& dir);

class Nginx {
 public:
  // Serves root over http, or over https with dir/cert.pem and dir/key.pem when tls. extra goes
  // into the server block (e.g. a location that redirects).
  Nginx(const std::filesystem::path& root, bool tls = false, const std::string& extra = "");
  ~Nginx();
  Nginx(const Nginx&) = delete;
  Nginx& operator=(const Nginx&) = delete;

  bool running() const { return pid_ > 0 && port_ > 0; }
  int port() const { return port_; }
  std::string url(const std::string& file) const;
  // The access log's lines so far ("$request $status $body_bytes_sent $http_range").
  std::vector<std::string> requests() const;
  const std::filesystem::path& prefix() const { return dir_.path(); }

 private:
  test_support::TempDir dir_;
  bool tls_;
  int port_ = 0;
  pid_t pid_ = -1;
};

class FaultServer {
 public:
  // tests/remote/fault_server.py --root root with extra arguments (--fault truncate, ...).
  FaultServer(const std::filesystem::path& root, const std::vector<std::string>& args);
  ~FaultServer();
  FaultServer(const FaultServer&) = delete;
  FaultServer& operator=(const FaultServer&) = delete;

  bool running() const { return pid_ > 0 && port_ > 0; }
  int port() const { return port_; }
  std::string url(const std::string& path) const;
  // The request log: one JSON object per line.
  std::vector<std::string> requests() const;

 private:
  test_support::TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace remote_test
