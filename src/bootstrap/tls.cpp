#include "bootstrap/tls.hpp"

#include <string>

#include "base/error.hpp"

namespace shmem::bootstrap {
namespace {

constexpr std::size_t kMaxTlsInfo = 10 * 1024;

std::string_view trim(std::string_view s) {
  constexpr std::string_view ws = " \t\r\n";
  std::size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  std::size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// "a, b ,c" -> "a,b,c" (empty items dropped) so the loaders can split on ','.
std::string normalize_list(std::string_view v) {
  std::string out;
  while (!v.empty()) {
    std::size_t comma = v.find(',');
    std::string_view item = trim(v.substr(0, comma));
    if (!item.empty()) {
      if (!out.empty()) out += ',';
      out += item;
    }
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

void TlsConfig::apply_tls_info(std::string_view info) {
  if (info.size() > kMaxTlsInfo)
    throw Error(Errc::kInvalidValue, "TLS info string is " + std::to_string(info.size()) +
                                         " bytes long; the limit is " + std::to_string(kMaxTlsInfo));
  // Parse everything before changing anything, so a bad string leaves the config untouched.
  TlsConfig next = *this;
  std::string_view rest = info;
  while (!rest.empty()) {
    std::size_t semi = rest.find(';');
    std::string_view entry = trim(rest.substr(0, semi));
    rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
    if (entry.empty()) continue;
    std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos)
      throw Error(Errc::kInvalidValue,
                  "TLS info entry '" + std::string(entry) + "' is not of the form 'key: value'");
    std::string key(trim(entry.substr(0, colon)));
    std::string_view value = trim(entry.substr(colon + 1));
    if (key == "tlsCaPath") {
      next.ca_path = value;
    } else if (key == "tlsCaFile") {
      next.ca_file = normalize_list(value);
    } else if (key == "tlsCert") {
      next.cert_file = value;
    } else if (key == "tlsPk") {
      next.key_file = value;
    } else if (key == "tlsPkPwd") {
      next.key_password = value;
    } else if (key == "tlsCrlPath") {
      next.crl_path = value;
    } else if (key == "tlsCrlFile") {
      next.crl_file = normalize_list(value);
    } else if (key == "packagePath") {
      // Ascend SHMEM's location of its crypto helper library; nothing to load here.
    } else {
      throw Error(Errc::kInvalidValue,
                  "unknown TLS info key '" + key +
                      "' (known: tlsCaPath, tlsCaFile, tlsCert, tlsPk, tlsPkPwd, tlsCrlPath, tlsCrlFile, "
                      "packagePath)");
    }
  }
  *this = std::move(next);
}

}  // namespace shmem::bootstrap
