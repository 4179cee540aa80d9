using System.Globalization;
using Salsa.Datasets;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Store;

namespace Salsa.Census;

/// <summary>A census file the service can import: <paramref name="File"/> is its path below the data folder.</summary>
public sealed record CensusSource(string Name, string Description, string File);

/// <summary>A selection of block groups; every criterion given must hold (states OR-ed, counties OR-ed).</summary>
public sealed record CensusQuery
{
    /// <summary>A census dataset from an import.</summary>
    public required Guid DatasetId { get; init; }

    /// <summary>Two-digit state FIPS codes, e.g. "18" (Indiana).</summary>
    public IReadOnlyList<string> States { get; init; } = [];

    /// <summary>Five-digit county ids (state + county FIPS), e.g. "18097" (Marion County, Indiana).</summary>
    public IReadOnlyList<string> Counties { get; init; } = [];

    public GeoBox? BoundingBox { get; init; }

    /// <summary>Leave out block groups with no population (they weigh nothing in a clustering).</summary>
    public bool SkipUnpopulated { get; init; }

    /// <summary>Leave out Alaska (02), Hawaii (15) and Puerto Rico (72).</summary>
    public bool ContiguousOnly { get; init; }
}

public sealed record GeoBox(double MinLatitude, double MinLongitude, double MaxLatitude, double MaxLongitude);

/// <summary>
/// Imports census files into the store and cuts projected point sets out of them. Both are
/// idempotent: an import of the same file and a query with the same criteria name the same dataset
/// (content-derived ids), so a workflow run again reuses what an earlier run stored.
/// </summary>
public sealed class CensusCatalog(DatasetCatalog datasets, ServiceLimits limits, DataDirectory data)
{
    private static readonly string[] NonContiguous = ["02", "15", "72"];

    public static IReadOnlyList<CensusSource> Sources { get; } =
    [
        new("us", "All 242,335 block groups of the 50 states, DC and Puerto Rico", CensusBlockGroups.NationalFile),
        new("indiana", "Indiana's 5,290 block groups", CensusBlockGroups.IndianaFile),
        new("indiana-1000", "1,000 Indiana block groups (the test fixture)", CensusBlockGroups.IndianaFixtureFile),
    ];

    public async Task<DatasetInfo> ImportAsync(string? source, CancellationToken cancellationToken)
    {
        var file = Sources.FirstOrDefault(s => s.Name == source)
            ?? throw new ArgumentException($"Unknown census source '{source}': use one of {string.Join(", ", Sources.Select(s => s.Name))}.");
        // Checked before anything is read; the id follows the file's content, so it is the same on every machine.
        var shipped = data.Check(file.File);
        var id = DatasetIds.For("census", file.Name, shipped.Entry.Sha256);
        return await datasets.GetOrCreateAsync(id, () => Load(file.Name, shipped.FullPath), cancellationToken);
    }

    public async Task<DatasetInfo> QueryAsync(CensusQuery query, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(query);
        // JSON allows "states": null; it is as malformed as a null code, not a criterion to skip.
        if (query.States is null || query.Counties is null)
        {
            throw new ArgumentException($"{(query.States is null ? "states" : "counties")} is null: give a list of codes, or leave it out.");
        }

        limits.CheckQueryCodes(query.States.Count + query.Counties.Count);
        Validate(query);
        var (info, content) = await datasets.ReadRequiredAsync(query.DatasetId, cancellationToken);
        if (info.Kind != DatasetKind.Census)
        {
            throw new ArgumentException($"Dataset {info.Id} is {DatasetCatalog.KindName(info.Kind)}; a census query needs a census dataset from an import.");
        }

        var id = DatasetIds.For("census-query", info.Id.ToString(), Describe(query));
        return await datasets.GetOrCreateAsync(id, () => Select(info, content, query), cancellationToken);
    }

    private (DatasetInfo, DatasetContent) Load(string sourceName, string path)
    {
        var rows = CensusBlockGroups.ReadFile(path);
        limits.CheckPoints(rows.Count, 2);
        var values = new double[rows.Count * 2];
        var weights = new double[rows.Count];
        var labels = new string[rows.Count];
        for (var i = 0; i < rows.Count; i++)
        {
            (values[2 * i], values[2 * i + 1], weights[i], labels[i]) = (rows[i].Latitude, rows[i].Longitude, rows[i].Population, rows[i].GeoId);
        }

        var info = new DatasetInfo
        {
            Id = Guid.Empty,
            Name = $"census-{sourceName}",
            Kind = DatasetKind.Census,
            Count = rows.Count,
            Dimension = 2,
            Created = DateTimeOffset.UtcNow,
            Source = $"census import: {Path.GetFileName(path)}",
            Metadata = new Dictionary<string, string> { ["census_source"] = sourceName, ["columns"] = "latitude,longitude" },
        };
        return (info, new DatasetContent { Values = values, Weights = weights, Labels = labels });
    }

