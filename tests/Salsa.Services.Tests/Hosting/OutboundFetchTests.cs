using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Salsa.Census;
using Salsa.Hosting.Datasets;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// URLs a caller asks a service to fetch (an import's <c>location</c>) reach the public internet
/// only: this machine, link-local (cloud metadata), private and reserved addresses are refused —
/// checked after DNS and again for every redirect — unless an operator lists their network; every
/// failure reads the same, so a URL cannot tell an open port from a closed one. A real census
/// service and real web servers on loopback.
/// </summary>
public sealed class OutboundFetchTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task InternalAddresses_RefusedWithoutAConnection_OpenAndClosedPortsAnsweredAlike()
    {
        await using var server = await FileServerAsync();
        using var directory = new TemporaryDirectory();
        await using var census = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), new Dictionary<string, string?> { ["Salsa:Files:AllowHttp"] = "true" });
        var open = server.Urls.First();
        var closed = $"http://127.0.0.1:{Salsa.Hosting.Host.ServicePorts.NextFreeLoopbackPort()}";

        var answers = new List<string>();
        foreach (var url in new[]
        {
            $"{open}/files/places.csv", $"{closed}/files/places.csv", "http://169.254.169.254/files/places.csv", "http://10.0.0.1/files/places.csv",
            "http://localhost/files/places.csv", "http://[::1]/files/places.csv", "http://[::ffff:127.0.0.1]/files/places.csv", "http://0.0.0.0/files/places.csv",
            "http://192.168.1.1/files/places.csv", "http://100.64.0.1/files/places.csv",
        })
        {
            using var response = await census.Rest.PostJsonTextAsync("/api/census/imports", $"{{\"location\":\"{url}\"}}");
            answers.Add((await RestCalls.ProblemAsync(response, 400)).Replace(url, "URL", StringComparison.Ordinal));
        }

        Assert.All(answers, a => Assert.Equal(answers[0], a));
        Assert.StartsWith("Could not fetch URL: no file came from it", answers[0], StringComparison.Ordinal);
        Assert.Equal(0, server.Requests); // refused before connecting: the open port never heard of it
    }

    [Fact]
    public async Task AllowListedNetwork_Fetched_ButNotRedirectedOutOfIt()
    {
        await using var server = await FileServerAsync();
        using var directory = new TemporaryDirectory();
        await using var census = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), new Dictionary<string, string?>
        {
            ["Salsa:Files:AllowHttp"] = "true",
            ["Salsa:Files:AllowedNetworks:0"] = "127.0.0.1/32",
        });
        var origin = server.Urls.First();

        var fetched = await census.Rest.PostForAsync<DatasetView>("/api/census/imports", new { location = $"{origin}/files/places.csv", name = "places" });
        Assert.Equal(3, fetched.Count);
        var redirectedInside = await census.Rest.PostForAsync<DatasetView>("/api/census/imports", new { location = $"{origin}/redirect?to={Uri.EscapeDataString($"{origin}/files/places.csv")}", name = "places" });
        Assert.Equal(fetched.DatasetId, redirectedInside.DatasetId);

        // 127.0.0.2 is this machine too, outside the one address allowed.
        var outside = $"{origin.Replace("127.0.0.1", "127.0.0.2", StringComparison.Ordinal)}/files/places.csv";
        var before = server.Requests;
        var redirect = $"{origin}/redirect?to={Uri.EscapeDataString(outside)}";
        using var refused = await census.Rest.PostJsonTextAsync("/api/census/imports", $"{{\"location\":\"{redirect}\"}}");
        Assert.StartsWith($"Could not fetch {redirect}: no file came from it", await RestCalls.ProblemAsync(refused, 400), StringComparison.Ordinal);
        Assert.Equal(before + 1, server.Requests); // the redirect itself, never its target
    }

    [Fact]
    public async Task PlainHttp_RefusedUnlessAllowed()
    {
        using var directory = new TemporaryDirectory();
        await using var census = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory));

        using var response = await census.Rest.PostJsonTextAsync("/api/census/imports", "{\"location\":\"http://example.org/places.csv\"}");

        Assert.Contains("is not https", await RestCalls.ProblemAsync(response, 400), StringComparison.Ordinal);
    }

    /// <summary>A web server on 127.0.0.1 and 127.0.0.2 (one port): a place file, and a redirect to any URL; it counts what it is asked.</summary>
    private static async Task<FileServer> FileServerAsync()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.Sources.Clear();
        builder.Configuration.AddInMemoryCollection();
        var port = Salsa.Hosting.Host.ServicePorts.NextFreeLoopbackPort();
        builder.WebHost.UseUrls($"http://127.0.0.1:{port}", $"http://127.0.0.2:{port}");
        var app = builder.Build();
        var server = new FileServer(app);
        app.Use((context, next) =>
        {
            Interlocked.Increment(ref server.Counted);
            return next(context);
        });
        app.MapGet("/files/places.csv", () => Results.Text("place,latitude,longitude,population\na,39.77,-86.16,1000\nb,41.88,-87.63,2000\nc,40.71,-74.0,3000\n", "text/csv"));
        app.MapGet("/redirect", (string to) => Results.Redirect(to));
        await app.StartAsync(Token);
        return server;
    }

    private sealed class FileServer(WebApplication app) : IAsyncDisposable
    {
        public int Counted;

        public int Requests => Volatile.Read(ref Counted);

        public ICollection<string> Urls => app.Urls;

        public async ValueTask DisposeAsync() => await app.DisposeAsync();
    }
}
