namespace Salsa.Contracts.Common;

/// <summary>
/// The files jobs leave (<c>salsa.common.v1.Jobs/DownloadArtifact</c>, <c>GET /api/jobs/{id}/artifacts/{name}</c>):
/// the one place their names and formats are declared, for the services that write them and
/// every reader.
/// </summary>
public static class Artifacts
{
    /// <summary>A clustering's cluster of each point: int32 little-endian, one per point, clusters from 0.</summary>
    public const string Assignments = "assignments";

    /// <summary>A clustering in the shape every clustering job shares: a <see cref="ClusteringResult"/> message.</summary>
    public const string Clustering = "clustering";

    /// <summary>An embedding's coordinates: float64 little-endian, row-major, items × dimensions.</summary>
    public const string Coordinates = "coordinates";

    /// <summary>An embedding job's result: a <see cref="Mds.EmbeddingResult"/> message (coordinates, item indices, stress).</summary>
    public const string Embedding = "embedding";

    public const string MapSvg = "map.svg";

    /// <summary>A grid of structure depictions (RDKit's drawings), each with its caption.</summary>
    public const string MoleculesSvg = "molecules.svg";

    public const string MapPng = "map.png";

    /// <summary>A census map's clusters as GeoJSON: one Feature per cluster (hull, centre, population).</summary>
    public const string ClustersGeoJson = "clusters.geojson";

    public const string ScatterSvg = "scatter.svg";

    public const string ScatterPng = "scatter.png";

    /// <summary>The content type of the binary arrays (assignments, coordinates).</summary>
    public const string OctetStream = "application/octet-stream";

    /// <summary>The content type of the protobuf messages (clustering, embedding).</summary>
    public const string Protobuf = "application/x-protobuf";
}
