#include "oshrun/store_addr.hpp"

#include "bootstrap/store_address.hpp"

namespace oshrun {

std::string store_bind_address(bool multi_host) {
  return multi_host ? shmem::bootstrap::reachable_store_address(/*required=*/true) : "127.0.0.1";
}

}  // namespace oshrun
