using System.ComponentModel.DataAnnotations;
using Salsa.Clustering.Mds;
using Salsa.Clustering.Parallel;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException; // not Orleans.Runtime's (Orleans' implicit usings come with the cluster)
using Salsa.Store;

namespace Salsa.Mds;

/// <summary>
/// An MDS embedding of a stored dataset, or of some of its points: dissimilarities are Euclidean
/// for a dense dataset and Tanimoto distances (1 − similarity) for a binary one.
/// </summary>
public sealed record EmbeddingRequest
{
    /// <summary>A dense or binary dataset.</summary>
    public required Guid DatasetId { get; init; }

    /// <summary>2 or 3.</summary>
    [Range(2, 3)]
    public required int Dimensions { get; init; }

    /// <summary>Dataset indices of the points to embed (e.g. cluster medoids), each once; all points when null or empty.</summary>
    public IReadOnlyList<int>? Items { get; init; }

    /// <summary>One weight per embedded item (e.g. cluster sizes); all equal when null or empty.</summary>
    public IReadOnlyList<double>? ItemWeights { get; init; }

    [Range(1, int.MaxValue)]
    public int? MaxIterations { get; init; }

    [Range(0d, double.MaxValue)]
    public double? Tolerance { get; init; }

    /// <summary>The dataset indices this request embeds, in order.</summary>
    public int[] ItemIndices(int points) => Items is { Count: > 0 } items ? [.. items] : [.. Enumerable.Range(0, points)];

    public SmacofOptions ToOptions(ParallelismOptions parallel, int maxItems)
    {
        var defaults = new SmacofOptions();
        return defaults with
        {
            Dimensions = Dimensions,
            MaxIterations = MaxIterations ?? defaults.MaxIterations,
            Tolerance = Tolerance ?? defaults.Tolerance,
            MaxItems = maxItems,
            Parallel = parallel,
        };
    }

    /// <summary>
    /// Checks the request against its dataset and the limits, so bad input is refused before a job
    /// is accepted: an <see cref="ArgumentException"/> naming what was wrong, or a
    /// <see cref="LimitExceededException"/> beyond <see cref="ServiceLimits.MaxEmbeddingItems"/> or <see cref="ServiceLimits.MaxIterations"/>.
    /// </summary>
    public void Validate(DatasetInfo dataset, ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(dataset);
        ArgumentNullException.ThrowIfNull(limits);
        DatasetCatalog.RequireVectors(dataset);
        if (Dimensions is not (2 or 3))
        {
            throw new ArgumentException($"dimensions must be 2 or 3; it is {Dimensions}.");
        }

        var count = Items is { Count: > 0 } items ? items.Count : dataset.Count;
        ServiceLimits.Check(count, limits.MaxEmbeddingItems, "items to embed", nameof(ServiceLimits.MaxEmbeddingItems),
            "The cost grows as n²." + (Items is { Count: > 0 } ? "" : " Choose some of its points with 'items'."));

        if (Items is { Count: > 0 })
        {
            CheckItems(Items, dataset);
        }

        if (count < Dimensions + 1)
        {
            throw new ArgumentException($"An embedding in {Dimensions} dimensions needs at least {Dimensions + 1} items; there are {count}.");
        }

        if (ItemWeights is { Count: > 0 } weights)
        {
            CheckWeights(weights, count);
        }

        if (MaxIterations is < 1)
        {
            throw new ArgumentException($"maxIterations must be at least 1; it is {MaxIterations}.");
        }

        limits.CheckIterations(MaxIterations, "maxIterations");

        if (Tolerance is { } tolerance && (!double.IsFinite(tolerance) || tolerance < 0))
        {
            throw new ArgumentException($"tolerance must be finite and non-negative; it is {tolerance}.");
        }
    }

    public static EmbeddingRequest From(Contracts.Mds.StartEmbeddingRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new EmbeddingRequest
        {
            DatasetId = DatasetCatalog.ParseId(request.DatasetId),
            Dimensions = request.Dimensions,
            Items = [.. request.Items],
            ItemWeights = [.. request.ItemWeights],
            MaxIterations = request.HasMaxIterations ? request.MaxIterations : null,
            Tolerance = request.HasTolerance ? request.Tolerance : null,
        };
    }

    private static void CheckItems(IReadOnlyList<int> items, DatasetInfo dataset)
    {
        var seen = new HashSet<int>();
        for (var i = 0; i < items.Count; i++)
        {
            if ((uint)items[i] >= (uint)dataset.Count)
            {
                throw new ArgumentException($"items[{i}] is {items[i]}, but dataset {dataset.Id} has {dataset.Count} points (indices 0..{dataset.Count - 1}).");
            }

            if (!seen.Add(items[i]))
            {
                throw new ArgumentException($"items[{i}] repeats point {items[i]}; each point can be embedded once.");
            }
        }
    }

    private static void CheckWeights(IReadOnlyList<double> weights, int count)
    {
        if (weights.Count != count)
        {
            throw new ArgumentException($"There are {weights.Count} itemWeights for {count} items; give one weight per embedded item, or none.");
        }

        for (var i = 0; i < weights.Count; i++)
        {
            if (!double.IsFinite(weights[i]) || weights[i] < 0)
            {
                throw new ArgumentException($"itemWeights[{i}] is {weights[i]}; weights must be finite and non-negative.");
            }
        }

        if (weights.Count(w => w > 0) < 2)
        {
            throw new ArgumentException("At least two itemWeights must be positive: a single weighted item has no dissimilarity to fit.");
        }
    }
}
