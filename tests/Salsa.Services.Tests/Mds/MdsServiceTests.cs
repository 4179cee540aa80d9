using System.Net.Http.Json;
using Grpc.Core;
using Salsa.Chem;
using Salsa.Clustering.Fingerprints;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.DataFiles;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Mds;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Mds;

/// <summary>An MDS service and a chem service sharing one SQLite store (the chem service imports the fingerprints the MDS service embeds).</summary>
public sealed class MdsServiceFixture : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();

    public ServiceUnderTest<MdsService> Service { get; private set; } = null!;

    public ServiceUnderTest<ChemService> Chem { get; private set; } = null!;

    public async ValueTask InitializeAsync()
    {
        var store = TestStore.Sqlite(_directory);
        Service = await ServiceUnderTest.StartAsync<MdsService>(store);
        Chem = await ServiceUnderTest.StartAsync<ChemService>(store);
    }

    public async ValueTask DisposeAsync()
    {
        await Chem.DisposeAsync();
        await Service.DisposeAsync();
        _directory.Dispose();
    }
}

public sealed class MdsServiceTests(MdsServiceFixture fixture, PostgresFixture postgres) : IClassFixture<MdsServiceFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private ServiceUnderTest<MdsService> Service => fixture.Service;

    public static TheoryData<string> Stores => ["sqlite", "postgres"];

    [Theory]
    [MemberData(nameof(Stores))]
    public async Task Rest_PlanarPointsInThreeDimensions_StressZeroDistancesReproducedAndProgressStreamed(string storeName)
    {
        await using var onPostgres = storeName == "postgres" ? await ServiceUnderTest.StartAsync<MdsService>(await TestStore.PostgresAsync(postgres)) : null;
        var rest = (onPostgres ?? Service).Rest;
        var points = PlanarPoints.InThreeDimensions();
        var dataset = await rest.UploadCsvAsync("name=planar&kind=dense&dimension=3", PlanarPoints.Csv(points, 3));

        var job = await rest.StartJobAsync("/api/mds/jobs", new { datasetId = dataset.DatasetId, dimensions = 2 });
        Assert.Equal("mds", job.Service);
        var final = await rest.WaitAsync(job.JobId);

        Assert.Equal("succeeded", final.State);
        Assert.Equal("iterating", final.Progress?.Phase);
        var summary = (await rest.GetFromJsonAsync<Contracts.Mds.EmbeddingResult>($"/api/mds/jobs/{job.JobId}/result", RestCalls.Json, Token))!;
        Assert.Equal((PlanarPoints.Count, 2, "euclidean", "dense"), (summary.Items, summary.Dimensions, summary.Dissimilarity, summary.Input));
        Assert.Equal(Enumerable.Range(0, PlanarPoints.Count), summary.ItemIndices);
        Assert.InRange(summary.NormalisedStress, 0, 1e-9);
        Assert.Equal(summary.StressTrajectory[^1], summary.NormalisedStress);
        PlanarPoints.AssertDistancesReproduced(points, 3, summary.ItemIndices, summary.Coordinates, 2);
        var artifact = ArtifactFormats.ReadDoubles(await rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/coordinates", Token));
        Assert.Equal(summary.Coordinates, artifact);
    }

    [Fact]
    public async Task Grpc_WeightedSubsetInThreeDimensions_EmbedsTheChosenItemsInOrder()
    {
        var points = PlanarPoints.InThreeDimensions();
        var dataset = await new DatasetsClient(Service.Grpc).UploadDenseAsync("planar-grpc", 3, points, options: new CallOptions(cancellationToken: Token));
        int[] items = [9, 2, 7, 0, 11, 4, 5];
        var request = new Contracts.Mds.StartEmbeddingRequest { DatasetId = dataset.DatasetId, Dimensions = 3, MaxIterations = 500, Tolerance = 1e-9 };
        request.Items.Add(items);
        request.ItemWeights.Add([1, 2, 3, 1, 2, 3, 0.5]);

        var job = await new MdsClient(Service.Grpc).StartAsync(request, new CallOptions(cancellationToken: Token));
        var final = await new JobsClient(Service.Grpc).WatchToEndAsync(job.JobId, options: new CallOptions(cancellationToken: Token));

        Assert.Equal(JobState.Succeeded, final.State);
        Assert.Equal("iterating", final.Progress.Phase);
        var result = await new MdsClient(Service.Grpc).GetResultAsync(new JobRef { JobId = job.JobId }, new CallOptions(cancellationToken: Token));
        Assert.Equal((items.Length, 3), (result.Items, result.Dimensions));
        Assert.Equal(items, result.ItemIndices);
        Assert.InRange(result.NormalisedStress, 0, 1e-9);
        PlanarPoints.AssertDistancesReproduced(points, 3, [.. result.ItemIndices], [.. result.Coordinates], 3);
        var (data, _) = await new JobsClient(Service.Grpc).DownloadArtifactAsync(job.JobId, Artifacts.Coordinates, new CallOptions(cancellationToken: Token));
        Assert.Equal(result.Coordinates, ArtifactFormats.ReadDoubles(data));
    }

    [Fact]
    public async Task Rest_FingerprintsImportedByChem_EmbedsTanimotoDistances()
    {
        using var import = await fixture.Chem.Rest.PostAsJsonAsync("/api/chem/imports", new { source = "fixture" }, Token);
        await RestCalls.EnsureAsync(import);
        var compounds = (await import.Content.ReadFromJsonAsync<DatasetView>(RestCalls.Json, Token))!;
        var type = FingerprintType.Maccs;
        var fingerprints = Guid.Parse(compounds.Metadata[CompoundCatalog.FingerprintKeyPrefix + type.Name]);
        int[] items = [.. Enumerable.Range(0, 60).Select(i => i * 7)];

        var job = await Service.Rest.StartJobAsync("/api/mds/jobs", new { datasetId = fingerprints, dimensions = 2, items });
        Assert.Equal("succeeded", (await Service.Rest.WaitAsync(job.JobId)).State);

        var summary = (await Service.Rest.GetFromJsonAsync<Contracts.Mds.EmbeddingResult>($"/api/mds/jobs/{job.JobId}/result", RestCalls.Json, Token))!;
        Assert.Equal(("binary", "tanimoto", 60), (summary.Input, summary.Dissimilarity, summary.Items));
        Assert.Equal(items, summary.ItemIndices);
        Assert.True(summary.StressTrajectory.Zip(summary.StressTrajectory.Skip(1)).All(p => p.Second <= p.First + 1e-12), "SMACOF never raises the stress.");
        Assert.InRange(summary.NormalisedStress, 1e-6, 0.5 * summary.StressTrajectory[0]);

        // The map keeps the Tanimoto geometry: embedded distances follow the fingerprints' distances.
        var set = CompoundSet.ReadFile(CompoundSet.FixturePath);
        var (tanimoto, embedded) = (new List<double>(), new List<double>());
        for (var a = 0; a < items.Length; a++)
        {
            for (var b = a + 1; b < items.Length; b++)
            {
                tanimoto.Add(Tanimoto.Distance(set.Fingerprint(type, items[a]), set.Fingerprint(type, items[b])));
                embedded.Add(PlanarPoints.Distance(summary.Coordinates, a, b, 2));
            }
        }

        Assert.True(PlanarPoints.Correlation(tanimoto, embedded) > 0.7, $"The embedded distances correlate {PlanarPoints.Correlation(tanimoto, embedded):0.000} with the Tanimoto distances.");
    }

    [Fact]
    public async Task Cancel_RunningEmbedding_StreamsStressThenEndsCancelledAndServiceKeepsServing()
    {
        var dataset = await Service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await Service.Rest.StartJobAsync("/api/mds/jobs", new { datasetId = dataset.DatasetId, dimensions = 2, maxIterations = 100_000, tolerance = 0.0 });

        var events = await Service.Rest.WatchAsync(job.JobId, e => e.Event == "progress" && e.Data.GetProperty("phase").GetString() == "iterating");
        var stress = events[^1].Data.GetProperty("objective").GetDouble();
        Assert.True(stress is > 0 and < 1, $"The progress reports the normalised stress; it is {stress}.");
        using (var cancel = await Service.Rest.PostAsync($"/api/jobs/{job.JobId}/cancel", null, Token))
        {
            await RestCalls.EnsureAsync(cancel);
        }

        Assert.Equal("cancelled", (await Service.Rest.WaitAsync(job.JobId)).State);
        using var result = await Service.Rest.GetAsync($"/api/mds/jobs/{job.JobId}/result", Token);
        Assert.Contains("cancelled", await RestCalls.ProblemAsync(result, 409), StringComparison.Ordinal);
        var small = await Service.Rest.StartJobAsync("/api/mds/jobs", new { datasetId = dataset.DatasetId, dimensions = 2, items = new[] { 0, 1, 2, 3, 4 } });
        Assert.Equal("succeeded", (await Service.Rest.WaitAsync(small.JobId)).State);
    }
}

