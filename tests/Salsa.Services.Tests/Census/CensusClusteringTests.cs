using Salsa.Census;
using Salsa.Contracts.Clients;
using Salsa.Hosting.Datasets;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Census;

/// <summary>
/// The workflow the census service exists for, on both stores: the census service imports and
/// queries, and a k-means service on the same store clusters the query result, weighted by population.
/// </summary>
public sealed class CensusClusteringTests(PostgresFixture postgres)
{
    [Theory]
    [MemberData(nameof(TestStore.Names), MemberType = typeof(TestStore))]
    public async Task IndianaQuery_ClusteredByKMeansOnSharedStore_ClusterWeightsArePopulation(string storeName)
    {
        await using var services = await KMeansBeside.StartAsync<CensusService>(storeName, postgres);
        var census = new CensusClient(services.Service.Grpc);
        var byId = IndianaBlockGroups.All.ToDictionary(r => r.GeoId);

        var import = await services.Service.Rest.PostForAsync<DatasetView>("/api/census/imports", new { source = "indiana" });
        var again = await census.ImportAsync(new() { Source = "indiana" }, GrpcCalls.Options);
        Assert.Equal(import.DatasetId.ToString(), again.DatasetId);
        Assert.Equal(5290, again.Count);
        var points = await census.QueryAsync(new() { DatasetId = again.DatasetId, States = { "18" }, SkipUnpopulated = true }, GrpcCalls.Options);
        Assert.Equal(IndianaBlockGroups.All.Count(r => r.Population > 0), points.Count);

        // The raw import is latitude/longitude, not planar points: clustering it is refused.
        using (var raw = await services.KMeans.Rest.PostJsonTextAsync("/api/kmeans/jobs", $"{{\"datasetId\":\"{import.DatasetId}\",\"clusters\":8}}"))
        {
            Assert.Contains("dense or binary", await RestCalls.ProblemAsync(raw, 400), StringComparison.Ordinal);
        }

        var (summary, assignments) = await services.ClusterAsync(new { datasetId = points.DatasetId, clusters = 8, restarts = 2 });
        var downloaded = await new DatasetsClient(services.KMeans.Grpc).DownloadAsync(points.DatasetId);

        Assert.Equal(points.Count, assignments.Length);
        for (var k = 0; k < 8; k++)
        {
            var population = Enumerable.Range(0, assignments.Length).Where(i => assignments[i] == k).Sum(i => byId[downloaded.Labels[i]].Population);
            Assert.Equal(population, summary.Clustering.ClusterWeights[k], 1e-6);
        }

        Assert.Equal(6_785_528, summary.Clustering.ClusterWeights.Sum(), 1e-6);
        var xs = downloaded.Values.Where((_, i) => i % 2 == 0).ToList();
        var ys = downloaded.Values.Where((_, i) => i % 2 == 1).ToList();
        for (var k = 0; k < 8; k++)
        {
            Assert.InRange(summary.Clustering.Centres[2 * k], xs.Min(), xs.Max());
            Assert.InRange(summary.Clustering.Centres[2 * k + 1], ys.Min(), ys.Max());
        }
    }
}
