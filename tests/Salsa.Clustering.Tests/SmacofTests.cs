using System.Threading.Channels;
using Salsa.Clustering.Mds;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Tests;

public sealed class SmacofTests
{
    [Theory]
    [InlineData(SmacofInitialization.Torgerson)]
    [InlineData(SmacofInitialization.Random)]
    public void Run_GridWithEuclideanDissimilarities_RecoversTheGrid(SmacofInitialization start)
    {
        var grid = Grid(7, 6);

        var result = Smacof.Run(Dissimilarities.FromEuclidean(grid), new SmacofOptions { Initialization = start, MaxIterations = 3000, Tolerance = 1e-12 });

        Assert.True(result.NormalizedStress < 1e-9, $"normalised stress {result.NormalizedStress}");
        AssertSameDistances(grid, result, 1e-3);
    }

    [Fact]
    public void Run_GridInThreeDimensions_RecoversTheGridInAPlane()
    {
        var grid = Grid(6, 5);

        var result = Smacof.Run(Dissimilarities.FromEuclidean(grid), new SmacofOptions { Dimensions = 3, MaxIterations = 3000, Tolerance = 1e-12 });

        Assert.True(result.NormalizedStress < 1e-8, $"normalised stress {result.NormalizedStress}");
        AssertSameDistances(grid, result, 1e-3);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public void Run_Fingerprints_StressNeverIncreases(int dimensions)
    {
        var fingerprints = ChemFixtures.Take(ChemFixtures.Chem500, 200);

        var result = Smacof.Run(Dissimilarities.FromTanimoto(fingerprints), new SmacofOptions
        {
            Dimensions = dimensions,
            Initialization = SmacofInitialization.Random,
            MaxIterations = 150,
            Tolerance = 0,
        });

        Assert.True(result.StressTrajectory.Count > 20);
        for (var t = 1; t < result.StressTrajectory.Count; t++)
        {
            Assert.True(result.StressTrajectory[t] <= result.StressTrajectory[t - 1] * (1 + 1e-12), $"stress rose at iteration {t}");
        }
    }

    [Fact]
    public void Run_WeightedGrid_RecoversTheGridAndKeepsTheMajorisation()
    {
        var grid = Grid(6, 6);
        var random = new Random(5);
        var weights = Enumerable.Range(0, grid.Count).Select(_ => 0.2 + 3 * random.NextDouble()).ToArray();

        // A random start, so the transforms have a long way to go (Torgerson would start on the answer).
        var options = new SmacofOptions { Initialization = SmacofInitialization.Random, MaxIterations = 5000, Tolerance = 1e-12 };
        var result = Smacof.Run(Dissimilarities.FromEuclidean(grid), options, weights);

        Assert.True(result.NormalizedStress < 1e-9, $"normalised stress {result.NormalizedStress}");
        AssertSameDistances(grid, result, 1e-3);

        // Down to the rounding floor of single-precision δ (~1e-15 normalised), where the majorisation no longer shows.
        for (var t = 1; t < result.StressTrajectory.Count && result.StressTrajectory[t - 1] > 1e-12; t++)
        {
            Assert.True(result.StressTrajectory[t] <= result.StressTrajectory[t - 1] * (1 + 1e-12), $"stress rose at iteration {t}");
        }
    }

    [Fact]
    public void Run_WeightedFingerprints_DiffersFromUnweightedAndStaysMonotone()
    {
        var dissimilarities = Dissimilarities.FromTanimoto(ChemFixtures.Take(ChemFixtures.Chem500, 150));
        var weights = Enumerable.Range(0, 150).Select(i => i < 30 ? 10.0 : 1.0).ToArray();
        var options = new SmacofOptions { MaxIterations = 100, Tolerance = 0 };

        var weighted = Smacof.Run(dissimilarities, options, weights);
        var plain = Smacof.Run(dissimilarities, options);

        Assert.NotEqual(plain.Coordinates, weighted.Coordinates);
        for (var t = 1; t < weighted.StressTrajectory.Count; t++)
        {
            Assert.True(weighted.StressTrajectory[t] <= weighted.StressTrajectory[t - 1] * (1 + 1e-12), $"stress rose at iteration {t}");
        }
    }

    [Fact]
    public void Run_ZeroWeightItem_IsPlacedWhereItsDistancesFit()
    {
        var grid = Grid(5, 5);
        var weights = Enumerable.Repeat(1.0, grid.Count).ToArray();
        weights[12] = 0;

        var result = Smacof.Run(Dissimilarities.FromEuclidean(grid), new SmacofOptions { MaxIterations = 3000, Tolerance = 1e-12 }, weights);

        AssertSameDistances(grid, result, 1e-3);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Run_AnyNumberOfRanks_BitIdenticalToOneRank(int ranks)
    {
        var dissimilarities = Dissimilarities.FromTanimoto(ChemFixtures.Take(ChemFixtures.Chem500, 300));
        var weights = Enumerable.Range(0, 300).Select(i => 1.0 + i % 3).ToArray();
        var options = new SmacofOptions { Dimensions = 3, MaxIterations = 40, Tolerance = 0, Parallel = new ParallelismOptions { Ranks = 1 } };

        var one = Smacof.Run(dissimilarities, options, weights);
        var many = Smacof.Run(dissimilarities, options with { Parallel = new ParallelismOptions { Ranks = ranks } }, weights);

        Assert.Equal(Bits(one.Coordinates), Bits(many.Coordinates));
        Assert.Equal(Bits([.. one.StressTrajectory]), Bits([.. many.StressTrajectory]));
        Assert.Equal(one.Iterations, many.Iterations);
    }

    [Fact]
    public void Run_Chem500Tanimoto_GivesAFiniteEmbeddingOfModerateStress()
    {
        var result = Smacof.Run(Dissimilarities.FromTanimoto(ChemFixtures.Chem500), new SmacofOptions());

        Assert.Equal(500 * 2, result.Coordinates.Length);
        Assert.All(result.Coordinates, c => Assert.True(double.IsFinite(c)));
        Assert.True(result.NormalizedStress < 0.5, $"normalised stress {result.NormalizedStress}");
        Assert.Equal(result.Iterations + 1, result.StressTrajectory.Count);
        Assert.Equal(result.NormalizedStress, result.StressTrajectory[^1]);
        Assert.Equal(result.Stress, result.RawStressTrajectory[^1]);
    }

    [Fact]
    public void Run_ReportedStress_MatchesTheStressOfTheCoordinates()
    {
        var fingerprints = ChemFixtures.Take(ChemFixtures.Chem500, 120);
        var weights = Enumerable.Range(0, 120).Select(i => 0.5 + i % 4).ToArray();

        var result = Smacof.Run(Dissimilarities.FromTanimoto(fingerprints), new SmacofOptions { Dimensions = 3, MaxIterations = 25 }, weights);

        double raw = 0, scale = 0;
        for (var i = 0; i < 120; i++)
        {
            for (var j = i + 1; j < 120; j++)
            {
                // The run holds δ in single precision; so does this check.
                double delta = (float)ChemFixtures.NaiveDistance(fingerprints.Fingerprint(i), fingerprints.Fingerprint(j));
                var miss = Distance(result.Coordinate(i), result.Coordinate(j)) - delta;
                raw += weights[i] * weights[j] * miss * miss;
                scale += weights[i] * weights[j] * delta * delta;
            }
        }

        Assert.Equal(raw, result.Stress, raw * 1e-9);
        Assert.Equal(raw / scale, result.NormalizedStress, raw / scale * 1e-9);
    }

    [Fact]
    public void Run_CondensedAndComputedDissimilarities_GiveTheSameEmbedding()
    {
        var grid = Grid(5, 4);
        var condensed = new List<double>();
        for (var i = 0; i < grid.Count; i++)
        {
            for (var j = i + 1; j < grid.Count; j++)
            {
                condensed.Add(Distance(grid.Point(i), grid.Point(j)));
            }
        }

        var options = new SmacofOptions { MaxIterations = 50 };
        var computed = Smacof.Run(Dissimilarities.FromEuclidean(grid), options);
        var fromDouble = Smacof.Run(Dissimilarities.FromCondensed([.. condensed]), options);
        var fromSingle = Smacof.Run(Dissimilarities.FromCondensed([.. condensed.Select(d => (float)d)]), options);

        Assert.Equal(Bits(computed.Coordinates), Bits(fromDouble.Coordinates));
        Assert.Equal(Bits(computed.Coordinates), Bits(fromSingle.Coordinates));
    }

    [Fact]
    public async Task RunAsync_CancelledAfterTheFirstProgressEvent_Throws()
    {
        var dissimilarities = Dissimilarities.FromTanimoto(ChemFixtures.First(3000));
        var progress = Channel.CreateUnbounded<ClusteringProgress>();
        using var cancellation = new CancellationTokenSource();

        var run = Smacof.RunAsync(dissimilarities, new SmacofOptions { MaxIterations = 1_000_000, Tolerance = 0 }, null, progress.Writer, cancellation.Token);
        var first = await progress.Reader.ReadAsync(TestContext.Current.CancellationToken);
        await cancellation.CancelAsync();

        Assert.Equal("smacof", first.Algorithm);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public void Run_DimensionsOtherThanTwoOrThree_Throws(int dimensions)
    {
        var error = Assert.Throws<ClusteringInputException>(() => Smacof.Run(Dissimilarities.FromEuclidean(Grid(3, 3)), new SmacofOptions { Dimensions = dimensions }));

        Assert.Contains("must be 2 or 3", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_TooFewOrTooManyItems_Throws()
    {
        var three = Dissimilarities.FromCondensed([1.0, 1.0, 1.0]);
        var few = Assert.Throws<ClusteringInputException>(() => Smacof.Run(three, new SmacofOptions { Dimensions = 3 }));
        Assert.Contains("at least 4 items", few.Message, StringComparison.Ordinal);

        var many = Assert.Throws<ClusteringInputException>(() => Smacof.Run(Dissimilarities.FromEuclidean(Grid(5, 5)), new SmacofOptions { MaxItems = 20 }));
        Assert.Contains("25 items are more than the 20 allowed", many.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(double.NaN)]
    [InlineData(-1.0)]
    [InlineData(double.PositiveInfinity)]
    public void FromCondensed_InvalidDissimilarity_Throws(double bad)
    {
        var error = Assert.Throws<ClusteringInputException>(() => Dissimilarities.FromCondensed([1.0, 2.0, 1.0, bad, 1.0, 1.0]));

        Assert.Contains("items 1 and 2", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void FromCondensed_LengthNotATriangle_Throws()
    {
        Assert.Throws<ClusteringInputException>(() => Dissimilarities.FromCondensed([1.0, 2.0]));
        Assert.Throws<ClusteringInputException>(() => Dissimilarities.FromCondensed(Array.Empty<double>()));
    }

    [Fact]
    public void Run_BadWeights_Throw()
    {
        var grid = Dissimilarities.FromEuclidean(Grid(3, 3));

        Assert.Throws<ClusteringInputException>(() => Smacof.Run(grid, new SmacofOptions(), [1.0, 2.0]));
        Assert.Throws<ClusteringInputException>(() => Smacof.Run(grid, new SmacofOptions(), [1, 1, 1, 1, double.NaN, 1, 1, 1, 1]));
        var single = Assert.Throws<ClusteringInputException>(() => Smacof.Run(grid, new SmacofOptions(), [0, 0, 0, 0, 5, 0, 0, 0, 0]));
        Assert.Contains("two items need a positive weight", single.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_AllDissimilaritiesZero_Throws()
    {
        var error = Assert.Throws<ClusteringInputException>(() => Smacof.Run(Dissimilarities.FromCondensed(new double[6]), new SmacofOptions()));

        Assert.Contains("nothing to embed", error.Message, StringComparison.Ordinal);
    }

    private static DenseVectors Grid(int columns, int rows)
    {
        var values = new List<double>();
        for (var r = 0; r < rows; r++)
        {
            for (var c = 0; c < columns; c++)
            {
                values.Add(c);
                values.Add(r);
            }
        }

        return new DenseVectors([.. values], 2);
    }

    /// <summary>All pairwise distances of the embedding equal the configuration's: the same up to rotation, reflection and translation.</summary>
    private static void AssertSameDistances(DenseVectors expected, SmacofResult result, double tolerance)
    {
        for (var i = 0; i < expected.Count; i++)
        {
            for (var j = i + 1; j < expected.Count; j++)
            {
                var want = Distance(expected.Point(i), expected.Point(j));
                var got = Distance(result.Coordinate(i), result.Coordinate(j));
                Assert.True(Math.Abs(want - got) <= tolerance * Math.Max(1, want), $"d({i},{j}) = {got}, expected {want}");
            }
        }
    }

    private static double Distance(ReadOnlySpan<double> a, ReadOnlySpan<double> b)
    {
        var sum = 0.0;
        for (var k = 0; k < a.Length; k++)
        {
            sum += (a[k] - b[k]) * (a[k] - b[k]);
        }

        return Math.Sqrt(sum);
    }

    private static long[] Bits(double[] values) => [.. values.Select(BitConverter.DoubleToInt64Bits)];
}
