/* Exchange latency of Open MPI, the baseline of paper 000 Table III.
 * Each rank sends a zero-byte message to its left and right neighbours on a ring and receives one
 * from each (MPI_Sendrecv rightward, then leftward: the MPI_SENDRECV exchange the paper times).
 * Prints one JSON object: ranks, iterations, latency_us (mean per exchange, slowest rank). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = argc > 1 ? atol(argv[1]) : 100000;
    long warmup = argc > 2 ? atol(argv[2]) : iterations / 10;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    char send = 0, recv = 0;

    for (int phase = 0; phase < 2; phase++) {
        long n = phase == 0 ? warmup : iterations;
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            MPI_Sendrecv(&send, 0, MPI_CHAR, right, 1, &recv, 0, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&send, 0, MPI_CHAR, left, 2, &recv, 0, MPI_CHAR, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        double elapsed = MPI_Wtime() - start, slowest = 0;
        MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (phase == 1 && rank == 0) {
            printf("{\"ranks\": %d, \"iterations\": %ld, \"latency_us\": %.4f}\n", size, n, slowest / n * 1e6);
        }
    }
    MPI_Finalize();
    return 0;
}
