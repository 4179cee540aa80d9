using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Datasets;

namespace Salsa.Services.Tests.Support;

/// <summary>A dataset's points as <c>Datasets.Download</c> streams them back, chunks joined.</summary>
public sealed record DownloadedPoints(List<double> Values, List<ulong> Words, List<double> Weights, List<string> Labels);

/// <summary>What a gRPC client of any service does in the tests: call options, expected failures, downloads.</summary>
public static class GrpcCalls
{
    /// <summary>Options bound to the running test's cancellation.</summary>
    public static CallOptions Options => new(cancellationToken: TestContext.Current.CancellationToken);

    /// <summary>Asserts that <paramref name="call"/> fails with <paramref name="expected"/> and a message; returns the message.</summary>
    public static async Task<string> FailsWithAsync(StatusCode expected, Func<Task> call)
    {
        var rpc = await Assert.ThrowsAsync<RpcException>(call);
        Assert.True(rpc.StatusCode == expected, $"expected {expected}, got {rpc.StatusCode}: {rpc.Status.Detail}");
        Assert.False(string.IsNullOrWhiteSpace(rpc.Status.Detail), "the status has no message");
        return rpc.Status.Detail;
    }

    public static async Task<DownloadedPoints> DownloadAsync(this DatasetsClient client, string datasetId)
    {
        ArgumentNullException.ThrowIfNull(client);
        using var call = client.Download(new DatasetRef { DatasetId = datasetId }, Options);
        var points = new DownloadedPoints([], [], [], []);
        while (await call.ResponseStream.MoveNext(TestContext.Current.CancellationToken))
        {
            var chunk = call.ResponseStream.Current;
            points.Values.AddRange(chunk.Values);
            points.Words.AddRange(chunk.Words);
            points.Weights.AddRange(chunk.Weights);
            points.Labels.AddRange(chunk.Labels);
        }

        return points;
    }
}
