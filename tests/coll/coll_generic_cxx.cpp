// coll_generic_cxx.cpp - the generic names from C++ (overloads); see coll_generic_body.h.
#include <complex>

#include "coll_generic_body.h"

int main() { return run_generic_test("coll_generic_cxx"); }
