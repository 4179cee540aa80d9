using System.Diagnostics;
using System.Globalization;
using System.Text;
using Microsoft.Extensions.Options;
using Salsa.Chemistry;
using Salsa.Contracts.Common;
using Salsa.DataFiles;
using Salsa.Hosting;
using Salsa.Hosting.Clustering;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Rendering;
using Salsa.Rendering.Maps;
using Salsa.Rendering.Molecules;
using Salsa.Rendering.Scatter;
using Salsa.Store;

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

/// <summary>What a molecule-grid job returns; the file is its artifact <c>molecules.svg</c>.</summary>
public sealed record MoleculeGridSummary(Guid CompoundsDatasetId, int Molecules, IReadOnlyList<string> Ids, double ElapsedMs);

/// <summary>
/// Figures as jobs, shared by the REST and gRPC faces: a request is checked against the jobs and
/// datasets it names before it is accepted; the drawing runs on the compute dispatcher and its
/// files become the job's artifacts.
/// </summary>
public sealed class RenderJobs(JobManager jobs, DatasetCatalog datasets, JobResults results, IOptions<ServiceLimits> serviceLimits, Rdkit rdkit)
{
    private readonly ServiceLimits _limits = serviceLimits.Value;

    public const string CensusMapKind = "census-map";
    public const string ScatterKind = "scatter";
    public const string MoleculeGridKind = "molecule-grid";

    private const string Svg = "image/svg+xml";
    private const string Png = "image/png";
    private const string GeoJson = "application/geo+json";

    public async Task<JobRecord> StartCensusMapAsync(CensusMapRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        request.Validate(_limits);
        var points = await datasets.GetRequiredAsync(request.PointsDatasetId, cancellationToken).ConfigureAwait(false);
        RequireProjectedPoints(points);
        var (clustering, result) = await results.GetClusteringAsync(request.ClusteringJobId, "a census map", cancellationToken).ConfigureAwait(false);
        if (request.ClusteringService is { } expected && expected != clustering.Service)
        {
            throw new ArgumentException($"Job {clustering.Id} is a job of the {clustering.Service} service, not of the {expected} service the request names.");
        }

        if (clustering.DatasetId != points.Id)
        {
            throw new ArgumentException($"Job {clustering.Id} clustered dataset {clustering.DatasetId}, not the points dataset {points.Id}; a map draws a clustering of its own points.");
        }

        if (result.Dimension != 2 || result.Centres.Count != 2 * result.Clusters)
        {
            throw new ArgumentException($"Job {clustering.Id} has {result.Clusters} centres of dimension {result.Dimension}; a map needs planar (x, y) centres.");
        }

        _limits.CheckClusters(result.Clusters);
        return await jobs.SubmitAsync(CensusMapKind, request, points.Id, context => DrawCensusMapAsync(context, request, clustering, result), cancellationToken).ConfigureAwait(false);
    }

    public async Task<JobRecord> StartScatterAsync(ScatterRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        request.Validate(_limits);
        var (embedding, result) = await results.GetEmbeddingAsync(request.EmbeddingJobId, "a scatter plot", cancellationToken).ConfigureAwait(false);
        if (request.Clusters is { Count: > 0 } && request.ClusteringJobId is not null)
        {
            throw new ArgumentException("Give the items' clusters or a clustering job to take them from (clusteringJobId), not both.");
        }

        var clusters = request.Clusters is { Count: > 0 } given ? [.. given]
            : request.ClusteringJobId is { } clusteringJobId ? await ClustersOfItemsAsync(embedding, result, clusteringJobId, cancellationToken).ConfigureAwait(false)
            : (int[]?)null;
        if (clusters is not null)
        {
            if (clusters.Length != result.Items)
            {
                throw new ArgumentException($"There are {clusters.Length} clusters for the {result.Items} embedded items of job {embedding.Id}; give one cluster per item, or none.");
            }

            for (var i = 0; i < clusters.Length; i++)
            {
                if (clusters[i] < 0)
                {
                    throw new ArgumentException($"clusters[{i}] is {clusters[i]}; clusters are numbered from 0.");
                }
            }

            _limits.CheckClusters(clusters.Max() + 1);
        }

        return await jobs.SubmitAsync(ScatterKind, request, embedding.DatasetId, context => DrawScatterAsync(context, request, embedding, result, clusters), cancellationToken).ConfigureAwait(false);
    }

