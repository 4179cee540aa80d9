using System.Globalization;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Salsa.Annealing;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Contracts.Operations;
using Salsa.Hosting.Jobs;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Annealing;

/// <summary>
/// The annealing service as a client of a cluster of three silo processes (PostgreSQL membership,
/// store and grain state), and the silo coordinating a job killed outright while a caller watches
/// the job's event stream: the job resumes from its checkpoint on a survivor, the stream goes on
/// to the end, and the result is the bits of the grid computed in one process.
/// </summary>
public sealed class AnnealingFailoverTests(PostgresFixture postgres)
{
    private const int Points = 15_013;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task CoordinatorSiloKilledWhileTheCallerWatches_StreamGoesOnAndTheResultHasTheGridsBits()
    {
        var store = await TestStore.PostgresAsync(postgres);
        var connectionString = store.Settings["ConnectionStrings:salsa"]!;
        var clusterId = $"failover-{Guid.NewGuid():N}";
        var silos = await Task.WhenAll(Enumerable.Range(0, 3).Select(_ => SiloProcess.StartAsync(connectionString, clusterId, Token)));
        try
        {
            await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(store, new Dictionary<string, string?>
            {
                ["Cluster:Enabled"] = "true",
                ["Cluster:Role"] = "client",
                ["Cluster:Id"] = clusterId,
                ["Cluster:PointsPerPartition"] = "1300", // a grid of 12
            });
            var (values, weights, csv) = Mixture();
            var dataset = await service.Rest.UploadCsvAsync("name=mixture&kind=dense&dimension=2&weights=true", csv);
            var request = new Contracts.Annealing.StartAnnealingRequest { DatasetId = dataset.DatasetId.ToString(), MaxClusters = 12, CoolingFactor = 0.93, FixedCooling = true };

            var job = await service.Rest.StartJobAsync("/api/annealing/jobs", request);
            var watching = service.Rest.WatchAsync(job.JobId);
            using var silo = new HttpClient { BaseAddress = silos[0].Rest };
            var running = await RunningViewAsync(silo, job.JobId);
            var coordinator = silos.Single(s => s.Is(running.GetProperty("coordinator").GetString()));
            var iterationsAtKill = running.GetProperty("iterations").GetInt32();
            coordinator.Kill();
            var events = await watching.WaitAsync(TimeSpan.FromMinutes(4), Token);

            Assert.Equal("succeeded", events[^1].Data.GetProperty("state").GetString());
            Assert.Contains(events, e => e.Event == "progress" && e.Data.GetProperty("iteration").GetInt32() > iterationsAtKill);
            using var response = await service.Rest.GetAsync($"/api/annealing/jobs/{job.JobId}/result", Token);
            await RestCalls.EnsureAsync(response);
            var summary = (await response.Content.ReadFromJsonAsync<Contracts.Annealing.AnnealingResult>(RestCalls.Json, Token))!;
            using var grid = new LocalPartitions(new DenseVectors(values, 2, weights), 12);
            var reference = DeterministicAnnealing.Run(grid, RequestParameters.Bind(request, new AnnealingOptions { MaxTemperatures = 100_000, Parallel = new ParallelismOptions() }));
            Assert.Equal(reference.Centres.Select(BitConverter.DoubleToInt64Bits), summary.Clustering.Centres.Select(BitConverter.DoubleToInt64Bits));
            Assert.Equal(BitConverter.DoubleToInt64Bits(reference.WeightedCost), BitConverter.DoubleToInt64Bits(summary.Clustering.Cost));
            var assignments = ArtifactFormats.ReadInt32s(await service.Rest.GetByteArrayAsync($"/api/jobs/{job.JobId}/artifacts/assignments", Token));
            Assert.Equal(reference.Assignments, assignments);
            Assert.NotNull(summary.Placement);
            Assert.Equal(1, summary.Placement.Resumes);
            Assert.False(coordinator.Is(summary.Placement.Coordinator));
        }
        finally
        {
            foreach (var silo in silos)
            {
                silo.Dispose();
            }
        }
    }

    /// <summary>The job's view from a silo's REST face once it has kept two checkpoints (its coordinator is known and it is well under way).</summary>
    private static async Task<JsonElement> RunningViewAsync(HttpClient silo, Guid job)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(Token);
        limit.CancelAfter(TimeSpan.FromMinutes(2));
        while (true)
        {
            using var response = await silo.GetAsync($"api/cluster/jobs/annealing/{job}", limit.Token);
            if (response.IsSuccessStatusCode)
            {
                var view = JsonDocument.Parse(await response.Content.ReadAsStringAsync(limit.Token)).RootElement.Clone();
                Assert.Equal("running", view.GetProperty("status").GetString());
                if (view.GetProperty("checkpoints").GetInt32() >= 2)
                {
                    return view;
                }
            }

            await Task.Delay(100, limit.Token);
        }
    }

    /// <summary>Nine weighted 2-D blobs, as values, weights and the CSV a user would upload.</summary>
    private static (double[] Values, double[] Weights, string Csv) Mixture()
    {
        var (values, weights) = WeightedBlobs.Make(Points, 3);
        var csv = new StringBuilder("x,y,weight\n");
        for (var i = 0; i < Points; i++)
        {
            csv.Append(CultureInfo.InvariantCulture, $"{values[2 * i]:R},{values[2 * i + 1]:R},{weights[i]:R}\n");
        }

        return (values, weights, csv.ToString());
    }
}
