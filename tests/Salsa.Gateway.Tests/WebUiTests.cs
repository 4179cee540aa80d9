using System.Globalization;
using System.Reflection;
using System.Text.Json;
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

    /// <summary>The browser scripts' folder, with playwright-core installed.</summary>
    private static async Task<string> BrowserDirectoryAsync(CancellationToken token)
    {
        var browserDirectory = Metadata("BrowserTestDirectory");
        await ExternalProgram.EnsureNpmPackagesAsync(browserDirectory, "playwright-core", token);
        return browserDirectory;
    }

    [Fact]
    public async Task Browser_StartsCensusIndiana_ShowsStateMapWaterfallAndClusters()
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(RunTimeoutSeconds + 120));
        var token = timeout.Token;
        var browserDirectory = await BrowserDirectoryAsync(token);

        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);

        var screenshot = Screenshot("web-ui.png");
        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", browserDirectory,
            ["ui-test.mjs", gateway.Ports.RestAddress.ToString(), Workflow, RunTimeoutSeconds.ToString(CultureInfo.InvariantCulture), screenshot, MaxClusters.ToString(CultureInfo.InvariantCulture)],
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

        await gateway.StopAsync();
    }

    [Fact]
    public async Task Browser_GatewayAskingForAKey_TheUiAsksForIt_ThenFollowsTheRunLiveAndShowsItsFiles()
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(RunTimeoutSeconds + 120));
        var token = timeout.Token;
        var browserDirectory = await BrowserDirectoryAsync(token);

        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?> { ["Salsa:Auth:Mode"] = "On" }, token);
        var key = (await Microsoft.Extensions.DependencyInjection.ServiceProviderServiceExtensions.GetRequiredService<Salsa.Hosting.Security.ApiKeys>(gateway.App.Services).CreateAsync("browser", "the browser test", ["run"], token)).Key;

        var screenshot = Screenshot("web-ui-with-key.png");
        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", browserDirectory,
            ["ui-test.mjs", gateway.Ports.RestAddress.ToString(), Workflow, RunTimeoutSeconds.ToString(CultureInfo.InvariantCulture), screenshot, MaxClusters.ToString(CultureInfo.InvariantCulture), key],
            token);
        TestContext.Current.TestOutputHelper?.WriteLine(output);

        Assert.True(exitCode == 0, $"node ui-test.mjs exited with {exitCode}:\n{output}\n{error}");
        var root = JsonDocument.Parse(output).RootElement;
        Assert.Contains("credentials", root.GetProperty("askedForKey").GetString(), StringComparison.Ordinal);
        Assert.Equal("succeeded", root.GetProperty("state").GetString());
        Assert.True(root.GetProperty("sawRunning").GetBoolean(), "the page never showed the run running: the event stream did not carry the key");
        Assert.StartsWith("blob:", root.GetProperty("image").GetProperty("src").GetString(), StringComparison.Ordinal); // fetched with the key
        Assert.True(root.GetProperty("image").GetProperty("naturalWidth").GetInt32() > 0);
        Assert.True(root.GetProperty("hops").GetInt32() >= 4);
        Assert.DoesNotContain(key, output, StringComparison.Ordinal);
        await gateway.StopAsync();
    }

    [Fact]
    public async Task Browser_ScalarApiReference_RendersTheGatewaysOperations_FromTheServiceAlone()
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(180));
        var token = timeout.Token;
        var browserDirectory = await BrowserDirectoryAsync(token);

        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var screenshot = Screenshot("api-reference.png");
        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", browserDirectory,
            ["api-reference-test.mjs", gateway.Ports.RestAddress.ToString(), "Every operation a step can name", screenshot], token);
        TestContext.Current.TestOutputHelper?.WriteLine($"screenshot: {screenshot}");
        TestContext.Current.TestOutputHelper?.WriteLine(output);

        Assert.True(exitCode == 0, $"node api-reference-test.mjs exited with {exitCode}:\n{output}\n{error}");
        Assert.True(File.Exists(screenshot), $"no screenshot at {screenshot}");
        await gateway.StopAsync();
    }

    private static string Screenshot(string name)
    {
        var screenshot = Path.Combine(AppContext.BaseDirectory, "screenshots", name);
        Directory.CreateDirectory(Path.GetDirectoryName(screenshot)!);
        File.Delete(screenshot);
        return screenshot;
    }
}
