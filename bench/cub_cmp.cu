// CUB reference for the comparison sorts: DeviceMergeSort::SortKeys (less) on a whole array and
// DeviceSegmentedSort::SortKeys on equal segments, on the keys of the same input file as bench_cmp.
// Median of CUDA-event times after a warm-up; the input is restored before every run (not timed).
//
//   cub_cmp merge FILE [REPS [N]]
//   cub_cmp segmented FILE SEGMENT [REPS [N]]
//
// Prints one line: cub-merge|cub-segmented n segment median_ms gkeys_per_s.
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct Less {
    __device__ bool operator()(uint32_t a, uint32_t b) const { return a < b; }
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s merge FILE [REPS [N]] | segmented FILE SEGMENT [REPS [N]]\n", argv[0]);
        return 2;
    }
    const bool seg_mode = !strcmp(argv[1], "segmented");
    int a = 3;
    size_t segment = 0;
    if (seg_mode)
        segment = strtoull(argv[a++], nullptr, 0);
    const int reps = argc > a ? atoi(argv[a]) : 10;
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f) / 4;
    rewind(f);
    if (argc > a + 1 && strtoull(argv[a + 1], nullptr, 0) < n)
        n = strtoull(argv[a + 1], nullptr, 0);
    std::vector<uint32_t> h(n), out(n);
    if (fread(h.data(), 4, n, f) != n)
        return 1;
    fclose(f);

    uint32_t *d_in, *d_keys, *d_out;
    CK(cudaMalloc(&d_in, n * 4));
    CK(cudaMalloc(&d_keys, n * 4));
    CK(cudaMalloc(&d_out, n * 4));
    CK(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
    const size_t nseg = segment ? (n + segment - 1) / segment : 1;
    std::vector<int> offs(nseg + 1);
    for (size_t i = 0; i <= nseg; i++)
        offs[i] = (int)std::min(i * (segment ? segment : n), n);
    int *d_offs;
    CK(cudaMalloc(&d_offs, offs.size() * sizeof(int)));
    CK(cudaMemcpy(d_offs, offs.data(), offs.size() * sizeof(int), cudaMemcpyHostToDevice));

    size_t temp_bytes = 0;
    if (seg_mode)
        CK(cub::DeviceSegmentedSort::SortKeys(nullptr, temp_bytes, d_keys, d_out, (int)n, (int)nseg,
                                              d_offs, d_offs + 1));
    else
        CK(cub::DeviceMergeSort::SortKeys(nullptr, temp_bytes, d_keys, (int64_t)n, Less()));
    void *d_temp;
    CK(cudaMalloc(&d_temp, temp_bytes ? temp_bytes : 1));

    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int r = -2; r < reps; r++) {
        CK(cudaMemcpy(d_keys, d_in, n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e0));
        if (seg_mode)
            CK(cub::DeviceSegmentedSort::SortKeys(d_temp, temp_bytes, d_keys, d_out, (int)n, (int)nseg,
                                                  d_offs, d_offs + 1));
        else
            CK(cub::DeviceMergeSort::SortKeys(d_temp, temp_bytes, d_keys, (int64_t)n, Less()));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (r >= 0)
            ms.push_back(t);
    }
    CK(cudaMemcpy(out.data(), seg_mode ? d_out : d_keys, n * 4, cudaMemcpyDeviceToHost));
    for (size_t s = 0; s < nseg; s++)
        std::sort(h.begin() + offs[s], h.begin() + offs[s + 1]);
    if (h != out) {
        fprintf(stderr, "cub: WRONG RESULT\n");
        return 1;
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    printf("%s %zu %zu %.4f %.3f\n", seg_mode ? "cub-segmented" : "cub-merge", n, segment, med,
           n / (med * 1e6));
    return 0;
}
