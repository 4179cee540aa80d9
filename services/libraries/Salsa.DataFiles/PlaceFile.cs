using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Salsa.DataFiles;

/// <summary>A place file's layout.</summary>
public enum PlaceFileFormat
{
    /// <summary>GeoJSON when the file starts with <c>{</c>, else CSV.</summary>
    Auto,

    /// <summary>A header, then one place per row (comma, semicolon or tab; RFC 4180 quoting).</summary>
    Csv,

    /// <summary>A GeoJSON FeatureCollection of Point features; the other values are the features' properties.</summary>
    GeoJson,
}

/// <summary>
/// Which columns (CSV) or properties (GeoJSON) hold what; a null name is detected from the header
/// (<see cref="PlaceFile.LatitudeNames"/> and the like). Grouping columns (state, county, country…)
/// are kept with each place so a query can select by them.
/// </summary>
public sealed record PlaceColumns
{
    public string? Id { get; init; }

    public string? Latitude { get; init; }

    public string? Longitude { get; init; }

    /// <summary>The weight (population); none detected means every place weighs 1.</summary>
    public string? Weight { get; init; }

    /// <summary>Grouping columns; empty detects the usual ones (<see cref="PlaceFile.GroupNames"/>).</summary>
    public IReadOnlyList<string> Groups { get; init; } = [];
}

/// <summary>A user's places, columnar: what a census-style dataset stores.</summary>
public sealed record PlaceTable(
    IReadOnlyList<string> Ids,
    IReadOnlyList<double> Latitudes,
    IReadOnlyList<double> Longitudes,
    IReadOnlyList<double> Weights,
    IReadOnlyList<string> GroupColumns,
    IReadOnlyList<string[]> Groups,
    string? WeightColumn)
{
    public int Count => Ids.Count;
}

/// <summary>
/// Reads a user's file of places with weights — CSV or GeoJSON points, plain or gzip — checking
/// every row as it streams in: a bad row ends the read with its line (CSV) or feature number
/// (GeoJSON) and what is wrong, so a caller stores all of a file or nothing.
/// </summary>
public static class PlaceFile
{
    public static readonly string[] IdNames = ["id", "geoid", "name", "place", "code", "fid"];
    public static readonly string[] LatitudeNames = ["latitude", "lat", "y"];
    public static readonly string[] LongitudeNames = ["longitude", "lon", "lng", "long", "x"];
    public static readonly string[] WeightNames = ["weight", "population", "pop", "count", "value"];
    public static readonly string[] GroupNames = ["country", "state", "state_fips", "region", "province", "county", "county_fips", "district", "group"];

    /// <summary>The separator of a place's group values in a dataset's texts.</summary>
    public const char GroupSeparator = '\u001f';

    public static PlaceFileFormat ParseFormat(string? format) => format?.ToLowerInvariant() switch
    {
        null or "" or "auto" => PlaceFileFormat.Auto,
        "csv" => PlaceFileFormat.Csv,
        "geojson" or "json" => PlaceFileFormat.GeoJson,
        _ => throw new ArgumentException($"Unknown place file format '{format}': use auto, csv or geojson."),
    };

    /// <summary>
    /// Every place of <paramref name="stream"/>; <paramref name="source"/> names the file in messages
    /// and <paramref name="maxPlaces"/> stops a file longer than a dataset may be, as it streams.
    /// </summary>
    public static PlaceTable Read(Stream stream, PlaceFileFormat format, PlaceColumns? columns = null, UserFileSource? source = null, int maxPlaces = int.MaxValue)
    {
        ArgumentNullException.ThrowIfNull(stream);
        columns ??= new PlaceColumns();
        source ??= "the file";
        var (text, first) = UserFileText.SkipWhiteSpace(UserFileText.Text(stream, source));
        using (text)
        {
            if (format == PlaceFileFormat.Auto)
            {
                format = first == '{' ? PlaceFileFormat.GeoJson : PlaceFileFormat.Csv;
            }

            var table = format == PlaceFileFormat.GeoJson ? ReadGeoJson(text, columns, source, maxPlaces) : ReadCsv(text, columns, source, maxPlaces);
            return table.Count > 0 ? table : throw new InvalidDataException($"{source} holds no places.");
        }
    }

