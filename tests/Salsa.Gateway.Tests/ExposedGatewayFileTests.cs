using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Microsoft.Extensions.DependencyInjection;
using Mono.Unix.Native;
using Salsa.Hosting.Security;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// A real gateway listening beyond loopback (on an address of a network the test makes), its census
/// service embedded on loopback ports as the server mode hosts it, called with a <c>run</c> key as
/// an outside caller would: no file of the machine comes back — not through a run's results, not
/// through an error — unless it lies under <c>Salsa:Files:Roots</c> after every link is resolved;
/// a missing file, a file not allowed and one that is not a regular file (a FIFO, a device) get the
/// same answer, and no answer names a server path.
/// </summary>
public sealed class ExposedGatewayFileTests : IAsyncLifetime
{
    private const string Marker = "SECRET-7f3a9c";

    private readonly TemporaryDirectory _directory = new();
    private TestNetwork? _network;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    /// <summary>Places inside the root; the secret ones outside it (the test directory's "private" folder).</summary>
    private string Root => _directory.Combine("root");

    private string Private => _directory.Combine("private");

    public async ValueTask InitializeAsync()
    {
        _network = await TestNetwork.CreateAsync(0, Token);
        Directory.CreateDirectory(Root);
        Directory.CreateDirectory(Private);
        var places = $"place,latitude,longitude,population\n{Marker}-a,39.77,-86.16,1000\n{Marker}-b,41.88,-87.63,2000\n{Marker}-c,40.71,-74.0,3000\n";
        await File.WriteAllTextAsync(Path.Combine(Private, "places.csv"), places, Token);
        await File.WriteAllTextAsync(Path.Combine(Root, "places.csv"), places.Replace(Marker, "shared", StringComparison.Ordinal), Token);
        await File.WriteAllTextAsync(Path.Combine(Root, "cells.csv"), $"place,latitude,longitude,population\nx,{Marker},-86.16,1000\n", Token);
        Directory.CreateDirectory(Path.Combine(Root, "file-link"));
        File.CreateSymbolicLink(Path.Combine(Root, "file-link", "places.csv"), Path.Combine(Private, "places.csv"));
        Directory.CreateSymbolicLink(Path.Combine(Root, "folder-link"), Private);
        Directory.CreateDirectory(Path.Combine(Root, "missing"));
        // A FIFO (its open waited for a writer forever, and held a thread after the run was cancelled) and a device.
        Assert.Equal(0, Syscall.mkfifo(Path.Combine(Root, "fifo.csv"), FilePermissions.DEFFILEMODE));
        Assert.Equal(0, Syscall.mknod(Path.Combine(Root, "zero.csv"), FilePermissions.S_IFCHR | FilePermissions.DEFFILEMODE,
            (1 << 8) | 5)); // /dev/zero's device number, 1:5, as Linux encodes small ones
    }

    public async ValueTask DisposeAsync()
    {
        if (_network is not null)
        {
            await _network.DisposeAsync();
        }

        _directory.Dispose();
    }

    [Fact]
    public async Task NoRoots_NoFileOfTheMachineIsRead_MissingAndSecretAnsweredAlike()
    {
        await using var gateway = await ExposedAsync(roots: null);

        var secret = await FailedImportAsync(gateway, Path.Combine(Private, "places.csv"));
        var missing = await FailedImportAsync(gateway, Path.Combine(Private, "nothing", "places.csv"));
        var system = await FailedImportAsync(gateway, "/etc/passwd");

        Assert.Equal(secret, missing);
        Assert.StartsWith("This service reads no files of its machine", secret, StringComparison.Ordinal);
        Assert.Equal(secret.Replace("places.csv", "passwd", StringComparison.Ordinal), system);
    }

    [Fact]
    public async Task Roots_OnlyFilesUnderThem_LinksOutAndDotsRefusedAsMissingFilesAre()
    {
        await using var gateway = await ExposedAsync(Root);

        var answers = new Dictionary<string, string>
        {
            ["missing"] = await FailedImportAsync(gateway, Path.Combine(Root, "missing", "places.csv")),
            ["outside"] = await FailedImportAsync(gateway, Path.Combine(Private, "places.csv")),
            ["dot-dot"] = await FailedImportAsync(gateway, Path.Combine(Root, "..", "private", "places.csv")),
            ["link to a file"] = await FailedImportAsync(gateway, Path.Combine(Root, "file-link", "places.csv")),
            ["link to a folder"] = await FailedImportAsync(gateway, Path.Combine(Root, "folder-link", "places.csv")),
        };
        Assert.All(answers, a => Assert.Equal(answers["missing"], a.Value));

        // Not regular files: refused before they are read, so the run ends at once and leaves no thread behind.
        var fifo = await FailedImportAsync(gateway, Path.Combine(Root, "fifo.csv"));
        var device = await FailedImportAsync(gateway, Path.Combine(Root, "zero.csv"));
        Assert.Equal(answers["missing"].Replace("places.csv", "fifo.csv", StringComparison.Ordinal), fifo);
        Assert.Equal(answers["missing"].Replace("places.csv", "zero.csv", StringComparison.Ordinal), device);
        Assert.Contains("Salsa:Files:Roots", answers["missing"], StringComparison.Ordinal);

        // The root's own file is read, and clustered.
        var run = await RunAsync(gateway, Path.Combine(Root, "places.csv"));
        Assert.True(run.GetProperty("state").GetString() == "succeeded", run.GetRawText());
    }

