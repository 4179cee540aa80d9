using System.Globalization;
using Microsoft.Extensions.Options;
using Salsa.DataFiles;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Store;

namespace Salsa.Census;

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

    /// <summary>
    /// Values of the places' grouping columns (OR-ed; a place matches when any of its group values
    /// is listed): an upload's own columns (country, region…), or a census file's state and county codes.
    /// </summary>
    public IReadOnlyList<string> Groups { get; init; } = [];
}

public sealed record GeoBox(double MinLatitude, double MinLongitude, double MaxLatitude, double MaxLongitude);

/// <summary>
/// Imports census files into the store and cuts projected point sets out of them. Both are
/// idempotent: an import of the same file and a query with the same criteria name the same dataset
/// (content-derived ids), so a workflow run again reuses what an earlier run stored.
/// </summary>
public sealed class CensusCatalog(DatasetCatalog datasets, IOptions<ServiceLimits> serviceLimits, DataDirectory data, UserFiles files)
{
    private readonly ServiceLimits _limits = serviceLimits.Value;

    /// <summary>Metadata of a census dataset: the shipped source's name, or <see cref="UploadSource"/>.</summary>
    public const string SourceKey = "census_source";

    public const string UploadSource = "upload";

    /// <summary>Metadata of an upload: its grouping columns, comma-separated.</summary>
    public const string GroupsKey = "groups";

    private static readonly string[] NonContiguous = ["02", "15", "72"];

    /// <summary>One of: a shipped source, a user's file where it is, a stored census dataset.</summary>
    public Task<DatasetInfo> ImportAsync(CensusImportRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        var given = new[] { !string.IsNullOrEmpty(request.Source), !string.IsNullOrEmpty(request.Location), request.DatasetId is not null }.Count(g => g);
        if (given != 1)
        {
            throw new ArgumentException($"An import names one of source (a census file: {string.Join(", ", CensusSource.Shipped.Select(s => s.Name))}), location (a place file's path or https URL) or datasetId (a stored census dataset); this one names {given}.");
        }

        return !string.IsNullOrEmpty(request.Location) ? ImportFileAsync(request.Location, request.Name, request.Format, request.Columns, cancellationToken)
            : request.DatasetId is { } id ? UseAsync(id, cancellationToken)
            : ImportAsync(request.Source, cancellationToken);
    }

    public async Task<DatasetInfo> ImportAsync(string? source, CancellationToken cancellationToken)
    {
        var file = CensusSource.Shipped.FirstOrDefault(s => s.Name == source)
            ?? throw new ArgumentException($"Unknown census source '{source}': use one of {string.Join(", ", CensusSource.Shipped.Select(s => s.Name))}.");
        // Checked before anything is read; the id follows the file's content, so it is the same on every machine.
        var shipped = data.Check(file.File);
        var id = DatasetIds.For("census", file.Name, shipped.Entry.Sha256);
        return await datasets.GetOrCreateAsync(id, () => Load(file.Name, shipped.FullPath), cancellationToken);
    }

    /// <summary>
    /// Imports a user's file of places (<see cref="PlaceFile"/>: CSV or GeoJSON points, plain or
    /// gzip) as a census dataset like the shipped ones: latitude/longitude, weights, ids, and the
    /// grouping columns a query can select by. A bad row refuses the whole file; the id follows the
    /// places, so uploading the same places again returns the same dataset.
    /// </summary>
    public async Task<DatasetInfo> UploadAsync(Stream file, UserFileSource source, string? format, PlaceColumns? columns, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(source);
        var name = source.Name;
        if (string.IsNullOrWhiteSpace(name))
        {
            throw new ArgumentException("An upload needs a name (the dataset's).");
        }

        var parsedFormat = PlaceFile.ParseFormat(format);
        await datasets.RequireRoomAsync(cancellationToken);
        var places = PlaceFile.Read(file, parsedFormat, columns, source, maxPlaces: _limits.MaxPoints + 1);
        _limits.CheckPoints(places.Count, 2);
        var id = DatasetIds.For("census-upload", name, string.Join(',', places.GroupColumns), DatasetIds.ContentHash(
            Enumerable.Range(0, places.Count).Select(i => new[] { places.Ids[i], R(places.Latitudes[i]), R(places.Longitudes[i]), R(places.Weights[i]) }.Concat(places.Groups[i]))));
        return await datasets.GetOrCreateAsync(id, () => Store(name, places), cancellationToken);
    }

