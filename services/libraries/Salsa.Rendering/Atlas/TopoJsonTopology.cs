using System.Text.Json;

namespace Salsa.Rendering.Atlas;

/// <summary>
/// A decoded TopoJSON topology (https://github.com/topojson/topojson-specification): its arcs as
/// positions and its named objects as polygon features.
/// </summary>
/// <remarks>
/// A quantized topology stores each arc as integer deltas: positions are the running sum of the
/// deltas, mapped by the <c>transform</c> (<c>x·scale + translate</c>). A geometry lists arc
/// indices; index <c>~i</c> (i.e. <c>−i−1</c>) is arc <c>i</c> backwards, and consecutive arcs share
/// their joining position, which is kept once. Positions are read as (longitude, latitude).
/// Polygon and MultiPolygon geometries are decoded, null geometries give a feature without
/// polygons, and other kinds are rejected: the atlas objects are all areas.
/// </remarks>
public sealed class TopoJsonTopology
{
    private readonly GeoPoint[][] _arcs;
    private readonly Dictionary<string, IReadOnlyList<TopoFeature>> _objects;

    private TopoJsonTopology(GeoPoint[][] arcs, Dictionary<string, IReadOnlyList<TopoFeature>> objects)
    {
        _arcs = arcs;
        _objects = objects;
    }

    public IReadOnlyCollection<string> ObjectNames => _objects.Keys;

    public int ArcCount => _arcs.Length;

    /// <summary>Arc <paramref name="index"/> as decoded positions, in stored order.</summary>
    public IReadOnlyList<GeoPoint> Arc(int index) => _arcs[index];

    /// <summary>The features of the object called <paramref name="objectName"/>.</summary>
    /// <exception cref="KeyNotFoundException">The topology has no such object.</exception>
    public IReadOnlyList<TopoFeature> Features(string objectName) =>
        _objects.TryGetValue(objectName, out var features)
            ? features
            : throw new KeyNotFoundException($"The topology has no object '{objectName}'; it has {string.Join(", ", _objects.Keys.Select(k => $"'{k}'"))}.");

    public static TopoJsonTopology ReadFile(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        using var stream = File.OpenRead(path);
        return Read(stream, Path.GetFileName(path));
    }

    public static TopoJsonTopology Read(Stream stream, string sourceName = "TopoJSON")
    {
        ArgumentNullException.ThrowIfNull(stream);
        using var document = ParseDocument(() => JsonDocument.Parse(stream), sourceName);
        return Decode(document.RootElement, sourceName);
    }

    public static TopoJsonTopology Parse(string json, string sourceName = "TopoJSON")
    {
        ArgumentNullException.ThrowIfNull(json);
        using var document = ParseDocument(() => JsonDocument.Parse(json), sourceName);
        return Decode(document.RootElement, sourceName);
    }

