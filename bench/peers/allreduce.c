/* The machine level's floor: Open MPI's MPI_Allreduce (sum) of one pass's sums, K x (D + 1)
 * doubles, among the same number of processes as silos — what a pass's messaging would cost if it
 * were an MPI job. Over TCP when run with --mca btl tcp,self (the grid benchmark does), so it
 * crosses the same loopback (or network namespace) as the silos' calls.
 * Usage: allreduce <doubles> <iterations> <warmup>. Prints one JSON object: ranks, doubles,
 * iterations, allreduce_us (mean per call, slowest rank). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int doubles = argc > 1 ? atoi(argv[1]) : 300;
    long iterations = argc > 2 ? atol(argv[2]) : 10000;
    long warmup = argc > 3 ? atol(argv[3]) : iterations / 10;
    double *send = malloc(sizeof(double) * doubles), *recv = malloc(sizeof(double) * doubles);
    for (int i = 0; i < doubles; i++) send[i] = rank + i * 1e-3;

    for (int phase = 0; phase < 2; phase++) {
        long n = phase == 0 ? warmup : iterations;
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            MPI_Allreduce(send, recv, doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        double elapsed = MPI_Wtime() - start, slowest = 0;
        MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (phase == 1 && rank == 0) {
            printf("{\"ranks\": %d, \"doubles\": %d, \"iterations\": %ld, \"allreduce_us\": %.4f}\n", size, doubles, n, slowest / n * 1e6);
        }
    }
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