    /// <summary>
    /// A user's place file named by where it is — a path on this machine or an https URL (see
    /// <see cref="UserFiles"/>) — imported as <see cref="UploadAsync"/> does; the name defaults to the file's.
    /// </summary>
    public async Task<DatasetInfo> ImportFileAsync(string location, string? name, string? format, PlaceColumns? columns, CancellationToken cancellationToken)
    {
        var (file, source) = await files.OpenAsync(location, name, cancellationToken);
        await using (file)
        {
            return await UploadAsync(file, source, format, columns, cancellationToken);
        }
    }

    /// <summary>A census dataset already stored (an upload, or an earlier import), checked to be one.</summary>
    public async Task<DatasetInfo> UseAsync(Guid datasetId, CancellationToken cancellationToken)
    {
        var info = await datasets.GetRequiredAsync(datasetId, cancellationToken);
        return info.Kind == DatasetKind.Census ? info
            : throw new ArgumentException($"Dataset {info.Id} is {DatasetCatalog.KindName(info.Kind)}; the census mashup takes a census dataset (an import or a place upload).");
    }

    public async Task<DatasetInfo> QueryAsync(CensusQuery query, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(query);
        // JSON allows "states": null; it is as malformed as a null code, not a criterion to skip.
        if (query.States is null || query.Counties is null || query.Groups is null)
        {
            throw new ArgumentException($"{(query.States is null ? "states" : query.Counties is null ? "counties" : "groups")} is null: give a list of codes, or leave it out.");
        }

        _limits.CheckQueryCodes(query.States.Count + query.Counties.Count + query.Groups.Count);
        Validate(query);
        var (info, content) = await datasets.ReadRequiredAsync(query.DatasetId, cancellationToken);
        if (info.Kind != DatasetKind.Census)
        {
            throw new ArgumentException($"Dataset {info.Id} is {DatasetCatalog.KindName(info.Kind)}; a census query needs a census dataset from an import.");
        }

        if (IsUpload(info) && (query.States.Count > 0 || query.Counties.Count > 0 || query.ContiguousOnly))
        {
            throw new ArgumentException($"Dataset {info.Id} is an upload without FIPS codes: states, counties and contiguousOnly select the census files' block groups; select its places with groups (its grouping columns: {GroupsOf(info)}) or a bounding box.");
        }

        var id = DatasetIds.For("census-query", info.Id.ToString(), Describe(query));
        return await datasets.GetOrCreateAsync(id, () => Select(info, content, query), cancellationToken);
    }

