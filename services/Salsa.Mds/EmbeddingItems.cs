using Google.Protobuf.Collections;
using Salsa.Clustering.Mds;
using Salsa.Contracts.Mds;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Store;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException; // not Orleans.Runtime's (Orleans' implicit usings come with the cluster)

namespace Salsa.Mds;

/// <summary>
/// Which items an embedding takes — the request's own rules beyond its fields' (parameters.proto):
/// dissimilarities are Euclidean for a dense dataset and Tanimoto distances (1 − similarity) for a
/// binary one, of every point or of the listed items, each once, with one weight per item or none.
/// </summary>
public static class EmbeddingItems
{
    /// <summary>The dataset indices <paramref name="request"/> embeds, in order.</summary>
    public static int[] Of(StartEmbeddingRequest request, int points)
    {
        ArgumentNullException.ThrowIfNull(request);
        return request.Items.Count > 0 ? [.. request.Items] : [.. Enumerable.Range(0, points)];
    }

    /// <summary>
    /// Checks the items and weights against the dataset and the limits, so bad input is refused
    /// before a job is accepted: an <see cref="ArgumentException"/> naming what was wrong, or a
    /// <see cref="LimitExceededException"/> beyond <see cref="ServiceLimits.MaxEmbeddingItems"/>.
    /// </summary>
    public static void Check(StartEmbeddingRequest request, SmacofOptions options, DatasetInfo dataset, ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(dataset);
        ArgumentNullException.ThrowIfNull(limits);
        DatasetCatalog.RequireVectors(dataset);
        var count = request.Items.Count > 0 ? request.Items.Count : dataset.Count;
        ServiceLimits.Check(count, limits.MaxEmbeddingItems, "items to embed", nameof(ServiceLimits.MaxEmbeddingItems),
            "The cost grows as n²." + (request.Items.Count > 0 ? "" : " Choose some of its points with 'items'."));

        if (request.Items.Count > 0)
        {
            CheckItems(request.Items, dataset);
        }

        if (count < options.Dimensions + 1)
        {
            throw new ArgumentException($"An embedding in {options.Dimensions} dimensions needs at least {options.Dimensions + 1} items; there are {count}.");
        }

        if (request.ItemWeights.Count > 0)
        {
            CheckWeights(request.ItemWeights, count);
        }
    }

    private static void CheckItems(RepeatedField<int> items, DatasetInfo dataset)
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

    private static void CheckWeights(RepeatedField<double> weights, int count)
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
