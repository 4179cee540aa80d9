using System.Diagnostics;
using System.Globalization;
using System.Text;
using Salsa.Datasets;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Rendering;
using Salsa.Rendering.Maps;
using Salsa.Rendering.Scatter;
using Salsa.Store;
using Salsa.Hosting.Clustering;

namespace Salsa.Render;

/// <summary>What a census-map job returns; the files are its artifacts <c>map.svg</c>, <c>map.png</c> and <c>clusters.geojson</c>.</summary>
public sealed record CensusMapSummary(
    Guid ClusteringJobId,
    string ClusteringService,
    int Points,
    int Clusters,
    double TotalPopulation,
    double[] ClusterPopulations,
    int[] ClusterPointCounts,
    int Width,
    int Height,
    double ElapsedMs);

/// <summary>What a scatter job returns; the files are its artifacts <c>scatter.svg</c> and <c>scatter.png</c>.</summary>
public sealed record ScatterSummary(
    Guid EmbeddingJobId,
    int Items,
    int Dimensions,
    int Clusters,
    int Width,
    int Height,
    double ElapsedMs);

/// <summary>
/// Figures as jobs, shared by the REST and gRPC faces: a request is checked against the jobs and
/// datasets it names before it is accepted; the drawing runs on the compute dispatcher and its
/// files become the job's artifacts.
/// </summary>
public sealed class RenderJobs(JobManager jobs, DatasetCatalog datasets, StoredJobs stored, ServiceLimits limits)
{
    public const string CensusMapKind = "census-map";
    public const string ScatterKind = "scatter";
    public const string MapSvg = "map.svg";
    public const string MapPng = "map.png";
    public const string ClustersGeoJson = "clusters.geojson";
    public const string ScatterSvg = "scatter.svg";
    public const string ScatterPng = "scatter.png";

    /// <summary>The services whose jobs cluster census points into a map's clusters.</summary>
    public static IReadOnlyList<string> ClusteringServices { get; } = ["annealing", "kmeans"];

    private const string MdsService = "mds";

    /// <summary>The MDS service's artifact: float64 little-endian, row-major, items × dimensions.</summary>
    private const string CoordinatesArtifact = "coordinates";
    private const string Svg = "image/svg+xml";
    private const string Png = "image/png";
    private const string GeoJson = "application/geo+json";

    public async Task<JobRecord> StartCensusMapAsync(CensusMapRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        request.Validate(limits);
        var points = await datasets.GetRequiredAsync(request.PointsDatasetId, cancellationToken).ConfigureAwait(false);
        RequireProjectedPoints(points);
        if (request.ClusteringService is { } named && !ClusteringServices.Contains(named))
        {
            throw new ArgumentException($"clusteringService '{named}' is not one of {string.Join(", ", ClusteringServices)}.");
        }

        var clustering = await stored.GetSucceededAsync(request.ClusteringJobId, ClusteringServices, "a census map", cancellationToken).ConfigureAwait(false);
        if (request.ClusteringService is { } expected && expected != clustering.Service)
        {
            throw new ArgumentException($"Job {clustering.Id} is a job of the {clustering.Service} service, not of the {expected} service the request names.");
        }

        if (clustering.DatasetId != points.Id)
        {
            throw new ArgumentException($"Job {clustering.Id} clustered dataset {clustering.DatasetId}, not the points dataset {points.Id}; a map draws a clustering of its own points.");
        }

        var result = StoredJobs.Result<StoredClustering>(clustering);
        if (result.Dimension != 2 || result.Centres.Length != 2 * result.Clusters)
        {
            throw new ArgumentException($"Job {clustering.Id} has {result.Clusters} centres of dimension {result.Dimension}; a map needs planar (x, y) centres.");
        }

        limits.CheckClusters(result.Clusters);
        return await jobs.SubmitAsync(CensusMapKind, request, points.Id, context => DrawCensusMapAsync(context, request, clustering, result), cancellationToken).ConfigureAwait(false);
    }

