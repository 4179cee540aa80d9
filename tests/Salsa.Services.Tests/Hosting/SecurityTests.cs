using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Net.Http.Json;
using System.Text;
using Grpc.Core;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;
using Salsa.Annealing;
using Salsa.Census;
using Salsa.Contracts.Census;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Datasets;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Host;
using Salsa.Hosting.Security;
using Salsa.Services.Tests.Support;
using Salsa.Settings;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// Who may call a service, shown on real services with authentication on: 401 without valid
/// credentials, 403 without the scope, over REST and gRPC alike; API keys (hashed, revocable) and
/// bearer tokens; one tenant never sees another's records; rate limits per key with Retry-After;
/// and no secret in any log, span, stored record or error.
/// </summary>
public sealed class SecurityTests
{
    private const string Issuer = "salsa-tests";
    private static readonly string SigningKey = Convert.ToBase64String(Encoding.UTF8.GetBytes("a signing key of the tests, 32+ bytes long"));

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static Dictionary<string, string?> AuthOn(int permitsPerSecond = 0, int burst = 1) => new()
    {
        ["Salsa:Auth:Mode"] = "On",
        ["Salsa:Auth:Jwt:SigningKey"] = SigningKey,
        ["Salsa:Auth:Jwt:Issuer"] = Issuer,
        ["Salsa:Auth:RateLimit:PermitsPerSecond"] = permitsPerSecond.ToString(System.Globalization.CultureInfo.InvariantCulture),
        ["Salsa:Auth:RateLimit:Burst"] = burst.ToString(System.Globalization.CultureInfo.InvariantCulture),
    };

    private static async Task<string> KeyAsync(IRunningService service, string tenant, params string[] scopes) =>
        (await ((ServiceUnderTest<CensusService>)service).Services.GetRequiredService<ApiKeys>().CreateAsync(tenant, $"test {tenant}", scopes, Token)).Key;

    private static HttpClient Client(IRunningService service, string? key)
    {
        var client = new HttpClient { BaseAddress = service.Ports.RestAddress };
        if (key is not null)
        {
            client.DefaultRequestHeaders.Add(CredentialHeaders.Key, key);
        }

        return client;
    }

    private static Metadata Headers(string? key) => key is null ? [] : new Metadata { { CredentialHeaders.Key, key } };

    private static string Jwt(string? tenant, string scope, DateTime? expires = null)
    {
        var claims = new Dictionary<string, object> { ["sub"] = "someone", ["scope"] = scope };
        if (tenant is not null)
        {
            claims["tenant"] = tenant;
        }

        return new JsonWebTokenHandler().CreateToken(new SecurityTokenDescriptor
        {
            Issuer = Issuer,
            Claims = claims,
            NotBefore = (expires ?? DateTime.UtcNow.AddHours(1)).AddHours(-2),
            Expires = expires ?? DateTime.UtcNow.AddHours(1),
            SigningCredentials = new SigningCredentials(new SymmetricSecurityKey(Convert.FromBase64String(SigningKey)), SecurityAlgorithms.HmacSha256),
        });
    }