    private static PlaceTable ReadCsv(Stream text, PlaceColumns columns, UserFileSource source, int maxPlaces)
    {
        using var reader = new StreamReader(text, Encoding.UTF8, detectEncodingFromByteOrderMarks: false, bufferSize: 1 << 16);
        var lines = new UserFileLines(reader, source);
        var header = lines.ReadLine() ?? throw new InvalidDataException($"{source} is empty.");
        var (names, delimiter) = UserFileText.SplitHeader(header)
            ?? throw new InvalidDataException($"{source} line 1: a place file starts with a header naming its columns (latitude, longitude, and optionally id, weight, grouping columns), separated by commas, semicolons or tabs.");
        var lat = Column(names, columns.Latitude, LatitudeNames, "latitude", source, required: true);
        var lon = Column(names, columns.Longitude, LongitudeNames, "longitude", source, required: true);
        var id = Column(names, columns.Id, IdNames, "id", source, required: false);
        var weight = Column(names, columns.Weight, WeightNames, "weight", source, required: false);
        var groups = GroupColumns(names, columns.Groups, source);
        var table = new Builder([.. groups.Select(g => names[g])], weight >= 0 ? names[weight] : null);
        while (lines.ReadLine() is { } row)
        {
            var line = lines.Number;
            if (row.Trim().Length == 0)
            {
                continue;
            }

            var fields = UserFileText.Fields(row, delimiter, source, line);
            if (fields.Length < names.Length)
            {
                throw new InvalidDataException($"{source} line {line}: {fields.Length} fields, the header names {names.Length}.");
            }

            var where = string.Create(CultureInfo.InvariantCulture, $"{source} line {line}");
            table.Add(
                where,
                id >= 0 && fields[id].Length > 0 ? fields[id] : UserFileText.DefaultId(line),
                Number(fields[lat], names[lat], where, source),
                Number(fields[lon], names[lon], where, source),
                weight >= 0 ? Number(fields[weight], names[weight], where, source) : 1,
                [.. groups.Select(g => fields[g])],
                maxPlaces,
                source);
        }

        return table.Build();
    }

    /// <summary>
    /// A FeatureCollection's Point features, streamed (<see cref="GeoJsonFeatures"/>). The properties'
    /// names come from the first feature that has properties; features before it have none, and are
    /// read once the names are known, as though their values were all missing.
    /// </summary>
    private static PlaceTable ReadGeoJson(Stream text, PlaceColumns columns, UserFileSource source, int maxPlaces)
    {
        string[]? names = null;
        int id = -1, weight = -1;
        int[] groups = [];
        Builder? table = null;
        var waiting = new List<(string Where, string? Id, double Latitude, double Longitude, int Number)>();
        var number = 0;

        void Add(string where, string? featureId, double latitude, double longitude, JsonElement values, int at) =>
            table!.Add(
                where,
                string.IsNullOrEmpty(featureId) ? string.Create(CultureInfo.InvariantCulture, $"feature-{at}") : featureId,
                latitude,
                longitude,
                weight >= 0 ? Number(Value(values, weight) ?? string.Empty, names![weight], where, source) : 1,
                [.. groups.Select(g => Value(values, g) ?? string.Empty)],
                maxPlaces,
                source);

        string? Value(JsonElement values, int column) => column < 0 || values.ValueKind != JsonValueKind.Object || !values.TryGetProperty(names![column], out var v) ? null
            : v.ValueKind == JsonValueKind.String ? v.GetString() : v.ValueKind is JsonValueKind.Null ? null : v.GetRawText();

        void Named(string[] found)
        {
            names = found;
            id = Column(names, columns.Id, IdNames, "id", source, required: false);
            weight = Column(names, columns.Weight, WeightNames, "weight", source, required: false);
            groups = GroupColumns(names, columns.Groups, source);
            table = new Builder([.. groups.Select(g => names[g])], weight >= 0 ? names[weight] : null);
            foreach (var (where, featureId, latitude, longitude, at) in waiting)
            {
                Add(where, featureId, latitude, longitude, default, at);
            }

            waiting.Clear();
        }

        GeoJsonFeatures.Read(text, source, $"{source}: a GeoJSON place file is a FeatureCollection with a 'features' array of Point features.", feature =>
        {
            number++;
            var where = string.Create(CultureInfo.InvariantCulture, $"{source} feature {number}");
            if (number > maxPlaces)
            {
                throw new InvalidDataException(string.Create(CultureInfo.InvariantCulture, $"{where}: more than {maxPlaces:N0} places, the most one dataset may hold."));
            }

            if (feature.ValueKind != JsonValueKind.Object || !feature.TryGetProperty("geometry", out var geometry) || geometry.ValueKind != JsonValueKind.Object
                || !geometry.TryGetProperty("type", out var geometryType) || geometryType.ValueKind != JsonValueKind.String)
            {
                throw new InvalidDataException($"{where}: not a Feature with a geometry.");
            }

            if (geometryType.GetString() != "Point")
            {
                throw new InvalidDataException($"{where}: geometry is {(source.Quotable ? geometryType.GetString() : "not a Point")}; a place file holds Point features.");
            }

            if (!geometry.TryGetProperty("coordinates", out var coordinates) || coordinates.ValueKind != JsonValueKind.Array || coordinates.GetArrayLength() < 2
                || coordinates[0].ValueKind != JsonValueKind.Number || coordinates[1].ValueKind != JsonValueKind.Number
                || !coordinates[0].TryGetDouble(out var longitude) || !coordinates[1].TryGetDouble(out var latitude) || !double.IsFinite(longitude) || !double.IsFinite(latitude))
            {
                throw new InvalidDataException($"{where}: a Point's coordinates are [longitude, latitude].");
            }

            var values = feature.TryGetProperty("properties", out var p) && p.ValueKind == JsonValueKind.Object ? p : default;
            if (names is null && values.ValueKind == JsonValueKind.Object)
            {
                Named([.. values.EnumerateObject().Select(v => v.Name)]);
            }

            var featureId = feature.TryGetProperty("id", out var fid) && fid.ValueKind is JsonValueKind.String or JsonValueKind.Number
                ? (fid.ValueKind == JsonValueKind.String ? fid.GetString() : fid.GetRawText())
                : names is null ? null : Value(values, id);
            if (names is null)
            {
                waiting.Add((where, featureId, latitude, longitude, number));
            }
            else
            {
                Add(where, featureId, latitude, longitude, values, number);
            }
        });

        if (names is null)
        {
            Named([]);
        }

        return table!.Build();
    }