    public async Task<JobRecord> StartMoleculeGridAsync(MoleculeGridRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        request.Validate(_limits);
        var compounds = await datasets.GetRequiredAsync(request.CompoundsDatasetId, cancellationToken).ConfigureAwait(false);
        if (compounds.Kind != DatasetKind.Compounds)
        {
            throw new ArgumentException($"Dataset {compounds.Id} is {DatasetCatalog.KindName(compounds.Kind)}; a molecule grid draws the compounds (SMILES) of a compounds dataset.");
        }

        foreach (var item in request.Items.Where(i => (uint)i >= (uint)compounds.Count))
        {
            throw new ArgumentException($"Item {item} is not a compound of dataset {compounds.Id} (it has {compounds.Count:N0}, numbered from 0).");
        }

        return await jobs.SubmitAsync(MoleculeGridKind, request, compounds.Id, context => DrawMoleculeGridAsync(context, request), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// The scatter plot's join: each embedded item takes the cluster its dataset point was given by
    /// a clustering of the same dataset.
    /// </summary>
    private async Task<int[]> ClustersOfItemsAsync(JobRecord embedding, Contracts.Mds.EmbeddingResult result, Guid clusteringJobId, CancellationToken cancellationToken)
    {
        var (job, clustering) = await results.GetClusteringAsync(clusteringJobId, "colouring a scatter plot by cluster", cancellationToken).ConfigureAwait(false);
        if (job.DatasetId != embedding.DatasetId)
        {
            throw new ArgumentException($"Job {job.Id} clustered dataset {job.DatasetId}, but the embedding {embedding.Id} is of dataset {embedding.DatasetId}; colour an embedding by a clustering of its own dataset.");
        }

        var assignments = await results.GetAssignmentsAsync(job, clustering, cancellationToken).ConfigureAwait(false);
        return result.ItemIndices.Count > 0
            ? [.. result.ItemIndices.Select(i => (uint)i < (uint)assignments.Length ? assignments[i] : throw new InvalidDataException($"Embedding {embedding.Id} names item {i}, beyond the {assignments.Length} points of its dataset."))]
            : [.. assignments.Take(result.Items)];
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

    private async Task<JobOutcome> DrawCensusMapAsync(JobContext context, CensusMapRequest request, JobRecord clustering, Contracts.Common.ClusteringResult result)
    {
        var clock = Stopwatch.StartNew();
        var token = context.CancellationToken;
        var (info, points) = await datasets.LoadDenseAsync(request.PointsDatasetId, token).ConfigureAwait(false);
        var projection = RequireProjectedPoints(info);
        var assignments = await results.GetAssignmentsAsync(clustering, result, token).ConfigureAwait(false);
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

        var data = new ClusteredPoints(positions, points.Weights, assignments, new PlanarCentres(projection, [.. result.Centres]));
        var defaults = new CensusMapOptions();
        var options = defaults with
        {
            Width = request.Width ?? defaults.Width,
            Height = request.Height ?? defaults.Height,
            Title = request.Title,
            Note = $"{info.Name}; clustered by the {clustering.Service} service", // no job id: the same run made again draws the same map
            ShowCounties = request.Counties,
        };

        await SaveFiguresAsync(context, clock, data.ClusterCount,
            (Artifacts.MapSvg, Svg, () => Encoding.UTF8.GetBytes(CensusMapRenderer.RenderSvg(data, options))),
            (Artifacts.MapPng, Png, () => CensusMapRenderer.RenderPng(data, options)),
            (Artifacts.ClustersGeoJson, GeoJson, () => Encoding.UTF8.GetBytes(ClusterGeoJson.Write(data)))).ConfigureAwait(false);
        return new JobOutcome(new CensusMapSummary(clustering.Id, clustering.Service, data.Count, data.ClusterCount, data.TotalPopulation,
            [.. data.ClusterPopulations], [.. data.ClusterPointCounts], options.Width, options.Height, clock.Elapsed.TotalMilliseconds));
    }

    private static async Task<JobOutcome> DrawScatterAsync(JobContext context, ScatterRequest request, JobRecord embedding, Contracts.Mds.EmbeddingResult result, int[]? clusters)
    {
        var clock = Stopwatch.StartNew();
        var coordinates = result.Coordinates;
        if (result.Dimensions < 2 || coordinates.Count != result.Items * result.Dimensions)
        {
            throw new InvalidDataException($"Job {embedding.Id} has {coordinates.Count} coordinates, not {result.Items} items × {result.Dimensions} dimensions.");
        }

        // A 3-D embedding is drawn by its first two dimensions (SMACOF's Torgerson start orders them by variance).
        var xy = new double[2 * result.Items];
        for (var i = 0; i < result.Items; i++)
        {
            (xy[2 * i], xy[(2 * i) + 1]) = (coordinates[i * result.Dimensions], coordinates[(i * result.Dimensions) + 1]);
        }

        var data = new ScatterData(xy, clusters);
        var defaults = new ScatterOptions();
        var options = defaults with
        {
            Width = request.Width ?? defaults.Width,
            Height = request.Height ?? defaults.Height,
            Title = request.Title ?? string.Create(CultureInfo.InvariantCulture, $"MDS embedding of {result.Items:N0} items (normalised stress {result.NormalisedStress:0.####})"),
        };

        await SaveFiguresAsync(context, clock, data.ClusterCount,
            (Artifacts.ScatterSvg, Svg, () => Encoding.UTF8.GetBytes(ScatterRenderer.RenderSvg(data, options))),
            (Artifacts.ScatterPng, Png, () => ScatterRenderer.RenderPng(data, options))).ConfigureAwait(false);
        return new JobOutcome(new ScatterSummary(embedding.Id, result.Items, result.Dimensions, data.ClusterCount, options.Width, options.Height, clock.Elapsed.TotalMilliseconds));
    }

    private async Task<JobOutcome> DrawMoleculeGridAsync(JobContext context, MoleculeGridRequest request)
    {
        var clock = Stopwatch.StartNew();
        var (_, content) = await datasets.ReadRequiredAsync(request.CompoundsDatasetId, context.CancellationToken).ConfigureAwait(false);
        var (ids, smiles) = (content.Labels ?? [], content.Texts ?? throw new InvalidDataException($"Dataset {request.CompoundsDatasetId} holds no SMILES."));
        var cellSize = request.CellSize ?? 220;
        var cells = new List<MoleculeCell>();
        for (var n = 0; n < request.Items.Count; n++)
        {
            context.CancellationToken.ThrowIfCancellationRequested();
            var item = request.Items[n];
            var caption = new List<string> { ids.Length > item ? ids[item] : item.ToString(CultureInfo.InvariantCulture) };
            if (request.Sizes is { } sizes)
            {
                caption.Add(string.Create(CultureInfo.InvariantCulture, $"cluster {n} · {sizes[n]:N0} compounds"));
            }

            string depiction;
            try
            {
                depiction = await rdkit.SvgAsync(smiles[item], cellSize - 8, cellSize - 8, context.CancellationToken).ConfigureAwait(false);
            }
            catch (MoleculeException e)
            {
                throw new InvalidDataException($"Compound {caption[0]} (item {item}): {e.Message}", e);
            }

            cells.Add(new MoleculeCell(depiction, caption));
            context.Report(new JobProgressUpdate("depictions", n + 1, null, 0, 0, clock.Elapsed.TotalMilliseconds));
        }

        var svg = MoleculeGrid.Compose(cells, request.Columns ?? 5, cellSize, request.Title ?? $"{cells.Count} compounds, as RDKit draws them");
        await context.SaveArtifactAsync(Artifacts.MoleculesSvg, Svg, Encoding.UTF8.GetBytes(svg)).ConfigureAwait(false);
        return new JobOutcome(new MoleculeGridSummary(request.CompoundsDatasetId, cells.Count, [.. cells.Select(c => c.Caption[0])], clock.Elapsed.TotalMilliseconds));
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
