using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Scatter;

/// <summary>What the scatter plot shows and how big it is.</summary>
public sealed record ScatterOptions
{
    public int Width { get; init; } = 900;

    public int Height { get; init; } = 760;

    /// <summary>Device pixels per unit of the PNG.</summary>
    public double PngScale { get; init; } = 1;

    public string Title { get; init; } = "MDS embedding";

    public string XLabel { get; init; } = "dimension 1";

    public string YLabel { get; init; } = "dimension 2";

    /// <summary>Marker diameter in canvas units; null sizes markers by how many points share the plot.</summary>
    public double? MarkerSize { get; init; }

    /// <summary>Legend names of the clusters; missing ones are "cluster k".</summary>
    public IReadOnlyList<string>? ClusterNames { get; init; }

    /// <summary>Cluster colours (e.g. the map's, from <c>ClusterPalette.For</c>); null uses <see cref="Palette.Category"/>.</summary>
    public IReadOnlyList<Color>? ClusterColors { get; init; }

    /// <summary>The legend lists this many clusters, then says how many more there are.</summary>
    public int MaxLegendEntries { get; init; } = 20;

    internal void Validate()
    {
        if (Width is < 200 or > 16_000)
        {
            throw new ArgumentOutOfRangeException(nameof(Width), Width, "The plot width must be 200..16000 units.");
        }

        if (Height is < 150 or > 16_000)
        {
            throw new ArgumentOutOfRangeException(nameof(Height), Height, "The plot height must be 150..16000 units.");
        }

        if (!double.IsFinite(PngScale) || PngScale is <= 0 or > 8)
        {
            throw new ArgumentOutOfRangeException(nameof(PngScale), PngScale, "The PNG scale must be more than 0 and at most 8.");
        }

        if (MarkerSize is { } size && (!double.IsFinite(size) || size <= 0))
        {
            throw new ArgumentOutOfRangeException(nameof(MarkerSize), size, "The marker size must be a positive number.");
        }

        ArgumentOutOfRangeException.ThrowIfNegative(MaxLegendEntries);
        ArgumentNullException.ThrowIfNull(Title);
        ArgumentNullException.ThrowIfNull(XLabel);
        ArgumentNullException.ThrowIfNull(YLabel);
    }
}
