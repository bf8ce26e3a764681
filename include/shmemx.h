/*
 * shmemx.h - extensions to OpenSHMEM 1.6 (shmemx_*). The spec requires this header to exist
 * even when it declares nothing of its own (language_bindings_and_conformance.tex).
 *
 * Planned here: init attributes, unique-ID bootstrap, TLS settings, streams, kernel launch,
 * block-cooperative calls, instance handles, diagnostics.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "shmem.h"

#endif /* SHMEMX_H */