    [Fact]
    public async Task AuthOn_NoBadRevokedOrUnderScopedCredentials_401And403OverRestAndGrpc()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), AuthOn());
        var reader = await KeyAsync(service, "alpha", Scopes.Read);
        var runner = await KeyAsync(service, "alpha", Scopes.Run);

        // REST: no key, a made-up key, a key of the right shape that does not exist.
        foreach (var key in new string?[] { null, "not-a-key", "salsa_0123456789abcdef_" + new string('A', 43) })
        {
            using var client = Client(service, key);
            using var response = await client.GetAsync("/api/datasets", Token);
            Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
            Assert.Contains("ApiKey", response.Headers.WwwAuthenticate.ToString(), StringComparison.Ordinal);
            var detail = await RestCalls.ProblemAsync(response, 401);
            if (key is not null)
            {
                Assert.DoesNotContain(key, detail, StringComparison.Ordinal);
            }
        }

        // The scope: a read key lists but cannot import; a run key imports.
        using (var client = Client(service, reader))
        {
            Assert.Equal(HttpStatusCode.OK, (await client.GetAsync("/api/datasets", Token)).StatusCode);
            using var refused = await client.PostAsJsonAsync("/api/census/imports", new { source = "indiana-1000" }, Token);
            Assert.Contains("'run' scope", await RestCalls.ProblemAsync(refused, 403), StringComparison.Ordinal);
        }

        using (var client = Client(service, runner))
        {
            using var imported = await client.PostAsJsonAsync("/api/census/imports", new { source = "indiana-1000" }, Token);
            Assert.Equal(HttpStatusCode.OK, imported.StatusCode);
        }

        // Open without credentials: probes and the API's description.
        using (var anonymous = Client(service, null))
        {
            foreach (var open in new[] { "/health", "/alive", "/openapi/v1.json", "/" })
            {
                Assert.True((await anonymous.GetAsync(open, Token)).IsSuccessStatusCode, open);
            }
        }

        // gRPC: the same answers as statuses.
        var datasets = new DatasetsClient(service.Grpc);
        await GrpcCalls.FailsWithAsync(StatusCode.Unauthenticated, () => datasets.ListAsync(new ListDatasetsRequest(), new CallOptions(cancellationToken: Token)).ResponseAsync);
        await GrpcCalls.FailsWithAsync(StatusCode.Unauthenticated, () => datasets.ListAsync(new ListDatasetsRequest(), new CallOptions(Headers("salsa_nope"), cancellationToken: Token)).ResponseAsync);
        Assert.NotNull(await datasets.ListAsync(new ListDatasetsRequest(), new CallOptions(Headers(reader), cancellationToken: Token)));
        var census = new CensusClient(service.Grpc);
        var denied = await GrpcCalls.FailsWithAsync(StatusCode.PermissionDenied,
            () => census.ImportAsync(new Salsa.Contracts.Census.ImportCensusRequest { Source = "indiana-1000" }, new CallOptions(Headers(reader), cancellationToken: Token)).ResponseAsync);
        Assert.Contains("'run' scope", denied, StringComparison.Ordinal);

        // A revoked key is refused at once on the process that revoked it.
        var keys = ((ServiceUnderTest<CensusService>)service).Services.GetRequiredService<ApiKeys>();
        Assert.True(ApiKeys.TrySplit(reader, out var id, out _));
        Assert.True(await keys.RevokeAsync(id, Token));
        using (var client = Client(service, reader))
        {
            using var response = await client.GetAsync("/api/datasets", Token);
            Assert.Contains("revoked", await RestCalls.ProblemAsync(response, 401), StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task BearerTokens_ScopesAndTenantFromClaims_ExpiredOrTenantlessRefused()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), AuthOn());

        async Task<HttpStatusCode> ImportAsync(string token)
        {
            using var request = new HttpRequestMessage(HttpMethod.Post, "/api/census/imports") { Content = JsonContent.Create(new { source = "indiana-1000" }) };
            request.Headers.Authorization = new("Bearer", token);
            using var client = Client(service, null);
            using var response = await client.SendAsync(request, Token);
            return response.StatusCode;
        }

        Assert.Equal(HttpStatusCode.OK, await ImportAsync(Jwt("alpha", "read run")));
        Assert.Equal(HttpStatusCode.Forbidden, await ImportAsync(Jwt("alpha", "read")));
        Assert.Equal(HttpStatusCode.Forbidden, await ImportAsync(Jwt("alpha", "")));
        Assert.Equal(HttpStatusCode.Unauthorized, await ImportAsync(Jwt(null, "read run")));
        Assert.Equal(HttpStatusCode.Unauthorized, await ImportAsync(Jwt("alpha", "run", DateTime.UtcNow.AddMinutes(-10))));
        Assert.Equal(HttpStatusCode.Unauthorized, await ImportAsync(Jwt("alpha", "run")[..^4] + "AAAA")); // signature altered

        // The token's tenant owns what it makes: the same import by an API key of the same tenant finds it.
        var key = await KeyAsync(service, "alpha", Scopes.Read);
        using var client = Client(service, key);
        var listed = await client.GetFromJsonAsync<List<DatasetView>>("/api/datasets", RestCalls.Json, Token);
        Assert.Single(listed!);
    }

    [Fact]
    public async Task Tenants_NeverSeeEachOthersDatasetsOrJobs_SameFileIsTwoDatasets_DeleteRemovesOnlyTheCallers()
    {
        using var directory = new TemporaryDirectory();
        var store = TestStore.Sqlite(directory);
        await using var census = await ServiceUnderTest.StartAsync<CensusService>(store, AuthOn());
        await using var annealing = await ServiceUnderTest.StartAsync<AnnealingService>(store, AuthOn());
        var alpha = await KeyAsync(census, "alpha", Scopes.Run);
        var beta = await KeyAsync(census, "beta", Scopes.Run);
        using var alphaCensus = Client(census, alpha);
        using var betaCensus = Client(census, beta);
        using var alphaAnnealing = Client(annealing, alpha);
        using var betaAnnealing = Client(annealing, beta);

        var a = await alphaCensus.PostForAsync<DatasetView>("/api/census/imports", new { source = "indiana-1000" });
        var b = await betaCensus.PostForAsync<DatasetView>("/api/census/imports", new { source = "indiana-1000" });
        Assert.NotEqual(a.DatasetId, b.DatasetId); // the same file: each tenant's own dataset
        Assert.Equal(a.Count, b.Count);
        Assert.Equal(a.DatasetId, (await alphaCensus.PostForAsync<DatasetView>("/api/census/imports", new { source = "indiana-1000" })).DatasetId); // found again, not copied

        // Another tenant's dataset is not found, by id or in a list, over REST and gRPC, nor usable in a job.
        Assert.Equal(HttpStatusCode.NotFound, (await betaCensus.GetAsync($"/api/datasets/{a.DatasetId}", Token)).StatusCode);
        Assert.DoesNotContain((await betaCensus.GetFromJsonAsync<List<DatasetView>>("/api/datasets", RestCalls.Json, Token))!, d => d.DatasetId == a.DatasetId);
        await GrpcCalls.FailsWithAsync(StatusCode.NotFound, () => new DatasetsClient(census.Grpc)
            .GetAsync(new DatasetRef { DatasetId = a.DatasetId.ToString() }, new CallOptions(Headers(beta), cancellationToken: Token)).ResponseAsync);

        // Jobs too.
        var points = await alphaAnnealing.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await alphaAnnealing.StartJobAsync("/api/annealing/jobs", new { datasetId = points.DatasetId, maxClusters = 3 });
        Assert.Equal("succeeded", (await alphaAnnealing.WaitAsync(job.JobId)).State);
        using (var refused = await betaAnnealing.PostAsJsonAsync("/api/annealing/jobs", new { datasetId = points.DatasetId, maxClusters = 3 }, Token))
        {
            Assert.Contains("No dataset", await RestCalls.ProblemAsync(refused, 404), StringComparison.Ordinal);
        }

        foreach (var path in new[] { $"/api/jobs/{job.JobId}", $"/api/jobs/{job.JobId}/result", $"/api/annealing/jobs/{job.JobId}/result", $"/api/jobs/{job.JobId}/artifacts/assignments", $"/api/jobs/{job.JobId}/events", $"/api/jobs/{job.JobId}/log" })
        {
            Assert.Equal(HttpStatusCode.NotFound, (await betaAnnealing.GetAsync(path, Token)).StatusCode);
            Assert.Equal(HttpStatusCode.OK, (await alphaAnnealing.GetAsync(path, Token)).StatusCode);
        }

        Assert.Equal(HttpStatusCode.NotFound, (await betaAnnealing.PostAsync($"/api/jobs/{job.JobId}/cancel", null, Token)).StatusCode);
        Assert.Empty((await betaAnnealing.GetFromJsonAsync<List<Salsa.Hosting.Jobs.JobView>>("/api/jobs", RestCalls.Json, Token))!);

        // A delete removes the caller's dataset only.
        Assert.Equal(HttpStatusCode.NotFound, (await betaCensus.DeleteAsync($"/api/datasets/{a.DatasetId}", Token)).StatusCode);
        Assert.Equal(HttpStatusCode.NoContent, (await betaCensus.DeleteAsync($"/api/datasets/{b.DatasetId}", Token)).StatusCode);
        Assert.Equal(HttpStatusCode.OK, (await alphaCensus.GetAsync($"/api/datasets/{a.DatasetId}", Token)).StatusCode);
    }

    [Fact]
    public async Task RateLimit_PerKey_429WithRetryAfter_OtherKeysUnaffected()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), AuthOn(permitsPerSecond: 1, burst: 3));
        var busy = await KeyAsync(service, "alpha", Scopes.Read);
        var quiet = await KeyAsync(service, "alpha", Scopes.Read);
        using var client = Client(service, busy);

        var statuses = new List<HttpStatusCode>();
        HttpResponseMessage? limited = null;
        for (var i = 0; i < 10 && limited is null; i++)
        {
            var response = await client.GetAsync("/api/datasets", Token);
            statuses.Add(response.StatusCode);
            if (response.StatusCode == HttpStatusCode.TooManyRequests)
            {
                limited = response;
            }
        }

        Assert.NotNull(limited);
        Assert.True(statuses.Count(s => s == HttpStatusCode.OK) >= 3, string.Join(", ", statuses));
        Assert.True(limited.Headers.RetryAfter?.Delta >= TimeSpan.FromSeconds(1), limited.Headers.RetryAfter?.ToString());
        Assert.Contains("retry after", await RestCalls.ProblemAsync(limited, 429), StringComparison.Ordinal);

        // gRPC is counted against the same key, and answers RESOURCE_EXHAUSTED.
        var datasets = new DatasetsClient(service.Grpc);
        await GrpcCalls.FailsWithAsync(StatusCode.ResourceExhausted,
            () => datasets.ListAsync(new ListDatasetsRequest(), new CallOptions(Headers(busy), cancellationToken: Token)).ResponseAsync);

        // Another key has its own bucket.
        using var other = Client(service, quiet);
        Assert.Equal(HttpStatusCode.OK, (await other.GetAsync("/api/datasets", Token)).StatusCode);
    }

    /// <summary>A census service that lets 5 failed authentications through at once and 1 a second after.</summary>
    private static Task<ServiceUnderTest<CensusService>> FailuresLimitedAsync(TemporaryDirectory directory)
    {
        var settings = AuthOn();
        settings["Salsa:Auth:RateLimit:FailuresPerSecond"] = "1";
        settings["Salsa:Auth:RateLimit:FailureBurst"] = "5";
        return ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), settings);
    }

    [Fact]
    public async Task MadeUpKeys_FromOneAddress_RefusedWithoutTheStoreAfterABurst_AVerifiedKeyStillWorks()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await FailuresLimitedAsync(directory);
        var valid = await KeyAsync(service, "alpha", Scopes.Read);
        using var verified = Client(service, valid);
        Assert.Equal(HttpStatusCode.OK, (await verified.GetAsync("/api/datasets", Token)).StatusCode);

        var statuses = new List<HttpStatusCode>();
        HttpResponseMessage? refused = null;
        for (var i = 0; i < 20; i++)
        {
            using var guess = Client(service, $"salsa_{Convert.ToHexStringLower(System.Security.Cryptography.RandomNumberGenerator.GetBytes(8))}_{new string('A', 43)}");
            var response = await guess.GetAsync("/api/datasets", Token);
            statuses.Add(response.StatusCode);
            refused ??= response.StatusCode == HttpStatusCode.TooManyRequests ? response : null;
        }

        // The burst is five 401s (each a store lookup), then 429 without one.
        Assert.True(statuses.Take(5).All(s => s == HttpStatusCode.Unauthorized) && statuses.Skip(6).All(s => s == HttpStatusCode.TooManyRequests), string.Join(", ", statuses));
        Assert.NotNull(refused);
        Assert.True(refused.Headers.RetryAfter?.Delta >= TimeSpan.FromSeconds(1));
        Assert.StartsWith("Too many failed authentications from this address", await RestCalls.ProblemAsync(refused, 429), StringComparison.Ordinal);
        await GrpcCalls.FailsWithAsync(StatusCode.ResourceExhausted, () => new DatasetsClient(service.Grpc)
            .ListAsync(new ListDatasetsRequest(), new CallOptions(Headers($"salsa_{new string('0', 16)}_{new string('B', 43)}"), cancellationToken: Token)).ResponseAsync);

        // A key verified a moment ago is in the cache: it never waits on the address's failures.
        Assert.Equal(HttpStatusCode.OK, (await verified.GetAsync("/api/datasets", Token)).StatusCode);
    }

    [Fact]
    public async Task MadeUpSecrets_ForARealKeyId_CountAgainstTheId_FromAnyAddress_TheRightSecretStillWorks()
    {
        using var directory = new TemporaryDirectory();
        await using var service = await FailuresLimitedAsync(directory);
        var valid = await KeyAsync(service, "alpha", Scopes.Read);
        Assert.True(ApiKeys.TrySplit(valid, out var id, out var secret));
        var wrong = $"{ApiKeys.Prefix}{id}_{(secret[0] == 'A' ? 'B' : 'A')}{secret[1..]}";

        // The key is verified once, so its record is in the cache: before, every wrong secret for it
        // was a 401 however many came (the count was checked only when the store was asked).
        using var right = Client(service, valid);
        Assert.Equal(HttpStatusCode.OK, (await right.GetAsync("/api/datasets", Token)).StatusCode);
        using var first = ClientFrom(service.Ports.RestAddress, IPAddress.Parse("127.0.0.1"), wrong);
        var statuses = new List<HttpStatusCode>();
        var clock = Stopwatch.StartNew();
        for (var i = 0; i < 200; i++)
        {
            statuses.Add((await first.GetAsync("/api/datasets", Token)).StatusCode);
        }

        // The burst of five, and one more for each second the loop took (the bucket refills at 1/s).
        var unauthorized = statuses.Count(s => s == HttpStatusCode.Unauthorized);
        Assert.True(statuses.Take(5).All(s => s == HttpStatusCode.Unauthorized)
            && unauthorized <= 5 + (int)Math.Ceiling(clock.Elapsed.TotalSeconds)
            && statuses.All(s => s is HttpStatusCode.Unauthorized or HttpStatusCode.TooManyRequests), string.Join(", ", statuses));

        // From another address (its own count untouched) the id's count still refuses a wrong secret,
        // while a made-up id from there is an ordinary 401 and the right secret passes.
        using var second = ClientFrom(service.Ports.RestAddress, IPAddress.Parse("127.0.0.2"), wrong);
        var refused = await second.GetAsync("/api/datasets", Token);
        if (refused.StatusCode == HttpStatusCode.Unauthorized)
        {
            refused = await second.GetAsync("/api/datasets", Token); // the id's bucket refilled by one just now
        }

        Assert.StartsWith("Too many failed authentications for this key id", await RestCalls.ProblemAsync(refused, 429), StringComparison.Ordinal);
        Assert.True(refused.Headers.RetryAfter?.Delta >= TimeSpan.FromSeconds(1));
        using var madeUp = ClientFrom(service.Ports.RestAddress, IPAddress.Parse("127.0.0.2"), $"{ApiKeys.Prefix}{new string('0', 16)}_{secret}");
        Assert.Equal(HttpStatusCode.Unauthorized, (await madeUp.GetAsync("/api/datasets", Token)).StatusCode);
        using var rightElsewhere = ClientFrom(service.Ports.RestAddress, IPAddress.Parse("127.0.0.2"), valid);
        Assert.Equal(HttpStatusCode.OK, (await rightElsewhere.GetAsync("/api/datasets", Token)).StatusCode);
    }

    /// <summary>A client whose connections come from <paramref name="source"/>, a loopback address of its own (the service listens on 127.0.0.1).</summary>
    private static HttpClient ClientFrom(Uri rest, IPAddress source, string key) => SourceAddressClient.Create(rest, source, CredentialHeaders.Key, key);

    [Fact]
    public async Task Quota_PerTenant_DatasetsAndBytes_403WithTheNumbers_ShownInTheApi_AnotherTenantStillStores()
    {
        using var directory = new TemporaryDirectory();
        var settings = AuthOn();
        settings["Salsa:Quota:MaxDatasets"] = "2";
        settings["Salsa:Quota:MaxBytes"] = "200000";
        await using var service = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), settings);
        using var alpha = Client(service, await KeyAsync(service, "alpha", Scopes.Run));
        using var beta = Client(service, await KeyAsync(service, "beta", Scopes.Run));
        static StringContent Places(int count, int seed) => new(
            "id,latitude,longitude,population\n" + string.Concat(Enumerable.Range(0, count).Select(i => FormattableString.Invariant($"p{seed}-{i},{39 + (i % 100 * 0.01)},{-86 - (i / 100 * 0.01)},{i + 1}\n"))),
            Encoding.UTF8, "text/csv");

        // 10,000 places are over 200,000 bytes: refused, with the numbers, before anything is stored.
        using (var big = await alpha.PostAsync("/api/census/uploads?name=big", Places(10_000, 1), Token))
        {
            var detail = await RestCalls.ProblemAsync(big, 403);
            Assert.Contains("Tenant 'alpha' stores 0 bytes; with this dataset's", detail, StringComparison.Ordinal);
            Assert.Contains("(Salsa:Quota:MaxBytes = 200,000)", detail, StringComparison.Ordinal);
            Assert.Null(big.Headers.RetryAfter);
        }

        var first = await alpha.PostAsync("/api/census/uploads?name=a", Places(20, 2), Token);
        Assert.Equal(HttpStatusCode.Created, first.StatusCode);
        Assert.Equal(HttpStatusCode.Created, (await alpha.PostAsync("/api/census/uploads?name=b", Places(20, 3), Token)).StatusCode);
        using (var third = await alpha.PostAsync("/api/census/uploads?name=c", Places(20, 4), Token))
        {
            Assert.StartsWith("Tenant 'alpha' holds 2 datasets, the most its quota allows (Salsa:Quota:MaxDatasets = 2)", await RestCalls.ProblemAsync(third, 403), StringComparison.Ordinal);
        }

        // The same refusal over gRPC, and from the generic dataset upload.
        await GrpcCalls.FailsWithAsync(StatusCode.ResourceExhausted, async () =>
        {
            using var call = new CensusClient(service.Grpc).Upload(new CallOptions(Headers(KeyOf(alpha)), cancellationToken: Token));
            await call.RequestStream.WriteAsync(new UploadPlacesRequest { Header = new UploadPlacesHeader { Name = "e.csv" } }, Token);
            await call.RequestStream.WriteAsync(new UploadPlacesRequest { Chunk = Google.Protobuf.ByteString.CopyFromUtf8(await Places(5, 5).ReadAsStringAsync(Token)) }, Token);
            await call.RequestStream.CompleteAsync();
            await call;
        });
        using (var csv = await alpha.PostAsync("/api/datasets/csv?name=d&kind=dense&dimension=2", new StringContent("1,2\n3,4\n", Encoding.UTF8, "text/csv"), Token))
        {
            Assert.Contains("Salsa:Quota:MaxDatasets = 2", await RestCalls.ProblemAsync(csv, 403), StringComparison.Ordinal);
        }

        var usage = await alpha.GetFromJsonAsync<DatasetUsageView>("/api/datasets/usage", RestCalls.Json, Token);
        var listed = (await alpha.GetFromJsonAsync<List<DatasetView>>("/api/datasets", RestCalls.Json, Token))!;
        Assert.Equal(new DatasetUsageView(2, listed.Sum(d => d.Bytes), 2, 200_000), usage);
        Assert.All(listed, d => Assert.InRange(d.Bytes, 20 * 24, 20 * 80));

        // Another tenant has its own quota; a delete makes room again, and what was stored stays.
        Assert.Equal(HttpStatusCode.Created, (await beta.PostAsync("/api/census/uploads?name=a", Places(20, 2), Token)).StatusCode);
        Assert.Equal(HttpStatusCode.NoContent, (await alpha.DeleteAsync(first.Headers.Location, Token)).StatusCode);
        Assert.Equal(HttpStatusCode.Created, (await alpha.PostAsync("/api/census/uploads?name=c", Places(20, 4), Token)).StatusCode);
        Assert.Equal(2, (await alpha.GetFromJsonAsync<DatasetUsageView>("/api/datasets/usage", RestCalls.Json, Token))!.Datasets);
    }

    [Fact]
    public async Task Keys_AtMostMaxKeysPerTenant_ForPostApiKeysAndTheKeysCommandAlike_ARevokedKeyMakesRoom()
    {
        using var directory = new TemporaryDirectory();
        var settings = AuthOn();
        settings["Salsa:Auth:MaxKeysPerTenant"] = "3";
        await using var service = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), settings);
        // POST /api/keys (the gateway's) and `keys create` both make keys through ApiKeys.CreateAsync.
        var keys = ((ServiceUnderTest<CensusService>)service).Services.GetRequiredService<ApiKeys>();
        var created = new List<CreatedApiKey>();
        for (var i = 0; i < 3; i++)
        {
            created.Add(await keys.CreateAsync("alpha", $"k{i}", [Scopes.Read], Token));
        }

        var refused = await Assert.ThrowsAsync<QuotaExceededException>(() => keys.CreateAsync("alpha", "one too many", [Scopes.Read], Token));
        Assert.StartsWith("Tenant 'alpha' has 3 keys that are not revoked, the most it may have (Salsa:Auth:MaxKeysPerTenant = 3)", refused.Message, StringComparison.Ordinal);
        Assert.Equal((HttpStatusCode.Forbidden, StatusCode.ResourceExhausted), ServiceErrors.Classify(refused) is { } c ? (c.Http, c.Grpc) : default);
        await keys.CreateAsync("beta", "another tenant's", [Scopes.Read], Token);

        Assert.True(await keys.RevokeAsync(created[0].Record.Id, Token));
        await keys.CreateAsync("alpha", "after a revoke", [Scopes.Read], Token);
    }

    private static string KeyOf(HttpClient client) => client.DefaultRequestHeaders.GetValues(CredentialHeaders.Key).Single();

    [Fact]
    public async Task Secrets_NeverInLogsSpansStoredRecordsOrErrors()
    {
        using var directory = new TemporaryDirectory();
        using var spans = new ActivityRecorder("Microsoft.AspNetCore", "System.Net.Http", "Grpc.Net.Client", SalsaHostingSource, "Salsa.Ccr");
        var settings = AuthOn();
        settings["Logging:LogLevel:Default"] = "Trace";
        settings["Logging:Console:LogLevel:Default"] = "None";
        await using var service = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(directory), settings);
        var logs = new LogRecorder();
        ((ServiceUnderTest<CensusService>)service).Services.GetRequiredService<ILoggerFactory>().AddProvider(logs);

        var key = await KeyAsync(service, "alpha", Scopes.Run);
        Assert.True(ApiKeys.TrySplit(key, out _, out var secret));
        var token = Jwt("alpha", "read run");
        var wrong = "salsa_0123456789abcdef_" + secret[..^1] + "x"; // a wrong key carrying most of the secret

        using (var client = Client(service, key))
        {
            await client.PostForAsync<DatasetView>("/api/census/imports", new { source = "indiana-1000" });
            await client.GetAsync("/api/datasets", Token);
            using var bad = await client.PostAsJsonAsync("/api/census/imports", new { source = key }, Token); // the key as a value, echoed by validation?
            Assert.Equal(HttpStatusCode.BadRequest, bad.StatusCode);
        }

        var bodies = new List<string>();
        foreach (var credential in new[] { ("X-Api-Key", wrong), ("Authorization", $"Bearer {token}x"), ("Authorization", $"ApiKey {wrong}") })
        {
            using var client = Client(service, null);
            client.DefaultRequestHeaders.TryAddWithoutValidation(credential.Item1, credential.Item2);
            using var response = await client.GetAsync("/api/datasets", Token);
            Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
            bodies.Add(await response.Content.ReadAsStringAsync(Token));
        }

        var grpc = await Assert.ThrowsAsync<RpcException>(() => new DatasetsClient(service.Grpc)
            .ListAsync(new ListDatasetsRequest(), new CallOptions(Headers(wrong), cancellationToken: Token)).ResponseAsync);
        bodies.Add(grpc.Status.Detail);

        await service.DisposeAsync(); // flushes the store's write-ahead log into the file
        var stored = string.Concat(Directory.EnumerateFiles(directory.Path).Select(f => Encoding.Latin1.GetString(File.ReadAllBytes(f))));
        var places = new Dictionary<string, string>
        {
            ["logs"] = logs.Text,
            ["spans"] = string.Join('\n', spans.Stopped.Select(a => $"{a.DisplayName} {string.Join(' ', a.TagObjects.Select(t => $"{t.Key}={t.Value}"))} {string.Join(' ', a.Events.SelectMany(e => e.Tags.Select(t => $"{t.Key}={t.Value}")))}")),
            ["store"] = stored,
            ["errors"] = string.Join('\n', bodies),
        };
        Assert.True(logs.Count > 50, $"only {logs.Count} log entries were recorded: is Trace logging on?");
        Assert.NotEmpty(spans.Stopped);
        foreach (var (place, text) in places)
        {
            foreach (var (what, value) in new[] { ("the key's secret", secret), ("a wrong key", wrong[^20..]), ("the bearer token's signature", token.Split('.')[2]) })
            {
                Assert.False(text.Contains(value, StringComparison.Ordinal), $"{what} is in the {place}");
            }
        }
    }

    private const string SalsaHostingSource = Salsa.Hosting.SalsaHosting.ActivitySourceName;

    [Theory]
    [InlineData("Auto", "http://127.0.0.1:5000", false)]
    [InlineData("Auto", "http://localhost:5000", false)]
    [InlineData("Auto", "http://[::1]:5000", false)]
    [InlineData("Auto", "http://0.0.0.0:8080", true)]
    [InlineData("Auto", "http://*:8080", true)]
    [InlineData("Auto", "http://+:8080", true)]
    [InlineData("Auto", "http://10.1.2.3:8080", true)]
    [InlineData("Auto", "http://salsa.example:8080", true)]
    [InlineData("On", "http://127.0.0.1:5000", true)]
    [InlineData("Off", "http://127.0.0.1:5000", false)]
    public void Mode_FollowsWhereTheServiceListens(string mode, string url, bool enabled)
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Kestrel:Endpoints:Rest:Url"] = "http://127.0.0.1:1",
            ["Kestrel:Endpoints:Grpc:Url"] = url,
        }).Build();
        var settings = new AuthSettings { Mode = Enum.Parse<AuthMode>(mode) };
        Assert.Equal(enabled, settings.ResolveEnabled(SalsaOptions.Read<ExposureOptions>(configuration, null)));
    }

    [Fact]
    public async Task Mode_OffBeyondLoopback_RefusedAtStart_AutoBeyondLoopbackIsOn()
    {
        // Refused as the host starts, before anything binds to the address.
        var exposed = new Dictionary<string, string?> { ["Kestrel:Endpoints:Rest:Url"] = "http://0.0.0.0:18080", ["urls"] = null };
        await using (var off = SalsaServiceHost.Create<CensusService>(new ServiceHostSettings
        {
            Settings = new Dictionary<string, string?>(exposed) { ["Salsa:Auth:Mode"] = "Off" },
            LoadAppSettings = false,
        }))
        {
            var refused = await Assert.ThrowsAsync<OptionsValidationException>(() => off.StartAsync(Token));
            Assert.Contains("beyond loopback", refused.Message, StringComparison.Ordinal);
        }

        await using (var behindTheGateway = SalsaServiceHost.Create<CensusService>(new ServiceHostSettings
        {
            Settings = new Dictionary<string, string?> { ["Salsa:Auth:Mode"] = "Off", ["Salsa:Exposed"] = "true" },
            LoadAppSettings = false,
        }))
        {
            var refused = await Assert.ThrowsAsync<OptionsValidationException>(() => behindTheGateway.StartAsync(Token));
            Assert.Contains("exposed (Salsa:Exposed is true)", refused.Message, StringComparison.Ordinal);
        }

        await using var app = SalsaServiceHost.Create<CensusService>(new ServiceHostSettings { Settings = exposed, LoadAppSettings = false });
        Assert.True(app.Services.GetRequiredService<ServiceSecurity>().Enabled);
        await using var local = SalsaServiceHost.Create<CensusService>(new ServiceHostSettings { LoadAppSettings = false });
        Assert.False(local.Services.GetRequiredService<ServiceSecurity>().Enabled);
    }

    [Theory]
    [InlineData("http://127.0.0.1:5000", true)]
    [InlineData("http://localhost:5000", true)]
    [InlineData("http://[::1]:5000", true)]
    [InlineData("http://unix:/run/salsa/census.sock", true)]
    [InlineData("http://unix:/tmp/s/grpc.sock", true)]
    [InlineData("http://0.0.0.0:5000", false)]
    [InlineData("http://*:5000", false)]
    [InlineData("http://10.0.0.2:5000", false)]
    [InlineData("http://unixhost:5000", false)]
    public void Exposure_LoopbackAndUnixSocketsStayOnThisMachine_OtherAddressesDoNot(string url, bool local) =>
        Assert.Equal(local, Exposure.IsLoopback(url));

    [Fact]
    public async Task Mode_OffBeyondLoopback_TheProcessSaysWhyInOneLineAndExits1()
    {
        // The service's own process, as `dotnet Salsa.Census.dll` runs it: a refusal, not an abort (exit 134) with a stack trace.
        var (exitCode, output, error) = await ExternalProgram.RunAsync("dotnet", AppContext.BaseDirectory,
            [Path.Combine(AppContext.BaseDirectory, "Salsa.Census.dll"), "--Kestrel:Endpoints:Rest:Url=http://0.0.0.0:18080", "--Salsa:Auth:Mode=Off"], Token);

        Assert.True(exitCode == 1, $"exit {exitCode}: {output}{error}");
        var line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("census did not start: Salsa:Auth:Mode is Off, but the service is exposed (it listens on http://0.0.0.0:18080, beyond loopback)", line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ServiceKey_ShorterThan32Characters_RefusedAtStart()
    {
        await using var app = SalsaServiceHost.Create<CensusService>(new ServiceHostSettings
        {
            Settings = new Dictionary<string, string?> { ["Salsa:Auth:ServiceKey"] = "short" },
            LoadAppSettings = false,
        });
        var refused = await Assert.ThrowsAsync<OptionsValidationException>(() => app.StartAsync(Token));
        Assert.Contains("at least 32", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ApiKeyShape_OnlyTheKeysShapeParses()
    {
        Assert.True(ApiKeys.TrySplit("salsa_0123456789abcdef_" + new string('A', 43), out var id, out var secret));
        Assert.Equal("0123456789abcdef", id);
        Assert.Equal(43, secret.Length);
        foreach (var bad in new[] { "", "salsa_", "salsa_0123456789ABCDEF_" + new string('A', 43), "salsa_0123456789abcdef-" + new string('A', 43), "salsa_0123456789abcdef_" + new string('A', 42), "x" + new string('A', 66) })
        {
            Assert.False(ApiKeys.TrySplit(bad, out _, out _), bad);
        }
    }

    /// <summary>Every log entry of every category, formatted, with its state's values and exception.</summary>
    private sealed class LogRecorder : ILoggerProvider
    {
        private readonly ConcurrentQueue<string> _entries = new();

        public int Count => _entries.Count;

        public string Text => string.Join('\n', _entries);

        public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

        public void Dispose()
        {
        }

        private sealed class Logger(LogRecorder recorder, string category) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull
            {
                recorder._entries.Enqueue($"scope {category}: {state}");
                return null;
            }

            public bool IsEnabled(LogLevel logLevel) => true;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
            {
                var values = state is IEnumerable<KeyValuePair<string, object?>> pairs ? string.Join(' ', pairs.Select(p => $"{p.Key}={p.Value}")) : "";
                recorder._entries.Enqueue($"{logLevel} {category}: {formatter(state, exception)} {values} {exception}");
            }
        }
    }
}
