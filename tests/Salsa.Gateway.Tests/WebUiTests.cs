using System.Globalization;
using System.Reflection;
using System.Text.Json;
using Salsa.Hosting.Host;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The gateway's web UI in a real browser: the gateway serves it in-process on loopback ports over a
/// temporary SQLite store, and Debian's Chromium (driven by playwright-core, browser/ui-test.mjs)
/// starts census-indiana with its Start button, follows the run to the end and checks the page.
/// Node.js, npm and Chromium are CI prerequisites, so their absence fails the test.
/// </summary>
public sealed class WebUiTests
{
    private const string Workflow = "census-indiana";
    private const int RunTimeoutSeconds = 180;
    private const int MaxClusters = 10;

    private static string Metadata(string key) =>
        typeof(WebUiTests).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == key).Value!;

    [Fact]
    public async Task Browser_StartsCensusIndiana_ShowsStateMapWaterfallAndClusters()
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(RunTimeoutSeconds + 120));
        var token = timeout.Token;
        var browserDirectory = Metadata("BrowserTestDirectory");
        await ExternalProgram.EnsureNpmPackagesAsync(browserDirectory, "playwright-core", token);

        using var directory = new TemporaryDirectory();
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var settings = ServiceHostSettings.PortSettings(ports);
        settings["Store:SqlitePath"] = directory.Combine("salsa.db");
        settings["Logging:LogLevel:Default"] = "Warning";
        await using var app = SalsaServiceHost.Create<GatewayService>(new ServiceHostSettings { Settings = settings, LoadAppSettings = false });
        await app.StartAsync(token);

        var screenshot = Path.Combine(AppContext.BaseDirectory, "screenshots", "web-ui.png");
        Directory.CreateDirectory(Path.GetDirectoryName(screenshot)!);
        File.Delete(screenshot);
        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", browserDirectory,
            ["ui-test.mjs", ports.RestAddress.ToString(), Workflow, RunTimeoutSeconds.ToString(CultureInfo.InvariantCulture), screenshot, MaxClusters.ToString(CultureInfo.InvariantCulture)],
            token);
        TestContext.Current.TestOutputHelper?.WriteLine($"screenshot: {screenshot}");
        TestContext.Current.TestOutputHelper?.WriteLine(output);

        Assert.True(exitCode == 0, $"node ui-test.mjs exited with {exitCode}:\n{output}\n{error}");
        Assert.True(File.Exists(screenshot), $"no screenshot at {screenshot}");
        using var summary = JsonDocument.Parse(output);
        var root = summary.RootElement;
        Assert.True(root.GetProperty("ok").GetBoolean());
        Assert.Equal("succeeded", root.GetProperty("state").GetString());
        Assert.EndsWith("/map.svg", root.GetProperty("image").GetProperty("src").GetString(), StringComparison.Ordinal);
        Assert.True(root.GetProperty("image").GetProperty("naturalWidth").GetInt32() > 0);
        Assert.True(root.GetProperty("hops").GetInt32() >= 4);
        Assert.InRange(root.GetProperty("clusterRows").GetInt32(), 1, MaxClusters);

        await app.StopAsync(token);
    }
}
