// Line-buffered stdout for PEs that oshrun starts on pipes.
//
// On a pipe the C library buffers stdout in blocks of 4 KiB and writes them at exit: a PE that
// crashes, aborts or is ended by oshrun (after another PE failed) loses everything it printed,
// and printf debugging fails exactly when it is needed. oshrun gives PEs a pseudo-terminal when
// its own stdout is one (the C library then line-buffers by itself); otherwise this constructor
// line-buffers stdout before main runs, so every complete line reaches oshrun when it is
// printed. Only under oshrun (SHMEM_PE is set) and only for pipes and sockets: a PE's stdout
// redirected to a file keeps full buffering.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>

namespace {

[[gnu::constructor]] void line_buffer_pe_stdout() {
  if (std::getenv("SHMEM_PE") == nullptr) return;
  struct stat st;
  if (::fstat(1, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
}

}  // namespace
