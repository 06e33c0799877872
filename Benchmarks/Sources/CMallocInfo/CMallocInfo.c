#include "CMallocInfo.h"
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
long long swidux_bench_malloc_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
}
#else
long long swidux_bench_malloc_bytes_in_use(void) { return -1; }
#endif
