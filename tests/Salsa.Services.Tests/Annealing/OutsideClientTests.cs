using System.Reflection;
using System.Text.Json;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Annealing;

/// <summary>
/// An outside client — Node.js with grpc-js and proto-loader, reading the contracts from proto/ —
/// runs a whole clustering job against a running service. Node is a CI prerequisite, so its absence
/// fails the test rather than skipping it.
/// </summary>
public sealed class OutsideClientTests(AnnealingServiceFixture fixture) : IClassFixture<AnnealingServiceFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static string Metadata(string key) =>
        typeof(OutsideClientTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == key).Value!;

    [Fact]
    public async Task NodeGrpcJsClient_RunsAnnealingJob_FromProtoContracts()
    {
        var nodeDirectory = Metadata("NodeClientDirectory");
        await ExternalProgram.EnsureNpmPackagesAsync(nodeDirectory, "@grpc/grpc-js", Token);
        using var directory = new TemporaryDirectory();
        var csv = directory.Combine("gmm.csv");
        await File.WriteAllTextAsync(csv, Fixtures.GmmCsv(), Token);

        var (exitCode, output, error) = await ExternalProgram.RunAsync(
            "node", nodeDirectory, ["cluster-job.mjs", Metadata("ProtoDirectory"), fixture.Service.Ports.GrpcAddress.ToString(), csv, "5"], Token);

        Assert.True(exitCode == 0, $"node cluster-job.mjs exited with {exitCode}: {error}");
        using var json = JsonDocument.Parse(output);
        var root = json.RootElement;
        Assert.Equal(2000, root.GetProperty("dataset").GetProperty("count").GetInt32());
        Assert.Equal(Fixtures.Gmm.Weights.Sum(), root.GetProperty("dataset").GetProperty("totalWeight").GetDouble(), 6);
        var watched = root.GetProperty("watched");
        // Progress events arrive only while the watcher is attached (a job this small may end
        // first); the job as it ended always carries its last progress.
        var finalProgress = watched.GetProperty("finalProgress");
        Assert.False(string.IsNullOrEmpty(finalProgress.GetProperty("phase").GetString()));
        Assert.True(finalProgress.GetProperty("iteration").GetInt32() > 0);
        Assert.Equal("JOB_STATE_SUCCEEDED", watched.GetProperty("statuses").EnumerateArray().Last().GetString());
        var result = root.GetProperty("result");
        Assert.Equal(5, result.GetProperty("clusters").GetInt32());
        var centres = result.GetProperty("centres").EnumerateArray().Select(e => e.GetDouble()).ToArray();
        foreach (var centre in Fixtures.Gmm.Centres)
        {
            Assert.True(Fixtures.NearestDistance(centre, centres) < 0.15);
        }

        Assert.Equal(2000, root.GetProperty("assignments").GetProperty("count").GetInt32());
        Assert.Equal(4, root.GetProperty("assignments").GetProperty("max").GetInt32());
        Assert.Equal(3, root.GetProperty("badRequest").GetProperty("code").GetInt32()); // INVALID_ARGUMENT
        Assert.Equal(5, root.GetProperty("notFound").GetProperty("code").GetInt32()); // NOT_FOUND
        Assert.Contains("00000000-0000-0000-0000-000000000001", root.GetProperty("notFound").GetProperty("details").GetString(), StringComparison.Ordinal);
        Assert.Contains("server-timing", root.GetProperty("notFound").GetProperty("trailers").EnumerateArray().Select(t => t.GetString()));
        Assert.Equal(4, root.GetProperty("deadline").GetProperty("code").GetInt32()); // DEADLINE_EXCEEDED
        Assert.Equal(12, root.GetProperty("unimplemented").GetProperty("code").GetInt32()); // UNIMPLEMENTED
        Assert.Contains("app;dur=", root.GetProperty("serverTiming").GetString(), StringComparison.Ordinal);
    }
}
