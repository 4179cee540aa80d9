using Salsa.DataFiles;

namespace Salsa.Rendering.Maps;

/// <summary>
/// Where the cluster centres are: <see cref="GeographicCentres"/> in latitude/longitude, or
/// <see cref="PlanarCentres"/> in the clustering's planar kilometres with the projection that
/// made them.
/// </summary>
public abstract record ClusterCentres
{
    private protected ClusterCentres()
    {
    }

    public abstract int Count { get; }

    /// <summary>The projection the clustering worked in, when the centres say.</summary>
    public virtual EquirectangularProjection? Projection => null;

    /// <summary>Centre <paramref name="cluster"/> as latitude/longitude.</summary>
    public abstract GeoPoint Geographic(int cluster);
}

/// <summary>Cluster centres given as latitude/longitude.</summary>
public sealed record GeographicCentres : ClusterCentres
{
    private readonly GeoPoint[] _centres;

    public GeographicCentres(IEnumerable<GeoPoint> centres)
    {
        ArgumentNullException.ThrowIfNull(centres);
        _centres = [.. centres];
        for (var k = 0; k < _centres.Length; k++)
        {
            ClusteredPoints.CheckPosition(_centres[k], k, nameof(centres));
        }
    }

    public IReadOnlyList<GeoPoint> Centres => _centres;

    public override int Count => _centres.Length;

    public override GeoPoint Geographic(int cluster) => _centres[cluster];
}

/// <summary>
/// Cluster centres in the planar kilometres of an equirectangular projection, row-major
/// (x₀, y₀, x₁, y₁, …) as the clustering results hold them (<c>Centres</c> with <c>Dimension</c> 2).
/// </summary>
public sealed record PlanarCentres : ClusterCentres
{
    private readonly double[] _xy;
    private readonly EquirectangularProjection _projection;

    public PlanarCentres(EquirectangularProjection projection, IEnumerable<double> rowMajorXy)
    {
        ArgumentNullException.ThrowIfNull(projection);
        ArgumentNullException.ThrowIfNull(rowMajorXy);
        _projection = projection;
        _xy = [.. rowMajorXy];
        if (_xy.Length % 2 != 0)
        {
            throw new ArgumentException($"Planar centres are (x, y) pairs, but {_xy.Length} numbers were given.", nameof(rowMajorXy));
        }

        for (var i = 0; i < _xy.Length; i++)
        {
            if (!double.IsFinite(_xy[i]))
            {
                throw new ArgumentException($"Centre {i / 2} has a NaN or infinite {(i % 2 == 0 ? "x" : "y")} coordinate.", nameof(rowMajorXy));
            }
        }
    }

    /// <summary>Row-major (x, y) pairs in km.</summary>
    public IReadOnlyList<double> Xy => _xy;

    public override int Count => _xy.Length / 2;

    public override EquirectangularProjection Projection => _projection;

    public override GeoPoint Geographic(int cluster)
    {
        var (lat, lon) = _projection.Inverse(_xy[2 * cluster], _xy[(2 * cluster) + 1]);
        return new GeoPoint(lat, lon);
    }
}
