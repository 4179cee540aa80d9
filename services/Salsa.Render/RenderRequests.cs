using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Rendering;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException; // not Orleans.Runtime's (Orleans' implicit usings come with the cluster)

namespace Salsa.Render;

/// <summary>What every figure request may set: the canvas size in PNG pixels (null: the figure's default) and the title.</summary>
public abstract record FigureRequest
{
    public int? Width { get; init; }

    public int? Height { get; init; }

    /// <summary>Null gives the figure's own title.</summary>
    public string? Title { get; init; }

    /// <summary>
    /// Throws an <see cref="ArgumentException"/> for a size or title no figure can take, a
    /// <see cref="LimitExceededException"/> for a side beyond <see cref="ServiceLimits.MaxImageSide"/>.
    /// </summary>
    public void Validate(ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        CheckSide("width", Width, FigureBounds.MinWidth, limits);
        CheckSide("height", Height, FigureBounds.MinHeight, limits);
        if (Title is { Length: > FigureBounds.MaxTitleLength })
        {
            throw new ArgumentException($"The title has {Title.Length} characters; at most {FigureBounds.MaxTitleLength} fit on a figure.");
        }
    }

    /// <summary>A proto3 int32 or string has no "unset": 0 and "" leave the choice to the figure.</summary>
    protected static int? Given(int value) => value == 0 ? null : value;

    protected static string? Given(string value) => value.Length == 0 ? null : value;

    private static void CheckSide(string name, int? value, int min, ServiceLimits limits)
    {
        limits.CheckImageSide(value, name);
        if (value < min)
        {
            throw new ArgumentException($"The {name} must be between {min} and {limits.MaxImageSide} pixels; it is {value}.");
        }
    }
}

/// <summary>
/// A map of a clustering of census points: the points of a census query and a succeeded annealing
/// or k-means job on them. Width and height default to 1400 × 900; the title to "<c>k</c> population clusters".
/// </summary>
public sealed record CensusMapRequest : FigureRequest
{
    /// <summary>The dense dataset a census query produced (its metadata records the projection origin).</summary>
    public required Guid PointsDatasetId { get; init; }

    /// <summary>A succeeded annealing or k-means job on those points.</summary>
    public required Guid ClusteringJobId { get; init; }

    /// <summary>"annealing" or "kmeans" when the caller wants it checked; the job record says which it is.</summary>
    public string? ClusteringService { get; init; }

    /// <summary>County outlines: true shows them, false hides them, null shows them when the view is under 1,500 km across.</summary>
    public bool? Counties { get; init; }

    public static CensusMapRequest From(Contracts.Render.RenderCensusMapRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new CensusMapRequest
        {
            PointsDatasetId = DatasetCatalog.ParseId(request.PointsDatasetId),
            ClusteringJobId = JobViews.ParseId(request.ClusteringJobId, "clustering job id"),
            ClusteringService = Given(request.ClusteringService),
            Width = Given(request.Width),
            Height = Given(request.Height),
            Title = Given(request.Title),
            // proto3 bool has no "unset": false leaves the choice to the map.
            Counties = request.Counties ? true : null,
        };
    }
}

/// <summary>
/// A scatter plot of a succeeded MDS job's coordinates (the first two dimensions), optionally
/// coloured by cluster. Width and height default to 900 × 760; the title names the items and the stress.
/// </summary>
public sealed record ScatterRequest : FigureRequest
{
    /// <summary>A succeeded job of the mds service.</summary>
    public required Guid EmbeddingJobId { get; init; }

    /// <summary>The cluster of each embedded item, in the embedding's order (0 or more); one colour when null or empty.</summary>
    public IReadOnlyList<int>? Clusters { get; init; }

    /// <summary>Or a succeeded clustering job of the embedding's dataset, whose clusters colour the items.</summary>
    public Guid? ClusteringJobId { get; init; }

    public static ScatterRequest From(Contracts.Render.RenderScatterRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new ScatterRequest
        {
            EmbeddingJobId = JobViews.ParseId(request.EmbeddingJobId, "embedding job id"),
            Clusters = [.. request.Clusters],
            ClusteringJobId = request.ClusteringJobId.Length > 0 ? JobViews.ParseId(request.ClusteringJobId, "clustering job id") : null,
            Width = Given(request.Width),
            Height = Given(request.Height),
            Title = Given(request.Title),
        };
    }
}

/// <summary>
/// A grid of structure depictions: compounds of a compounds dataset by index (e.g. the medoids of
/// the largest Butina clusters), each drawn by RDKit and captioned with its id and, when given, its
/// size. Columns default to 5, cells to 220 pixels.
/// </summary>
public sealed record MoleculeGridRequest
{
    public const int MaxItems = FigureBounds.MaxMolecules;

    public required Guid CompoundsDatasetId { get; init; }

    public required IReadOnlyList<int> Items { get; init; }

    /// <summary>A number per item (its cluster's size), or none.</summary>
    public IReadOnlyList<double>? Sizes { get; init; }

    public int? Columns { get; init; }

    public int? CellSize { get; init; }

    public string? Title { get; init; }

    public void Validate(ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        if (Items is null || Items.Count is 0 or > MaxItems)
        {
            throw new ArgumentException($"A molecule grid draws 1 to {MaxItems} compounds; {Items?.Count ?? 0} were asked for.");
        }

        if (Sizes is { Count: > 0 } sizes && sizes.Count != Items.Count)
        {
            throw new ArgumentException($"There are {sizes.Count} sizes for {Items.Count} items; give one per item, or none.");
        }

        if (Columns is < 1 or > Rendering.Molecules.MoleculeGrid.MaxColumns)
        {
            throw new ArgumentException($"columns must be 1 to {Rendering.Molecules.MoleculeGrid.MaxColumns}; it is {Columns}.");
        }

        if (CellSize is < 80 or > 800)
        {
            throw new ArgumentException($"cellSize must be 80 to 800 pixels; it is {CellSize}.");
        }

        if (Title is { Length: > FigureBounds.MaxTitleLength })
        {
            throw new ArgumentException($"The title has {Title.Length} characters; at most {FigureBounds.MaxTitleLength} fit on a figure.");
        }
    }

    public static MoleculeGridRequest From(Contracts.Render.RenderMoleculeGridRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new MoleculeGridRequest
        {
            CompoundsDatasetId = DatasetCatalog.ParseId(request.CompoundsDatasetId),
            Items = [.. request.Items],
            Sizes = request.Sizes.Count == 0 ? null : [.. request.Sizes],
            Columns = request.HasColumns ? request.Columns : null,
            CellSize = request.HasCellSize ? request.CellSize : null,
            Title = request.Title.Length == 0 ? null : request.Title,
        };
    }
}
