#pragma once
// Helpers for PEs on other hosts: quoting for the remote shell, the agent setting, and the
// variables that keep the remote host's values (the protocol is agent_protocol.hpp).
#include <string>
#include <string_view>
#include <vector>

namespace oshrun {

// 'word' for sh -c, with embedded single quotes escaped.
std::string shell_quote(std::string_view word);

// Splits an agent setting ("ssh -o BatchMode=yes") on blanks into words.
std::vector<std::string> split_agent(std::string_view text);

// Variables that describe the host a process runs on: a remote PE keeps its own host's values
// of these instead of the launcher's (PWD is set to the working directory).
bool is_host_local_variable(std::string_view name);

}  // namespace oshrun
