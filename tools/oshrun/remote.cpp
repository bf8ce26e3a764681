#include "oshrun/remote.hpp"

#include <algorithm>
#include <iterator>

namespace oshrun {
namespace {

constexpr std::string_view kHostLocalVars[] = {
    "HOSTNAME", "HOST", "PWD", "OLDPWD", "SHLVL", "_", "SSH_CLIENT", "SSH_CONNECTION",
    "SSH_TTY", "SSH_AUTH_SOCK", "DISPLAY", "XAUTHORITY", "TERM"};

}  // namespace

std::string shell_quote(std::string_view word) {
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  out += '\'';
  return out;
}

std::vector<std::string> split_agent(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

bool is_host_local_variable(std::string_view name) {
  return std::find(std::begin(kHostLocalVars), std::end(kHostLocalVars), name) != std::end(kHostLocalVars);
}

}  // namespace oshrun
