// Serves a mounted session's requests. One thread, the reader, takes every request from
// /dev/fuse and answers it at once, except reads, which it hands to a pool of workers (they may
// wait for the disk or decode megabytes). After answering any other request the reader keeps
// watching the device for a short while before it goes to sleep.
//
// Why not fuse_session_loop_mt: on this kind of machine (a VM whose idle vCPUs halt at once)
// waking a thread that sleeps on another CPU costs 30-60 us, more than answering a lookup or a
// directory listing. A walk like ls -lR sends one request at a time, so that wake-up was most of
// its cost; with libfuse's pool every request also wakes one of several threads sleeping in
// read(2). Here nobody but the reader waits on the device, and while requests keep coming the
// reader is awake to take them. When none come it sleeps, so an idle mount costs nothing.
#pragma once

#define FUSE_USE_VERSION 34
#include <fuse3/fuse_lowlevel.h>

#include <chrono>

namespace gguffs {

struct RequestLoopOptions {
  unsigned workers = 8;                 // threads answering reads; 0 = all on the reader (-s)
  std::chrono::microseconds spin{200};  // how long the reader watches for the next request
};

// Serves on the calling thread until the session ends (unmount, or a signal handler calling
// fuse_session_exit). Returns 0, or a negative errno if reading the device failed.
int serve_requests(fuse_session* se, const RequestLoopOptions& options);

}  // namespace gguffs
