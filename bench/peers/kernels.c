/* C/OpenMP reference of the two clustering kernels Salsa.Clustering runs, for kernel-throughput.
 *
 * Usage: kernels <input.bin> <da|kmeans> <iterations> <threads>
 * Input (little-endian): int32 n, int32 d, int32 k, double inverseT, then n*d doubles (points,
 * row-major), n doubles (weights), k*d doubles (centres, row-major), k doubles (log masses).
 * Each iteration does exactly what one E-step (da) or one Lloyd assignment (kmeans) pass does in
 * Salsa.Clustering: squared distances to every centre; for da, log-sum-exp of log m_k - d_k/T and
 * accumulation of masses, centre numerators and sum w log Z; for kmeans, the nearest centre and
 * accumulation of weights, sums and inertia. Per-thread partials are combined after each pass.
 * Prints one JSON line: seconds per iteration (median of the timed iterations) and a checksum.
 * Built with gcc -O3 -march=native -fopenmp (bench/peers/build.sh). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: kernels input.bin da|kmeans iterations threads\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    int n, d, k; double inverse_t;
    if (fread(&n, 4, 1, f) != 1 || fread(&d, 4, 1, f) != 1 || fread(&k, 4, 1, f) != 1 || fread(&inverse_t, 8, 1, f) != 1) return 1;
    double *x = malloc(sizeof(double) * (size_t)n * d), *w = malloc(sizeof(double) * n);
    double *c = malloc(sizeof(double) * (size_t)k * d), *logm = malloc(sizeof(double) * k);
    if (fread(x, 8, (size_t)n * d, f) != (size_t)n * d || fread(w, 8, n, f) != (size_t)n ||
        fread(c, 8, (size_t)k * d, f) != (size_t)k * d || fread(logm, 8, k, f) != (size_t)k) return 1;
    fclose(f);
    int da = strcmp(argv[2], "da") == 0, iterations = atoi(argv[3]), threads = atoi(argv[4]);
    omp_set_num_threads(threads);
    int len = k + k * d + 2;
    double *partials = calloc((size_t)threads * (len + 16), sizeof(double));
    double *total = malloc(sizeof(double) * len);
    double *times = malloc(sizeof(double) * iterations);
    double checksum = 0;

    for (int it = -2; it < iterations; it++) {          /* two untimed warm-up passes */
        double start = omp_get_wtime();
        #pragma omp parallel
        {
            int t = omp_get_thread_num();
            double *p = partials + (size_t)t * (len + 16);
            memset(p, 0, sizeof(double) * len);
            double *dist = malloc(sizeof(double) * k);
            #pragma omp for schedule(static)
            for (int i = 0; i < n; i++) {
                const double *xi = x + (size_t)i * d;
                for (int j = 0; j < k; j++) {
                    double s = 0;
                    for (int a = 0; a < d; a++) { double diff = xi[a] - c[j * d + a]; s += diff * diff; }
                    dist[j] = s;
                }
                if (da) {
                    double max = -INFINITY;
                    for (int j = 0; j < k; j++) { dist[j] = logm[j] - dist[j] * inverse_t; if (dist[j] > max) max = dist[j]; }
                    double sum = 0;
                    for (int j = 0; j < k; j++) { dist[j] = exp(dist[j] - max); sum += dist[j]; }
                    double scale = w[i] / sum;
                    for (int j = 0; j < k; j++) {
                        double r = dist[j] * scale;
                        p[j] += r;
                        for (int a = 0; a < d; a++) p[k + j * d + a] += r * xi[a];
                    }
                    p[len - 2] += w[i] * (max + log(sum));
                } else {
                    int best = 0;
                    for (int j = 1; j < k; j++) if (dist[j] < dist[best]) best = j;
                    p[best] += w[i];
                    for (int a = 0; a < d; a++) p[k + best * d + a] += w[i] * xi[a];
                    p[len - 2] += w[i] * dist[best];
                }
            }
            free(dist);
        }
        memset(total, 0, sizeof(double) * len);
        for (int t = 0; t < threads; t++)
            for (int e = 0; e < len; e++) total[e] += partials[(size_t)t * (len + 16) + e];
        double elapsed = omp_get_wtime() - start;
        if (it >= 0) times[it] = elapsed;
        checksum = total[len - 2];
    }
    qsort(times, iterations, sizeof(double), compare);
    printf("{\"kernel\": \"%s\", \"n\": %d, \"d\": %d, \"k\": %d, \"threads\": %d, \"seconds_per_iteration\": %.9g, \"checksum\": %.17g}\n",
           argv[2], n, d, k, threads, times[iterations / 2], checksum);
    return 0;
}
