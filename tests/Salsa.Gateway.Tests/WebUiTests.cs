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
    internal static async Task<string> BrowserDirectoryAsync(CancellationToken token)
    {
        var browserDirectory = Metadata("BrowserTestDirectory");
        await ExternalProgram.EnsureNpmPackagesAsync(browserDirectory, "axe-core", token); // the package.json's latest addition
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
        // The workflow card's form holds the workflow's own values (census-indiana: Kmax 20).
        Assert.Equal("20", root.GetProperty("startForm").GetProperty("kmax").GetString());
        // Re-run with changes, through the form generated from the operations' catalog.
        var rerun = root.GetProperty("rerun");
        Assert.Equal(root.GetProperty("runId").GetString(), rerun.GetProperty("rerunOf").GetString());
        Assert.Equal(MaxClusters + 1, rerun.GetProperty("parameters").GetProperty("cluster.maxClusters").GetInt32());
        Assert.Equal("succeeded", rerun.GetProperty("state").GetString());
        // Its provenance shown, and reproduced from the page: every output and file identical.
        var reproduction = root.GetProperty("reproduction");
        Assert.StartsWith("✓ Reproduced", reproduction.GetProperty("verdict").GetString(), StringComparison.Ordinal);
        Assert.Equal(root.GetProperty("provenance").GetProperty("digests").GetInt32(), reproduction.GetProperty("identical").GetInt32());

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
    public async Task Browser_RunsHistoryOverAFewHundredRuns_PagesFiltersAndFollowsTheRunsStream()
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(RunTimeoutSeconds + 120));
        var token = timeout.Token;
        var browserDirectory = await BrowserDirectoryAsync(token);

        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        // 300 finished runs of this tenant, an hour apart, of three workflows in four end states, and
        // 40 of another tenant that the list must never show.
        var now = DateTimeOffset.UtcNow;
        await RunsHistoryTests.SeedAsync(gateway, now, 300, 40, token);

        var day = now.AddHours(-100).UtcDateTime.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture);
        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", browserDirectory,
            ["history-test.mjs", gateway.Ports.RestAddress.ToString(), Workflow, day], token);
        TestContext.Current.TestOutputHelper?.WriteLine(output);

        Assert.True(exitCode == 0, $"node history-test.mjs exited with {exitCode}:\n{output}\n{error}");
        using var summary = JsonDocument.Parse(output);
        var root = summary.RootElement;
        Assert.Equal("(300)", root.GetProperty("all").GetProperty("count").GetString());
        Assert.Equal("(75)", root.GetProperty("failed").GetProperty("count").GetString());
        Assert.Equal("(25)", root.GetProperty("chemFailed").GetProperty("count").GetString());
        Assert.InRange(root.GetProperty("day").GetProperty("rows").GetInt32(), 1, 24);
        Assert.True(root.GetProperty("focusKept").GetBoolean());
        await gateway.StopAsync();
    }

    [Fact]
    public async Task Browser_ScalarApiReference_RendersTheGatewaysOperations_FromTheServiceAlone()
    {
        var screenshot = Screenshot("api-reference.png");
        await OnAGatewayAsync(async (gateway, token) =>
        {
            // The first operation of the page (Scalar draws the first tag open, the others on demand).
            await BrowserScriptAsync("api-reference-test.mjs", token, gateway.Ports.RestAddress.ToString(), "The release that answers", screenshot);
            TestContext.Current.TestOutputHelper?.WriteLine($"screenshot: {screenshot}");
            Assert.True(File.Exists(screenshot), $"no screenshot at {screenshot}");
        });
    }

    [Fact]
    public async Task Browser_BadNumbers_MarkTheirFieldInWords_AndStartNoRun() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("inputs-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.Equal(7, summary.RootElement.GetProperty("cases").GetArrayLength());
        // The one run started is the good value's, and it ran with it.
        var run = Assert.Single(await gateway.Runs.ListAsync(10, token));
        Assert.Equal(7, run.Parameters["cluster.maxClusters"]!.GetValue<int>());
    });

    [Fact]
    public async Task Browser_RunsList_RunningDurationsMoveOn_AndAnInvertedDayRangeIsSaidAtItsField() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("runs-list-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.Equal("true", summary.RootElement.GetProperty("range").GetProperty("invalid").GetString());
    });

    [Fact]
    public async Task Browser_Details_RunsAskedOnce_HonestHeaderWhileUnreachable_CancelAsksFirst() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("details-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.Equal(1, summary.RootElement.GetProperty("listsOnLoad").GetInt32());
        Assert.Equal(Runs.RunState.Cancelled, Assert.Single(await gateway.Runs.ListAsync(10, token)).State);
    });

    [Fact]
    public async Task Browser_ProgressTiles_AreWhatEachOperationReports() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("progress-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.Equal(4, summary.RootElement.GetProperty("tiles").EnumerateObject().Count());
    });

    [Fact]
    public async Task Browser_RunsGrid_OpensAtItsNewestRuns_WithALegend() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("grid-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.True(summary.RootElement.GetProperty("newestInView").GetBoolean());
    });

    [Fact]
    public async Task Browser_Home_ShowsTheRunsInTheMainPane_EachRunOneRowOfChips() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("home-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.Equal(6, summary.RootElement.GetProperty("sizes").EnumerateObject().Count());
        Assert.True(summary.RootElement.GetProperty("besideARun").GetBoolean());
        Assert.Equal(3, (await gateway.Runs.ListAsync(10, token)).Count);
    });

    [Fact]
    public async Task Browser_Steps_OpenFromTheGraphTheirRowAndTheGrid_WithWhatTheirJobUsed_AndTheirLogLiveAndSearchable() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("step-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.True(summary.RootElement.GetProperty("endedLive").GetBoolean());
        Assert.Equal(6, summary.RootElement.GetProperty("resources").GetArrayLength());
        Assert.All(summary.RootElement.GetProperty("graph").EnumerateObject(), size => Assert.True(size.Value.GetDouble() >= 11.5));
        var run = Assert.Single(await gateway.Runs.ListAsync(10, token));
        Assert.Equal(Runs.RunState.Succeeded, run.State);
    });

    [Fact]
    public async Task Browser_Datasets_FoundAgainRenamedStartedDeleted_HeldOneRefused_RunsNameTheUpload() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("datasets-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.True(summary.RootElement.GetProperty("deleted").GetBoolean());
        var runs = await gateway.Runs.ListAsync(10, token);
        Assert.Contains(runs, r => r.Workflow == "census-places" && r.State == Runs.RunState.Succeeded);
        Assert.Contains(runs, r => r.Workflow == "census-us" && r.State == Runs.RunState.Cancelled);
    });

    [Fact]
    public async Task Browser_RetryFromAStep_WithChangesCheckedAsTyped_TheNewRunSaysWhatItReused() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("retry-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        var runs = await gateway.Runs.ListAsync(10, token);
        Assert.Equal(3, runs.Count);
        Assert.Equal(["map", "cluster", null], runs.Select(r => r.RetriedFrom));
        Assert.Equal(runs[1].Id, runs[0].RerunOf);
    });

    [Fact]
    public async Task Browser_WorkflowFiles_ReadOnlyWithLineNumbers_AndARunsWorkflowAsItRan() => await OnAGatewayAsync(async (gateway, token) =>
    {
        using var summary = JsonDocument.Parse(await BrowserScriptAsync("yaml-test.mjs", token, gateway.Ports.RestAddress.ToString()));

        Assert.Equal(summary.RootElement.GetProperty("card").GetProperty("expected").GetInt32(), summary.RootElement.GetProperty("card").GetProperty("lines").GetInt32());
        Assert.Single(await gateway.Runs.ListAsync(10, token));
    });

    /// <summary>A gateway of its own (a temporary store) for <paramref name="test"/>, which has three minutes.</summary>
    private static async Task OnAGatewayAsync(Func<GatewayServer, CancellationToken, Task> test)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(180));
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: timeout.Token);
        await test(gateway, timeout.Token);
        await gateway.StopAsync();
    }

    /// <summary>Runs a script of browser/ with its arguments, asserts it exited 0, and returns what it printed (its JSON summary).</summary>
    private static async Task<string> BrowserScriptAsync(string script, CancellationToken token, params string[] arguments)
    {
        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", await BrowserDirectoryAsync(token), [script, .. arguments], token);
        TestContext.Current.TestOutputHelper?.WriteLine(output);
        Assert.True(exitCode == 0, $"node {script} exited with {exitCode}:\n{output}\n{error}");
        return output;
    }

    [Fact]
    public async Task Browser_UploadsOwnCompounds_WithTheFilePicker_ThenRunsTheMashupOnThem_HitsDrawnByRdkit()
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(RunTimeoutSeconds + 120));
        var token = timeout.Token;
        var browserDirectory = await BrowserDirectoryAsync(token);
        using var directory = new TemporaryDirectory();
        var shipped = Salsa.DataFiles.CompoundSet.ReadFile(Salsa.DataFiles.CompoundSet.FixturePath);
        var lines = Enumerable.Range(0, 80).Select(i => $"{shipped.Smiles[i]} {shipped.Ids[i]}").Append("C1CC not-a-ring");
        var file = directory.Combine("my-compounds.smi");
        await File.WriteAllTextAsync(file, string.Join('\n', lines), token);
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);

        var root = await RunUploadAsync(browserDirectory, gateway, "compounds", file, "web-ui-upload-compounds.png", token);

        Assert.Equal("my-compounds.smi", root.GetProperty("namePlaceholder").GetString());
        Assert.True(root.GetProperty("sawProgress").GetBoolean(), "no progress bar while uploading");
        Assert.Equal(["POST /api/uploads/compounds"], root.GetProperty("uploadRequests").EnumerateArray().Select(r => r.GetString()));
        Assert.Equal("my-compounds.smi: 80 compounds · 1 refused", root.GetProperty("done").GetString());
        Assert.StartsWith("line 81 (not-a-ring): ", Assert.Single(root.GetProperty("refused").EnumerateArray()).GetString(), StringComparison.Ordinal);
        Assert.Equal("succeeded", root.GetProperty("state").GetString());
        Assert.Contains(root.GetProperty("images").EnumerateArray(), i => i.GetProperty("src").GetString()!.EndsWith("/molecules.svg", StringComparison.Ordinal) && i.GetProperty("naturalWidth").GetInt32() > 0);
        var depictions = root.GetProperty("depictions").EnumerateArray().Select(d => d.GetInt32()).ToList();
        Assert.Equal(10, depictions.Count); // the search's hits, each drawn
        Assert.All(depictions, width => Assert.True(width > 0));
    }

    [Fact]
    public async Task Browser_UploadsOwnPlaces_ABadRowIsShownWithItsLine_AGoodFileRunsTheCensusMashup()
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(RunTimeoutSeconds + 120));
        var token = timeout.Token;
        var browserDirectory = await BrowserDirectoryAsync(token);
        using var directory = new TemporaryDirectory();
        var rows = Enumerable.Range(0, 60).Select(i => string.Create(CultureInfo.InvariantCulture, $"p{i},{-33.9 + (i % 6) + (i * 0.01)},{18.4 + (i % 5) + (i * 0.02)},{1000 + (i * 37)}")).ToList();
        var good = directory.Combine("cape.csv");
        await File.WriteAllTextAsync(good, "id,lat,lon,population\n" + string.Join('\n', rows), token);
        rows[30] = "p30,-33.9,east,1200";
        var bad = directory.Combine("cape-bad.csv");
        await File.WriteAllTextAsync(bad, "id,lat,lon,population\n" + string.Join('\n', rows), token);
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);

        var refused = await RunUploadAsync(browserDirectory, gateway, "places", bad, "web-ui-upload-bad.png", token);
        Assert.Contains("cape-bad.csv line 32: lon 'east' is not a number", refused.GetProperty("error").GetString(), StringComparison.Ordinal);

        var root = await RunUploadAsync(browserDirectory, gateway, "places", good, "web-ui-upload-places.png", token);
        Assert.Equal("cape.csv: 60 places", root.GetProperty("done").GetString());
        Assert.Equal("succeeded", root.GetProperty("state").GetString());
        Assert.Contains(root.GetProperty("images").EnumerateArray(), i => i.GetProperty("src").GetString()!.EndsWith("/map.svg", StringComparison.Ordinal) && i.GetProperty("naturalWidth").GetInt32() > 0);
    }

    private static async Task<JsonElement> RunUploadAsync(string browserDirectory, GatewayServer gateway, string kind, string file, string screenshotName, CancellationToken token)
    {
        var screenshot = Screenshot(screenshotName);
        var (exitCode, output, error) = await ExternalProgram.RunAsync("node", browserDirectory,
            ["upload-test.mjs", gateway.Ports.RestAddress.ToString(), kind, file, RunTimeoutSeconds.ToString(CultureInfo.InvariantCulture), screenshot], token);
        TestContext.Current.TestOutputHelper?.WriteLine($"screenshot: {screenshot}");
        TestContext.Current.TestOutputHelper?.WriteLine(output);
        Assert.True(exitCode == 0, $"node upload-test.mjs exited with {exitCode}:\n{output}\n{error}");
        return JsonDocument.Parse(output).RootElement.Clone();
    }

    private static string Screenshot(string name)
    {
        var screenshot = Path.Combine(AppContext.BaseDirectory, "screenshots", name);
        Directory.CreateDirectory(Path.GetDirectoryName(screenshot)!);
        File.Delete(screenshot);
        return screenshot;
    }
}
