#include "CMallocInfo.h"
#include <stdio.h>
#include <unistd.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
void swidux_bench_prepare_malloc(void) { mallopt(M_MMAP_THRESHOLD, 16 * 1024); }
long long swidux_bench_malloc_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
}
#else
void swidux_bench_prepare_malloc(void) {}
long long swidux_bench_malloc_bytes_in_use(void) { return -1; }
#endif

long long swidux_bench_resident_bytes(void) {
    FILE *file = fopen("/proc/self/statm", "r");
    if (!file) return -1;
    long long size = 0, resident = 0;
    int read = fscanf(file, "%lld %lld", &size, &resident);
    fclose(file);
    if (read != 2) return -1;
    return resident * (long long)sysconf(_SC_PAGESIZE);
}
