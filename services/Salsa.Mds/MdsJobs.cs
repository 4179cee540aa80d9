using Google.Protobuf;
using Microsoft.Extensions.Options;
using Salsa.Clustering;
using Salsa.Clustering.Mds;
using Salsa.Clustering.Parallel;
using Salsa.Contracts.Common;
using Salsa.Contracts.Mds;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using Salsa.Hosting.Clustering;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Mds;

/// <summary>
/// SMACOF embeddings as jobs, shared by the REST and gRPC faces: a request is checked against its
/// dataset and the limits before it is accepted, then runs on the job's Salsa.Ccr ranks with a
/// progress event per Guttman transform; the coordinates become the <c>coordinates</c> artifact.
/// </summary>
public sealed class MdsJobs(JobManager jobs, DatasetCatalog datasets, IOptions<ServiceLimits> serviceLimits)
{
    private readonly ServiceLimits _limits = serviceLimits.Value;

    public const string Kind = "mds";

    public async Task<JobRecord> StartAsync(StartEmbeddingRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        RequestParameters.Check(request);
        _limits.CheckParameters(request);
        var info = await datasets.GetRequiredAsync(DatasetCatalog.ParseId(request.DatasetId), cancellationToken).ConfigureAwait(false);
        EmbeddingItems.Check(request, OptionsOf(request, new ParallelismOptions()), info, _limits);
        return await jobs.SubmitAsync(Kind, request, info.Id, context => RunAsync(context, info.Id, request), cancellationToken).ConfigureAwait(false);
    }

    public Task<(JobRecord Job, EmbeddingResult Result)> GetResultAsync(Guid id, CancellationToken cancellationToken) =>
        jobs.GetResultAsync<EmbeddingResult>(id, cancellationToken);

    /// <summary>The request's parameters over the algorithm's defaults, within the items this service embeds.</summary>
    private SmacofOptions OptionsOf(StartEmbeddingRequest request, ParallelismOptions parallel) =>
        RequestParameters.Bind(request, new SmacofOptions { MaxItems = Math.Min(_limits.MaxEmbeddingItems, SmacofOptions.LargestSupportedItems), Parallel = parallel });

    private async Task<JobOutcome> RunAsync(JobContext context, Guid datasetId, StartEmbeddingRequest request)
    {
        var (info, input) = await datasets.LoadVectorsAsync(datasetId, context.CancellationToken).ConfigureAwait(false);
        var items = EmbeddingItems.Of(request, info.Count);
        var dissimilarities = input.Dense is { } dense
            ? Dissimilarities.FromEuclidean(Subset(dense, items))
            : Dissimilarities.FromTanimoto(Subset(input.Binary!, items));
        var options = OptionsOf(request, context.Parallelism);
        var weights = request.ItemWeights.Count > 0 ? [.. request.ItemWeights] : (double[]?)null;
        var result = Smacof.Run(dissimilarities, options, weights, context.ClusteringProgress(), context.CancellationToken);
        var message = result.ToMessage(DatasetCatalog.KindName(info.Kind), dissimilarities.Source, items);
        await context.SaveArtifactAsync(Artifacts.Coordinates, Artifacts.OctetStream, ArtifactFormats.Doubles(result.Coordinates)).ConfigureAwait(false);
        // The file is what was computed, not how long it took (the job's result says that): the same
        // embedding made again is the same file, byte for byte.
        var file = message.Clone();
        file.ElapsedMs = 0;
        await context.SaveArtifactAsync(Artifacts.Embedding, Artifacts.Protobuf, file.ToByteArray()).ConfigureAwait(false);
        return new JobOutcome(message);
    }

    private static DenseVectors Subset(DenseVectors points, int[] items) =>
        IsEveryPointInOrder(items, points.Count) ? points : new DenseVectors(Rows(points.Values, points.Dimension, items), points.Dimension);

    private static BinaryVectors Subset(BinaryVectors prints, int[] items) =>
        IsEveryPointInOrder(items, prints.Count) ? prints : new BinaryVectors(Rows(prints.Packed, prints.Words, items), prints.Bits);

    /// <summary>The chosen rows of a row-major array, in the order chosen.</summary>
    private static T[] Rows<T>(T[] source, int width, int[] items)
    {
        var rows = new T[items.Length * width];
        for (var i = 0; i < items.Length; i++)
        {
            source.AsSpan(items[i] * width, width).CopyTo(rows.AsSpan(i * width, width));
        }

        return rows;
    }

    private static bool IsEveryPointInOrder(int[] items, int count)
    {
        if (items.Length != count)
        {
            return false;
        }

        for (var i = 0; i < items.Length; i++)
        {
            if (items[i] != i)
            {
                return false;
            }
        }

        return true;
    }
}
