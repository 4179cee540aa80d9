namespace Salsa.Rendering.Drawing;

/// <summary>Colours for categories such as clusters or benchmark series.</summary>
public static class Palette
{
    /// <summary>
    /// Matplotlib's Tableau 10 (<c>tab10</c>), then 14 more picked greedily from ColorBrewer,
    /// Kelly's and Tableau's sets to be as far as possible (CIELAB) from every colour before them
    /// and from the white background. The first 20 are at least ΔE 29 apart.
    /// </summary>
    public static IReadOnlyList<Color> Categorical { get; } =
    [
        .. new[]
        {
            "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
            "#000080", "#00441b", "#ffbb78", "#b2df8a", "#1b9e77", "#fb9a99", "#cab2d6", "#e7298a", "#b15928", "#393b79",
            "#637939", "#b3446c", "#e6ab02", "#800000",
        }.Select(Color.FromHex),
    ];

    /// <summary>The colour of category <paramref name="index"/>; the palette repeats past its end.</summary>
    public static Color Category(int index)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        return Categorical[index % Categorical.Count];
    }

    /// <summary>Points that belong to no category (e.g. noise in a clustering).</summary>
    public static Color Unassigned { get; } = Color.FromHex("#c7c7c7");
}