    public async Task<JobRecord> StartScatterAsync(ScatterRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        request.Validate(limits);
        var embedding = await stored.GetSucceededAsync(request.EmbeddingJobId, [MdsService], "a scatter plot", cancellationToken).ConfigureAwait(false);
        var result = StoredJobs.Result<StoredEmbedding>(embedding);
        if (request.Clusters is { Count: > 0 } clusters)
        {
            if (clusters.Count != result.Items)
            {
                throw new ArgumentException($"There are {clusters.Count} clusters for the {result.Items} embedded items of job {embedding.Id}; give one cluster per item, or none.");
            }

            for (var i = 0; i < clusters.Count; i++)
            {
                if (clusters[i] < 0)
                {
                    throw new ArgumentException($"clusters[{i}] is {clusters[i]}; clusters are numbered from 0.");
                }
            }

            limits.CheckClusters(clusters.Max() + 1);
        }

        return await jobs.SubmitAsync(ScatterKind, request, embedding.DatasetId, context => DrawScatterAsync(context, request, embedding, result), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>A dense 2-D dataset whose metadata records the projection that made its planar km: a census query.</summary>
    private static EquirectangularProjection RequireProjectedPoints(DatasetInfo points)
    {
        if (points.Kind != DatasetKind.Dense || points.Dimension != 2)
        {
            throw new ArgumentException(
                $"Dataset {points.Id} is {DatasetCatalog.KindName(points.Kind)} with dimension {points.Dimension}; a census map needs the dense 2-D points of a census query (POST /api/census/queries).");
        }

        return EquirectangularProjection.FromMetadata(points.Metadata)
            ?? throw new ArgumentException(
                $"Dataset {points.Id} does not record the projection of its points (metadata '{EquirectangularProjection.OriginLatitudeKey}' and '{EquirectangularProjection.OriginLongitudeKey}'); a census map needs the points of a census query (POST /api/census/queries), whose planar km it turns back into latitude and longitude.");
    }

    private async Task<JobOutcome> DrawCensusMapAsync(JobContext context, CensusMapRequest request, JobRecord clustering, StoredClustering result)
    {
        var clock = Stopwatch.StartNew();
        var token = context.CancellationToken;
        var (info, points) = await datasets.LoadDenseAsync(request.PointsDatasetId, token).ConfigureAwait(false);
        var projection = RequireProjectedPoints(info);
        var assignments = ArtifactFormats.ReadInt32s(await stored.GetArtifactAsync(clustering, ArtifactFormats.Assignments, token).ConfigureAwait(false));
        if (assignments.Length != points.Count)
        {
            throw new InvalidDataException($"Job {clustering.Id} assigned {assignments.Length} points, but dataset {info.Id} has {points.Count}.");
        }

        var positions = new GeoPoint[points.Count];
        for (var i = 0; i < positions.Length; i++)
        {
            var (latitude, longitude) = projection.Inverse(points.Values[2 * i], points.Values[(2 * i) + 1]);
            positions[i] = new GeoPoint(latitude, longitude);
        }

        var data = new ClusteredPoints(positions, points.Weights, assignments, new PlanarCentres(projection, result.Centres));
        var defaults = new CensusMapOptions();
        var options = defaults with
        {
            Width = request.Width ?? defaults.Width,
            Height = request.Height ?? defaults.Height,
            Title = request.Title,
            Note = $"{info.Name}; {clustering.Service} job {clustering.Id}",
            ShowCounties = request.Counties,
        };

        await SaveFiguresAsync(context, clock, data.ClusterCount,
            (MapSvg, Svg, () => Encoding.UTF8.GetBytes(CensusMapRenderer.RenderSvg(data, options))),
            (MapPng, Png, () => CensusMapRenderer.RenderPng(data, options)),
            (ClustersGeoJson, GeoJson, () => Encoding.UTF8.GetBytes(ClusterGeoJson.Write(data)))).ConfigureAwait(false);
        return new JobOutcome(new CensusMapSummary(clustering.Id, clustering.Service, data.Count, data.ClusterCount, data.TotalPopulation,
            [.. data.ClusterPopulations], [.. data.ClusterPointCounts], options.Width, options.Height, clock.Elapsed.TotalMilliseconds));
    }

    private async Task<JobOutcome> DrawScatterAsync(JobContext context, ScatterRequest request, JobRecord embedding, StoredEmbedding result)
    {
        var clock = Stopwatch.StartNew();
        var token = context.CancellationToken;
        var coordinates = ArtifactFormats.ReadDoubles(await stored.GetArtifactAsync(embedding, CoordinatesArtifact, token).ConfigureAwait(false));
        if (result.Dimensions < 2 || coordinates.Length != result.Items * result.Dimensions)
        {
            throw new InvalidDataException($"Job {embedding.Id} has {coordinates.Length} coordinates, not {result.Items} items × {result.Dimensions} dimensions.");
        }

        // A 3-D embedding is drawn by its first two dimensions (SMACOF's Torgerson start orders them by variance).
        var xy = new double[2 * result.Items];
        for (var i = 0; i < result.Items; i++)
        {
            (xy[2 * i], xy[(2 * i) + 1]) = (coordinates[i * result.Dimensions], coordinates[(i * result.Dimensions) + 1]);
        }

        var data = new ScatterData(xy, request.Clusters is { Count: > 0 } clusters ? clusters : null);
        var defaults = new ScatterOptions();
        var options = defaults with
        {
            Width = request.Width ?? defaults.Width,
            Height = request.Height ?? defaults.Height,
            Title = request.Title ?? string.Create(CultureInfo.InvariantCulture, $"MDS embedding of {result.Items:N0} items (normalised stress {result.NormalisedStress:0.####})"),
        };

        await SaveFiguresAsync(context, clock, data.ClusterCount,
            (ScatterSvg, Svg, () => Encoding.UTF8.GetBytes(ScatterRenderer.RenderSvg(data, options))),
            (ScatterPng, Png, () => ScatterRenderer.RenderPng(data, options))).ConfigureAwait(false);
        return new JobOutcome(new ScatterSummary(embedding.Id, result.Items, result.Dimensions, data.ClusterCount, options.Width, options.Height, clock.Elapsed.TotalMilliseconds));
    }

    /// <summary>Draws and stores each file in turn, with a progress event (phase = the file) before each; cancellation is honoured between files.</summary>
    private static async Task SaveFiguresAsync(JobContext context, Stopwatch clock, int clusters, params (string Name, string ContentType, Func<byte[]> Draw)[] files)
    {
        for (var step = 0; step < files.Length; step++)
        {
            context.CancellationToken.ThrowIfCancellationRequested();
            var (name, contentType, draw) = files[step];
            context.Report(new JobProgressUpdate(name, step + 1, null, clusters, 0, clock.Elapsed.TotalMilliseconds));
            await context.SaveArtifactAsync(name, contentType, draw()).ConfigureAwait(false);
        }
    }
}
