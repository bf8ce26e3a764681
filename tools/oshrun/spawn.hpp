#pragma once
// Starting PE processes: program lookup, fork/exec with per-PE environment and pipes.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "util/unique_fd.hpp"

namespace oshrun {

// Finds `name` the way execvp would (PATH search unless it contains '/'), so the failure
// is reported before anything starts. Returns the path, or "" with *err set to an errno.
std::string resolve_program(const std::string& name, int* err);

// A NULL-terminated argv/envp built before fork: the child may only call
// async-signal-safe functions (the launcher has store threads), so nothing is allocated there.
class CStringArray {
 public:
  explicit CStringArray(std::vector<std::string> items);
  CStringArray(CStringArray&&) = default;
  char* const* data() const { return ptrs_.data(); }

 private:
  std::vector<std::string> items_;
  std::vector<char*> ptrs_;
};

struct SpawnRequest {
  std::string path;      // resolved program
  const CStringArray* argv;
  const CStringArray* envp;
  int stdin_fd = -1;     // dup'ed onto 0 in the child (-1: inherit)
  sigset_t child_sigmask;  // the mask the program starts with
  bool capture_output = true;      // false: the child inherits our stdout/stderr
  bool capture_stderr = true;      // with capture_output, false: only stdout is captured
  // With capture_output: the child's stdout is a pseudo-terminal rather than a pipe, so that
  // its C library line-buffers it as on a terminal (oshrun's own stdout is one).
  bool stdout_pty = false;
  bool new_process_group = false;  // a remote agent: a terminal's ^C reaches it only through us
  // A close-on-exec descriptor this child alone keeps across exec (-1: none): a PE's end of its
  // host agent's store relay (SHMEM_STORE_FD).
  int inherit_fd = -1;
};

struct SpawnedChild {
  pid_t pid = -1;
  shmem::util::UniqueFd out;   // read end of the child's stdout (capture_output; a pty master
                               // with stdout_pty: it reads EIO, not EOF, once the child closed it)
  shmem::util::UniqueFd err;   // read end of the child's stderr (capture_output)
  shmem::util::UniqueFd exec_status;  // EOF = exec succeeded; an int errno = exec failed
};

// Forks and execs one PE. The child dies with the launcher (PR_SET_PDEATHSIG) and starts
// with default SIGPIPE handling and `child_sigmask`. Throws shmem::Error if fork/pipe fail.
SpawnedChild spawn_child(const SpawnRequest& req);

// Blocks until the child has exec'ed (returns 0) or failed to (returns the errno).
int wait_exec_result(SpawnedChild& child);

}  // namespace oshrun
