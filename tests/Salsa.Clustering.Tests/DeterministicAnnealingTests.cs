using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Tests;

public sealed class DeterministicAnnealingTests
{
    [Fact]
    public void Run_GaussianMixtureWithKmaxFive_RecoversTheGeneratingCentres()
    {
        var (points, expected) = TestData.Gmm;

        var result = DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = 5 });

        Assert.Equal(5, result.Clusters);
        foreach (var centre in expected)
        {
            var nearest = Enumerable.Range(0, 5).Min(k =>
                Math.Sqrt(Math.Pow(result.Centres[2 * k] - centre[0], 2) + Math.Pow(result.Centres[2 * k + 1] - centre[1], 2)));
            Assert.True(nearest <= 0.15, $"no centre within 0.15 of ({centre[0]}, {centre[1]}); nearest is {nearest:F3} away");
        }

        // Each generating centre gets its own cluster.
        var matched = expected.Select(c => Enumerable.Range(0, 5).MinBy(k =>
            Math.Pow(result.Centres[2 * k] - c[0], 2) + Math.Pow(result.Centres[2 * k + 1] - c[1], 2))).Distinct().Count();
        Assert.Equal(5, matched);
    }

    [Fact]
    public void Run_CriticalTemperatureSchedule_FindsTheGeneratingCentresInFarFewerStepsThanFixedCooling()
    {
        var (points, expected) = TestData.Gmm;

        var jumping = DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = 5 });
        var fixedCooling = DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = 5, FixedCooling = true });

        foreach (var result in new[] { jumping, fixedCooling })
        {
            var matched = expected.Select(c => Enumerable.Range(0, 5).MinBy(k =>
                Math.Pow(result.Centres[2 * k] - c[0], 2) + Math.Pow(result.Centres[2 * k + 1] - c[1], 2))).ToList();
            Assert.Equal(5, matched.Distinct().Count());
            Assert.All(expected.Zip(matched), p =>
                Assert.True(Math.Sqrt(Math.Pow(result.Centres[2 * p.Second] - p.First[0], 2) + Math.Pow(result.Centres[2 * p.Second + 1] - p.First[1], 2)) <= 0.15));
        }

        // Cooling jumps between critical temperatures: the same answer in a fraction of the temperatures.
        Assert.True(jumping.Trajectory.Select(s => s.Temperature).Distinct().Count() * 3 < fixedCooling.Trajectory.Select(s => s.Temperature).Distinct().Count(),
            $"{jumping.Trajectory.Count} temperatures against {fixedCooling.Trajectory.Count} with fixed cooling");
        Assert.True(jumping.Iterations < fixedCooling.Iterations);
        Assert.True(Math.Abs(jumping.WeightedCost / fixedCooling.WeightedCost - 1) < 1e-6, $"costs {jumping.WeightedCost:R} and {fixedCooling.WeightedCost:R}");
    }

    [Fact]
    public void Run_IndianaCensusAtK20_AsGoodAsBestOfTenKMeansRestarts()
    {
        var points = TestData.Indiana;

        var annealing = DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = 20 });
        var classic = WeightedKMeans.Run(points, new KMeansOptions { Clusters = 20, Restarts = 10, Seed = 7, SeedingTrials = 1 });
        var greedy = WeightedKMeans.Run(points, new KMeansOptions { Clusters = 20, Restarts = 10, Seed = 7 });

        // One annealing run beats ten restarts of the original k-means++ and ties the greedy seeding's ten.
        Assert.Equal(20, annealing.Clusters);
        Assert.True(annealing.WeightedCost <= classic.Inertia * (1 + 1e-9),
            $"annealing cost {annealing.WeightedCost:E6} is worse than k-means++ best {classic.Inertia:E6}");
        Assert.True(annealing.WeightedCost <= greedy.Inertia * (1 + 1e-4),
            $"annealing cost {annealing.WeightedCost:E6} is worse than greedy k-means++ best {greedy.Inertia:E6}");
    }

    [Fact]
    public void Run_TrajectoryAndResult_AreConsistent()
    {
        var (points, _) = TestData.Gmm;

        var result = DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = 5 });

        Assert.NotEmpty(result.Trajectory);
        Assert.Equal(1, result.Trajectory[0].Clusters);
        Assert.True(result.Trajectory.Zip(result.Trajectory.Skip(1)).All(p => p.Second.Temperature <= p.First.Temperature));
        Assert.Equal(points.Count, result.ClusterSizes.Sum());
        Assert.Equal(points.TotalWeight, result.ClusterWeights.Sum(), 6);
        Assert.All(result.Trajectory, s => Assert.True(double.IsFinite(s.FreeEnergy)));
        Assert.True(result.Trajectory.Zip(result.Trajectory.Skip(1)).All(p => p.Second.Clusters >= p.First.Clusters));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Run_AnyNumberOfRanks_BitIdenticalToOneRank(int ranks)
    {
        var points = TestData.Census(Salsa.DataFiles.CensusBlockGroups.IndianaFixturePath);
        var options = new AnnealingOptions { MaxClusters = 8, Parallel = new ParallelismOptions { Ranks = 1, BlockSize = 64 } };

        var one = DeterministicAnnealing.Run(points, options);
        var many = DeterministicAnnealing.Run(points, options with { Parallel = options.Parallel with { Ranks = ranks } });

        Assert.Equal(one.Centres.Select(BitConverter.DoubleToInt64Bits), many.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(one.Assignments, many.Assignments);
        Assert.Equal(BitConverter.DoubleToInt64Bits(one.WeightedCost), BitConverter.DoubleToInt64Bits(many.WeightedCost));
        Assert.Equal(one.Trajectory.Select(s => BitConverter.DoubleToInt64Bits(s.FreeEnergy)), many.Trajectory.Select(s => BitConverter.DoubleToInt64Bits(s.FreeEnergy)));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Run_FingerprintsOnAnyNumberOfRanks_BitIdenticalToOneRank_RunAfterRun(int ranks)
    {
        // The fingerprints' polish keeps per-point bounds and sums between Lloyd passes, and a rejected
        // move puts each rank's points back: more ranks than cores, run after run, provoke a rank that
        // reads another's points before it has put them back.
        var points = ChemFixtures.Chem500;
        var options = new AnnealingOptions { MaxClusters = 10, Parallel = new ParallelismOptions { Ranks = 1, BlockSize = 64 } };
        var one = DeterministicAnnealing.Run(points, options);
        for (var trial = 0; trial < 15; trial++)
        {
            var many = DeterministicAnnealing.Run(points, options with { Parallel = options.Parallel with { Ranks = ranks } });
            Assert.Equal(one.Centres.Select(BitConverter.DoubleToInt64Bits), many.Centres.Select(BitConverter.DoubleToInt64Bits));
            Assert.Equal(one.Assignments, many.Assignments);
            Assert.Equal(BitConverter.DoubleToInt64Bits(one.WeightedCost), BitConverter.DoubleToInt64Bits(many.WeightedCost));
        }
    }

    [Fact]
    public void Run_BinaryFingerprints_MatchesTheSameDataAsDenseVectors()
    {
        var binary = TestData.Ecfp(200);
        var dense = binary.ToDense();
        var options = new AnnealingOptions { MaxClusters = 4, MaxIterationsPerTemperature = 100 };

        var fromBits = DeterministicAnnealing.Run(binary, options);
        var fromDense = DeterministicAnnealing.Run(dense, options);

        Assert.Equal(fromDense.Clusters, fromBits.Clusters);
        Assert.Equal(fromDense.Assignments, fromBits.Assignments);
        for (var i = 0; i < fromDense.Centres.Length; i++)
        {
            Assert.Equal(fromDense.Centres[i], fromBits.Centres[i], 1e-6);
        }
    }

    [Theory]
    [InlineData(0.95, null, null, 271L)]
    [InlineData(0.5, 8.0, 1.0, 4L)]
    [InlineData(0.5, 8.0, 1.5, 4L)]
    [InlineData(0.5, 1.0, 2.0, 1L)]
    [InlineData(0.5, 8.0, null, 21L)]
    [InlineData(0.9999999999999999, 1e300, 1e-300, long.MaxValue)]
    [InlineData(0.95, 1e200, 1e-200, 17_958L)]
    [InlineData(0.95, 1e-200, 1e-300, 4_491L)]
    [InlineData(0.5, null, 1.0, null)]
    public void ScheduledTemperatures_CountsTheFirstAndEveryCoolingStep_NullWhenTheDataDecide(double cooling, double? start, double? min, long? expected)
    {
        var options = new AnnealingOptions { CoolingFactor = cooling, StartTemperature = start, MinTemperature = min };

        Assert.Equal(expected, options.ScheduledTemperatures());
    }

    [Fact]
    public void Run_ScheduleLongerThanMaxTemperatures_StopsCoolingThereAndRefines()
    {
        var (points, _) = TestData.Gmm;
        var slow = new AnnealingOptions { MaxClusters = 5, CoolingFactor = 0.999 };
        Assert.True(DeterministicAnnealing.Run(points, slow).Trajectory.Select(s => s.Temperature).Distinct().Count() > 4);

        var result = DeterministicAnnealing.Run(points, slow with { MaxTemperatures = 4 });

        Assert.Equal(4, result.Trajectory.Select(s => s.Temperature).Distinct().Count());
        Assert.Equal(points.Count, result.Assignments.Length);
    }

    [Fact]
    public void Run_PointsFarFromEveryCentreAtLowTemperature_NoNaNAndNoWeightLost()
    {
        var values = new double[] { 0, 0, 1, 0, 0, 1, 1e7, 1e7, 1e7 + 1, 1e7, -1e7, 5e6 };
        var points = new DenseVectors(values, 2, [1, 1, 1, 1, 1, 1]);

        var result = DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = 2, MinTemperature = 1e-12 });

        Assert.All(result.Centres, c => Assert.True(double.IsFinite(c)));
        Assert.All(result.Trajectory, s => Assert.True(double.IsFinite(s.FreeEnergy)));
        Assert.Equal(6, result.ClusterWeights.Sum());
    }

    [Fact]
    public async Task RunAsync_Progress_ReportsEveryTemperatureInOrder()
    {
        var (points, _) = TestData.Gmm;
        var channel = ClusteringProgressChannel.Create(capacity: 100_000);

        var result = await DeterministicAnnealing.RunAsync(points, new AnnealingOptions { MaxClusters = 5 }, channel.Writer, TestContext.Current.CancellationToken);
        channel.Writer.Complete();
        var events = new List<ClusteringProgress>();
        await foreach (var e in channel.Reader.ReadAllAsync(TestContext.Current.CancellationToken))
        {
            events.Add(e);
        }

        Assert.Equal(result.Trajectory.Count, events.Count(e => e.Phase == "cooling"));
        Assert.Equal(result.Trajectory.Select(s => s.Temperature), events.Where(e => e.Phase == "cooling").Select(e => e.Temperature!.Value));
        Assert.Equal("refined", events[^1].Phase);
    }

    [Fact]
    public async Task RunAsync_CancelledDuringARun_StopsWithOperationCanceled()
    {
        var points = TestData.Indiana;
        using var cancellation = new CancellationTokenSource();
        var channel = ClusteringProgressChannel.Create();

        var run = DeterministicAnnealing.RunAsync(points, new AnnealingOptions { MaxClusters = 50, CoolingFactor = 0.99 }, channel.Writer, cancellation.Token);
        await channel.Reader.ReadAsync(TestContext.Current.CancellationToken);
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(2001)]
    public void Run_KmaxOutOfRange_Throws(int kmax)
    {
        var (points, _) = TestData.Gmm;

        var error = Assert.Throws<ClusteringInputException>(() => DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = kmax }));

        Assert.Contains("Kmax", error.Message, StringComparison.Ordinal);
    }

    public static TheoryData<AnnealingOptions, string> BadOptions => new()
    {
        { new() { MaxIterationsPerTemperature = -1 }, "maxIterationsPerTemperature" },
        { new() { MaxIterationsPerTemperature = 0 }, "maxIterationsPerTemperature" },
        { new() { Tolerance = 0 }, "tolerance" },
        { new() { Tolerance = double.PositiveInfinity }, "tolerance" },
        { new() { SplitPerturbation = -0.1 }, "splitPerturbation" },
        { new() { StopHardness = 1.5 }, "stopHardness" },
        { new() { FinalRefinementIterations = -1 }, "finalRefinementIterations" },
        { new() { SplitMergeAttempts = -1 }, "splitMergeAttempts" },
        { new() { MaxTemperatures = 0 }, "maxTemperatures" },
        { new() { CoolingFactor = 1 }, "coolingFactor" },
        { new() { StartTemperature = -1 }, "startTemperature" },
        { new() { MinTemperature = 0 }, "minTemperature" },
        { new() { StartTemperature = 1, MinTemperature = 2 }, "minTemperature" },
        { new() { MaxClusters = 0 }, "maxClusters" },
    };

    [Theory]
    [MemberData(nameof(BadOptions))]
    public void Validate_OneBadOption_NamesThatParameterAsRequestsSpellIt(AnnealingOptions options, string parameter)
    {
        var error = Assert.Throws<ClusteringInputException>(() => options.Validate(100));

        Assert.Equal(parameter, error.ParamName);
        Assert.StartsWith(parameter + " ", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_MinTemperatureAboveTheStartTheDataGive_RefusedNamingIt()
    {
        var (points, _) = TestData.Gmm;

        var error = Assert.Throws<ClusteringInputException>(() => DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = 3, MinTemperature = 1e30 }));

        Assert.Equal("minTemperature", error.ParamName);
        Assert.Contains("must not be above the start temperature", error.Message, StringComparison.Ordinal);
    }
}