    private static JsonDocument ParseDocument(Func<JsonDocument> parse, string sourceName)
    {
        try
        {
            return parse();
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"{sourceName} is not valid JSON: {e.Message}", e);
        }
    }

    private static TopoJsonTopology Decode(JsonElement root, string sourceName)
    {
        var reader = new Reader(sourceName);
        if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty("type", out var type) || type.ValueKind != JsonValueKind.String || type.GetString() != "Topology")
        {
            throw reader.Error("the root is not an object with \"type\": \"Topology\"");
        }

        var arcs = reader.DecodeArcs(root);
        var objects = new Dictionary<string, IReadOnlyList<TopoFeature>>(StringComparer.Ordinal);
        if (root.TryGetProperty("objects", out var objectsElement))
        {
            if (objectsElement.ValueKind != JsonValueKind.Object)
            {
                throw reader.Error("\"objects\" is not an object");
            }

            foreach (var o in objectsElement.EnumerateObject())
            {
                var features = new List<TopoFeature>();
                reader.AddFeatures(o.Value, arcs, features, $"objects.{o.Name}");
                objects[o.Name] = features;
            }
        }

        return new TopoJsonTopology(arcs, objects);
    }

    private readonly struct Reader(string sourceName)
    {
        public InvalidDataException Error(string what) => new($"{sourceName}: {what}.");

        public GeoPoint[][] DecodeArcs(JsonElement root)
        {
            var (scaleX, scaleY, translateX, translateY, quantized) = (1.0, 1.0, 0.0, 0.0, false);
            if (root.TryGetProperty("transform", out var transform) && transform.ValueKind != JsonValueKind.Null)
            {
                var scale = Pair(transform, "scale", "transform");
                var translate = Pair(transform, "translate", "transform");
                (scaleX, scaleY, translateX, translateY, quantized) = (scale.A, scale.B, translate.A, translate.B, true);
            }

            if (!root.TryGetProperty("arcs", out var arcsElement) || arcsElement.ValueKind != JsonValueKind.Array)
            {
                throw Error("\"arcs\" is missing or not an array");
            }

            var arcs = new GeoPoint[arcsElement.GetArrayLength()][];
            var index = 0;
            foreach (var arc in arcsElement.EnumerateArray())
            {
                if (arc.ValueKind != JsonValueKind.Array || arc.GetArrayLength() < 2)
                {
                    throw Error($"arc {index} is not an array of at least two positions");
                }

                var points = new GeoPoint[arc.GetArrayLength()];
                double x = 0, y = 0;
                var i = 0;
                foreach (var position in arc.EnumerateArray())
                {
                    var (px, py) = Position(position, $"arc {index} position {i}");
                    if (quantized)
                    {
                        // Delta encoding: each position is an offset from the one before it.
                        x += px;
                        y += py;
                        points[i] = new GeoPoint((y * scaleY) + translateY, (x * scaleX) + translateX);
                    }
                    else
                    {
                        points[i] = new GeoPoint(py, px);
                    }

                    i++;
                }

                arcs[index++] = points;
            }

            return arcs;
        }

        public void AddFeatures(JsonElement geometry, GeoPoint[][] arcs, List<TopoFeature> into, string path)
        {
            if (geometry.ValueKind != JsonValueKind.Object)
            {
                throw Error($"{path} is not a geometry object");
            }

            var type = geometry.TryGetProperty("type", out var t) && t.ValueKind == JsonValueKind.String ? t.GetString() : null;
            switch (type)
            {
                case "GeometryCollection":
                    if (!geometry.TryGetProperty("geometries", out var members) || members.ValueKind != JsonValueKind.Array)
                    {
                        throw Error($"{path} is a GeometryCollection without a \"geometries\" array");
                    }

                    var i = 0;
                    foreach (var member in members.EnumerateArray())
                    {
                        AddFeatures(member, arcs, into, $"{path}.geometries[{i++}]");
                    }

                    return;
                case "Polygon":
                    into.Add(new TopoFeature(Id(geometry), Name(geometry), [Polygon(ArcsOf(geometry, path), arcs, path)]));
                    return;
                case "MultiPolygon":
                    var polygons = new List<GeoPolygon>();
                    var p = 0;
                    foreach (var polygon in ArcsOf(geometry, path).EnumerateArray())
                    {
                        polygons.Add(Polygon(polygon, arcs, $"{path} polygon {p++}"));
                    }

                    into.Add(new TopoFeature(Id(geometry), Name(geometry), polygons));
                    return;
                case null when !geometry.TryGetProperty("type", out var nullType) || nullType.ValueKind == JsonValueKind.Null:
                    into.Add(new TopoFeature(Id(geometry), Name(geometry), []));
                    return;
                default:
                    throw Error($"{path} has geometry type '{type}'; only Polygon, MultiPolygon, GeometryCollection and null geometries are decoded");
            }
        }

        private JsonElement ArcsOf(JsonElement geometry, string path) =>
            geometry.TryGetProperty("arcs", out var a) && a.ValueKind == JsonValueKind.Array
                ? a
                : throw Error($"{path} has no \"arcs\" array");

        private GeoPolygon Polygon(JsonElement rings, GeoPoint[][] arcs, string path)
        {
            if (rings.ValueKind != JsonValueKind.Array || rings.GetArrayLength() == 0)
            {
                throw Error($"{path} is not a non-empty array of rings");
            }

            var decoded = new List<IReadOnlyList<GeoPoint>>(rings.GetArrayLength());
            var r = 0;
            foreach (var ring in rings.EnumerateArray())
            {
                decoded.Add(Ring(ring, arcs, $"{path} ring {r++}"));
            }

            return new GeoPolygon(decoded[0], decoded[1..]);
        }

        private GeoPoint[] Ring(JsonElement references, GeoPoint[][] arcs, string path)
        {
            if (references.ValueKind != JsonValueKind.Array || references.GetArrayLength() == 0)
            {
                throw Error($"{path} is not a non-empty array of arc indices");
            }

            var ring = new List<GeoPoint>();
            foreach (var reference in references.EnumerateArray())
            {
                if (reference.ValueKind != JsonValueKind.Number || !reference.TryGetInt32(out var index))
                {
                    throw Error($"{path} has an arc index that is not an integer");
                }

                // ~index (−index−1) refers to arc index traversed backwards.
                var reversed = index < 0;
                var arcIndex = reversed ? ~index : index;
                if (arcIndex >= arcs.Length)
                {
                    throw Error($"{path} refers to arc {index}, but the topology has {arcs.Length} arcs");
                }

                var arc = arcs[arcIndex];
                var skipFirst = ring.Count > 0;
                if (reversed)
                {
                    for (var k = arc.Length - 1 - (skipFirst ? 1 : 0); k >= 0; k--)
                    {
                        ring.Add(arc[k]);
                    }
                }
                else
                {
                    for (var k = skipFirst ? 1 : 0; k < arc.Length; k++)
                    {
                        ring.Add(arc[k]);
                    }
                }
            }

            return [.. ring];
        }

        private (double A, double B) Pair(JsonElement parent, string name, string path)
        {
            if (!parent.TryGetProperty(name, out var pair) || pair.ValueKind != JsonValueKind.Array || pair.GetArrayLength() != 2)
            {
                throw Error($"{path}.{name} is not an array of two numbers");
            }

            return Position(pair, $"{path}.{name}");
        }

        private (double X, double Y) Position(JsonElement position, string path)
        {
            if (position.ValueKind != JsonValueKind.Array || position.GetArrayLength() < 2
                || position[0].ValueKind != JsonValueKind.Number || position[1].ValueKind != JsonValueKind.Number)
            {
                throw Error($"{path} is not a position [x, y]");
            }

            var (x, y) = (position[0].GetDouble(), position[1].GetDouble());
            return double.IsFinite(x) && double.IsFinite(y) ? (x, y) : throw Error($"{path} is not finite");
        }

        private static string? Id(JsonElement geometry) =>
            !geometry.TryGetProperty("id", out var id) ? null : id.ValueKind switch
            {
                JsonValueKind.String => id.GetString(),
                JsonValueKind.Number => id.GetRawText(),
                _ => null,
            };

        private static string? Name(JsonElement geometry) =>
            geometry.TryGetProperty("properties", out var properties) && properties.ValueKind == JsonValueKind.Object
            && properties.TryGetProperty("name", out var name) && name.ValueKind == JsonValueKind.String
                ? name.GetString()
                : null;
    }
}
