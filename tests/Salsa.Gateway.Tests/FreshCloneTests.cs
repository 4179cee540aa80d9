using System.Text.Json;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The README's first command, run as a newcomer runs it: in a fresh clone of the repository in an
/// empty folder, with no data folder anywhere above it and <c>SALSA_DATA</c> unset. It builds, runs
/// the Indiana census workflow on the data the clone carries, and writes the map and the clusters;
/// then reproduces the census-indiana run recorded with the benchmarks, identical output by output.
/// </summary>
public sealed class FreshCloneTests : IDisposable
{
    private readonly TemporaryDirectory _directory = new("salsa-fresh-clone-");

    public void Dispose() => _directory.Dispose();

    [Fact]
    public async Task ReadmeFirstCommand_InAFreshCloneWithNothingBesideIt_WritesTheMapAndTheClusters()
    {
        var cancellationToken = TestContext.Current.CancellationToken;
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(TimeSpan.FromMinutes(15));
        var repository = RepositoryRoot();
        var clone = _directory.Combine("salsa");
        var (cloned, _, cloneError) = await ExternalProgram.RunAsync("git", _directory.Path, ["clone", "-q", repository, clone], timeout.Token);
        Assert.True(cloned == 0, cloneError);
        Assert.False(HasDataFolderAbove(clone), "a data folder outside the clone would make this test prove nothing");

        var command = FirstCommand(Path.Combine(clone, "README.md"));
        Assert.StartsWith("dotnet run -c Release --project gateway/Salsa.Gateway -- run workflows/census-indiana.yaml", command, StringComparison.Ordinal);
        var (exitCode, output, error) = await ExternalProgram.RunAsync("bash", clone, ["-c", command], timeout.Token, new Dictionary<string, string?>
        {
            ["SALSA_DATA"] = null,
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = null,
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
            ["DOTNET_NOLOGO"] = "1",
            ["MSBUILDDISABLENODEREUSE"] = "1",
        });

        Assert.True(exitCode == 0, $"exit {exitCode}\n{output}\n{error}");
        // What the user reads is the run: no log lines of the machine level's internals (Orleans' GC
        // notes, stalled-thread-pool and slow-participant warnings on a busy machine).
        Assert.DoesNotContain("warn: Orleans", output + error, StringComparison.Ordinal);
        var run = Assert.Single(Directory.GetDirectories(Path.Combine(clone, "out")));
        var png = await File.ReadAllBytesAsync(Path.Combine(run, "map.png"), cancellationToken);
        Assert.Equal<byte>([0x89, (byte)'P', (byte)'N', (byte)'G'], png[..4]);
        Assert.True(png.Length > 10_000, $"map.png has {png.Length} bytes");
        using var geoJson = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(run, "clusters.geojson"), cancellationToken));
        Assert.Equal("FeatureCollection", geoJson.RootElement.GetProperty("type").GetString());
        Assert.InRange(geoJson.RootElement.GetProperty("features").GetArrayLength(), 2, 20);
        Assert.Empty(Directory.GetFileSystemEntries(Path.Combine(clone, "data")).Select(Path.GetFileName).Except(["README.md", "manifest.json", "census", "chem", "fixtures"]));

        // A run recorded on another machine (the bench's, committed) reproduced in this clone, as
        // the README says: every output and file identical.
        var (reproduced, reproduceOutput, reproduceError) = await ExternalProgram.RunAsync("bash", clone,
            ["-c", "dotnet run -c Release --no-build --project gateway/Salsa.Gateway -- run --reproduce bench/results/reproduce/census-indiana.result.json"], timeout.Token,
            new Dictionary<string, string?> { ["SALSA_DATA"] = null, ["OTEL_EXPORTER_OTLP_ENDPOINT"] = null, ["DOTNET_NOLOGO"] = "1" });
        Assert.True(reproduced == 0, $"exit {reproduced}\n{reproduceOutput}\n{reproduceError}");
        Assert.Contains("reproduced: all 13 outputs and files identical", reproduceOutput, StringComparison.Ordinal);
    }

    /// <summary>The line after <c># 1. the main job</c> in the README's first code block.</summary>
    private static string FirstCommand(string readme)
    {
        var lines = File.ReadAllLines(readme);
        var at = Array.FindIndex(lines, l => l.StartsWith("# 1. the main job", StringComparison.Ordinal));
        Assert.True(at >= 0 && at + 1 < lines.Length, "README.md has no '# 1. the main job' command");
        return lines[at + 1].Trim();
    }

    private static bool HasDataFolderAbove(string directory)
    {
        for (var dir = new DirectoryInfo(directory).Parent; dir is not null; dir = dir.Parent)
        {
            if (Directory.Exists(Path.Combine(dir.FullName, "shared", "data")) || File.Exists(Path.Combine(dir.FullName, "data", "manifest.json")))
            {
                return true;
            }
        }

        return false;
    }

    private static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Salsa.Services.sln")) && Path.Exists(Path.Combine(dir.FullName, ".git")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException($"No git repository holding Salsa.Services.sln above {AppContext.BaseDirectory}.");
    }
}
