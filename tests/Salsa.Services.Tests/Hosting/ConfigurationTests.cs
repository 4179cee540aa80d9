using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using Microsoft.Extensions.Options;
using Salsa.Annealing;
using Salsa.Census;
using Salsa.Fingerprints;
using Salsa.Hosting.Host;
using Salsa.Testing;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// Configuration one way: every settings section is bound to its options type and checked as the
/// service starts — a bad value stops the start naming its key, as a refusal of the process (one
/// line, exit 1), never at the first request that reads it — and the ports of a standalone run are
/// stated in each deployable's appsettings.json only, the table of docs/services.md saying the same.
/// </summary>
public sealed partial class ConfigurationTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Theory]
    [InlineData("Salsa:Limits:ConcurrentJobs", "0")]
    [InlineData("Salsa:Limits:MaxPoints", "-5")]
    [InlineData("Salsa:Limits:RetryAfter", "00:00:00")]
    [InlineData("Salsa:Files:MaxBytes", "0")]
    [InlineData("Salsa:Files:AllowedNetworks:0", "the office")]
    [InlineData("Salsa:Auth:RateLimit:Burst", "0")]
    [InlineData("Salsa:Quota:MaxDatasets", "0")]
    [InlineData("ConnectionStrings:salsa", "not a connection string")]
    public async Task BadSetting_RefusedAtStartNamingItsKey(string key, string value)
    {
        var refused = await Assert.ThrowsAsync<OptionsValidationException>(() => BootAsync<CensusService>(Loopback(key, value)));

        Assert.Contains(key.Replace(":0", "", StringComparison.Ordinal), refused.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Cluster:ProbeTimeout", "00:00:00")]
    [InlineData("Cluster:Role", "leader")]
    [InlineData("Cluster:SiloPort", "eleven")]
    public async Task BadGridSetting_RefusedAtStartNamingItsKey(string key, string value)
    {
        // Bound when the service registers what computes on the grid, whether or not it is enabled.
        var refused = await Assert.ThrowsAnyAsync<Exception>(() => BootAsync<AnnealingService>(Loopback(key, value)));

        Assert.True(refused is OptionsValidationException or InvalidOperationException, refused.ToString());
        Assert.Contains(key, refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BadServiceSetting_RefusedAtStart()
    {
        var refused = await Assert.ThrowsAsync<OptionsValidationException>(() => BootAsync<FingerprintsService>(Loopback("Salsa:Fingerprints:MaxSearchK", "0")));

        Assert.Contains("Salsa:Fingerprints:MaxSearchK", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BadGridLayout_RefusedAtStart()
    {
        // A service computing on the grid (its process a silo of its own) with a layout of no partitions.
        var settings = Loopback("Cluster:PointsPerPartition", "0");
        settings["Cluster:Enabled"] = "true";

        var refused = await Assert.ThrowsAsync<OptionsValidationException>(() => BootAsync<AnnealingService>(settings));

        Assert.Contains("Cluster:PointsPerPartition", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task BadLimit_TheProcessRefusesInOneLineAndExits1()
    {
        var (exitCode, output, error) = await ExternalProgram.RunAsync("dotnet", AppContext.BaseDirectory,
            [Path.Combine(AppContext.BaseDirectory, "Salsa.Census.dll"), "--Salsa:Limits:ConcurrentJobs=0", "--Kestrel:Endpoints:Rest:Url=http://127.0.0.1:0", "--Kestrel:Endpoints:Grpc:Url=http://127.0.0.1:0"], Token);

        Assert.True(exitCode == 1, $"exit {exitCode}: {output}{error}");
        var line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("census did not start: Salsa:Limits:ConcurrentJobs: ", line, StringComparison.Ordinal);
    }

    [Fact]
    public void Ports_StatedOnceInEachAppSettings_AndTheDocsTableSaysTheSame()
    {
        var documented = DocsPortsRow().Matches(File.ReadAllText(Path.Combine(Repository.Root, "docs", "services.md")))
            .ToDictionary(m => m.Groups["service"].Value, m => (RestPort: int.Parse(m.Groups["rest"].Value, CultureInfo.InvariantCulture), GrpcPort: int.Parse(m.Groups["grpc"].Value, CultureInfo.InvariantCulture)));
        var deployables = Directory.GetDirectories(Path.Combine(Repository.Root, "services"), "Salsa.*").Append(Path.Combine(Repository.Root, "gateway", "Salsa.Gateway"))
            .Where(d => File.Exists(Path.Combine(d, "Program.cs")) && !d.EndsWith("Salsa.Silo", StringComparison.Ordinal))
            .ToList();
        var seen = new HashSet<int>();
        foreach (var folder in deployables)
        {
            using var settings = JsonDocument.Parse(File.ReadAllText(Path.Combine(folder, "appsettings.json")));
            var endpoints = settings.RootElement.GetProperty("Kestrel").GetProperty("Endpoints");
            var rest = new Uri(endpoints.GetProperty("Rest").GetProperty("Url").GetString()!).Port;
            var grpc = new Uri(endpoints.GetProperty("Grpc").GetProperty("Url").GetString()!).Port;
            Assert.True(seen.Add(rest) && seen.Add(grpc), $"{folder}: ports {rest}, {grpc} are another deployable's too");
            var name = Path.GetFileName(folder)["Salsa.".Length..];
            if (documented.TryGetValue(name, out var row))
            {
                Assert.Equal((row.RestPort, row.GrpcPort), (rest, grpc));
            }
        }

        Assert.Equal(7, documented.Count); // every service's row was read
    }

    /// <summary>Builds and starts the service as its process does (a refusal may come at either), then stops it.</summary>
    private static async Task BootAsync<TService>(Dictionary<string, string?> settings)
        where TService : ISalsaService
    {
        await using var app = SalsaServiceHost.Create<TService>(new ServiceHostSettings { Settings = settings, LoadAppSettings = false });
        await app.StartAsync(Token);
        await app.StopAsync(Token);
    }

    private static Dictionary<string, string?> Loopback(string key, string value) => new()
    {
        ["Kestrel:Endpoints:Rest:Url"] = "http://127.0.0.1:0",
        ["Kestrel:Endpoints:Grpc:Url"] = "http://127.0.0.1:0",
        [key] = value,
    };

    // | [Annealing](../services/Salsa.Annealing/README.md) | 5101 | 5102 | …
    [GeneratedRegex(@"^\| \[(?<service>[A-Za-z]+)\]\([^)]+\) \| (?<rest>\d+) \| (?<grpc>\d+) \|", RegexOptions.Multiline)]
    private static partial Regex DocsPortsRow();
}
