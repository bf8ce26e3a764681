/* coll_generic_c.c - the generic names from C11 (_Generic); see coll_generic_body.h. */
#include "coll_generic_body.h"

int main(void) { return run_generic_test("coll_generic_c"); }
