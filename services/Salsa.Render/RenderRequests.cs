using Salsa.Hosting.Datasets;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Jobs;

namespace Salsa.Render;

/// <summary>A map of a clustering of census points: the points of a census query and a succeeded annealing or k-means job on them.</summary>
public sealed record CensusMapRequest
{
    /// <summary>The dense dataset a census query produced (its metadata records the projection origin).</summary>
    public required Guid PointsDatasetId { get; init; }

    /// <summary>A succeeded annealing or k-means job on those points.</summary>
    public required Guid ClusteringJobId { get; init; }

    /// <summary>"annealing" or "kmeans" when the caller wants it checked; the job record says which it is.</summary>
    public string? ClusteringService { get; init; }

    /// <summary>Canvas width (PNG pixels), 1400 by default.</summary>
    public int? Width { get; init; }

    public int? Height { get; init; }

    /// <summary>Null gives "<c>k</c> population clusters".</summary>
    public string? Title { get; init; }

    /// <summary>County outlines: true shows them, false hides them, null shows them when the view is under 1,500 km across.</summary>
    public bool? Counties { get; init; }

    public void Validate() => ImageSize.Validate(Width, Height, Title);

    public static CensusMapRequest From(Contracts.Render.RenderCensusMapRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new CensusMapRequest
        {
            PointsDatasetId = DatasetCatalog.ParseId(request.PointsDatasetId),
            ClusteringJobId = JobViews.ParseId(request.ClusteringJobId, "clustering job id"),
            ClusteringService = request.ClusteringService.Length == 0 ? null : request.ClusteringService,
            Width = request.Width == 0 ? null : request.Width,
            Height = request.Height == 0 ? null : request.Height,
            Title = request.Title.Length == 0 ? null : request.Title,
            // proto3 bool has no "unset": false leaves the choice to the map.
            Counties = request.Counties ? true : null,
        };
    }
}

/// <summary>A scatter plot of a succeeded MDS job's coordinates (the first two dimensions), optionally coloured by cluster.</summary>
public sealed record ScatterRequest
{
    /// <summary>A succeeded job of the mds service.</summary>
    public required Guid EmbeddingJobId { get; init; }

    /// <summary>The cluster of each embedded item, in the embedding's order (0 or more); one colour when null or empty.</summary>
    public IReadOnlyList<int>? Clusters { get; init; }

    /// <summary>Canvas width (PNG pixels), 900 by default.</summary>
    public int? Width { get; init; }

    public int? Height { get; init; }

    public string? Title { get; init; }

    public void Validate() => ImageSize.Validate(Width, Height, Title);

    public static ScatterRequest From(Contracts.Render.RenderScatterRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new ScatterRequest
        {
            EmbeddingJobId = JobViews.ParseId(request.EmbeddingJobId, "embedding job id"),
            Clusters = [.. request.Clusters],
            Width = request.Width == 0 ? null : request.Width,
            Height = request.Height == 0 ? null : request.Height,
            Title = request.Title.Length == 0 ? null : request.Title,
        };
    }
}

/// <summary>The canvas sizes and titles the render service accepts.</summary>
public static class ImageSize
{
    public const int MinWidth = 200;
    public const int MinHeight = 150;

    /// <summary>The longest side of an image (a 4096 × 4096 PNG is drawn in 64 MiB).</summary>
    public const int MaxSide = 4096;

    public const int MaxTitleLength = 200;

    public static void Validate(int? width, int? height, string? title)
    {
        Check("width", width, MinWidth);
        Check("height", height, MinHeight);
        if (title is { Length: > MaxTitleLength })
        {
            throw new ArgumentException($"The title has {title.Length} characters; at most {MaxTitleLength} fit on a figure.");
        }
    }

    private static void Check(string name, int? value, int min)
    {
        if (value is not { } v)
        {
            return;
        }

        if (v > MaxSide)
        {
            throw new LimitExceededException($"A {name} of {v} units exceeds the render service's limit of {MaxSide} per side.");
        }

        if (v < min)
        {
            throw new ArgumentException($"The {name} must be between {min} and {MaxSide} units; it is {v}.");
        }
    }
}
