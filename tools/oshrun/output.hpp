#pragma once
// Forwarding a PE's output stream line by line, so lines of different PEs never mix.
#include <cstddef>
#include <string>
#include <string_view>

namespace oshrun {

// Writes everything unless the destination is gone (EPIPE etc.): then the output is dropped
// from then on, and the job carries on. Waits for POLLOUT on a non-blocking destination.
void write_fully(int fd, std::string_view data) noexcept;

class LineForwarder {
 public:
  // `prefix` goes before every line ("" for plain pass-through). `terminate_partial`: at EOF
  // a last line without '\n' gets one, so it cannot run into another PE's next line.
  LineForwarder(int dest_fd, std::string prefix, bool terminate_partial);

  // Forwards every complete line in `data` (plus what was pending) in one write.
  void feed(const char* data, std::size_t n);
  // End of stream: forwards the pending partial line.
  void finish();

  // A line longer than this is forwarded in pieces (each piece ends the line).
  static constexpr std::size_t kMaxPending = 1024 * 1024;

 private:
  void emit_line(std::string& out, std::string_view line, bool add_newline) const;

  int dest_fd_;
  std::string prefix_;
  bool terminate_partial_;
  std::string pending_;
};

}  // namespace oshrun
