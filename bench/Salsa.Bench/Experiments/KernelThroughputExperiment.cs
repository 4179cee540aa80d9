using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Ccr;
using Salsa.Clustering;
using Salsa.Clustering.Parallel;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Throughput of the clustering kernels in point·centre·dimension per second, against the
/// machine's measured floating-point peak and against a C/OpenMP reference of the same kernels
/// (bench/peers/kernels.c, gcc -O3 -march=native -fopenmp) on the same data in the same run; and the
/// binary kernel against the same fingerprints as float64 vectors.
/// </summary>
public sealed class KernelThroughputExperiment : IExperiment
{
    public string Name => "kernel-throughput";

    public string Description => "Kernel throughput vs the machine's FMA peak and a C/OpenMP reference; binary vs float64 fingerprints.";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var p = Environment.ProcessorCount;
        var seconds = context.Quick ? 0.5 : 3;
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = p, Name = "bench throughput", IdleSpin = TimeSpan.Zero, PinThreads = true });

        var peak = MeasurePeakGflops(p, context.Quick ? 0.2 : 1);
        context.Add($"cores={p}", "peak_gflops", peak, "GFLOP/s");

        var census = KernelData.Census();
        var rows = new List<IReadOnlyList<string>>();
        foreach (var (data, points, k) in new[] { ("census", census, 80), ("uniform-8d", KernelData.Uniform(200_000, 8), 40) })
        {
            foreach (var kind in new[] { KernelKind.Annealing, KernelKind.Lloyd })
            {
                cancellationToken.ThrowIfCancellationRequested();
                var harness = new KernelHarness<DenseKernel>(new DenseKernel(points), kind, k);
                var iterations = harness.IterationsFor(dispatcher, p, seconds);
                harness.Run(dispatcher, p, Math.Max(iterations / 5, 2), reduce: true);
                var ours = Statistics.Median([.. Enumerable.Range(0, 3).Select(_ => harness.Run(dispatcher, p, iterations, reduce: true).WallPerIteration)]);
                var kernelName = kind == KernelKind.Annealing ? "da" : "kmeans";
                var @case = $"kernel={kernelName},data={data},n={points.Count},d={points.Dimension},clusters={k},ranks={p}";
                var pcd = harness.PointCentreDimensions / ours;
                context.Add(@case, "seconds_per_step", ours, "s");
                context.Add(@case, "point_centre_dims_per_s", pcd, "1/s");
                // Distance alone is a subtract and a fused multiply-add per point·centre·dimension.
                context.Add(@case, "fraction_of_peak", pcd * 3 / (peak * 1e9), "ratio");

                var reference = RunReference(harness, points, kernelName, Math.Max(iterations, 5), p);
                if (reference is { } c)
                {
                    context.Add(@case, "c_reference_seconds_per_step", c, "s");
                    context.Add(@case, "ratio_to_c_reference", ours / c, "ratio");
                }

                rows.Add([kernelName, data, k.ToString(CultureInfo.InvariantCulture), ExperimentContext.Format(ours * 1e3), ExperimentContext.Format(pcd / 1e9),
                    ExperimentContext.Format(context.Value(@case, "fraction_of_peak")), ExperimentContext.Format(context.Value(@case, "c_reference_seconds_per_step") * 1e3),
                    ExperimentContext.Format(context.Value(@case, "ratio_to_c_reference"))]);
            }
        }

        // Fingerprints: bits against float64 (the paper found the binary representation fastest).
        var fingerprints = KernelData.Fingerprints();
        var dense = fingerprints.ToDense();
        var binaryHarness = new KernelHarness<BinaryKernel>(new BinaryKernel(fingerprints), KernelKind.Annealing, 20, 8192);
        var denseHarness = new KernelHarness<DenseKernel>(new DenseKernel(dense), KernelKind.Annealing, 20, 8192);
        var binaryIterations = binaryHarness.IterationsFor(dispatcher, p, seconds);
        var denseIterations = denseHarness.IterationsFor(dispatcher, p, seconds);
        binaryHarness.Run(dispatcher, p, 2, reduce: true);
        denseHarness.Run(dispatcher, p, 2, reduce: true);
        var binary = Statistics.Median([.. Enumerable.Range(0, 3).Select(_ => binaryHarness.Run(dispatcher, p, binaryIterations, reduce: true).WallPerIteration)]);
        var asDense = Statistics.Median([.. Enumerable.Range(0, 3).Select(_ => denseHarness.Run(dispatcher, p, denseIterations, reduce: true).WallPerIteration)]);
        var fpCase = $"kernel=da,data=chem-40k,n={fingerprints.Count},bits={fingerprints.Bits},clusters=20,ranks={p}";
        context.Add(fpCase + ",representation=binary", "seconds_per_step", binary, "s");
        context.Add(fpCase + ",representation=float64", "seconds_per_step", asDense, "s");
        context.Add(fpCase, "speedup_binary_over_float64", asDense / binary, "ratio");

        context.Section("Dense kernels against the C/OpenMP reference", string.Create(CultureInfo.InvariantCulture,
            $"Both on {p} cores, same points, centres and temperature; ours is the kernel the algorithms run, including the block-ordered reduction. " +
            $"Measured floating-point peak of this machine: {peak:F1} GFLOP/s (FMA loop on every core). Ratio = our time / C's time (below 1 = faster)."));
        context.Table(["kernel", "data", "clusters", "ours (ms/step)", "Gpcd/s", "share of peak", "C (ms/step)", "ours ÷ C"], rows);
        context.Section("Fingerprints as bits against float64", string.Create(CultureInfo.InvariantCulture,
            $"The annealing E-step on the 40,000 ECFP4 fingerprints, 20 clusters: {binary * 1e3:F2} ms per step as bits, {asDense * 1e3:F1} ms as 1,024 float64 coordinates — {asDense / binary:F1}× faster as bits."));
        return Task.CompletedTask;
    }

    private static double? RunReference<TKernel>(KernelHarness<TKernel> harness, DenseVectors points, string kernel, int iterations, int threads)
        where TKernel : struct, IPointKernel
    {
        if (Peers.BuildError is not null)
        {
            return null;
        }

        var input = Path.Combine(Path.GetTempPath(), $"salsa-kernels-{Environment.ProcessId}.bin");
        try
        {
            harness.WriteReferenceInput(input, points);
            var result = Peers.RunJson(Peers.PathOf("kernels"), [input, kernel, iterations.ToString(CultureInfo.InvariantCulture), threads.ToString(CultureInfo.InvariantCulture)], TimeSpan.FromMinutes(10));
            return result.GetProperty("seconds_per_iteration").GetDouble();
        }
        finally
        {
            File.Delete(input);
        }
    }

    /// <summary>Double-precision FMA throughput with every core busy: 8 independent chains per core.</summary>
    private static double MeasurePeakGflops(int cores, double seconds)
    {
        var flops = new double[cores];
        var threads = Enumerable.Range(0, cores).Select(c => new Thread(() => flops[c] = FmaLoop(seconds))).ToArray();
        foreach (var t in threads)
        {
            t.Start();
        }

        foreach (var t in threads)
        {
            t.Join();
        }

        return flops.Sum() / 1e9;
    }

    private static double FmaLoop(double seconds)
    {
        var rounds = 1_000;
        while (true)
        {
            var start = Stopwatch.GetTimestamp();
            var iterations = FmaChains(rounds);
            var elapsed = Stopwatch.GetElapsedTime(start).TotalSeconds;
            if (elapsed >= seconds)
            {
                return iterations * 8.0 * Vector512<double>.Count * 2 / elapsed;
            }

            rounds *= 2;
        }
    }

    private static double s_sink;

    // Eight independent FMA chains with distinct starting values (identical chains could be folded
    // into one), the iteration count taken inside the loop.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    private static long FmaChains(int rounds)
    {
        var a0 = Vector512.Create(1.0); var a1 = Vector512.Create(1.001); var a2 = Vector512.Create(1.002); var a3 = Vector512.Create(1.003);
        var a4 = Vector512.Create(1.004); var a5 = Vector512.Create(1.005); var a6 = Vector512.Create(1.006); var a7 = Vector512.Create(1.007);
        var m = Vector512.Create(0.9999999);
        var c = Vector512.Create(1e-9);
        long n = 0;
        for (var r = 0; r < rounds; r++)
        {
            for (var i = 0; i < 1000; i++)
            {
                a0 = Vector512.FusedMultiplyAdd(a0, m, c); a1 = Vector512.FusedMultiplyAdd(a1, m, c);
                a2 = Vector512.FusedMultiplyAdd(a2, m, c); a3 = Vector512.FusedMultiplyAdd(a3, m, c);
                a4 = Vector512.FusedMultiplyAdd(a4, m, c); a5 = Vector512.FusedMultiplyAdd(a5, m, c);
                a6 = Vector512.FusedMultiplyAdd(a6, m, c); a7 = Vector512.FusedMultiplyAdd(a7, m, c);
                n++;
            }
        }

        // Every lane must be consumed: if only one were, the JIT could narrow the vectors.
        Volatile.Write(ref s_sink, Vector512.Sum(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7));
        return n;
    }
}
