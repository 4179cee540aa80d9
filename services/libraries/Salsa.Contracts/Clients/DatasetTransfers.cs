using Grpc.Core;
using Salsa.Contracts.Common;
using Salsa.Contracts.Datasets;

namespace Salsa.Contracts.Clients;

/// <summary>
/// Moving points and artifacts over gRPC in chunks, so no message comes near the 4 MB default limit:
/// datasets are uploaded once (header, then chunks of points) and referred to by id afterwards.
/// </summary>
public static class DatasetTransfers
{
    /// <summary>Points per upload chunk: 16k 2-D points are 256 KiB of coordinates.</summary>
    public const int DefaultChunkPoints = 16_384;

    /// <summary>Uploads dense points (row-major <paramref name="values"/>, optional weights and labels per point).</summary>
    public static Task<DatasetInfo> UploadDenseAsync(this DatasetsClient client, string name, int dimension, IReadOnlyList<double> values,
        IReadOnlyList<double>? weights = null, IReadOnlyList<string>? labels = null, IReadOnlyDictionary<string, string>? metadata = null, CallOptions options = default)
    {
        ArgumentNullException.ThrowIfNull(values);
        var header = new UploadHeader { Name = name, Kind = DatasetKind.Dense, Dimension = dimension };
        return UploadAsync(client, header, metadata, dimension < 1 ? 0 : values.Count / dimension, (chunk, start, count) =>
        {
            for (var i = start * dimension; i < (start + count) * dimension; i++)
            {
                chunk.Values.Add(values[i]);
            }
        }, weights, labels, options);
    }

    /// <summary>Uploads bit vectors as packed little-endian 64-bit words, (bits + 63) / 64 per point.</summary>
    public static Task<DatasetInfo> UploadBinaryAsync(this DatasetsClient client, string name, int bits, string? fingerprintType, IReadOnlyList<ulong> words,
        IReadOnlyList<double>? weights = null, IReadOnlyList<string>? labels = null, IReadOnlyDictionary<string, string>? metadata = null, CallOptions options = default)
    {
        ArgumentNullException.ThrowIfNull(words);
        var perPoint = (bits + 63) / 64;
        var header = new UploadHeader { Name = name, Kind = DatasetKind.Binary, Bits = bits, FingerprintType = fingerprintType ?? "" };
        return UploadAsync(client, header, metadata, perPoint < 1 ? 0 : words.Count / perPoint, (chunk, start, count) =>
        {
            for (var i = start * perPoint; i < (start + count) * perPoint; i++)
            {
                chunk.Words.Add(words[i]);
            }
        }, weights, labels, options);
    }

    /// <summary>Downloads a job's artifact (its chunks joined).</summary>
    public static async Task<(byte[] Data, string ContentType)> DownloadArtifactAsync(this JobsClient client, string jobId, string name, CallOptions options = default)
    {
        ArgumentNullException.ThrowIfNull(client);
        using var call = client.DownloadArtifact(new DownloadArtifactRequest { JobId = jobId, Name = name }, options);
        using var buffer = new MemoryStream();
        var contentType = "";
        while (await call.ResponseStream.MoveNext(options.CancellationToken).ConfigureAwait(false))
        {
            var chunk = call.ResponseStream.Current;
            if (chunk.ContentType.Length > 0)
            {
                contentType = chunk.ContentType;
            }

            chunk.Data.WriteTo(buffer);
        }

        return (buffer.ToArray(), contentType);
    }

    /// <summary>Follows a job until it ends, passing each event on; returns its final state.</summary>
    public static async Task<JobInfo> WatchToEndAsync(this JobsClient client, string jobId, Action<JobEvent>? onEvent = null, CallOptions options = default)
    {
        ArgumentNullException.ThrowIfNull(client);
        using var call = client.Watch(new JobRef { JobId = jobId }, options);
        JobInfo? last = null;
        while (await call.ResponseStream.MoveNext(options.CancellationToken).ConfigureAwait(false))
        {
            var item = call.ResponseStream.Current;
            onEvent?.Invoke(item);
            if (item.EventCase == JobEvent.EventOneofCase.Status)
            {
                last = item.Status;
            }
        }

        return last ?? throw new InvalidOperationException($"The watch of job {jobId} ended without a status.");
    }

    public static bool IsTerminal(this JobState state) =>
        state is JobState.Succeeded or JobState.Failed or JobState.Cancelled or JobState.Interrupted;

    private static async Task<DatasetInfo> UploadAsync(DatasetsClient client, UploadHeader header, IReadOnlyDictionary<string, string>? metadata, int points,
        Action<PointChunk, int, int> fill, IReadOnlyList<double>? weights, IReadOnlyList<string>? labels, CallOptions options)
    {
        ArgumentNullException.ThrowIfNull(client);
        foreach (var (key, value) in metadata ?? new Dictionary<string, string>())
        {
            header.Metadata[key] = value;
        }

        using var call = client.Upload(options);
        try
        {
            await SendAsync(call.RequestStream, header, points, fill, weights, labels).ConfigureAwait(false);
        }
        catch (RpcException)
        {
            // The service ended the call before reading everything (bad data, a limit): the failed write
            // says only that the stream is gone, the response carries the service's own status.
        }

        return await call.ResponseAsync.ConfigureAwait(false);
    }

    private static async Task SendAsync(IClientStreamWriter<UploadRequest> stream, UploadHeader header, int points,
        Action<PointChunk, int, int> fill, IReadOnlyList<double>? weights, IReadOnlyList<string>? labels)
    {
        await stream.WriteAsync(new UploadRequest { Header = header }).ConfigureAwait(false);
        for (var start = 0; start < points; start += DefaultChunkPoints)
        {
            var count = Math.Min(DefaultChunkPoints, points - start);
            var chunk = new PointChunk();
            fill(chunk, start, count);
            for (var i = start; i < start + count; i++)
            {
                if (weights is not null)
                {
                    chunk.Weights.Add(weights[i]);
                }

                if (labels is not null)
                {
                    chunk.Labels.Add(labels[i]);
                }
            }

            await stream.WriteAsync(new UploadRequest { Chunk = chunk }).ConfigureAwait(false);
        }

        await stream.CompleteAsync().ConfigureAwait(false);
    }
}
