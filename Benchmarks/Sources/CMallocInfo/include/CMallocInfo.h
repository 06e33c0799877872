#ifndef CMALLOCINFO_H
#define CMALLOCINFO_H
#include <stddef.h>

/// Makes every allocation of at least 16 KiB an mmap'd block (glibc `M_MMAP_THRESHOLD`,
/// which also turns off the dynamic threshold), so that `mallinfo2().hblkhd` counts large
/// buffers whatever thread or arena allocated them. No-op elsewhere.
void swidux_bench_prepare_malloc(void);

/// Bytes currently allocated through malloc (glibc `mallinfo2`: in-use chunks of the main
/// arena plus every mmap'd block); -1 where `mallinfo2` is unavailable.
long long swidux_bench_malloc_bytes_in_use(void);

/// Resident set size of the process in bytes (`/proc/self/statm`); -1 if unavailable.
long long swidux_bench_resident_bytes(void);

#endif
