using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Maps;

/// <summary>
/// The colour of each cluster on a map, shared by the PNG, the SVG and the GeoJSON. Up to
/// <see cref="Palette.Categorical"/>'s size every cluster gets its own colour (cluster k gets
/// category k, as in the charts). Beyond it colours must repeat, so neighbours are kept apart:
/// clusters are coloured greedily, most populous first, each with the first palette colour that
/// none of its nearest centres already has.
/// </summary>
public static class ClusterPalette
{
    /// <summary>How many nearest centres count as neighbours that must differ in colour.</summary>
    public const int Neighbours = 8;

    public static IReadOnlyList<Color> For(ClusteredPoints data)
    {
        ArgumentNullException.ThrowIfNull(data);
        var k = data.ClusterCount;
        var palette = Palette.Categorical;
        if (k <= palette.Count)
        {
            return [.. Enumerable.Range(0, k).Select(Palette.Category)];
        }

        // Distances on a local equirectangular plane are enough to find neighbours.
        var centres = Enumerable.Range(0, k).Select(data.Centres.Geographic).ToArray();
        var cosLat = Math.Cos(double.DegreesToRadians(centres.Average(c => c.Latitude)));
        var neighbours = new List<int>[k];
        for (var a = 0; a < k; a++)
        {
            neighbours[a] ??= [];
            var nearest = Enumerable.Range(0, k).Where(b => b != a)
                .OrderBy(b => Distance2(centres[a], centres[b], cosLat)).ThenBy(b => b)
                .Take(Neighbours);
            foreach (var b in nearest)
            {
                // Symmetric, so either side of a border sees the other.
                neighbours[a].Add(b);
                (neighbours[b] ??= []).Add(a);
            }
        }

        var colourIndex = new int[k];
        Array.Fill(colourIndex, -1);
        var order = Enumerable.Range(0, k).OrderByDescending(c => data.ClusterPopulations[c]).ThenBy(c => c);
        var used = new bool[palette.Count];
        foreach (var c in order)
        {
            Array.Clear(used);
            foreach (var n in neighbours[c])
            {
                if (colourIndex[n] >= 0)
                {
                    used[colourIndex[n]] = true;
                }
            }

            var free = Array.IndexOf(used, false);
            colourIndex[c] = free >= 0 ? free : c % palette.Count;
        }

        return [.. colourIndex.Select(i => palette[i])];
    }

    private static double Distance2(GeoPoint a, GeoPoint b, double cosLat)
    {
        var dx = (a.Longitude - b.Longitude) * cosLat;
        var dy = a.Latitude - b.Latitude;
        return (dx * dx) + (dy * dy);
    }
}