    [Fact]
    public async Task ErrorsOfAFileReadWhereItLies_QuoteNoneOfIt()
    {
        await using var gateway = await ExposedAsync(Root);

        var cell = await FailedImportAsync(gateway, Path.Combine(Root, "cells.csv"));
        var column = await FailedImportAsync(gateway, Path.Combine(Root, "places.csv"), ("import.latitudeColumn", "nope"));

        Assert.Equal("cells.csv line 2: latitude is not a number.", cell);
        Assert.Equal("places.csv has no column 'nope' (asked for as the latitude).", column);
    }

    /// <summary>The gateway in server mode on the test network's address (REST) and loopback (gRPC), every service embedded.</summary>
    private async Task<Exposed> ExposedAsync(string? roots)
    {
        var port = Salsa.Hosting.Host.ServicePorts.NextFreeLoopbackPort();
        var address = new Uri($"http://{_network!.Bridge}:{port}/");
        var settings = new Dictionary<string, string?>
        {
            ["Kestrel:Endpoints:Rest:Url"] = address.ToString(),
            ["Salsa:Auth:RateLimit:PermitsPerSecond"] = "0",
            ["Cluster:Enabled"] = "false",
            ["Gateway:WarmStart"] = "false",
        };
        if (roots is not null)
        {
            settings["Salsa:Files:Roots:0"] = roots;
        }

        var gateway = await GatewayServer.StartAsync(_directory.Combine($"salsa-{Guid.NewGuid():N}.db"), settings, Token);
        var key = await gateway.App.Services.GetRequiredService<ApiKeys>().CreateAsync("outsider", "outsider", [Scopes.Run], Token);
        var http = new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromMinutes(5) };
        http.DefaultRequestHeaders.Add("X-Api-Key", key.Key);
        using var unauthenticated = await new HttpClient { BaseAddress = address }.GetAsync("/api/runs", Token);
        Assert.Equal(HttpStatusCode.Unauthorized, unauthenticated.StatusCode); // it is exposed, and knows it
        return new Exposed(gateway, http);
    }

    /// <summary>Runs census-places on <paramref name="file"/> to its end: the run as the caller sees it.</summary>
    private static async Task<JsonElement> RunAsync(Exposed gateway, string file, params (string Key, object Value)[] more)
    {
        var parameters = new Dictionary<string, object> { ["import.file"] = file, ["cluster.maxClusters"] = 2, ["map.width"] = 300, ["map.height"] = 300 };
        foreach (var (key, value) in more)
        {
            parameters[key] = value;
        }

        using var started = await gateway.Http.PostAsJsonAsync("/api/runs", new { workflow = "census-places", parameters }, Token);
        var body = await started.Content.ReadAsStringAsync(Token);
        Assert.True(started.StatusCode == HttpStatusCode.Accepted, body);
        var id = JsonDocument.Parse(body).RootElement.GetProperty("id").GetString();
        using var events = await gateway.Http.GetAsync($"/api/runs/{id}/events", HttpCompletionOption.ResponseHeadersRead, Token);
        await events.Content.ReadAsStringAsync(Token); // the stream ends with the run
        return JsonDocument.Parse(await gateway.Http.GetStringAsync($"/api/runs/{id}", Token)).RootElement;
    }

    /// <summary>Runs census-places on <paramref name="file"/>, expecting its import to fail: the import's error, checked to hold no server path and no secret.</summary>
    private async Task<string> FailedImportAsync(Exposed gateway, string file, params (string Key, object Value)[] more)
    {
        var run = await RunAsync(gateway, file, more);
        var text = run.GetRawText();
        Assert.True(run.GetProperty("state").GetString() == "failed", text);
        Assert.DoesNotContain(Marker, text, StringComparison.Ordinal);
        Assert.DoesNotContain("root:", text, StringComparison.Ordinal);
        var error = run.GetProperty("steps").EnumerateArray().Single(s => s.GetProperty("id").GetString() == "import").GetProperty("error").GetString()!;
        const string status = "InvalidArgument: "; // the census service's gRPC status, as the gateway reports it
        Assert.StartsWith(status, error, StringComparison.Ordinal);
        error = error[status.Length..];
        Assert.DoesNotContain(_directory.Path, error, StringComparison.Ordinal);
        Assert.DoesNotContain(_directory.Path, run.GetProperty("error").GetString() ?? string.Empty, StringComparison.Ordinal);
        return error;
    }

    private sealed class Exposed(GatewayServer server, HttpClient http) : IAsyncDisposable
    {
        public GatewayServer Server { get; } = server;

        public HttpClient Http { get; } = http;

        public Microsoft.AspNetCore.Builder.WebApplication App => Server.App;

        public async ValueTask DisposeAsync()
        {
            Http.Dispose();
            await Server.DisposeAsync();
        }
    }
}
