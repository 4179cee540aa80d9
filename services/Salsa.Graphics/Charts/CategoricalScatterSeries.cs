using System.Buffers;

namespace Salsa.Graphics.Charts;

/// <summary>
/// Many points coloured by category, such as the clusters of a clustering: one colour of
/// <see cref="Palette.Categorical"/> per category, grey for negative categories (unassigned).
/// Built for 10⁵ points: points are grouped by category with a counting sort into pooled
/// buffers and each group is sent to Skia in a few batched fills, so nothing is allocated per
/// point. Groups are drawn in category order, unassigned first.
/// </summary>
public sealed class CategoricalScatterSeries : Series
{
    /// <summary>The legend lists at most this many categories, then a "more" row.</summary>
    public const int MaxLegendCategories = 24;

    /// <summary>Category numbers index buffers and the palette, so they must be small.</summary>
    public const int MaxCategory = 65_535;

    private readonly double[] _x;
    private readonly double[] _y;
    private readonly int[] _categories;
    private readonly string[]? _categoryNames;
    private readonly int _categoryCount;

    internal CategoricalScatterSeries(ReadOnlySpan<double> x, ReadOnlySpan<double> y, ReadOnlySpan<int> categories, IReadOnlyList<string>? categoryNames, SeriesStyle style)
        : base(string.Empty, style, style.Color ?? Palette.Category(0))
    {
        _x = x.ToArray();
        _y = Copy(y, x.Length, nameof(y));
        if (categories.Length != x.Length)
        {
            throw new ArgumentException($"Expected {x.Length} categories, got {categories.Length}.", nameof(categories));
        }

        _categories = categories.ToArray();
        _categoryNames = categoryNames?.ToArray();
        _categoryCount = _categories.Length == 0 ? 0 : Math.Max(0, _categories.Max() + 1);
        if (_categoryCount > MaxCategory + 1)
        {
            throw new ArgumentOutOfRangeException(nameof(categories), _categoryCount - 1, $"Category numbers go up to {MaxCategory}; renumber the categories from 0.");
        }
    }

    public int Count => _x.Length;

    /// <summary>One more than the largest category number.</summary>
    public int CategoryCount => _categoryCount;

    private MarkerShape Shape => Style.Marker == MarkerShape.None ? MarkerShape.Circle : Style.Marker;

    internal override void IncludeIn(ref DataRange x, ref DataRange y)
    {
        x.Include(_x);
        y.Include(_y);
    }

    internal override void Draw(Canvas canvas, PlotFrame frame)
    {
        // Counting sort by category; bucket 0 holds the unassigned points so they are drawn first.
        var buckets = _categoryCount + 1;
        var starts = ArrayPool<int>.Shared.Rent(buckets + 1);
        var sorted = ArrayPool<Point>.Shared.Rent(_x.Length);
        try
        {
            var offsets = starts.AsSpan(0, buckets + 1);
            offsets.Clear();
            foreach (var c in _categories)
            {
                offsets[Bucket(c) + 1]++;
            }

            for (var b = 1; b <= buckets; b++)
            {
                offsets[b] += offsets[b - 1];
            }

            // Fill each bucket from its start; afterwards offsets[b] is where bucket b ends.
            for (var i = 0; i < _x.Length; i++)
            {
                sorted[offsets[Bucket(_categories[i])]++] = frame.ToCanvas(_x[i], _y[i]);
            }

            var begin = 0;
            for (var b = 0; b < buckets; b++)
            {
                var end = offsets[b];
                var colour = b == 0 ? Palette.Unassigned : Palette.Category(b - 1);
                canvas.DrawMarkers(sorted.AsSpan(begin, end - begin), Shape, Style.MarkerSize, colour);
                begin = end;
            }
        }
        finally
        {
            ArrayPool<Point>.Shared.Return(sorted);
            ArrayPool<int>.Shared.Return(starts);
        }
    }

    internal override void AddObstacles(PlotFrame frame, LegendObstacles obstacles)
    {
        for (var i = 0; i < _x.Length; i++)
        {
            obstacles.Add(frame.ToCanvas(_x[i], _y[i]));
        }
    }

    internal override IEnumerable<LegendEntry> LegendEntries()
    {
        var present = new bool[_categoryCount];
        var unassigned = false;
        foreach (var c in _categories)
        {
            if (c < 0)
            {
                unassigned = true;
            }
            else
            {
                present[c] = true;
            }
        }

        var size = Math.Max(7, Style.MarkerSize);
        var listed = 0;
        for (var c = 0; c < _categoryCount; c++)
        {
            if (!present[c])
            {
                continue;
            }

            if (listed == MaxLegendCategories)
            {
                var rest = present.AsSpan(c).Count(true);
                yield return new LegendEntry($"… {rest} more", LegendSampleKind.Marker, Color.Transparent, 0, LineDash.Solid, MarkerShape.None, 0, null);
                break;
            }

            listed++;
            yield return new LegendEntry(NameOf(c), LegendSampleKind.Marker, Palette.Category(c), 0, LineDash.Solid, Shape, size, null);
        }

        if (unassigned)
        {
            yield return new LegendEntry("unassigned", LegendSampleKind.Marker, Palette.Unassigned, 0, LineDash.Solid, Shape, size, null);
        }
    }

    private static int Bucket(int category) => category < 0 ? 0 : category + 1;

    private string NameOf(int category) =>
        _categoryNames is not null && category < _categoryNames.Length ? _categoryNames[category] : $"cluster {category}";
}
