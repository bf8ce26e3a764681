// The C11 API sample compiled as C++ (17 and 20): the header must be usable from C++ with the
// same names and semantics, and the shims must be callable through extern "C".
#include "api_compile.c"
