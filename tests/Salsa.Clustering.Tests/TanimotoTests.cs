using Salsa.Clustering.Fingerprints;

namespace Salsa.Clustering.Tests;

public sealed class TanimotoTests
{
    [Fact]
    public void Similarity_IdenticalPrints_IsOne()
    {
        var print = ChemFixtures.Chem500.Fingerprint(7);

        Assert.Equal(1.0, Tanimoto.Similarity(print, print));
        Assert.Equal(0.0, Tanimoto.Distance(print, print));
    }

    [Fact]
    public void Similarity_DisjointPrints_IsZero()
    {
        ulong[] a = [0b1010, 0];
        ulong[] b = [0b0101, 1UL << 63];

        Assert.Equal(0.0, Tanimoto.Similarity(a, b));
        Assert.Equal(1.0, Tanimoto.Distance(a, b));
    }

    [Fact]
    public void Similarity_HandComputedCase_IsTwoSevenths()
    {
        // a = {0,1,2,3,64}, b = {2,3,4,65}: a∧b = {2,3}, a∨b = {0,1,2,3,4,64,65}: 2/7.
        ulong[] a = [0b01111, 1];
        ulong[] b = [0b11100, 2];

        Assert.Equal(2.0 / 7, Tanimoto.Similarity(a, b));
        Assert.Equal(1 - 2.0 / 7, Tanimoto.Distance(a, b));
    }

    [Fact]
    public void Similarity_TwoEmptyPrints_IsOne()
    {
        Assert.Equal(1.0, Tanimoto.Similarity([0UL, 0UL], [0UL, 0UL]));
        Assert.Equal(0.0, Tanimoto.Similarity([0UL, 0UL], [0UL, 4UL]));
    }

    [Fact]
    public void Similarity_Chem500Pairs_MatchesABitByBitCount()
    {
        var points = ChemFixtures.Chem500;
        for (var i = 0; i < points.Count; i += 7)
        {
            for (var j = 0; j < points.Count; j += 5)
            {
                Assert.Equal(ChemFixtures.NaiveSimilarity(points.Fingerprint(i), points.Fingerprint(j)), Tanimoto.Similarity(points, i, j));
            }
        }
    }

    [Fact]
    public void Distance_Chem500Triples_IsAMetric()
    {
        var points = ChemFixtures.Chem500;
        var random = new Random(11);
        for (var t = 0; t < 20_000; t++)
        {
            int i = random.Next(points.Count), j = random.Next(points.Count), k = random.Next(points.Count);
            var ij = Tanimoto.Distance(points, i, j);
            Assert.Equal(ij, Tanimoto.Distance(points, j, i));
            Assert.True(ij >= 0 && ij <= 1);
            Assert.True(Tanimoto.Distance(points, i, k) <= ij + Tanimoto.Distance(points, j, k) + 1e-15, $"triangle ({i},{j},{k})");
        }
    }

    [Fact]
    public void SimilarityBound_Chem500Pairs_IsNeverBelowTheSimilarity()
    {
        var points = ChemFixtures.Chem500;
        for (var i = 0; i < points.Count; i += 3)
        {
            for (var j = 0; j < points.Count; j += 2)
            {
                Assert.True(Tanimoto.SimilarityBound(points.PopCount(i), points.PopCount(j)) >= Tanimoto.Similarity(points, i, j));
                Assert.True(Tanimoto.DistanceBound(points.PopCount(i), points.PopCount(j)) <= Tanimoto.Distance(points, i, j));
            }
        }
    }

    [Fact]
    public void CommonBits_VectorAndScalarKernels_Agree()
    {
        var random = new Random(3);
        for (var words = 1; words <= 70; words++)
        {
            var a = new ulong[words];
            var b = new ulong[words];
            for (var w = 0; w < words; w++)
            {
                // Dense words too: a byte count near 255 would show an overflowing accumulator.
                a[w] = words > 40 ? ulong.MaxValue : (ulong)random.NextInt64();
                b[w] = words > 40 ? ulong.MaxValue : (ulong)random.NextInt64();
            }

            var expected = ChemFixtures.NaiveCounts(a, b).Common;
            Assert.Equal(expected, Tanimoto.CommonBitsScalar(a, b));
            Assert.Equal(expected, Tanimoto.CommonBits(a, b));
            if (System.Runtime.Intrinsics.X86.Avx2.IsSupported && words >= 4)
            {
                Assert.Equal(expected, Tanimoto.CommonBitsAvx2(a, b));
            }

            if (System.Runtime.Intrinsics.X86.Avx512BW.IsSupported && words >= 8)
            {
                Assert.Equal(expected, Tanimoto.CommonBitsAvx512(a, b));
            }
        }
    }

    [Theory]
    [InlineData(16)]
    [InlineData(3)]
    [InlineData(24)]
    public void CommonBitsRun_OneAgainstMany_MatchesPairByPair(int words)
    {
        var random = new Random(words);
        var rows = Enumerable.Range(0, 37 * words).Select(_ => (ulong)random.NextInt64() & (ulong)random.NextInt64()).ToArray();
        var query = rows.AsSpan(5 * words, words).ToArray();
        var counts = new int[37];

        Tanimoto.CommonBitsRun(query, rows, counts);

        for (var r = 0; r < counts.Length; r++)
        {
            Assert.Equal(ChemFixtures.NaiveCounts(query, rows.AsSpan(r * words, words)).Common, counts[r]);
        }
    }

    [Fact]
    public void Distance_PrintsOfDifferentLengths_Throws()
    {
        var error = Assert.Throws<ClusteringInputException>(() => Tanimoto.Distance([1UL, 2UL], [1UL]));

        Assert.Contains("different lengths", error.Message, StringComparison.Ordinal);
    }
}
