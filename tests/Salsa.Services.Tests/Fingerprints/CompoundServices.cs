using System.Net.Http.Json;
using System.Numerics;
using Salsa.Annealing;
using Salsa.Chem;
using Salsa.Clustering;
using Salsa.Contracts.Common;
using Salsa.DataFiles;
using Salsa.Fingerprints;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Fingerprints;

/// <summary>
/// A Chem, a Fingerprints and an Annealing service sharing one store, as they are deployed: the Chem
/// service imports the fixture compounds, the Fingerprints service (Butina, search) and the
/// Annealing service (deterministic annealing of fingerprints) work on the fingerprint datasets by id.
/// </summary>
public sealed class CompoundServices : IAsyncDisposable
{
    private CompoundServices(ServiceUnderTest<ChemService> chem, ServiceUnderTest<FingerprintsService> fingerprints, ServiceUnderTest<AnnealingService> annealing)
    {
        Chem = chem;
        Fingerprints = fingerprints;
        Annealing = annealing;
    }

    public ServiceUnderTest<ChemService> Chem { get; }

    public ServiceUnderTest<FingerprintsService> Fingerprints { get; }

    public ServiceUnderTest<AnnealingService> Annealing { get; }

    public HttpClient Rest => Fingerprints.Rest;

    /// <summary>The fixture's fingerprint datasets by type name, as the Chem import made them.</summary>
    public IReadOnlyDictionary<string, DatasetView> Datasets { get; private set; } = new Dictionary<string, DatasetView>();

    public Guid Ecfp4 => Datasets[FingerprintType.Ecfp4.Name].DatasetId;

    public Guid Maccs => Datasets[FingerprintType.Maccs.Name].DatasetId;

    public static async Task<CompoundServices> StartAsync(TestStore store, IReadOnlyDictionary<string, string?>? fingerprintsSettings = null)
    {
        var services = new CompoundServices(
            await ServiceUnderTest.StartAsync<ChemService>(store),
            await ServiceUnderTest.StartAsync<FingerprintsService>(store, fingerprintsSettings),
            await ServiceUnderTest.StartAsync<AnnealingService>(store));
        using var import = await services.Chem.Rest.PostAsJsonAsync("/api/chem/imports", new { source = "fixture" }, TestContext.Current.CancellationToken);
        await RestCalls.EnsureAsync(import);
        var compounds = (await import.Content.ReadFromJsonAsync<DatasetView>(RestCalls.Json, TestContext.Current.CancellationToken))!;
        var datasets = new Dictionary<string, DatasetView>();
        foreach (var type in FingerprintType.Shipped)
        {
            // Read through the Fingerprints service: the store is shared.
            var id = compounds.Metadata[CompoundCatalog.FingerprintKeyPrefix + type.Name];
            datasets[type.Name] = await services.Fingerprints.GetJsonAsync<DatasetView>($"/api/datasets/{id}");
        }

        services.Datasets = datasets;
        return services;
    }

    /// <summary>Runs a Butina job over REST to the end; returns its id.</summary>
    public async Task<Guid> ButinaAsync(Guid dataset, double cutoff)
    {
        var job = await Rest.StartJobAsync("/api/fingerprints/butina/jobs", new { datasetId = dataset, cutoff });
        Assert.Equal("succeeded", (await Rest.WaitAsync(job.JobId)).State);
        return job.JobId;
    }

    public async ValueTask DisposeAsync()
    {
        await Annealing.DisposeAsync();
        await Fingerprints.DisposeAsync();
        await Chem.DisposeAsync();
    }
}

/// <summary>The fixture compounds as the tests compute on them directly, without a service.</summary>
public static class FixtureCompounds
{
    private static readonly Lazy<CompoundSet> s_set = new(() => CompoundSet.ReadFile(CompoundSet.FixturePath));

    public static CompoundSet Set => s_set.Value;

    public static FingerprintType Type(string name) => FingerprintType.Find(name)!;

    public static BinaryVectors Points(string type) => new(Set.Fingerprints[Type(type)], Type(type).Bits);

    public static ulong[] Words(string type, int compound) => Set.Fingerprint(Type(type), compound).ToArray();

    public static string Hex(string type, ReadOnlySpan<ulong> words) => CompoundSet.FormatHex(words, Type(type));

    /// <summary>
    /// The k most similar compounds by comparing the query with every one: Tanimoto c / (|a| + |b| − c)
    /// (1 for two empty prints), best first, equal similarities by index.
    /// </summary>
    public static List<(int Index, double Similarity)> BruteForceTopK(string type, ReadOnlySpan<ulong> query, int k)
    {
        var words = Type(type).Words;
        var all = Set.Fingerprints[Type(type)];
        var queryBits = PopCount(query);
        var scored = new List<(int Index, double Similarity)>(Set.Count);
        for (var i = 0; i < Set.Count; i++)
        {
            var print = all.AsSpan(i * words, words);
            var common = 0;
            for (var w = 0; w < words; w++)
            {
                common += BitOperations.PopCount(query[w] & print[w]);
            }

            var union = queryBits + PopCount(print) - common;
            scored.Add((i, union == 0 ? 1.0 : (double)common / union));
        }

        return [.. scored.OrderByDescending(s => s.Similarity).ThenBy(s => s.Index).Take(k)];
    }

    private static int PopCount(ReadOnlySpan<ulong> words)
    {
        var count = 0;
        foreach (var word in words)
        {
            count += BitOperations.PopCount(word);
        }

        return count;
    }

    /// <summary>A job's assignments artifact.</summary>
    public static async Task<int[]> AssignmentsAsync(HttpClient rest, Guid job) =>
        ArtifactFormats.ReadInt32s(await rest.GetByteArrayAsync($"/api/jobs/{job}/artifacts/{Artifacts.Assignments}", TestContext.Current.CancellationToken));
}
