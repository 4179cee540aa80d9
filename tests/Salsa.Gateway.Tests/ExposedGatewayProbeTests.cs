using System.Diagnostics;
using System.Globalization;
using System.IO.Compression;
using System.Net;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Microsoft.Extensions.Options;
using Mono.Unix.Native;
using Salsa.Hosting.Host;
using Salsa.Hosting.Security;
using Salsa.Store.Sqlite;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The review's probes, replayed against a gateway exposed beyond loopback (its own process, on an
/// address of a network the test makes, every service embedded, keys for two tenants, one
/// <c>Salsa:Files:Roots</c> folder): each answered with a 4xx — a run that fails at once, for the
/// FIFO — while a second tenant's requests and <c>/health</c> are answered throughout, and the
/// process's peak memory stays within a few hundred MB of where it began. Before, two of these
/// stopped the process and three took gigabytes.
/// </summary>
public sealed class ExposedGatewayProbeTests : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();
    private TestNetwork? _network;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    public async ValueTask InitializeAsync()
    {
        _network = await TestNetwork.CreateAsync(0, Token);
        Directory.CreateDirectory(_directory.Combine("root"));
        Assert.Equal(0, Syscall.mkfifo(_directory.Combine("root", "fifo.csv"), FilePermissions.DEFFILEMODE));
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
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    public async Task EveryProbe_4xxWithinSeconds_MemoryBounded_AnotherTenantServedThroughout()
    {
        var store = _directory.Combine("salsa.db");
        var (alpha, beta, admin) = await KeysAsync(store);
        var rest = new Uri($"http://{_network!.Bridge}:{ServicePorts.NextFreeLoopbackPort()}/");
        using var gateway = await GatewayProcess.StartAsync(store, Token,
            $"--Kestrel:Endpoints:Rest:Url={rest}",
            $"--Salsa:Files:Roots:0={_directory.Combine("root")}",
            "--Salsa:Auth:RateLimit:PermitsPerSecond=0",
            "--Cluster:Enabled=false");
        using var attacker = Client(rest, alpha);
        using var other = Elsewhere(rest, beta);
        using var owner = Elsewhere(rest, admin);
        using var anonymous = Elsewhere(rest);
        Assert.Equal(HttpStatusCode.Unauthorized, (await anonymous.GetAsync("/api/runs", Token)).StatusCode); // exposed, and it knows it

        // Warm: the census service started by an ordinary upload, the workflow reader used once.
        using (var places = await attacker.PostAsync("/api/uploads/places?name=warm", new StringContent("id,latitude,longitude,population\na,39.7,-86.1,10\nb,39.8,-86.2,20\n", Encoding.UTF8, "text/csv"), Token))
        {
            Assert.True(places.IsSuccessStatusCode, await places.Content.ReadAsStringAsync(Token));
        }

        Assert.Equal(HttpStatusCode.OK, (await attacker.PostAsJsonAsync("/api/workflows/validate", new { yaml = HostileYaml.Step("parameters: { source: indiana-1000 }") }, Token)).StatusCode);
        var before = Memory(gateway.ProcessId, "VmRSS");

        // The second tenant, and health, asked back to back while the probes run.
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(Token);
        var served = ServeThroughoutAsync(other, anonymous, stop.Token);

        var answers = new List<(string Probe, int Status, TimeSpan Took)>();
        async Task ProbeAsync(string probe, Func<Task<HttpResponseMessage>> send, params HttpStatusCode[] expected)
        {
            var clock = Stopwatch.StartNew();
            using var response = await send();
            var took = clock.Elapsed;
            var body = await response.Content.ReadAsStringAsync(Token);
            answers.Add((probe, (int)response.StatusCode, took));
            Assert.True(expected.Contains(response.StatusCode), $"{probe}: {(int)response.StatusCode} {body}");
            Assert.DoesNotContain(_directory.Path, body, StringComparison.Ordinal);
        }

        Task<HttpResponseMessage> Yaml(string yaml) => attacker.PostAsJsonAsync("/api/runs", new { yaml }, Token);

        // 1, 2, 3, 8, 9: workflows.
        await ProbeAsync("1 recursive alias (validate)", () => attacker.PostAsJsonAsync("/api/workflows/validate", new { yaml = HostileYaml.Step("parameters: { source: indiana-1000, groupColumns: &r [*r] }") }, Token), HttpStatusCode.BadRequest);
        await ProbeAsync("1 recursive alias (run)", () => Yaml(HostileYaml.Step("parameters: { source: indiana-1000, groupColumns: &r [*r] }")), HttpStatusCode.BadRequest);
        await ProbeAsync("2 bomb, aliases before anchors, 8 of 8", () => Yaml(HostileYaml.Bomb(8, 8, forward: true)), HttpStatusCode.BadRequest);
        await ProbeAsync("3 200 KB scalar aliased 15,000 times", () => Yaml(HostileYaml.LongScalarRepeated(200_000, 15_000)), HttpStatusCode.BadRequest, HttpStatusCode.RequestEntityTooLarge);
        await ProbeAsync("8 alias as a key", () => Yaml(HostileYaml.Step("parameters: { source: indiana-1000, x: {&k a: 1, *k : 2} }")), HttpStatusCode.BadRequest);
        await ProbeAsync("9 tolerance 1e400", () => attacker.PostAsync("/api/runs", new StringContent("{\"workflow\": \"census-indiana\", \"parameters\": {\"cluster.tolerance\": 1e400}}", Encoding.UTF8, "application/json"), Token), HttpStatusCode.BadRequest);
        await ProbeAsync("9 backoff 2000h", () => Yaml(HostileYaml.Step("retry: { attempts: 3, backoff: 2000h }\n    parameters: { source: indiana-1000 }")), HttpStatusCode.BadRequest);

        // 4, 11: files.
        var huge = HostileFiles.GzipOfOneHugeLine();
        Assert.InRange(huge.Length, 1, 400_000);
        await ProbeAsync("4 255 KB gzip of one 250 MiB line", () => attacker.PostAsync("/api/uploads/places?name=huge", new ByteArrayContent(huge), Token), HttpStatusCode.RequestEntityTooLarge);
        await ProbeAsync("11 bytes after the last gzip member", () => attacker.PostAsync("/api/uploads/places?name=trailing", new ByteArrayContent([.. Gzip("id,latitude,longitude,population\na,39.7,-86.1,10\n"), .. "junk"u8]), Token), HttpStatusCode.BadRequest);

        // 10: a FIFO under the roots: the run fails at once (its open waited for a writer before).
        var clock = Stopwatch.StartNew();
        var fifo = await RunAsync(attacker, new { workflow = "census-places", parameters = new Dictionary<string, object> { ["import.file"] = _directory.Combine("root", "fifo.csv") } });
        answers.Add(("10 a FIFO under the roots (run)", fifo.GetProperty("state").GetString() == "failed" ? 400 : 200, clock.Elapsed));
        Assert.Equal("failed", fifo.GetProperty("state").GetString());

        // 5: streams of one key, past its cap.
        var streams = new List<HttpResponseMessage>();
        for (var i = 0; i < 20; i++)
        {
            streams.Add(await attacker.GetAsync("/api/runs/events", HttpCompletionOption.ResponseHeadersRead, Token));
            Assert.Equal(HttpStatusCode.OK, streams[^1].StatusCode);
        }

        await ProbeAsync("5 a 21st event stream of one key", () => attacker.GetAsync("/api/runs/events", HttpCompletionOption.ResponseHeadersRead, Token), HttpStatusCode.TooManyRequests);
        streams.ForEach(s => s.Dispose());

        // 12: a real key id with made-up secrets, from one address.
        Assert.True(ApiKeys.TrySplit(alpha, out var id, out var secret));
        using var guesser = Client(rest, $"{ApiKeys.Prefix}{id}_{(secret[0] == 'A' ? 'B' : 'A')}{secret[1..]}");
        var statuses = new List<HttpStatusCode>();
        for (var i = 0; i < 200; i++)
        {
            statuses.Add((await guesser.GetAsync("/api/runs", Token)).StatusCode);
        }

        Assert.Contains(HttpStatusCode.TooManyRequests, statuses);
        answers.Add(("12 200 made-up secrets of a real key id", 429, TimeSpan.Zero));

        // 13: keys minted without end.
        HttpStatusCode minted;
        var count = 0;
        do
        {
            using var created = await owner.PostAsJsonAsync("/api/keys", new { name = $"k{count}", scopes = new[] { "read" } }, Token);
            minted = created.StatusCode;
        }
        while (minted == HttpStatusCode.Created && ++count < 1000);
        Assert.Equal(HttpStatusCode.Forbidden, minted);
        Assert.InRange(count, 90, 100);
        answers.Add(("13 keys minted without end", 403, TimeSpan.Zero));

        // 14: the store's files.
        foreach (var file in new[] { store, store + "-wal", store + "-shm" })
        {
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(file));
        }

        await stop.CancelAsync();
        var (requests, slowest) = await served;
        var peak = Memory(gateway.ProcessId, "VmHWM");
        TestContext.Current.TestOutputHelper?.WriteLine(string.Join('\n', answers.Select(a => string.Create(CultureInfo.InvariantCulture, $"{a.Probe}: {a.Status} in {a.Took.TotalMilliseconds:F0} ms"))));
        TestContext.Current.TestOutputHelper?.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"resident {before / 1e6:F0} MB before the probes, peak {peak / 1e6:F0} MB; the other tenant: {requests} requests, slowest {slowest.TotalMilliseconds:F0} ms"));

        Assert.All(answers, a => Assert.InRange(a.Status, 400, 499));
        Assert.All(answers, a => Assert.True(a.Took < TimeSpan.FromSeconds(10), $"{a.Probe} took {a.Took}")); // a second or two here; the bound only catches a hang
        Assert.True(peak - before < 400_000_000, $"the gateway grew from {before:N0} to a peak of {peak:N0} bytes");
        Assert.True(requests >= 5, $"{requests} requests of the other tenant");
        Assert.True(slowest < TimeSpan.FromSeconds(5), $"the other tenant waited {slowest} once");
        Assert.False(gateway.HasExited, gateway.Output);
    }

    /// <summary>Keys for tenants alpha (run), beta (read) and alpha's admin, made in the store the gateway will open.</summary>
    private static async Task<(string Alpha, string Beta, string Admin)> KeysAsync(string path)
    {
        await using var store = new SqliteDataStore(path);
        await store.InitializeAsync(Token);
        using var keys = new ApiKeys(store, Options.Create(new AuthSettings()), TimeProvider.System);
        return ((await keys.CreateAsync("alpha", "attacker", [Scopes.Run], Token)).Key,
            (await keys.CreateAsync("beta", "bystander", [Scopes.Read], Token)).Key,
            (await keys.CreateAsync("alpha", "attacker's admin", [Scopes.Admin], Token)).Key);
    }

    /// <summary>A caller from the test network's address (the attacker's host).</summary>
    private static HttpClient Client(Uri rest, string key)
    {
        var client = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromMinutes(2) };
        client.DefaultRequestHeaders.Add(CredentialHeaders.Key, key);
        return client;
    }

    /// <summary>A caller from another host (here loopback, towards the network's address): the attacker's failed authentications are not its address's.</summary>
    private static HttpClient Elsewhere(Uri rest, string? key = null) => SourceAddressClient.Create(rest, IPAddress.Loopback, CredentialHeaders.Key, key);

    /// <summary>The other tenant's runs list and <c>/health</c>, asked one after the other until stopped: how many were answered 200, and the slowest.</summary>
    private static async Task<(int Requests, TimeSpan Slowest)> ServeThroughoutAsync(HttpClient tenant, HttpClient anonymous, CancellationToken stop)
    {
        var (requests, slowest) = (0, TimeSpan.Zero);
        while (!stop.IsCancellationRequested)
        {
            var clock = Stopwatch.StartNew();
            using (var runs = await tenant.GetAsync("/api/runs", Token))
            using (var health = await anonymous.GetAsync("/health", Token))
            {
                Assert.Equal(HttpStatusCode.OK, runs.StatusCode);
                Assert.Equal(HttpStatusCode.OK, health.StatusCode);
            }

            slowest = clock.Elapsed > slowest ? clock.Elapsed : slowest;
            requests++;
        }

        return (requests, slowest);
    }

    private static async Task<JsonElement> RunAsync(HttpClient client, object request)
    {
        using var started = await client.PostAsJsonAsync("/api/runs", request, Token);
        var body = await started.Content.ReadAsStringAsync(Token);
        Assert.True(started.StatusCode == HttpStatusCode.Accepted, body);
        var id = JsonDocument.Parse(body).RootElement.GetProperty("id").GetString();
        using var events = await client.GetAsync($"/api/runs/{id}/events", HttpCompletionOption.ResponseHeadersRead, Token);
        Assert.Equal(HttpStatusCode.OK, events.StatusCode);
        await events.Content.ReadAsStringAsync(Token); // the stream ends with the run
        return JsonDocument.Parse(await client.GetStringAsync($"/api/runs/{id}", Token)).RootElement;
    }

    private static byte[] Gzip(string text)
    {
        using var packed = new MemoryStream();
        using (var gzip = new GZipStream(packed, CompressionLevel.Fastest, leaveOpen: true))
        {
            gzip.Write(Encoding.UTF8.GetBytes(text));
        }

        return packed.ToArray();
    }

    /// <summary>A line of /proc/&lt;pid&gt;/status in bytes (VmRSS now, VmHWM the peak).</summary>
    private static long Memory(int pid, string field)
    {
        var line = File.ReadLines($"/proc/{pid}/status").Single(l => l.StartsWith(field + ":", StringComparison.Ordinal));
        return long.Parse(line[(field.Length + 1)..].Trim().Split(' ')[0], CultureInfo.InvariantCulture) * 1024;
    }
}
