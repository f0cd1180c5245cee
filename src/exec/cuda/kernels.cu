// tickopt's device modes (doc/gpu.md), compiled at run time with NVRTC.
//
// The device twin of src/exec/flow.rs: the same arrays, the same split of
// a transfer into pieces (flow::piece), the same split of a barrier tick
// into units (flow::barrier_units). Change both together; the CPU
// emulation (flow::emulate) is how the algorithm is tested without a GPU.
//
// Both kernels need every block resident at once (they spin on flags set
// by other blocks); the host launches them cooperatively, which guarantees
// that or fails.

typedef unsigned long long u64;
typedef unsigned int u32;

#define TICKOPT_NONE 0xffffffffu
#define TICKOPT_PIECE_ALIGN 16ull

struct alignas(16) tickopt_word {
    u64 a, b;
};

__device__ __forceinline__ u32 tickopt_load_acquire(const u32* p) {
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void tickopt_add_release(u32* p, u32 v) {
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Piece k of `parts` of a len-byte transfer: equal shares rounded up to
// 16 bytes, the last shorter, trailing ones empty (flow::piece).
__device__ __forceinline__ void tickopt_piece(u64 len, u64 parts, u64 k, u64* start, u64* end) {
    u64 p = parts == 0 ? 1 : parts;
    u64 share = (len + p - 1) / p;
    share = (share + TICKOPT_PIECE_ALIGN - 1) / TICKOPT_PIECE_ALIGN * TICKOPT_PIECE_ALIGN;
    u64 s = k * share;
    if (s > len) s = len;
    u64 e = s + share;
    if (e > len) e = len;
    *start = s;
    *end = e;
}

// The whole block copies n bytes: 16-byte words where source and
// destination share their alignment (always, for a plan: both sit at the
// same offset inside 256-byte-aligned regions), bytes at the edges.
__device__ __forceinline__ void tickopt_copy(unsigned char* dst, const unsigned char* src, u64 n) {
    u64 head = n;
    if ((((u64)dst ^ (u64)src) & 15) == 0) {
        head = (16 - ((u64)dst & 15)) & 15;
        if (head > n) head = n;
    }
    for (u64 k = threadIdx.x; k < head; k += blockDim.x) dst[k] = src[k];
    u64 words = (n - head) / 16;
    const tickopt_word* s = (const tickopt_word*)(src + head);
    tickopt_word* d = (tickopt_word*)(dst + head);
    for (u64 k = threadIdx.x; k < words; k += blockDim.x) d[k] = s[k];
    for (u64 k = head + words * 16 + threadIdx.x; k < n; k += blockDim.x) dst[k] = src[k];
}

// Dataflow: block b walks queue b / parts (one sender port's transfers, or
// several folded, in increasing order) and copies piece b % parts of each
// transfer once its sender's previous send and its receiver's previous
// receive are done (their counters reached `parts`). No tick boundary.
// `done` is zeroed before every launch.
extern "C" __global__ void tickopt_dataflow(unsigned char* arena, const u64* src, const u64* dst,
                                            const u64* len, const u32* prev_send,
                                            const u32* prev_recv, const u32* queue_start,
                                            const u32* queue_items, u32* done, u32 parts) {
    const u32 q = blockIdx.x / parts;
    const u32 k = blockIdx.x % parts;
    const u32 first = queue_start[q];
    const u32 last = queue_start[q + 1];
    for (u32 x = first; x < last; ++x) {
        const u32 i = queue_items[x];
        if (threadIdx.x == 0) {
            const u32 a = prev_send[i];
            const u32 b = prev_recv[i];
            if (a != TICKOPT_NONE)
                while (tickopt_load_acquire(done + a) < parts) {
                }
            if (b != TICKOPT_NONE)
                while (tickopt_load_acquire(done + b) < parts) {
                }
        }
        __syncthreads();
        u64 s, e;
        tickopt_piece(len[i], parts, k, &s, &e);
        if (e > s) tickopt_copy(arena + dst[i] + s, arena + src[i] + s, e - s);
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            tickopt_add_release(done + i, 1);
        }
    }
}

// Barrier per tick: every block copies its units of tick t (each transfer
// in max(1, grid / n) pieces, units dealt round-robin), then all blocks
// meet at a grid-wide barrier (a counter that reaches grid * (t + 1)).
// `bar` is zeroed before every launch.
extern "C" __global__ void tickopt_barrier(unsigned char* arena, const u64* src, const u64* dst,
                                           const u64* len, const u32* tick_start, u32 ticks,
                                           u32* bar) {
    const u32 grid = gridDim.x;
    for (u32 t = 0; t < ticks; ++t) {
        const u32 a = tick_start[t];
        const u32 n = tick_start[t + 1] - a;
        u32 parts = n == 0 ? 1 : grid / n;
        if (parts == 0) parts = 1;
        const u64 units = (u64)n * parts;
        for (u64 u = blockIdx.x; u < units; u += grid) {
            const u32 i = a + (u32)(u / parts);
            u64 s, e;
            tickopt_piece(len[i], parts, u % parts, &s, &e);
            if (e > s) tickopt_copy(arena + dst[i] + s, arena + src[i] + s, e - s);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            tickopt_add_release(bar, 1);
            const u32 target = grid * (t + 1);
            while (tickopt_load_acquire(bar) < target) {
            }
        }
        __syncthreads();
    }
}
