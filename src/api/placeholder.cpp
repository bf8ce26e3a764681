#include "core/ops.hpp"
