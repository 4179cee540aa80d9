using Salsa.Rendering.Atlas;

namespace Salsa.Rendering.Maps;

/// <summary>How the outlying parts of the US (Alaska, Hawaii, Puerto Rico) are shown.</summary>
public enum MapLayoutMode
{
    /// <summary>Insets when the points are in the US and cover the conterminous states and an outlying part; else one view.</summary>
    Auto,

    /// <summary>The conterminous US in the main view, each outlying part that has points in an inset.</summary>
    Insets,

    /// <summary>One view fitted to every point, however far apart.</summary>
    SingleView,
}

/// <summary>What the census cluster map shows and how big it is.</summary>
public sealed record CensusMapOptions
{
    /// <summary>Canvas width in units (pixels of the PNG at <see cref="PngScale"/> 1).</summary>
    public int Width { get; init; } = 1400;

    public int Height { get; init; } = 900;

    /// <summary>Device pixels per unit of the PNG; 2 gives a sharper image of the same layout.</summary>
    public double PngScale { get; init; } = 1;

    /// <summary>The title; null gives "<c>k</c> population clusters".</summary>
    public string? Title { get; init; }

    /// <summary>An extra caption line, e.g. the source of the points.</summary>
    public string? Note { get; init; }

    /// <summary>County outlines: null shows them when the main view is under <see cref="CountyViewKm"/> across.</summary>
    public bool? ShowCounties { get; init; }

    /// <summary>The automatic county threshold: the larger side of the main view, in km.</summary>
    public double CountyViewKm { get; init; } = 1500;

    public bool ShowHulls { get; init; } = true;

    /// <summary>Cluster numbers beside the centres: null shows them for up to 30 clusters.</summary>
    public bool? ShowClusterLabels { get; init; }

    /// <summary>
    /// The SVG draws at most this many points, an evenly strided subset in input order (the PNG
    /// draws every point); hulls, centres and totals always use every point.
    /// </summary>
    public int MaxSvgPoints { get; init; } = 20_000;

    public MapLayoutMode Layout { get; init; } = MapLayoutMode.Auto;

    /// <summary>Space around the data, as a fraction of the data's larger extent.</summary>
    public double Margin { get; init; } = 0.04;

    /// <summary>The outlines; null uses <see cref="UsAtlas.Default"/>.</summary>
    public UsAtlas? Atlas { get; init; }

    /// <summary>The countries drawn around and beyond the US; null uses <see cref="WorldAtlas.Default"/>.</summary>
    public WorldAtlas? World { get; init; }

    internal void Validate()
    {
        if (Width is < 200 or > 16_000)
        {
            throw new ArgumentOutOfRangeException(nameof(Width), Width, "The map width must be 200..16000 units.");
        }

        if (Height is < 150 or > 16_000)
        {
            throw new ArgumentOutOfRangeException(nameof(Height), Height, "The map height must be 150..16000 units.");
        }

        if (!double.IsFinite(PngScale) || PngScale is <= 0 or > 8)
        {
            throw new ArgumentOutOfRangeException(nameof(PngScale), PngScale, "The PNG scale must be more than 0 and at most 8.");
        }

        if (!double.IsFinite(Margin) || Margin is < 0 or > 1)
        {
            throw new ArgumentOutOfRangeException(nameof(Margin), Margin, "The margin must be a fraction in 0..1.");
        }

        if (!double.IsFinite(CountyViewKm) || CountyViewKm <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(CountyViewKm), CountyViewKm, "The county threshold must be a positive number of km.");
        }

        ArgumentOutOfRangeException.ThrowIfNegative(MaxSvgPoints);
        if (!Enum.IsDefined(Layout))
        {
            throw new ArgumentOutOfRangeException(nameof(Layout), Layout, "Unknown layout mode.");
        }
    }
}
