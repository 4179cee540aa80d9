using Salsa.Hosting.Host;
using Salsa.Hosting.Jobs;
using Salsa.KMeans;
using Salsa.Testing;

namespace Salsa.Services.Tests.Support;

/// <summary>Starts a data service with a k-means service beside it.</summary>
public static class KMeansBeside
{
    /// <summary>Starts both on the store named <paramref name="storeName"/> (see <see cref="TestStore.Names"/>).</summary>
    public static async Task<KMeansBeside<TService>> StartAsync<TService>(string storeName, PostgresFixture postgres)
        where TService : ISalsaService
    {
        var directory = new TemporaryDirectory();
        var store = await TestStore.CreateAsync(storeName, directory, postgres);
        return new KMeansBeside<TService>(directory, await ServiceUnderTest.StartAsync<TService>(store), await ServiceUnderTest.StartAsync<KMeansService>(store));
    }
}

/// <summary>
/// A data service and a k-means service on one store, as a deployment runs them: what the first
/// stores (a census query, compound fingerprints), the second clusters by id.
/// </summary>
public sealed class KMeansBeside<TService> : IAsyncDisposable
    where TService : ISalsaService
{
    private readonly TemporaryDirectory _directory;

    internal KMeansBeside(TemporaryDirectory directory, ServiceUnderTest<TService> service, ServiceUnderTest<KMeansService> kmeans)
    {
        _directory = directory;
        Service = service;
        KMeans = kmeans;
    }

    public ServiceUnderTest<TService> Service { get; }

    public ServiceUnderTest<KMeansService> KMeans { get; }

    /// <summary>Runs a k-means job (REST) to success: its summary and per-point assignments.</summary>
    public async Task<(Contracts.KMeans.KMeansResult Summary, int[] Assignments)> ClusterAsync(object request)
    {
        var job = await KMeans.Rest.StartJobAsync("/api/kmeans/jobs", request);
        Assert.Equal("succeeded", (await KMeans.Rest.WaitAsync(job.JobId)).State);
        var summary = await KMeans.GetJsonAsync<Contracts.KMeans.KMeansResult>($"/api/kmeans/jobs/{job.JobId}/result");
        var assignments = ArtifactFormats.ReadInt32s(await KMeans.Rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/assignments", TestContext.Current.CancellationToken));
        Assert.Equal(summary.Clustering.ClusterSizes, Enumerable.Range(0, summary.Clustering.Clusters).Select(k => assignments.Count(a => a == k)));
        return (summary, assignments);
    }

    public async ValueTask DisposeAsync()
    {
        await KMeans.DisposeAsync();
        await Service.DisposeAsync();
        _directory.Dispose();
    }
}
