namespace Salsa.Rendering.Scatter;

/// <summary>A point to name on the plot, by its index in the data.</summary>
public readonly record struct ScatterLabel(int Index, string Text);

/// <summary>
/// Points of a 2-D embedding (e.g. an MDS result), optionally with a cluster per point and a few
/// labels. Validated and copied on construction.
/// </summary>
public sealed record ScatterData
{
    private readonly double[] _xy;
    private readonly int[]? _clusters;
    private readonly ScatterLabel[] _labels;

    /// <param name="coordinates">n × 2 row-major (x₀, y₀, x₁, y₁, …), as MDS results hold them with 2 dimensions.</param>
    /// <param name="clusters">Each point's cluster (0 or more), or null to colour every point alike.</param>
    /// <param name="labels">Points to name; at most a few dozen are readable.</param>
    /// <exception cref="ArgumentException">An odd number of coordinates, a NaN or infinite one, a cluster list of another length, a negative cluster or a label of a missing point.</exception>
    public ScatterData(IReadOnlyList<double> coordinates, IReadOnlyList<int>? clusters = null, IReadOnlyList<ScatterLabel>? labels = null)
    {
        ArgumentNullException.ThrowIfNull(coordinates);
        _xy = [.. coordinates];
        if (_xy.Length % 2 != 0)
        {
            throw new ArgumentException($"Coordinates are n × 2 (x, y pairs), but {_xy.Length} numbers were given.", nameof(coordinates));
        }

        for (var i = 0; i < _xy.Length; i++)
        {
            if (!double.IsFinite(_xy[i]))
            {
                throw new ArgumentException($"Point {i / 2} has a NaN or infinite {(i % 2 == 0 ? "x" : "y")} coordinate ({_xy[i]}).", nameof(coordinates));
            }
        }

        if (clusters is not null)
        {
            if (clusters.Count != Count)
            {
                throw new ArgumentException($"There are {Count} points but {clusters.Count} clusters; give one cluster per point.", nameof(clusters));
            }

            _clusters = [.. clusters];
            for (var i = 0; i < _clusters.Length; i++)
            {
                if (_clusters[i] < 0)
                {
                    throw new ArgumentException($"Point {i} is in cluster {_clusters[i]}; clusters are numbered from 0.", nameof(clusters));
                }
            }
        }

        _labels = labels is null ? [] : [.. labels];
        foreach (var label in _labels)
        {
            if ((uint)label.Index >= (uint)Count)
            {
                throw new ArgumentException($"Label '{label.Text}' names point {label.Index}, but there are {Count} points (0..{Count - 1}).", nameof(labels));
            }

            if (string.IsNullOrWhiteSpace(label.Text))
            {
                throw new ArgumentException($"The label of point {label.Index} is empty.", nameof(labels));
            }
        }

        ClusterCount = _clusters is { Length: > 0 } ? _clusters.Max() + 1 : 0;
    }

    public int Count => _xy.Length / 2;

    public IReadOnlyList<double> Coordinates => _xy;

    public IReadOnlyList<int>? Clusters => _clusters;

    /// <summary>One more than the largest cluster number; 0 without clusters.</summary>
    public int ClusterCount { get; }

    public IReadOnlyList<ScatterLabel> Labels => _labels;

    public double X(int index) => _xy[2 * index];

    public double Y(int index) => _xy[(2 * index) + 1];

    /// <summary>From separate x and y columns.</summary>
    public static ScatterData FromColumns(IReadOnlyList<double> x, IReadOnlyList<double> y, IReadOnlyList<int>? clusters = null, IReadOnlyList<ScatterLabel>? labels = null)
    {
        ArgumentNullException.ThrowIfNull(x);
        ArgumentNullException.ThrowIfNull(y);
        if (x.Count != y.Count)
        {
            throw new ArgumentException($"There are {x.Count} x values but {y.Count} y values.", nameof(y));
        }

        var xy = new double[2 * x.Count];
        for (var i = 0; i < x.Count; i++)
        {
            (xy[2 * i], xy[(2 * i) + 1]) = (x[i], y[i]);
        }

        return new ScatterData(xy, clusters, labels);
    }
}