/// <summary>Points that lie exactly on a plane, so their distances have an exact 2-D embedding.</summary>
internal static class PlanarPoints
{
    private static readonly (double X, double Y)[] s_plane =
    [
        (0, 0), (3, 0), (0, 4), (3, 4), (1.5, 2), (-2, 1), (5, -1), (2.5, 6), (-1, -3), (4, 2.5), (0.5, 5.5), (6, 3),
    ];

    public static int Count => s_plane.Length;

    /// <summary>The plane points as 3-D points: an orthonormal pair of directions, shifted off the origin.</summary>
    public static double[] InThreeDimensions()
    {
        double[] u = [0.6, 0.8, 0], v = [0, 0, 1], offset = [5, -3, 2];
        var values = new double[3 * s_plane.Length];
        for (var i = 0; i < s_plane.Length; i++)
        {
            for (var c = 0; c < 3; c++)
            {
                values[3 * i + c] = offset[c] + (s_plane[i].X * u[c]) + (s_plane[i].Y * v[c]);
            }
        }

        return values;
    }

    public static string Csv(double[] values, int dimension) =>
        string.Join('\n', ["x,y,z", .. values.Chunk(dimension).Select(p => string.Join(',', p.Select(c => c.ToString("R", System.Globalization.CultureInfo.InvariantCulture))))]) + "\n";

