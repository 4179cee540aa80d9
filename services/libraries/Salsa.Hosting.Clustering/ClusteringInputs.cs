using Salsa.Clustering;
using Salsa.Hosting.Datasets;
using Salsa.Store;

namespace Salsa.Hosting.Clustering;

/// <summary>Points as the algorithms take them: dense or binary (exactly one is set).</summary>
public sealed record VectorInput(DenseVectors? Dense, BinaryVectors? Binary);

/// <summary>Stored datasets loaded as the algorithms' inputs.</summary>
public static class ClusteringInputs
{
    extension(DatasetCatalog datasets)
    {
        /// <summary>A dense dataset as the algorithms take it (census point sets are dense too).</summary>
        public async Task<(DatasetInfo Info, DenseVectors Points)> LoadDenseAsync(Guid id, CancellationToken cancellationToken = default)
        {
            var (info, content) = await datasets.ReadRequiredAsync(id, cancellationToken).ConfigureAwait(false);
            if (info.Kind != DatasetKind.Dense || content.Values is null)
            {
                throw new ArgumentException($"Dataset {id} is {DatasetCatalog.KindName(info.Kind)}; this needs a dense dataset.");
            }

            return (info, new DenseVectors(content.Values, info.Dimension, content.Weights));
        }

        public async Task<(DatasetInfo Info, BinaryVectors Points)> LoadBinaryAsync(Guid id, CancellationToken cancellationToken = default)
        {
            var (info, content) = await datasets.ReadRequiredAsync(id, cancellationToken).ConfigureAwait(false);
            if (info.Kind != DatasetKind.Binary || content.Words is null)
            {
                throw new ArgumentException($"Dataset {id} is {DatasetCatalog.KindName(info.Kind)}; this needs a binary (fingerprint) dataset.");
            }

            return (info, new BinaryVectors(content.Words, info.Bits, content.Weights));
        }

        /// <summary>A dense or binary dataset as an algorithm input.</summary>
        public async Task<(DatasetInfo Info, VectorInput Input)> LoadVectorsAsync(Guid id, CancellationToken cancellationToken = default)
        {
            var (info, content) = await datasets.ReadRequiredAsync(id, cancellationToken).ConfigureAwait(false);
            DatasetCatalog.RequireVectors(info);
            return (info, info.Kind == DatasetKind.Dense
                ? new VectorInput(new DenseVectors(content.Values!, info.Dimension, content.Weights), null)
                : new VectorInput(null, new BinaryVectors(content.Words!, info.Bits, content.Weights)));
        }
    }
}
