using Salsa.Chem;
using Salsa.Contracts.Clients;
using Salsa.Hosting.Datasets;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Chem;

/// <summary>
/// Compounds imported by the chem service and their fingerprints clustered by a k-means service on
/// the same store, on both stores.
/// </summary>
public sealed class ChemClusteringTests(PostgresFixture postgres)
{
    [Theory]
    [MemberData(nameof(TestStore.Names), MemberType = typeof(TestStore))]
    public async Task FixtureFingerprints_ClusteredByKMeansOnSharedStore(string storeName)
    {
        await using var services = await KMeansBeside.StartAsync<ChemService>(storeName, postgres);

        var compounds = await services.Service.Rest.PostForAsync<DatasetView>("/api/chem/imports", new { source = "fixture" });
        var datasets = await services.Service.Rest.CountDatasetsAsync();
        var again = await new ChemClient(services.Service.Grpc).ImportAsync(new() { Source = "fixture" }, GrpcCalls.Options);
        Assert.Equal(compounds.DatasetId.ToString(), again.DatasetId);
        Assert.Equal(3, datasets);
        Assert.Equal(datasets, await services.KMeans.Rest.CountDatasetsAsync());
        var maccs = await services.Service.GetJsonAsync<DatasetView>($"/api/chem/compounds/{compounds.DatasetId}/fingerprints/{ChemFixtureFile.Maccs}");

        var (summary, assignments) = await services.ClusterAsync(new { datasetId = maccs.DatasetId, clusters = 6, seed = 2 });

        Assert.Equal(("binary", 6, 167), (summary.Input, summary.Clustering.Clusters, summary.Clustering.Dimension));
        Assert.Equal(500, assignments.Length);
        Assert.All(summary.Clustering.ClusterSizes, size => Assert.True(size > 0));
        Assert.All(summary.Clustering.Centres, c => Assert.InRange(c, 0, 1));
    }
}