    public static double Distance(IReadOnlyList<double> values, int a, int b, int dimension)
    {
        var sum = 0.0;
        for (var c = 0; c < dimension; c++)
        {
            var d = values[a * dimension + c] - values[b * dimension + c];
            sum += d * d;
        }

        return Math.Sqrt(sum);
    }

    /// <summary>Every pairwise distance of the embedded items equals that of their points, to single precision.</summary>
    public static void AssertDistancesReproduced(double[] points, int dimension, IReadOnlyList<int> items, IReadOnlyList<double> coordinates, int embedded)
    {
        for (var a = 0; a < items.Count; a++)
        {
            for (var b = a + 1; b < items.Count; b++)
            {
                var expected = Distance(points, items[a], items[b], dimension);
                var actual = Distance(coordinates, a, b, embedded);
                Assert.True(Math.Abs(expected - actual) < 1e-4 * Math.Max(1, expected), $"items {items[a]}, {items[b]}: distance {actual}, expected {expected}");
            }
        }
    }

    public static double Correlation(IReadOnlyList<double> x, IReadOnlyList<double> y)
    {
        var (mx, my) = (x.Average(), y.Average());
        double sxy = 0, sxx = 0, syy = 0;
        for (var i = 0; i < x.Count; i++)
        {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }

        return sxy / Math.Sqrt(sxx * syy);
    }
}