    private (DatasetInfo, DatasetContent) Load(string sourceName, string path)
    {
        var rows = CensusBlockGroups.ReadFile(path);
        _limits.CheckPoints(rows.Count, 2);
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

    private static (DatasetInfo, DatasetContent) Store(string name, PlaceTable places)
    {
        var values = new double[places.Count * 2];
        for (var i = 0; i < places.Count; i++)
        {
            (values[2 * i], values[2 * i + 1]) = (places.Latitudes[i], places.Longitudes[i]);
        }

        var metadata = new Dictionary<string, string>
        {
            [SourceKey] = UploadSource,
            ["columns"] = "latitude,longitude",
            [GroupsKey] = string.Join(',', places.GroupColumns),
            ["weight_column"] = places.WeightColumn ?? "(none: every place weighs 1)",
        };
        var info = new DatasetInfo
        {
            Id = Guid.Empty,
            Name = name,
            Kind = DatasetKind.Census,
            Count = places.Count,
            Dimension = 2,
            Created = DateTimeOffset.UtcNow,
            Source = $"place upload: {name}",
            Metadata = metadata,
        };
        var groups = places.GroupColumns.Count == 0 ? null : places.Groups.Select(g => string.Join(PlaceFile.GroupSeparator, g)).ToArray();
        return (info, new DatasetContent { Values = values, Weights = [.. places.Weights], Labels = [.. places.Ids], Texts = groups });
    }

    private static string R(double value) => value.ToString("R", CultureInfo.InvariantCulture);

    private static bool IsUpload(DatasetInfo info) => info.Metadata.GetValueOrDefault(SourceKey) == UploadSource;

    private static string GroupsOf(DatasetInfo info) => info.Metadata.GetValueOrDefault(GroupsKey) is { Length: > 0 } g ? g : "none";

    /// <summary>A place's group values: an upload's grouping columns, or a block group's state and county codes.</summary>
    private static string[] GroupValues(bool upload, DatasetContent content, int i) =>
        upload ? content.Texts?[i].Split(PlaceFile.GroupSeparator) ?? []
            : [content.Labels![i][..2], content.Labels[i][..5]];

    private (DatasetInfo, DatasetContent) Select(DatasetInfo census, DatasetContent content, CensusQuery query)
    {
        var labels = content.Labels ?? throw new InvalidDataException($"Census dataset {census.Id} has no ids.");
        var upload = IsUpload(census);
        var states = query.States.ToHashSet(StringComparer.Ordinal);
        var counties = query.Counties.ToHashSet(StringComparer.Ordinal);
        var groups = query.Groups.ToHashSet(StringComparer.Ordinal);
        var chosen = new List<int>();
        for (var i = 0; i < census.Count; i++)
        {
            if (Matches(query, states, counties, upload ? null : labels[i], content.Values![2 * i], content.Values[2 * i + 1], content.Weights[i])
                && (groups.Count == 0 || GroupValues(upload, content, i).Any(groups.Contains)))
            {
                chosen.Add(i);
            }
        }

        if (chosen.Count == 0)
        {
            throw new ArgumentException($"The query ({Describe(query)}) selects no {(upload ? "places" : "block groups")}.");
        }

        _limits.CheckPoints(chosen.Count, 2);
        var projection = EquirectangularProjection.CentredOn(chosen.Select(i => (content.Values![2 * i], content.Values[2 * i + 1], content.Weights[i])));
        var values = new double[chosen.Count * 2];
        for (var j = 0; j < chosen.Count; j++)
        {
            (values[2 * j], values[2 * j + 1]) = projection.Forward(content.Values![2 * chosen[j]], content.Values[2 * chosen[j] + 1]);
        }

        var info = new DatasetInfo
        {
            Id = Guid.Empty,
            Name = $"{census.Name} [{Describe(query)}]",
            Kind = DatasetKind.Dense,
            Count = chosen.Count,
            Dimension = 2,
            Created = DateTimeOffset.UtcNow,
            Source = $"census query of {census.Id}",
            Metadata = new Dictionary<string, string>(projection.ToMetadata())
            {
                ["census_dataset"] = census.Id.ToString(),
                ["selection"] = Describe(query),
            },
        };
        return (info, new DatasetContent { Values = values, Weights = [.. chosen.Select(i => content.Weights[i])], Labels = [.. chosen.Select(i => labels[i])] });
    }

    /// <summary>Whether a place meets the criteria; an upload's places (no GEOID) are never asked about codes (refused before).</summary>
    private static bool Matches(CensusQuery query, HashSet<string> states, HashSet<string> counties, string? geoId, double latitude, double longitude, double population) =>
        (states.Count == 0 || states.Contains(geoId![..2]))
        && (counties.Count == 0 || counties.Contains(geoId![..5]))
        && (!query.ContiguousOnly || !NonContiguous.Contains(geoId![..2]))
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

        if (query.Groups.Any(g => g is null))
        {
            throw new ArgumentException("A group value is null: give the values of the grouping columns as strings.");
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

        if (query.Groups.Count > 0)
        {
            parts.Add($"groups {string.Join(' ', query.Groups.Distinct().Order(StringComparer.Ordinal))}");
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
