/*
 * CUB reference for bench_segments: times cub::DeviceSegmentedSort::StableSortKeys /
 * StableSortPairs of 2^LOG2N uniform u32 keys (benchgen.h) in the segments of a mix (benchgen.h:
 * empty, single keys, ... millions, in one call), by wall time: the host clock around the call +
 * cudaDeviceSynchronize(), temporary storage allocated once beforehand, the median of --reps runs
 * after one untimed run, as bench_segments times clsort_enqueue_segments() + clFinish(). Every run
 * sorts the same input (CUB sorts out of place). Prints RESULT lines as bench_segments does.
 *   cub_segments [--reps N] [--kinds keys,pairs] [--mixes mixed,small,...] LOG2N...
 * Build: nvcc -O3 -std=c++17 -arch=sm_90 -I bench -o cub_segments bench/cub_segments.cu
 */
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "benchgen.h"

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "cub_segments: %s: %s\n", #call, cudaGetErrorString(e_));             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double host_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t m = v.size();
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* One CUB call: sizes the temporary storage when temp is null. */
static void sort_once(void *temp, size_t &bytes, const uint32_t *kin, uint32_t *kout,
                      const uint32_t *vin, uint32_t *vout, int n, int n_seg, const int *off,
                      bool pairs)
{
    if (pairs)
        CK(cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, kin, kout, vin, vout, n, n_seg,
                                                     off, off + 1));
    else
        CK(cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, kin, kout, n, n_seg, off,
                                                    off + 1));
}

/* The median wall time of reps sorts, or -1 when the result is wrong. */
static double time_mix(const std::vector<uint32_t> &host, const std::vector<int> &off, bool pairs,
                       int reps)
{
    const int n = (int)host.size(), n_seg = (int)off.size() - 1;
    uint32_t *kin, *kout, *vin = nullptr, *vout = nullptr;
    int *doff;
    CK(cudaMalloc(&kin, n * 4 + 4));
    CK(cudaMalloc(&kout, n * 4 + 4));
    CK(cudaMalloc(&doff, off.size() * sizeof(int)));
    CK(cudaMemcpy(kin, host.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(doff, off.data(), off.size() * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<uint32_t> iota(pairs ? n : 0);
    if (pairs) {
        for (int i = 0; i < n; i++)
            iota[i] = (uint32_t)i;
        CK(cudaMalloc(&vin, n * 4 + 4));
        CK(cudaMalloc(&vout, n * 4 + 4));
        CK(cudaMemcpy(vin, iota.data(), n * 4, cudaMemcpyHostToDevice));
    }
    size_t bytes = 0;
    sort_once(nullptr, bytes, kin, kout, vin, vout, n, n_seg, doff, pairs);
    void *temp;
    CK(cudaMalloc(&temp, bytes ? bytes : 1));
    std::vector<double> wall;
    for (int r = 0; r <= reps; r++) {
        CK(cudaDeviceSynchronize());
        const double t0 = host_ms();
        sort_once(temp, bytes, kin, kout, vin, vout, n, n_seg, doff, pairs);
        CK(cudaDeviceSynchronize());
        if (r > 0)
            wall.push_back(host_ms() - t0);
    }
    std::vector<uint32_t> out(n), vals(pairs ? n : 0);
    CK(cudaMemcpy(out.data(), kout, n * 4, cudaMemcpyDeviceToHost));
    if (pairs)
        CK(cudaMemcpy(vals.data(), vout, n * 4, cudaMemcpyDeviceToHost));
    /* each segment in order; with values, each value the index of its key, stable */
    bool ok = true;
    for (int s = 0; s < n_seg && ok; s++)
        for (int i = off[s] + 1; i < off[s + 1] && ok; i++)
            ok = out[i - 1] < out[i] ||
                 (out[i - 1] == out[i] && (!pairs || vals[i - 1] < vals[i]));
    for (int i = 0; i < (int)vals.size() && ok; i++)
        ok = vals[i] < (uint32_t)n && host[vals[i]] == out[i];
    cudaFree(kin);
    cudaFree(kout);
    cudaFree(vin);
    cudaFree(vout);
    cudaFree(doff);
    cudaFree(temp);
    if (!ok) {
        fprintf(stderr, "cub_segments: WRONG RESULT n=%d\n", n);
        return -1;
    }
    return median_of(wall);
}

int main(int argc, char **argv)
{
    int reps = 10;
    bool keys = true, pairs = true;
    std::string mixes = "mixed,small,medium,large";
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = std::max(1, atoi(argv[++i]));
        } else if (!strcmp(argv[i], "--kinds") && i + 1 < argc) {
            keys = strstr(argv[i + 1], "keys") != nullptr;
            pairs = strstr(argv[i + 1], "pairs") != nullptr;
            i++;
        } else if (!strcmp(argv[i], "--mixes") && i + 1 < argc) {
            mixes = argv[++i];
        } else {
            fprintf(stderr, "usage: cub_segments [--reps N] [--kinds keys,pairs] "
                            "[--mixes mixed,small,medium,large] LOG2N...\n");
            return 2;
        }
    }
    int rc = 0;
    for (; i < argc; i++) {
        const int lg = atoi(argv[i]);
        if (lg < 1 || lg > 30) {
            fprintf(stderr, "cub_segments: log2 n %s: expected 1 to 30\n", argv[i]);
            return 2;
        }
        const uint64_t n = (uint64_t)1 << lg;
        std::vector<uint32_t> host(n);
        for (uint64_t k = 0; k < n; k++)
            host[k] = benchgen_key(k, n, 1);
        std::vector<uint64_t> off64(2 * n + 2);
        size_t from = 0;
        while (from <= mixes.size()) {
            size_t to = mixes.find(',', from);
            if (to == std::string::npos)
                to = mixes.size();
            const std::string mix = mixes.substr(from, to - from);
            from = to + 1;
            const long long n_seg = benchgen_segments(mix.c_str(), n, off64.data());
            if (n_seg < 0) {
                fprintf(stderr, "cub_segments: unknown mix %s\n", mix.c_str());
                return 2;
            }
            std::vector<int> off(off64.begin(), off64.begin() + n_seg + 1);
            for (int p = 0; p < 2; p++) {
                if ((p && !pairs) || (!p && !keys))
                    continue;
                const double ms = time_mix(host, off, p, reps);
                if (ms < 0)
                    rc = 1;
                printf("RESULT impl=cub-seg mix=%s log2n=%d n=%llu nseg=%lld kind=%s wall_ms=%.4f "
                       "wgkeys=%.3f\n",
                       mix.c_str(), lg, (unsigned long long)n, n_seg, p ? "pairs" : "keys", ms,
                       ms > 0 ? n / (ms * 1e6) : 0.0);
                fflush(stdout);
            }
        }
    }
    return rc;
}
