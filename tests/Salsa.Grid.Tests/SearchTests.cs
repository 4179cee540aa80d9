using Microsoft.Extensions.DependencyInjection;
using Salsa.Clustering;
using Salsa.Clustering.Fingerprints;
using Salsa.Grid.Partitions;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>Similarity search over a fingerprint dataset's partition grains on two silos: the brute-force answer over the whole set, hit for hit.</summary>
public sealed class SearchTests(PostgresFixture postgres)
{
    private const int Count = 3_001;
    private const int Bits = 256;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Search_OnTwoSilos_EqualsBruteForceOverTheWholeSet()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        var store = Silos.PostgresStore(connectionString);
        var clusterId = $"search-{Guid.NewGuid():N}";
        using var first = await Silos.StartAsync(connectionString, clusterId, store);
        using var second = await Silos.StartAsync(connectionString, clusterId, store);
        await Silos.ActiveSilosAsync(first, 2);
        var (words, labels) = Prints();
        var id = Guid.NewGuid();
        await first.Services.GetRequiredService<IDataStore>().CreateDatasetAsync(
            new DatasetInfo { Id = id, Name = "prints", Kind = DatasetKind.Binary, Count = Count, Bits = Bits, TotalWeight = Count, Created = DateTimeOffset.UtcNow },
            new DatasetContent { Words = words, Weights = [.. Enumerable.Repeat(1.0, Count)], Labels = labels }, Token);
        var points = new BinaryVectors(words, Bits);
        var whole = SimilarityIndex.Build(points, new int[Count], [0]);
        var grains = first.Services.GetRequiredService<IGrainFactory>();

        foreach (var (query, k) in new[] { (5, 10), (1_500, 64), (3_000, 500) })
        {
            var found = await PartitionSearch.SearchAsync(grains, id, Count, 7, points.Fingerprint(query).ToArray(), k, TimeSpan.FromSeconds(30), Token);

            var expected = whole.SearchBruteForce(points.Fingerprint(query), k);
            Assert.Equal(expected.Hits, found.Answer.Hits);
            Assert.Equal(Count, found.Answer.DistancesComputed);
            Assert.All(found.Answer.Hits, h => Assert.Equal(labels[h.Compound], found.Labels[h.Compound]));
            Assert.Equal(2, found.Silos.Count);
        }
    }

    /// <summary>Random sparse prints, every tenth a copy of an earlier one (equal distances across partitions).</summary>
    private static (ulong[] Words, string[] Labels) Prints()
    {
        var random = new Random(8);
        var perPrint = Bits / 64;
        var words = new ulong[Count * perPrint];
        for (var i = 0; i < Count; i++)
        {
            if (i % 10 == 9)
            {
                Array.Copy(words, random.Next(i) * perPrint, words, i * perPrint, perPrint);
                continue;
            }

            for (var b = 0; b < 24; b++)
            {
                var bit = random.Next(Bits);
                words[i * perPrint + bit / 64] |= 1UL << (bit % 64);
            }
        }

        return (words, [.. Enumerable.Range(0, Count).Select(i => $"compound-{i}")]);
    }
}
