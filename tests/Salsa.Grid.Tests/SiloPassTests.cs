using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Partitions;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// A pass folded per silo: each silo computing all of its partitions, adding them up in the
/// reduction tree's order with the answers of the silos below it in the fan-in tree — the same
/// bits as the grid in one process, on any silo count, with several coordinators passing over the
/// same partitions at once and with a silo stopped mid-tree.
/// </summary>
public sealed class SiloPassTests(PostgresFixture postgres)
{
    private const int Partitions = 7;
    private const int Clusters = 9;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Passes_OnTwoSilos_AreOneCallPerSilo_WithTheBitsOfTheGridInOneProcess_UnderConcurrentCoordinators()
    {
        var mixture = new Mixture(9_001, 3);
        var (first, second, pass, expected) = await TwoSilosAsync(mixture);
        using var firstSilo = first;
        using var secondSilo = second;
        var factory = first.Services.GetRequiredService<IGrainFactory>();

        // Counted in this process, where both silos run: a partition a silo's pass did not hold.
        var forwarded = 0L;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == GridTelemetry.Name && instrument.Name == "salsa.grid.pass.forwarded")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, value, _, _) => Interlocked.Add(ref forwarded, value));
        listener.Start();

        // Four coordinators over the same grid, each on its own thread as a job's loop runs, their
        // passes and the assignments between them racing for the same partitions.
        const int Passes = 40;
        var grids = await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(() => GrainPartitions.Open(factory, mixture.Id, Partitions, TimeSpan.FromSeconds(30), Token))));
        var assigned = await Task.WhenAll(grids.Select(grid => Task.Run(() =>
        {
            var rows = 0;
            for (var p = 0; p < Passes; p++)
            {
                var sums = grid.Reduce(pass, Token);
                Assert.Equal(expected.Select(BitConverter.DoubleToInt64Bits), sums.Select(BitConverter.DoubleToInt64Bits));
                if (p % 8 == 0)
                {
                    rows += grid.Assign(pass, Token).Assignments.Length;
                }
            }

            return rows;
        })));

        foreach (var grid in grids)
        {
            Assert.Equal(2, grid.Silos.Length);
            Assert.Equal(2L * Passes, grid.SiloCalls);
            Assert.Equal(0, grid.Statistics.Retries);
            Assert.Equal(Passes, grid.Statistics.Passes);
        }

        Assert.All(assigned, rows => Assert.Equal(5 * mixture.Count, rows));
        // Every pass computed where its partitions live (the first one activated them there).
        Assert.Equal(0, Interlocked.Read(ref forwarded));
    }

    [Fact]
    public async Task Passes_FromACoordinatorOnASilo_ComputeThatSilosPartitionsInPlace_AndCallTheOtherOnce()
    {
        var mixture = new Mixture(6_007, 4);
        var (first, second, pass, expected) = await TwoSilosAsync(mixture);
        using var firstSilo = first;
        using var secondSilo = second;
        var here = Here(first);

        const int Passes = 30;
        var grid = await Task.Run(() => GrainPartitions.Open(first.Services.GetRequiredService<IGrainFactory>(), mixture.Id, Partitions, TimeSpan.FromSeconds(30), Token, here));
        for (var p = 0; p < Passes; p++)
        {
            var sums = await Task.Run(() => grid.Reduce(pass, Token));
            Assert.Equal(expected.Select(BitConverter.DoubleToInt64Bits), sums.Select(BitConverter.DoubleToInt64Bits));
        }

        Assert.Equal(2, grid.Silos.Length);
        Assert.Contains(here.Identity, grid.Silos);
        Assert.Equal(Passes, grid.InPlace);
        Assert.Equal(Passes, grid.SiloCalls);
        Assert.Equal(0, grid.Statistics.Retries);
    }

    [Fact]
    public async Task Passes_OnSixSilos_GoDownAFanInTree_TheCoordinatorHearsFromTwo_WithTheSameBits_AndASiloStoppedMidTreeIsAskedAround()
    {
        // Thirteen partitions (no power of two) over six silos, a fan-in of two: the coordinator
        // calls two silos, each calls the two after it in partition order and answers for all three.
        const int Many = 13;
        var mixture = new Mixture(8_011, 6);
        var pass = EStep(mixture);
        double[] expected;
        using (var local = new LocalPartitions(mixture.Vectors, Many, new ParallelismOptions { Ranks = 2 }))
        {
            expected = local.Reduce(pass, Token);
        }

        var connectionString = await postgres.NewDatabaseAsync();
        var clusterId = $"tree-{Guid.NewGuid():N}";
        var store = Silos.PostgresStore(connectionString);
        var silos = new List<IHost>();
        try
        {
            for (var s = 0; s < 6; s++)
            {
                silos.Add(await Silos.StartAsync(connectionString, clusterId, store));
            }

            await Silos.ActiveSilosAsync(silos[0], 6);
            await mixture.StoreAsync(silos[0].Services.GetRequiredService<IDataStore>(), Token);
            var factory = silos[0].Services.GetRequiredService<IGrainFactory>();
            var grid = await Task.Run(() => GrainPartitions.Open(factory, mixture.Id, Many, TimeSpan.FromSeconds(60), Token));
            grid.FanIn = 2;

            // Placement keeps each silo's partitions contiguous: few whole subtrees to add up.
            var infos = await Task.WhenAll(PartitionKey.Grid(mixture.Id, Many).Select(k => factory.GetGrain<IPartitionGrain>(k.ToGrainKey()).InfoAsync()));
            var runs = infos.Select((info, index) => (info.Silo, index)).GroupBy(x => x.Silo).Select(g => g.Select(x => x.index).ToArray()).ToArray();
            Assert.Equal(6, runs.Length);
            Assert.All(runs, run => Assert.Equal(run[^1] - run[0] + 1, run.Length));

            const int Passes = 25;
            for (var p = 0; p < Passes; p++)
            {
                var sums = await Task.Run(() => grid.Reduce(pass, Token));
                Assert.Equal(expected.Select(BitConverter.DoubleToInt64Bits), sums.Select(BitConverter.DoubleToInt64Bits));
            }

            Assert.Equal(6, grid.Silos.Length);
            Assert.Equal(2L * Passes, grid.SiloCalls);
            Assert.Equal(0, grid.Statistics.Retries);
            Assert.Equal(Passes, grid.Statistics.Passes);
            Assert.True(grid.Statistics.CpuMicroseconds > 0);

            // A silo below a subtree's root stops: its parent answers for the rest and names its
            // partitions missing; the coordinator asks those of their grains (activated on the
            // survivors) — the same bits — and the next passes go down a tree of five.
            // (Silos in partition order: the second, third, fifth and sixth are children of a
            // subtree's root; not the silo whose factory the coordinator uses.)
            var factoryIdentity = silos[0].Services.GetRequiredService<ILocalSiloDetails>().SiloAddress.ToString();
            var belowIdentity = new[] { 1, 2, 4, 5 }.Select(r => infos[runs[r][0]].Silo).First(s => s != factoryIdentity);
            var below = silos.Single(s => s.Services.GetRequiredService<ILocalSiloDetails>().SiloAddress.ToString() == belowIdentity);
            Assert.Contains(belowIdentity, grid.Silos);
            await below.StopAsync(Token);
            below.Dispose();
            silos.Remove(below);
            for (var p = 0; p < 10; p++)
            {
                var sums = await Task.Run(() => grid.Reduce(pass, Token));
                Assert.Equal(expected.Select(BitConverter.DoubleToInt64Bits), sums.Select(BitConverter.DoubleToInt64Bits));
            }

            Assert.True(grid.Statistics.Retries > 0);
            Assert.DoesNotContain(belowIdentity, grid.Silos);
            Assert.Equal(5, grid.Silos.Length);
            Assert.Equal(2L * (Passes + 10), grid.SiloCalls);
        }
        finally
        {
            foreach (var silo in silos)
            {
                await silo.StopAsync(CancellationToken.None);
                silo.Dispose();
            }
        }
    }

    [Fact]
    public async Task KMeansSeeding_FromACoordinatorOnASilo_ComputesThatSilosPartitionsInPlace_WithTheBitsOfTheGridInOneProcess()
    {
        var mixture = new Mixture(6_007, 5);
        var options = new KMeansOptions { Clusters = Clusters, Restarts = 2, Seed = 7 };
        KMeansResult expected;
        using (var local = new LocalPartitions(mixture.Vectors, Partitions, new ParallelismOptions { Ranks = 2 }))
        {
            expected = WeightedKMeans.Run(local, options, cancellationToken: Token);
        }

        var (first, second, _, _) = await TwoSilosAsync(mixture);
        using var firstSilo = first;
        using var secondSilo = second;
        var factory = first.Services.GetRequiredService<IGrainFactory>();

        // A coordinator on the first silo: its partitions' seeding steps computed in place, on the
        // state their grains keep; the second silo's asked of their grains.
        var grid = await Task.Run(() => GrainPartitions.Open(factory, mixture.Id, Partitions, TimeSpan.FromSeconds(30), Token, Here(first)));
        var onTwo = await Task.Run(() => WeightedKMeans.Run(grid, options, cancellationToken: Token));
        Mixture.AssertSameBits(expected, onTwo);
        Assert.Equal(2, grid.Silos.Length);
        Assert.True(grid.Seeding.InPlace > 0 && grid.Seeding.Calls > 0, $"{grid.Seeding}");

        // From a client (no silo of its own): a step is one call per silo (a draw one call to the
        // partition it falls in), each silo computing its partitions on the state their grains
        // keep; the same bits again.
        var remote = await Task.Run(() => GrainPartitions.Open(factory, mixture.Id, Partitions, TimeSpan.FromSeconds(30), Token));
        Mixture.AssertSameBits(expected, await Task.Run(() => WeightedKMeans.Run(remote, options, cancellationToken: Token)));
        Assert.Equal(0, remote.Seeding.InPlace);
        Assert.InRange(remote.Seeding.Calls, remote.Seeding.Steps, 2 * remote.Seeding.Steps);

        // One silo (the embedded default): a seeding makes no grain call at all.
        var connectionString = await postgres.NewDatabaseAsync();
        var store = Silos.PostgresStore(connectionString);
        using var alone = await Silos.StartAsync(connectionString, $"alone-{Guid.NewGuid():N}", store);
        await mixture.StoreAsync(alone.Services.GetRequiredService<IDataStore>(), Token);
        var single = await Task.Run(() => GrainPartitions.Open(alone.Services.GetRequiredService<IGrainFactory>(), mixture.Id, Partitions, TimeSpan.FromSeconds(30), Token, Here(alone)));
        Mixture.AssertSameBits(expected, await Task.Run(() => WeightedKMeans.Run(single, options, cancellationToken: Token)));
        Assert.Equal(0, single.Seeding.Calls);
        Assert.True(single.Seeding.InPlace > 0);
    }

    private static LocalSilo Here(IHost silo) => new(
        silo.Services.GetRequiredService<ILocalSiloDetails>().SiloAddress.ToString(),
        silo.Services.GetRequiredService<SiloPartitions>(),
        silo.Services.GetRequiredService<Compute.SiloCompute>());

    /// <summary>Two silos of a new cluster with <paramref name="mixture"/> stored, an E-step over it, and that pass's sums over the grid in this process.</summary>
    private async Task<(IHost First, IHost Second, PartitionPass Pass, double[] Expected)> TwoSilosAsync(Mixture mixture)
    {
        var pass = EStep(mixture);
        double[] expected;
        using (var local = new LocalPartitions(mixture.Vectors, Partitions, new ParallelismOptions { Ranks = 2 }))
        {
            expected = local.Reduce(pass, Token);
        }

        var connectionString = await postgres.NewDatabaseAsync();
        var clusterId = $"fold-{Guid.NewGuid():N}";
        var store = Silos.PostgresStore(connectionString);
        var first = await Silos.StartAsync(connectionString, clusterId, store);
        var second = await Silos.StartAsync(connectionString, clusterId, store);
        await Silos.ActiveSilosAsync(first, 2);
        await mixture.StoreAsync(first.Services.GetRequiredService<IDataStore>(), Token);
        return (first, second, pass, expected);
    }

    // An E-step of annealing at a temperature where every point feels every centre.
    internal static PartitionPass EStep(Mixture mixture, int clusters = Clusters)
    {
        var kp = (clusters + 7) / 8 * 8;
        var centres = new double[clusters * 2];
        for (var c = 0; c < clusters; c++)
        {
            mixture.Vectors.Point((int)((long)mixture.Count * c / clusters)).CopyTo(centres.AsSpan(2 * c));
        }

        var logMass = Enumerable.Repeat(double.NegativeInfinity, kp).ToArray();
        Array.Fill(logMass, -Math.Log(clusters), 0, clusters);
        var length = kp * (2 + 1) + 4; // masses and coordinate sums per centre, then four scalars (PassSums.EStepLength)
        return PartitionPass.Create(PassKind.EStep, length, Math.Max(kp * 4 + 4, clusters * 4 + kp + 4), null, kp, clusters, 2, centres, logMass, 1.0 / 50, null, null, null);
    }
}