    /// <summary>The column named in the request (it must exist), else the first of the usual names; −1 when an optional column is absent.</summary>
    private static int Column(string[] names, string? asked, string[] usual, string what, UserFileSource source, bool required)
    {
        if (asked is not null)
        {
            var index = UserFileText.FindColumn(names, [asked]);
            return index >= 0 ? index : throw new ArgumentException($"{source} has no column '{asked}' (asked for as the {what}){source.Columns(names)}.");
        }

        var found = UserFileText.FindColumn(names, usual);
        return found >= 0 || !required ? found
            : throw new InvalidDataException($"{source}: no {what} column (one of {string.Join(", ", usual)}){source.Columns(names, " among ")}; name it in the request.");
    }

    private static int[] GroupColumns(string[] names, IReadOnlyList<string> asked, UserFileSource source) =>
        asked.Count > 0
            ? [.. asked.Select(g => Column(names, g, [], "grouping column", source, required: true))]
            : [.. names.Select((n, i) => (n, i)).Where(p => GroupNames.Contains(p.n, StringComparer.OrdinalIgnoreCase)).Select(p => p.i)];

    private static double Number(string text, string column, string where, UserFileSource source) =>
        double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) && double.IsFinite(value)
            ? value
            : throw new InvalidDataException($"{where}: {column}{source.Quote(text)} is not a number.");

    /// <summary>Collects checked places.</summary>
    private sealed class Builder(string[] groupColumns, string? weightColumn)
    {
        private readonly List<string> _ids = [];
        private readonly List<double> _latitudes = [];
        private readonly List<double> _longitudes = [];
        private readonly List<double> _weights = [];
        private readonly List<string[]> _groups = [];

        public void Add(string where, string id, double latitude, double longitude, double weight, string[] groups, int maxPlaces, UserFileSource source)
        {
            if (latitude is < -90 or > 90)
            {
                throw new InvalidDataException($"{where}: latitude{source.Number(latitude)} is outside [−90, 90] (are latitude and longitude swapped?).");
            }

            if (longitude is < -180 or > 180)
            {
                throw new InvalidDataException($"{where}: longitude{source.Number(longitude)} is outside [−180, 180].");
            }

            if (weight < 0)
            {
                throw new InvalidDataException($"{where}: weight{source.Number(weight)} is negative.");
            }

            if (groups.FirstOrDefault(g => g.Contains(GroupSeparator)) is { } bad)
            {
                throw new InvalidDataException($"{where}: group value{source.Quote(bad)} holds a control character.");
            }

            if (_ids.Count >= maxPlaces)
            {
                throw new InvalidDataException(string.Create(CultureInfo.InvariantCulture, $"{where}: more than {maxPlaces:N0} places, the most one dataset may hold."));
            }

            _ids.Add(id);
            _latitudes.Add(latitude);
            _longitudes.Add(longitude);
            _weights.Add(weight);
            _groups.Add(groups);
        }

        public PlaceTable Build() => new(_ids, _latitudes, _longitudes, _weights, groupColumns, _groups, weightColumn);
    }
}
