using Salsa.DataFiles;

namespace Salsa.Store.Tests;

/// <summary>Datasets and jobs for the contract tests: small synthetic ones, and the real data sets read once per run.</summary>
internal static class TestData
{
    /// <summary>A UTC time with whole microseconds, so it round-trips unchanged.</summary>
    public static readonly DateTimeOffset Epoch = new DateTimeOffset(2026, 11, 21, 12, 30, 15, TimeSpan.Zero).AddTicks(1_234_560);

    /// <summary>The national census (242,335 block groups) as a Census dataset; read once, shared by every test.</summary>
    public static readonly Lazy<(DatasetInfo Info, DatasetContent Content)> NationalCensus = new(() =>
    {
        var groups = CensusBlockGroups.ReadFile(CensusBlockGroups.NationalPath);
        var values = new double[groups.Count * 2];
        var weights = new double[groups.Count];
        var labels = new string[groups.Count];
        for (var i = 0; i < groups.Count; i++)
        {
            values[2 * i] = groups[i].Latitude;
            values[(2 * i) + 1] = groups[i].Longitude;
            weights[i] = groups[i].Population;
            labels[i] = groups[i].GeoId;
        }

        var info = new DatasetInfo
        {
            Id = Guid.NewGuid(),
            Name = "us-blockgroups-2020",
            Kind = DatasetKind.Census,
            Count = groups.Count,
            Dimension = 2,
            Created = Epoch,
            Source = CensusBlockGroups.NationalPath,
            Metadata = new Dictionary<string, string> { ["census"] = "2020", ["level"] = "block group" },
        };
        return (info, new DatasetContent { Values = values, Weights = weights, Labels = labels });
    });

    /// <summary>The 40k compound subset as a Binary dataset: ECFP4 words, ids as labels, SMILES as texts.</summary>
    public static readonly Lazy<(DatasetInfo Info, DatasetContent Content)> Compounds40k = new(() => Fingerprints(CompoundSet.ReadFile(CompoundSet.Subset40kPath), FingerprintType.Ecfp4));

    /// <summary>The 500-compound fixture.</summary>
    public static readonly Lazy<CompoundSet> Chem500 = new(() => CompoundSet.ReadFile(CompoundSet.FixturePath));

    public static (DatasetInfo Info, DatasetContent Content) Fingerprints(CompoundSet compounds, FingerprintType type)
    {
        var info = new DatasetInfo
        {
            Id = Guid.NewGuid(),
            Name = $"compounds-{compounds.Count}-{type.Name}",
            Kind = DatasetKind.Binary,
            Count = compounds.Count,
            Bits = type.Bits,
            FingerprintType = type.Name,
            Created = Epoch,
            Source = "chem",
        };
        var content = new DatasetContent
        {
            Words = compounds.Fingerprints[type],
            Weights = Enumerable.Repeat(1.0, compounds.Count).ToArray(),
            Labels = [.. compounds.Ids],
            Texts = [.. compounds.Smiles],
        };
        return (info, content);
    }

    /// <summary>Random points in [-100, 100)^dimension with random weights (deterministic for a seed).</summary>
    public static (DatasetInfo Info, DatasetContent Content) Dense(int count, int dimension, int seed = 1, bool labels = false, bool texts = false, DateTimeOffset? created = null)
    {
        var random = new Random(seed);
        var values = new double[count * dimension];
        for (var i = 0; i < values.Length; i++)
        {
            values[i] = (random.NextDouble() * 200) - 100;
        }

        var info = new DatasetInfo
        {
            Id = Guid.NewGuid(),
            Name = $"dense-{count}x{dimension}-{seed}",
            Kind = DatasetKind.Dense,
            Count = count,
            Dimension = dimension,
            Created = created ?? Epoch,
            Source = "synthetic",
        };
        var content = new DatasetContent
        {
            Values = values,
            Weights = Enumerable.Range(0, count).Select(_ => Math.Round(random.NextDouble() * 10, 3)).ToArray(),
            Labels = labels ? Enumerable.Range(0, count).Select(i => $"p{i}").ToArray() : null,
            Texts = texts ? Enumerable.Range(0, count).Select(i => $"point number {i}").ToArray() : null,
        };
        return (info, content);
    }

    public static JobRecord Job(string service, JobState state = JobState.Queued, DateTimeOffset? created = null) => new()
    {
        Id = Guid.NewGuid(),
        Service = service,
        Kind = "annealing",
        State = state,
        Created = created ?? Epoch,
        ParametersJson = """{"clusters":8}""",
    };

    /// <summary>A service name no other test uses, so tests sharing a database cannot see each other's jobs.</summary>
    public static ApiKeyRecord ApiKey(string tenant, string[] scopes) => new()
    {
        Id = Convert.ToHexStringLower(System.Security.Cryptography.RandomNumberGenerator.GetBytes(8)),
        Tenant = tenant,
        Name = $"key for {tenant}",
        Scopes = scopes,
        SecretHash = System.Security.Cryptography.RandomNumberGenerator.GetBytes(32),
        Created = Epoch,
    };

    public static string UniqueService(string prefix) => $"{prefix}-{Guid.NewGuid():N}";
}
