using Salsa.DataFiles;

namespace Salsa.Rendering.Maps;

/// <summary>
/// A clustering of weighted geographic points, as the map and the GeoJSON need it: each point's
/// position, weight (population) and cluster, the cluster centres and the cluster populations.
/// Everything is validated and copied on construction, so an instance cannot change.
/// </summary>
public sealed record ClusteredPoints
{
    private readonly GeoPoint[] _points;
    private readonly double[] _weights;
    private readonly int[] _assignments;
    private readonly double[] _populations;
    private readonly int[] _pointCounts;

    /// <param name="points">Latitude/longitude of every point.</param>
    /// <param name="weights">Each point's weight (population), finite and 0 or more.</param>
    /// <param name="assignments">Each point's cluster, 0 ≤ cluster &lt; <c>centres.Count</c>.</param>
    /// <param name="centres">The cluster centres; their count is the number of clusters.</param>
    /// <param name="clusterPopulations">Per-cluster population; null sums the weights of each cluster's points.</param>
    /// <exception cref="ArgumentException">Lengths disagree, a cluster index is out of range, or a value is NaN, infinite or out of range.</exception>
    public ClusteredPoints(IReadOnlyList<GeoPoint> points, IReadOnlyList<double> weights, IReadOnlyList<int> assignments, ClusterCentres centres, IReadOnlyList<double>? clusterPopulations = null)
    {
        ArgumentNullException.ThrowIfNull(points);
        ArgumentNullException.ThrowIfNull(weights);
        ArgumentNullException.ThrowIfNull(assignments);
        ArgumentNullException.ThrowIfNull(centres);
        if (weights.Count != points.Count)
        {
            throw new ArgumentException($"There are {points.Count} points but {weights.Count} weights; give one weight per point.", nameof(weights));
        }

        if (assignments.Count != points.Count)
        {
            throw new ArgumentException($"There are {points.Count} points but {assignments.Count} cluster assignments; give one cluster per point.", nameof(assignments));
        }

        if (centres.Count == 0)
        {
            throw new ArgumentException("There are no cluster centres; a clustering has at least one cluster.", nameof(centres));
        }

        var k = centres.Count;
        _points = [.. points];
        _weights = [.. weights];
        _assignments = [.. assignments];
        _pointCounts = new int[k];
        var sums = new double[k];
        for (var i = 0; i < _points.Length; i++)
        {
            CheckPosition(_points[i], i, nameof(points));
            if (!double.IsFinite(_weights[i]) || _weights[i] < 0)
            {
                throw new ArgumentException($"Weight {i} is {_weights[i]}; weights must be finite and 0 or more.", nameof(weights));
            }

            var c = _assignments[i];
            if ((uint)c >= (uint)k)
            {
                throw new ArgumentException($"Point {i} is assigned to cluster {c}, but there are {k} clusters (0..{k - 1}).", nameof(assignments));
            }

            _pointCounts[c]++;
            sums[c] += _weights[i];
        }

        if (clusterPopulations is null)
        {
            _populations = sums;
        }
        else
        {
            if (clusterPopulations.Count != k)
            {
                throw new ArgumentException($"There are {k} clusters but {clusterPopulations.Count} cluster populations.", nameof(clusterPopulations));
            }

            _populations = [.. clusterPopulations];
            for (var c = 0; c < k; c++)
            {
                if (!double.IsFinite(_populations[c]) || _populations[c] < 0)
                {
                    throw new ArgumentException($"Cluster {c}'s population is {_populations[c]}; populations must be finite and 0 or more.", nameof(clusterPopulations));
                }
            }
        }

        Centres = centres;
    }

    public IReadOnlyList<GeoPoint> Points => _points;

    public IReadOnlyList<double> Weights => _weights;

    public IReadOnlyList<int> Assignments => _assignments;

    public ClusterCentres Centres { get; }

    /// <summary>Population per cluster, as given or summed from the weights.</summary>
    public IReadOnlyList<double> ClusterPopulations => _populations;

    /// <summary>Points per cluster.</summary>
    public IReadOnlyList<int> ClusterPointCounts => _pointCounts;

    public int Count => _points.Length;

    public int ClusterCount => Centres.Count;

    public double TotalPopulation => _populations.Sum();

    internal ReadOnlySpan<GeoPoint> PointSpan => _points;

    internal ReadOnlySpan<double> WeightSpan => _weights;

    internal ReadOnlySpan<int> AssignmentSpan => _assignments;

    /// <summary>Census block groups with their clusters; the weights are the populations.</summary>
    public static ClusteredPoints FromCensus(IReadOnlyList<CensusBlockGroup> blockGroups, IReadOnlyList<int> assignments, ClusterCentres centres, IReadOnlyList<double>? clusterPopulations = null)
    {
        ArgumentNullException.ThrowIfNull(blockGroups);
        var points = new GeoPoint[blockGroups.Count];
        var weights = new double[blockGroups.Count];
        for (var i = 0; i < points.Length; i++)
        {
            points[i] = new GeoPoint(blockGroups[i].Latitude, blockGroups[i].Longitude);
            weights[i] = blockGroups[i].Population;
        }

        return new ClusteredPoints(points, weights, assignments, centres, clusterPopulations);
    }

    internal static void CheckPosition(GeoPoint p, int index, string parameter)
    {
        if (!p.IsFinite)
        {
            throw new ArgumentException($"Position {index} ({p.Latitude}, {p.Longitude}) has a NaN or infinite coordinate.", parameter);
        }

        if (p.Latitude is < -90 or > 90 || p.Longitude is < -180 or > 180)
        {
            throw new ArgumentException($"Position {index} ({p.Latitude}, {p.Longitude}) is not a latitude in -90..90 and a longitude in -180..180.", parameter);
        }
    }
}
