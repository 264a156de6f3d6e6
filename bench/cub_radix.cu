/*
 * CUB reference for bench_radix: times cub::DeviceRadixSort::SortKeys / SortPairs on key files named
 * DIST-LOG2N.u32 or .u64 (as bench_radix gen writes them; pairs: 4-byte values with either), with
 * CUDA events around each sort, after one
 * untimed run, and by wall time (host clock around the call + cudaDeviceSynchronize()); prints the
 * medians in bench_radix's RESULT format (impl=cub, gkeys from the events, wgkeys from wall time).
 *   cub_radix [--reps N] [--kinds keys,pairs] FILE...
 */
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "cub_radix: %s: %s\n", #call, cudaGetErrorString(e_));                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Sort only bits [0, end_bit) (--end-bit): what a caller who knows the key range can ask CUB for;
 * 0: every bit of the key type. */
static int end_bit = 0;

/* Wall time of the last time_one(): the host clock around the call + cudaDeviceSynchronize(), temp
 * storage allocated once beforehand, as clsort's bench times clsort_enqueue() + clFinish(). */
static double last_wall_ms;

static double host_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t m = v.size();
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

template <typename K> static double time_one(const K *host, size_t n, bool pairs, int reps)
{
    const int end_bit = ::end_bit ? ::end_bit : (int)sizeof(K) * 8;
    K *kin, *kout;
    uint32_t *vin = nullptr, *vout = nullptr;
    CK(cudaMalloc(&kin, n * sizeof(K)));
    CK(cudaMalloc(&kout, n * sizeof(K)));
    CK(cudaMemcpy(kin, host, n * sizeof(K), cudaMemcpyHostToDevice));
    std::vector<uint32_t> iota;
    if (pairs) {
        iota.resize(n);
        for (size_t i = 0; i < n; i++)
            iota[i] = (uint32_t)i;
        CK(cudaMalloc(&vin, n * 4));
        CK(cudaMalloc(&vout, n * 4));
        CK(cudaMemcpy(vin, iota.data(), n * 4, cudaMemcpyHostToDevice));
    }
    size_t temp = 0;
    if (pairs)
        CK(cub::DeviceRadixSort::SortPairs(nullptr, temp, kin, kout, vin, vout, n, 0, end_bit));
    else
        CK(cub::DeviceRadixSort::SortKeys(nullptr, temp, kin, kout, n, 0, end_bit));
    void *dtemp;
    CK(cudaMalloc(&dtemp, temp));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> ms;
    for (int r = 0; r <= reps; r++) {
        CK(cudaEventRecord(a));
        if (pairs)
            CK(cub::DeviceRadixSort::SortPairs(dtemp, temp, kin, kout, vin, vout, n, 0, end_bit));
        else
            CK(cub::DeviceRadixSort::SortKeys(dtemp, temp, kin, kout, n, 0, end_bit));
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        if (r > 0)
            ms.push_back(t);
    }
    std::vector<double> wall;
    for (int r = 0; r <= reps; r++) {
        CK(cudaDeviceSynchronize());
        const double t0 = host_ms();
        if (pairs)
            CK(cub::DeviceRadixSort::SortPairs(dtemp, temp, kin, kout, vin, vout, n, 0, end_bit));
        else
            CK(cub::DeviceRadixSort::SortKeys(dtemp, temp, kin, kout, n, 0, end_bit));
        CK(cudaDeviceSynchronize());
        if (r > 0)
            wall.push_back(host_ms() - t0);
    }
    last_wall_ms = median_of(wall);
    std::vector<K> out(n);
    std::vector<uint32_t> vals(pairs ? n : 0);
    CK(cudaMemcpy(out.data(), kout, n * sizeof(K), cudaMemcpyDeviceToHost));
    if (pairs)
        CK(cudaMemcpy(vals.data(), vout, n * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (size_t i = 1; i < n && ok; i++)
        ok = out[i - 1] <= out[i];
    for (size_t i = 0; i < vals.size() && ok; i++)
        ok = vals[i] < n && host[vals[i]] == out[i];
    cudaFree(kin);
    cudaFree(kout);
    cudaFree(vin);
    cudaFree(vout);
    cudaFree(dtemp);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    if (!ok) {
        fprintf(stderr, "cub_radix: WRONG RESULT n=%zu\n", n);
        return -1;
    }
    return median_of(ms);
}

int main(int argc, char **argv)
{
    int reps = 10;
    end_bit = 0;
    bool keys = true, pairs = true;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = std::max(1, atoi(argv[++i]));
        else if (!strcmp(argv[i], "--kinds") && i + 1 < argc) {
            keys = strstr(argv[i + 1], "keys") != nullptr;
            pairs = strstr(argv[i + 1], "pairs") != nullptr;
            i++;
        } else if (!strcmp(argv[i], "--end-bit") && i + 1 < argc) {
            end_bit = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: cub_radix [--reps N] [--kinds keys,pairs] [--end-bit B] FILE...\n");
            return 2;
        }
    }
    int rc = 0;
    for (; i < argc; i++) {
        std::string path = argv[i];
        std::string base = path.substr(path.find_last_of('/') + 1);
        size_t dash = base.find_last_of('-');
        std::string dist = base.substr(0, dash);
        int lg = atoi(base.c_str() + dash + 1);
        FILE *f = fopen(path.c_str(), "rb");
        if (!f) {
            perror(path.c_str());
            rc = 1;
            continue;
        }
        const bool wide = base.size() > 4 && base.compare(base.size() - 4, 4, ".u64") == 0;
        const size_t ks = wide ? 8 : 4;
        fseek(f, 0, SEEK_END);
        size_t n = (size_t)ftell(f) / ks;
        fseek(f, 0, SEEK_SET);
        std::vector<unsigned char> host(n * ks);
        if (fread(host.data(), ks, n, f) != n) {
            perror(path.c_str());
            fclose(f);
            rc = 1;
            continue;
        }
        fclose(f);
        for (int p = 0; p < 2; p++) {
            if ((p && !pairs) || (!p && !keys))
                continue;
            double ms = wide ? time_one((const uint64_t *)host.data(), n, p, reps)
                             : time_one((const uint32_t *)host.data(), n, p, reps);
            if (ms < 0)
                rc = 1;
            printf("RESULT impl=%s dist=%s log2n=%d n=%zu type=%s kind=%s gkeys=%.3f ms=%.4f "
                   "wall_ms=%.4f wgkeys=%.3f\n",
                   end_bit == 0 ? "cub" : ("cub-end" + std::to_string(end_bit)).c_str(), dist.c_str(), lg,
                   n, wide ? "u64" : "u32", p ? "pairs" : "keys", ms > 0 ? n / (ms * 1e6) : 0.0, ms,
                   last_wall_ms, last_wall_ms > 0 ? n / (last_wall_ms * 1e6) : 0.0);
            fflush(stdout);
        }
    }
    return rc;
}
