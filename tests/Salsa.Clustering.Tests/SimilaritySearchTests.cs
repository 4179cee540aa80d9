using Salsa.Clustering.Fingerprints;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Tests;

public sealed class SimilaritySearchTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(5)]
    [InlineData(20)]
    public void Search_MembersAndPerturbedPrints_EqualsBruteForce(int k)
    {
        var points = WithDuplicates(ChemFixtures.Chem500);
        var index = SimilarityIndex.Build(points, TaylorButina.Run(points, new ButinaOptions { Cutoff = 0.5 }));

        foreach (var query in Queries(points))
        {
            var expected = NaiveTopK(points, query, k);

            var pruned = index.Search(query, k);
            var brute = index.SearchBruteForce(query, k);

            Assert.Equal(expected, pruned.Hits.Select(h => (h.Compound, h.Distance)));
            Assert.Equal(expected, brute.Hits.Select(h => (h.Compound, h.Distance)));
            Assert.All(pruned.Hits, h => Assert.Equal(1 - h.Similarity, h.Distance));
        }
    }

    [Theory]
    [InlineData(1, 1)]
    [InlineData(3, 7)]
    [InlineData(7, 20)]
    [InlineData(7, 300)]
    public void Merge_PartsOfTheSet_EqualsBruteForceOverTheWhole(int parts, int k)
    {
        // Duplicates put equal distances in different parts: the merge must still break ties by index.
        var points = WithDuplicates(ChemFixtures.Chem500);
        var whole = SimilarityIndex.Build(points, new int[points.Count], [0]);
        var slices = Enumerable.Range(0, parts).Select(p => (Start: points.Count * p / parts, End: points.Count * (p + 1) / parts)).ToArray();
        var indexes = slices.Select(s => SimilarityIndex.Build(points.Slice(s.Start, s.End), new int[s.End - s.Start], [0])).ToArray();

        foreach (var query in Queries(points).Take(60))
        {
            var merged = SimilarityIndex.Merge([.. indexes.Select((index, p) => (index.SearchBruteForce(query, Math.Min(k, index.Count)), slices[p].Start))], k);

            var expected = whole.SearchBruteForce(query, k);
            Assert.Equal(expected.Hits, merged.Hits);
            Assert.Equal(expected.DistancesComputed, merged.DistancesComputed);
        }
    }

    [Fact]
    public void Search_DuplicatePrints_BreaksTiesByIndex()
    {
        var points = WithDuplicates(ChemFixtures.Chem500);
        var index = SimilarityIndex.Build(points, TaylorButina.Run(points, new ButinaOptions()));

        // Compound 3 was appended again as compound 500: both are at distance 0 from it.
        var hits = index.Search(points.Fingerprint(500), 3).Hits;

        Assert.Equal([3, 500], hits.Take(2).Select(h => h.Compound));
        Assert.Equal(0.0, hits[1].Distance);
    }

    [Fact]
    public void Search_IndexFromAnyClustering_StaysExact()
    {
        var points = ChemFixtures.Chem500;

        // Ten clusters by index, pivots that are not even members: the triangle inequality still holds.
        var assignments = Enumerable.Range(0, points.Count).Select(i => i % 10).ToArray();
        var centroids = Enumerable.Range(0, 10).Select(c => 100 + c * 3 + 1).ToArray();
        var index = SimilarityIndex.Build(points, assignments, centroids);

        foreach (var query in Queries(points).Take(60))
        {
            Assert.Equal(NaiveTopK(points, query, 5), index.Search(query, 5).Hits.Select(h => (h.Compound, h.Distance)));
        }
    }

    [Fact]
    public void Search_40kSet_PrunedComputesFewerDistancesThanBruteForce()
    {
        var points = ChemFixtures.Chem40k;
        var index = SimilarityIndex.Build(points, TaylorButina.Run(points, new ButinaOptions { Cutoff = 0.5 }));
        var queries = Enumerable.Range(0, 40).Select(q => points.Fingerprint(q * 997).ToArray())
            .Concat(Enumerable.Range(0, 20).Select(q => ChemFixtures.Perturbed(points.Fingerprint(q * 1999 + 5), points.Bits, q, 4)))
            .ToList();

        foreach (var k in new[] { 1, 5 })
        {
            long pruned = 0, brute = 0;
            foreach (var query in queries)
            {
                var fast = index.Search(query, k);
                var slow = index.SearchBruteForce(query, k);
                Assert.Equal(slow.Hits, fast.Hits);
                pruned += fast.DistancesComputed;
                brute += slow.DistancesComputed;
            }

            Assert.Equal((long)queries.Count * points.Count, brute);
            Assert.True(pruned < brute, $"k = {k}: pruned {pruned} vs brute force {brute}");
        }
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Run_Batch_EqualsSingleQueriesForAnyRanks(int ranks)
    {
        var points = ChemFixtures.Chem500;
        var index = SimilarityIndex.Build(points, TaylorButina.Run(points, new ButinaOptions()));
        var queries = ChemFixtures.Take(points, 90);
        var options = new SimilaritySearchOptions { K = 7, Parallel = new ParallelismOptions { Ranks = ranks } };

        var pruned = SimilaritySearch.Run(index, queries, options);
        var brute = SimilaritySearch.Run(index, queries, options with { Method = SimilaritySearchMethod.BruteForce });

        for (var q = 0; q < queries.Count; q++)
        {
            var single = index.Search(queries.Fingerprint(q), 7);
            Assert.Equal(single.Hits, pruned.Results[q].Hits);
            Assert.Equal(single.DistancesComputed, pruned.Results[q].DistancesComputed);
            Assert.Equal(single.Hits, brute.Results[q].Hits);
        }

        Assert.Equal((long)queries.Count * points.Count, brute.DistancesComputed);
        Assert.True(pruned.DistancesComputed <= brute.DistancesComputed);
    }

    [Fact]
    public void Search_QueryOfAnotherLength_Throws()
    {
        var points = ChemFixtures.Chem500;
        var index = SimilarityIndex.Build(points, TaylorButina.Run(points, new ButinaOptions()));

        var error = Assert.Throws<ClusteringInputException>(() => index.Search(new ulong[3], 5));
        Assert.Contains("1024-bit", error.Message, StringComparison.Ordinal);

        var maccs = new BinaryVectors(new ulong[3 * 4], 167);
        var batch = Assert.Throws<ClusteringInputException>(() => SimilaritySearch.Run(index, maccs, new SimilaritySearchOptions()));
        Assert.Contains("167-bit", batch.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Search_QuerySettingBitsBeyondTheLength_Throws()
    {
        var points = new BinaryVectors([1, 2, 3, 4], 60);
        var index = SimilarityIndex.Build(points, [0, 0, 1, 1], [0, 2]);

        var error = Assert.Throws<ClusteringInputException>(() => index.Search([1UL << 62], 1));

        Assert.Contains("beyond bit 59", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(501)]
    public void Search_KOutOfRange_Throws(int k)
    {
        var points = ChemFixtures.Chem500;
        var index = SimilarityIndex.Build(points, TaylorButina.Run(points, new ButinaOptions()));

        var error = Assert.Throws<ClusteringInputException>(() => index.Search(points.Fingerprint(0), k));

        Assert.Contains("k must be between 1 and", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Build_AssignmentsOfWrongLengthOrRange_Throw()
    {
        var points = ChemFixtures.Chem500;

        Assert.Throws<ClusteringInputException>(() => SimilarityIndex.Build(points, new int[10], [0]));
        Assert.Throws<ClusteringInputException>(() => SimilarityIndex.Build(points, new int[points.Count], [points.Count]));
        var assignments = new int[points.Count];
        assignments[9] = 2;
        var error = Assert.Throws<ClusteringInputException>(() => SimilarityIndex.Build(points, assignments, [0, 1]));
        Assert.Contains("Fingerprint 9 is assigned to cluster 2", error.Message, StringComparison.Ordinal);
    }

    /// <summary>The set with compounds 3, 10, …, 52 appended again (as 500, 501, …): ties at every distance.</summary>
    private static BinaryVectors WithDuplicates(BinaryVectors points)
    {
        var copies = new[] { 3, 10, 17, 24, 31, 38, 45, 52 };
        var words = points.Packed.ToList();
        foreach (var c in copies)
        {
            words.AddRange(points.Fingerprint(c).ToArray());
        }

        return new BinaryVectors([.. words], points.Bits);
    }

    private static IEnumerable<ulong[]> Queries(BinaryVectors points)
    {
        for (var q = 0; q < points.Count; q += 4)
        {
            yield return points.Fingerprint(q).ToArray();
            yield return ChemFixtures.Perturbed(points.Fingerprint(q), points.Bits, q, 1 + q % 9);
        }

        yield return new ulong[points.Words];
    }

    private static List<(int Compound, double Distance)> NaiveTopK(BinaryVectors points, ulong[] query, int k) =>
        [.. Enumerable.Range(0, points.Count)
            .Select(i => (Compound: i, Distance: ChemFixtures.NaiveDistance(query, points.Fingerprint(i))))
            .OrderBy(h => h.Distance).ThenBy(h => h.Compound)
            .Take(k)];
}