    private (DatasetInfo, DatasetContent) Select(DatasetInfo census, DatasetContent content, CensusQuery query)
    {
        var labels = content.Labels ?? throw new InvalidDataException($"Census dataset {census.Id} has no GEOIDs.");
        var states = query.States.ToHashSet(StringComparer.Ordinal);
        var counties = query.Counties.ToHashSet(StringComparer.Ordinal);
        var chosen = new List<int>();
        for (var i = 0; i < census.Count; i++)
        {
            if (Matches(query, states, counties, labels[i], content.Values![2 * i], content.Values[2 * i + 1], content.Weights[i]))
            {
                chosen.Add(i);
            }
        }

        if (chosen.Count == 0)
        {
            throw new ArgumentException($"The query ({Describe(query)}) selects no block groups.");
        }

        limits.CheckPoints(chosen.Count, 2);
        var rows = chosen.Select(i => new CensusBlockGroup(labels[i], labels[i][..2], labels[i][2..5], (int)content.Weights[i], content.Values![2 * i], content.Values[2 * i + 1])).ToList();
        var projection = EquirectangularProjection.CentredOn(rows);
        var values = new double[rows.Count * 2];
        for (var j = 0; j < rows.Count; j++)
        {
            (values[2 * j], values[2 * j + 1]) = projection.Forward(rows[j].Latitude, rows[j].Longitude);
        }

        var info = new DatasetInfo
        {
            Id = Guid.Empty,
            Name = $"{census.Name} [{Describe(query)}]",
            Kind = DatasetKind.Dense,
            Count = rows.Count,
            Dimension = 2,
            Created = DateTimeOffset.UtcNow,
            Source = $"census query of {census.Id}",
            Metadata = new Dictionary<string, string>(projection.ToMetadata())
            {
                ["census_dataset"] = census.Id.ToString(),
                ["selection"] = Describe(query),
            },
        };
        return (info, new DatasetContent { Values = values, Weights = [.. rows.Select(r => (double)r.Population)], Labels = [.. rows.Select(r => r.GeoId)] });
    }

    private static bool Matches(CensusQuery query, HashSet<string> states, HashSet<string> counties, string geoId, double latitude, double longitude, double population) =>
        (states.Count == 0 || states.Contains(geoId[..2]))
        && (counties.Count == 0 || counties.Contains(geoId[..5]))
        && (!query.ContiguousOnly || !NonContiguous.Contains(geoId[..2]))
        && (!query.SkipUnpopulated || population > 0)
        && (query.BoundingBox is not { } box
            || (latitude >= box.MinLatitude && latitude <= box.MaxLatitude && longitude >= box.MinLongitude && longitude <= box.MaxLongitude));

    private static void Validate(CensusQuery query)
    {
        // A null entry (JSON allows one) is as malformed as any other code, not a code to skip.
        if (query.States.Select(s => s ?? "null").FirstOrDefault(s => s.Length != 2 || !s.All(char.IsAsciiDigit)) is { } state)
        {
            throw new ArgumentException($"State '{state}' is not a two-digit FIPS code (e.g. \"18\" for Indiana).");
        }

        if (query.Counties.Select(c => c ?? "null").FirstOrDefault(c => c.Length != 5 || !c.All(char.IsAsciiDigit)) is { } county)
        {
            throw new ArgumentException($"County '{county}' is not a five-digit county id (state + county FIPS, e.g. \"18097\").");
        }

        if (query.BoundingBox is { } box
            && !(box.MinLatitude is >= -90 and <= 90 && box.MaxLatitude is >= -90 and <= 90 && box.MinLongitude is >= -180 and <= 180 && box.MaxLongitude is >= -180 and <= 180
                 && box.MinLatitude <= box.MaxLatitude && box.MinLongitude <= box.MaxLongitude))
        {
            throw new ArgumentException("The bounding box needs finite latitudes in [−90, 90] and longitudes in [−180, 180], each minimum no larger than its maximum.");
        }
    }

    private static string Describe(CensusQuery query)
    {
        var parts = new List<string>();
        if (query.States.Count > 0)
        {
            parts.Add($"states {string.Join(' ', query.States.Distinct().Order(StringComparer.Ordinal))}");
        }

        if (query.Counties.Count > 0)
        {
            parts.Add($"counties {string.Join(' ', query.Counties.Distinct().Order(StringComparer.Ordinal))}");
        }

        if (query.BoundingBox is { } b)
        {
            parts.Add(string.Create(CultureInfo.InvariantCulture, $"box {b.MinLatitude:R},{b.MinLongitude:R} – {b.MaxLatitude:R},{b.MaxLongitude:R}"));
        }

        if (query.ContiguousOnly)
        {
            parts.Add("contiguous");
        }

        if (query.SkipUnpopulated)
        {
            parts.Add("populated");
        }

        return parts.Count == 0 ? "all" : string.Join("; ", parts);
    }
}
