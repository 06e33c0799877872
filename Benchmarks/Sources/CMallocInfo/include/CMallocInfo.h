#ifndef CMALLOCINFO_H
#define CMALLOCINFO_H
#include <stddef.h>

/// Bytes currently allocated through malloc (glibc `mallinfo2`: in-use heap chunks plus
/// mmap'd blocks); -1 where `mallinfo2` is unavailable.
long long swidux_bench_malloc_bytes_in_use(void);

#endif
