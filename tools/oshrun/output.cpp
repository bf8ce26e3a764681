#include "oshrun/output.hpp"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

namespace oshrun {

void write_fully(int fd, std::string_view data) noexcept {
  while (!data.empty()) {
    ssize_t w = ::write(fd, data.data(), data.size());
    if (w > 0) {
      data.remove_prefix(static_cast<std::size_t>(w));
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
    } else {
      return;  // EPIPE, EBADF, ENOSPC...: nobody to deliver to
    }
  }
}

LineForwarder::LineForwarder(int dest_fd, std::string prefix, bool terminate_partial)
    : dest_fd_(dest_fd), prefix_(std::move(prefix)), terminate_partial_(terminate_partial) {}

void LineForwarder::emit_line(std::string& out, std::string_view line, bool add_newline) const {
  out += prefix_;
  out += line;
  if (add_newline) out += '\n';
}

void LineForwarder::feed(const char* data, std::size_t n) {
  std::string_view in(data, n);
  std::string out;
  while (!in.empty()) {
    std::size_t nl = in.find('\n');
    if (nl == std::string_view::npos) {
      pending_.append(in);
      if (pending_.size() >= kMaxPending) {
        emit_line(out, pending_, true);
        pending_.clear();
      }
      break;
    }
    if (pending_.empty()) {
      emit_line(out, in.substr(0, nl + 1), false);
    } else {
      pending_.append(in.substr(0, nl + 1));
      emit_line(out, pending_, false);
      pending_.clear();
    }
    in.remove_prefix(nl + 1);
  }
  if (!out.empty()) write_fully(dest_fd_, out);
}

void LineForwarder::finish() {
  if (pending_.empty()) return;
  std::string out;
  emit_line(out, pending_, terminate_partial_);
  pending_.clear();
  write_fully(dest_fd_, out);
}

}  // namespace oshrun
