using System.Net;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json.Nodes;
using Google.Protobuf;
using Grpc.AspNetCore.Server;
using Grpc.Core;
using Grpc.Net.Client;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;
using Salsa.Gateway.Services;
using Salsa.Hosting.Host;
using Salsa.Hosting.Security;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The platform as a deployment runs it with authentication on: the seven services and a gateway
/// that calls them remotely with the service key, on one store. Tenant alpha owns a finished run of
/// census-indiana (its datasets and jobs made through the gateway), jobs on every job service, a
/// compound import and an API key; tenant beta owns nothing.
/// </summary>
public sealed class SecuredPlatform : IAsyncLifetime
{
    public const string Issuer = "salsa-matrix";
    public static readonly string SigningKey = Convert.ToBase64String(Encoding.UTF8.GetBytes("the matrix tests' signing key, 32+ bytes"));

    private readonly TemporaryDirectory _directory = new();
    private readonly List<WebApplication> _apps = [];

    /// <summary>Every process by name (the services' names, and "gateway").</summary>
    public Dictionary<string, (WebApplication App, ServicePorts Ports)> Processes { get; } = [];

    public string AlphaAdmin { get; private set; } = "";

    public string AlphaRun { get; private set; } = "";

    public string AlphaRead { get; private set; } = "";

    public string BetaAdmin { get; private set; } = "";

    /// <summary>Alpha's records: <c>dataset</c> (census import), <c>points</c> (its query), <c>compounds</c>, <c>fingerprints</c>, <c>run</c>, <c>key</c>, <c>artifact</c>, and <c>job:&lt;service&gt;</c>.</summary>
    public Dictionary<string, string> Alpha { get; } = [];

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    public async ValueTask InitializeAsync()
    {
        var common = new Dictionary<string, string?>
        {
            ["Store:SqlitePath"] = _directory.Combine("salsa.db"),
            ["Salsa:Auth:Mode"] = "On",
            ["Salsa:Auth:ServiceKey"] = Convert.ToBase64String(System.Security.Cryptography.RandomNumberGenerator.GetBytes(32)),
            ["Salsa:Auth:Jwt:SigningKey"] = SigningKey,
            ["Salsa:Auth:Jwt:Issuer"] = Issuer,
            ["Salsa:Auth:RateLimit:PermitsPerSecond"] = "0",
            ["Salsa:Auth:RateLimit:FailuresPerSecond"] = "0", // every endpoint is asked with an unknown key: the failure limits have tests of their own
            ["Logging:LogLevel:Default"] = "Warning",
            ["Cluster:Enabled"] = "false",
        };
        var gateway = new Dictionary<string, string?>(common) { ["Gateway:WarmStart"] = "false" };
        foreach (var module in HostedServices.All)
        {
            var ports = await StartAsync(module.Name, settings => module.Create(settings), common);
            gateway[$"{ServiceDirectory.Section}:{module.Name}"] = ports.GrpcAddress.ToString();
        }

        await StartAsync("gateway", settings => SalsaServiceHost.Create<GatewayService>(settings), gateway);

        var keys = Processes["gateway"].App.Services.GetRequiredService<ApiKeys>();
        AlphaAdmin = (await keys.CreateAsync("alpha", "alpha admin", [Scopes.Admin], Token)).Key;
        AlphaRun = (await keys.CreateAsync("alpha", "alpha run", [Scopes.Run], Token)).Key;
        AlphaRead = (await keys.CreateAsync("alpha", "alpha read", [Scopes.Read], Token)).Key;
        BetaAdmin = (await keys.CreateAsync("beta", "beta admin", [Scopes.Admin], Token)).Key;
        Alpha["key"] = (await keys.CreateAsync("alpha", "alpha spare", [Scopes.Read], Token)).Record.Id;

        // A whole workflow, through the gateway and the services it calls with the service key.
        using var gatewayRest = Rest("gateway", AlphaRun);
        var started = await PostAsync(gatewayRest, "/api/runs", new
        {
            workflow = "census-indiana",
            parameters = new Dictionary<string, object> { ["import.source"] = "indiana-1000", ["cluster.maxClusters"] = 3, ["map.width"] = 300, ["map.height"] = 300 },
        });
        var run = await UntilAsync(gatewayRest, $"/api/runs/{started["id"]}", r => r["state"]!.GetValue<string>() is not ("queued" or "running"));
        Assert.True(run["state"]!.GetValue<string>() == "succeeded", run.ToJsonString());
        JsonNode Outputs(string step) => run["steps"]!.AsArray().Single(s => s!["id"]!.GetValue<string>() == step)!["outputs"]!;
        Alpha["run"] = run["id"]!.GetValue<string>();
        Alpha["artifact"] = run["artifacts"]!.AsArray()[0]!["name"]!.GetValue<string>();
        Alpha["dataset"] = Outputs("import")["dataset"]!.GetValue<string>();
        Alpha["points"] = Outputs("query")["dataset"]!.GetValue<string>();
        Alpha["job:annealing"] = Outputs("cluster")["job"]!["jobId"]!.GetValue<string>();
        Alpha["job:render"] = Outputs("map")["job"]!["jobId"]!.GetValue<string>();

        using var kmeans = Rest("kmeans", AlphaRun);
        Alpha["job:kmeans"] = await JobAsync(kmeans, "/api/kmeans/jobs", new { datasetId = Alpha["points"], clusters = 3 });
        using var chem = Rest("chem", AlphaRun);
        Alpha["compounds"] = (await PostAsync(chem, "/api/chem/imports", new { source = "fixture", limit = 60 }))["datasetId"]!.GetValue<string>();
        Alpha["fingerprints"] = (await chem.GetFromJsonAsync<JsonObject>($"/api/chem/compounds/{Alpha["compounds"]}/fingerprints/rdkit-ecfp4-1024", Token))!["datasetId"]!.GetValue<string>();
        using var fingerprints = Rest("fingerprints", AlphaRun);
        Alpha["job:fingerprints"] = await JobAsync(fingerprints, "/api/fingerprints/butina/jobs", new { datasetId = Alpha["fingerprints"], cutoff = 0.6 });
        using var mds = Rest("mds", AlphaRun);
        Alpha["job:mds"] = await JobAsync(mds, "/api/mds/jobs", new { datasetId = Alpha["fingerprints"], dimensions = 2 });

        // A file each job left, to ask for.
        foreach (var service in new[] { "annealing", "kmeans", "fingerprints", "mds", "render" })
        {
            using var client = Rest(service, AlphaRead);
            var job = (await client.GetFromJsonAsync<JsonObject>($"/api/jobs/{Alpha[$"job:{service}"]}", Token))!;
            Alpha[$"artifact:{service}"] = job["artifacts"]!.AsArray()[0]!["name"]!.GetValue<string>();
        }
    }

    public HttpClient Rest(string process, string? key)
    {
        var client = new HttpClient { BaseAddress = Processes[process].Ports.RestAddress, Timeout = TimeSpan.FromMinutes(2) };
        if (key is not null)
        {
            client.DefaultRequestHeaders.Add(CredentialHeaders.Key, key);
        }

        return client;
    }

    private async Task<ServicePorts> StartAsync(string name, Func<ServiceHostSettings, WebApplication> create, Dictionary<string, string?> settings)
    {
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var app = create(new ServiceHostSettings { Settings = new Dictionary<string, string?>(settings).Concat(ServiceHostSettings.PortSettings(ports)).ToDictionary(), LoadAppSettings = false });
        await app.StartAsync(Token);
        _apps.Add(app);
        Processes[name] = (app, ports);
        return ports;
    }

    private static async Task<JsonObject> PostAsync(HttpClient client, string path, object body)
    {
        using var response = await client.PostAsJsonAsync(path, body, Token);
        var text = await response.Content.ReadAsStringAsync(Token);
        Assert.True(response.IsSuccessStatusCode, $"POST {path}: {(int)response.StatusCode} {text}");
        return JsonNode.Parse(text)!.AsObject();
    }

    private static async Task<string> JobAsync(HttpClient client, string path, object body)
    {
        var id = (await PostAsync(client, path, body))["jobId"]!.GetValue<string>();
        var job = await UntilAsync(client, $"/api/jobs/{id}", j => j["state"]!.GetValue<string>() is not ("queued" or "running"));
        Assert.True(job["state"]!.GetValue<string>() == "succeeded", job.ToJsonString());
        return id;
    }

    /// <summary>The run or job once it has ended: its event stream (which ends with it) is read to the end first.</summary>
    private static async Task<JsonObject> UntilAsync(HttpClient client, string path, Func<JsonObject, bool> done)
    {
        using (var events = await client.GetAsync($"{path}/events", HttpCompletionOption.ResponseHeadersRead, Token))
        {
            events.EnsureSuccessStatusCode();
            await events.Content.CopyToAsync(Stream.Null, Token);
        }

        var value = (await client.GetFromJsonAsync<JsonObject>(path, Token))!;
        Assert.True(done(value), $"{path} has not ended after its event stream did: {value.ToJsonString()}");
        return value;
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var app in Enumerable.Reverse(_apps))
        {
            await app.StopAsync(CancellationToken.None);
            await app.DisposeAsync();
        }

        _directory.Dispose();
    }
}

/// <summary>
/// Every endpoint of every process — read from its routing table, so an endpoint added later is
/// checked without anyone remembering to — called over REST and gRPC with no credentials, with
/// credentials lacking its scope, and with another tenant's credentials: 401, 403, and "not found"
/// (that tenant's records are invisible, and lists show none of them), each beside a call with the
/// owner's credentials that succeeds, so the refusals are the credentials' doing. Only probes and
/// the API's descriptions are open.
/// </summary>
public sealed class AuthorizationMatrixTests(SecuredPlatform platform) : IClassFixture<SecuredPlatform>
{
    private static readonly HashSet<string> OpenEndpoints =
    [
        "GET /health", "GET /alive", "GET /api/version", "GET /openapi/{documentName}.json", "GET /", "GET /scalar/{documentName?}",
        "grpc.health.v1.Health/Check", "grpc.health.v1.Health/Watch", "grpc.health.v1.Health/List",
        "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    ];

    /// <summary>
    /// The body each REST operation that takes one is called with, naming alpha's records ($name);
    /// null where no record is named (the other-tenant case does not apply). A new operation fails
    /// the test until it is given here.
    /// </summary>
    private static readonly Dictionary<string, string?> RestBodies = new()
    {
        ["POST /api/datasets/"] = null,
        ["POST /api/datasets/csv"] = null,
        ["POST /api/census/imports"] = null,
        ["POST /api/census/queries"] = """{"datasetId":"$dataset"}""",
        ["POST /api/census/uploads"] = null,
        ["POST /api/chem/imports"] = null,
        ["POST /api/chem/uploads"] = null,
        ["POST /api/annealing/jobs"] = """{"datasetId":"$points","maxClusters":2}""",
        ["POST /api/kmeans/jobs"] = """{"datasetId":"$points","clusters":2}""",
        ["POST /api/fingerprints/butina/jobs"] = """{"datasetId":"$fingerprints"}""",
        ["POST /api/fingerprints/annealing/jobs"] = """{"datasetId":"$fingerprints","maxClusters":2}""",
        ["POST /api/fingerprints/search"] = """{"datasetId":"$fingerprints","butinaJobId":"$job:fingerprints","queryHex":"00","k":1}""",
        ["POST /api/mds/jobs"] = """{"datasetId":"$fingerprints","dimensions":2}""",
        ["POST /api/render/census-map"] = """{"pointsDatasetId":"$points","clusteringJobId":"$job:annealing"}""",
        ["POST /api/render/scatter"] = """{"embeddingJobId":"$job:mds"}""",
        ["POST /api/render/molecule-grid"] = """{"compoundsDatasetId":"$compounds","items":[0]}""",
        ["POST /api/uploads/places"] = null,
        ["POST /api/uploads/compounds"] = null,
        ["POST /api/jobs/{id}/cancel"] = "",
        ["POST /api/runs/"] = null,
        ["POST /api/runs/{id}/cancel"] = "",
        ["POST /api/runs/{id}/rerun"] = "{}",
        ["POST /api/runs/{id}/reproduce"] = "",
        ["POST /api/runs/{id}/steps/{step}/retry"] = "{}",
        ["POST /api/runs/reproduce"] = null,
        ["POST /api/workflows/validate"] = null,
        ["PATCH /api/datasets/{id}"] = """{"name":"alpha's points"}""",
        ["POST /api/keys/"] = null,
    };

    /// <summary>The request each gRPC method is called with (proto JSON naming alpha's records), or null where none is named.</summary>
    private static readonly Dictionary<string, string?> GrpcRequests = new()
    {
        ["salsa.common.v1.Jobs/Get"] = """{"jobId":"$job"}""",
        ["salsa.common.v1.Jobs/Watch"] = """{"jobId":"$job"}""",
        ["salsa.common.v1.Jobs/Cancel"] = """{"jobId":"$job"}""",
        ["salsa.common.v1.Jobs/List"] = "{}",
        ["salsa.common.v1.Jobs/DownloadArtifact"] = """{"jobId":"$job","name":"$artifact:job"}""",
        ["salsa.common.v1.Jobs/GetLog"] = """{"jobId":"$job"}""",
        ["salsa.datasets.v1.Datasets/Upload"] = null,
        ["salsa.datasets.v1.Datasets/Get"] = """{"datasetId":"$points"}""",
        ["salsa.datasets.v1.Datasets/List"] = "{}",
        ["salsa.datasets.v1.Datasets/Delete"] = null, // alpha's would be deleted: its REST twin is checked
        ["salsa.datasets.v1.Datasets/Rename"] = """{"datasetId":"$points","name":"alpha's points"}""",
        ["salsa.datasets.v1.Datasets/Download"] = """{"datasetId":"$points"}""",
        ["salsa.census.v1.Census/Import"] = null,
        ["salsa.census.v1.Census/Query"] = """{"datasetId":"$dataset"}""",
        ["salsa.census.v1.Census/Upload"] = null,
        ["salsa.chem.v1.Chem/Import"] = null,
        ["salsa.chem.v1.Chem/Upload"] = null,
        ["salsa.chem.v1.Chem/Fingerprints"] = """{"datasetId":"$compounds","fingerprintType":"rdkit-ecfp4-1024"}""",
        ["salsa.chem.v1.Chem/ListFingerprintTypes"] = null,
        ["salsa.chem.v1.Chem/Depict"] = """{"smiles":"CCO"}""",
        ["salsa.annealing.v1.Annealing/Start"] = """{"datasetId":"$points","maxClusters":2}""",
        ["salsa.annealing.v1.Annealing/GetResult"] = """{"jobId":"$job:annealing"}""",
        ["salsa.kmeans.v1.KMeans/Start"] = """{"datasetId":"$points","clusters":2}""",
        ["salsa.kmeans.v1.KMeans/GetResult"] = """{"jobId":"$job:kmeans"}""",
        ["salsa.fingerprints.v1.Fingerprints/StartButina"] = """{"datasetId":"$fingerprints"}""",
        ["salsa.fingerprints.v1.Fingerprints/GetButinaResult"] = """{"jobId":"$job:fingerprints"}""",
        ["salsa.fingerprints.v1.Fingerprints/StartAnnealing"] = """{"datasetId":"$fingerprints","maxClusters":2}""",
        ["salsa.fingerprints.v1.Fingerprints/GetAnnealingResult"] = null, // alpha has no such job: its REST twin is refused the same way
        ["salsa.fingerprints.v1.Fingerprints/Search"] = """{"datasetId":"$fingerprints","butinaJobId":"$job:fingerprints","queryHex":"00","k":1}""",
        ["salsa.mds.v1.Mds/Start"] = """{"datasetId":"$fingerprints","dimensions":2}""",
        ["salsa.mds.v1.Mds/GetResult"] = """{"jobId":"$job:mds"}""",
        ["salsa.render.v1.Render/StartCensusMap"] = """{"pointsDatasetId":"$points","clusteringJobId":"$job:annealing"}""",
        ["salsa.render.v1.Render/StartScatter"] = """{"embeddingJobId":"$job:mds"}""",
        ["salsa.render.v1.Render/StartMoleculeGrid"] = """{"compoundsDatasetId":"$compounds","items":[0]}""",
        ["salsa.gateway.v1.Gateway/StartRun"] = null,
        ["salsa.gateway.v1.Gateway/GetRun"] = """{"runId":"$run"}""",
        ["salsa.gateway.v1.Gateway/ListRuns"] = "{}",
        ["salsa.gateway.v1.Gateway/WatchRun"] = """{"runId":"$run"}""",
        ["salsa.gateway.v1.Gateway/CancelRun"] = """{"runId":"$run"}""",
        ["salsa.gateway.v1.Gateway/RerunRun"] = """{"runId":"$run"}""",
        ["salsa.gateway.v1.Gateway/ReproduceRun"] = """{"runId":"$run"}""",
        ["salsa.gateway.v1.Gateway/RetryRun"] = """{"runId":"$run","step":"map"}""",
        ["salsa.gateway.v1.Gateway/DownloadArtifact"] = """{"runId":"$run","name":"$artifact"}""",
        ["salsa.gateway.v1.Gateway/GetStepLog"] = """{"runId":"$run","step":"cluster"}""",
    };

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    /// <summary>One endpoint of one process, as routing has it.</summary>
    public sealed record Target(string Process, Endpoint Endpoint)
    {
        public GrpcMethodMetadata? Grpc => Endpoint.Metadata.GetMetadata<GrpcMethodMetadata>();

        public string Key => Grpc is { } grpc ? grpc.Method.FullName.TrimStart('/')
            : $"{Endpoint.Metadata.GetMetadata<IHttpMethodMetadata>()?.HttpMethods[0]} {((RouteEndpoint)Endpoint).RoutePattern.RawText}";

        public bool Open => Endpoint.Metadata.GetMetadata<IAllowAnonymous>() is not null;

        /// <summary>The scope it needs: declared, or read for a REST GET and run otherwise (as the services decide).</summary>
        public string Scope => Endpoint.Metadata.GetOrderedMetadata<IAuthorizeData>().Select(a => a.Policy).LastOrDefault(p => p is not null)
            ?? (Grpc is null && Endpoint.Metadata.GetMetadata<IHttpMethodMetadata>()!.HttpMethods.All(m => m is "GET" or "HEAD") ? Scopes.Read : Scopes.Run);

        public override string ToString() => $"{Process}: {Key}";
    }

    private IEnumerable<Target> Targets() => platform.Processes.SelectMany(p => p.Value.App.Services.GetRequiredService<EndpointDataSource>().Endpoints
        .Where(e => e is RouteEndpoint && (e.Metadata.GetMetadata<GrpcMethodMetadata>() is not null || e.Metadata.GetMetadata<IHttpMethodMetadata>() is not null))
        .Where(e => !e.DisplayName!.Contains("Unimplemented", StringComparison.Ordinal))
        .Select(e => new Target(p.Key, e)));

    [Fact]
    public void Endpoints_AllNeedCredentialsButProbesAndDescriptions_AndEachHasItsRequestHere()
    {
        var targets = Targets().ToList();
        Assert.True(targets.Count > 100, $"only {targets.Count} endpoints found");
        Assert.All(targets.Where(t => t.Open), t => Assert.True(OpenEndpoints.Contains(t.Key) || t.Key.StartsWith("GET /scalar/", StringComparison.Ordinal), $"{t} is open"));
        var unknown = targets.Where(t => !t.Open)
            .Where(t => t.Grpc is not null ? !GrpcRequests.ContainsKey(t.Key) : t.Key.StartsWith("POST", StringComparison.Ordinal) && !RestBodies.ContainsKey(t.Key))
            .Select(t => t.ToString()).Distinct().ToList();
        Assert.True(unknown.Count == 0, "endpoints with no request in this test (add them to RestBodies or GrpcRequests): " + string.Join(", ", unknown));
        Assert.Contains(targets, t => t.Scope == Scopes.Admin);
    }

    [Fact]
    public async Task EveryRestEndpoint_NoCredentials401_WrongScope403_OtherTenantNotFound()
    {
        var failures = new List<string>();
        var checkedCount = 0;
        foreach (var target in Targets().Where(t => t.Grpc is null && !t.Open))
        {
            checkedCount++;
            var (method, path, body) = Request(target);

            await ExpectAsync(target, null, method, path, body, HttpStatusCode.Unauthorized, failures, "no credentials");
            await ExpectAsync(target, "salsa_0123456789abcdef_" + new string('x', 43), method, path, body, HttpStatusCode.Unauthorized, failures, "an unknown key");
            var (under, underName) = UnderScoped(target.Scope);
            await ExpectAsync(target, under, method, path, body, HttpStatusCode.Forbidden, failures, underName);

            var pattern = ((RouteEndpoint)target.Endpoint).RoutePattern.RawText!;
            if (target.Process == "fingerprints" && pattern.Contains("/annealing/jobs/", StringComparison.Ordinal))
            {
                continue; // alpha has no binary annealing job to ask for: nothing of alpha's to refuse
            }

            if (ReferencesAlpha(path, body))
            {
                await ExpectAsync(target, platform.BetaAdmin, method, path, body, HttpStatusCode.NotFound, failures, "another tenant");
                await ExpectOwnerAsync(target, method, path, body, failures);
            }
            else if (method == HttpMethod.Get && !pattern.Contains('{', StringComparison.Ordinal))
            {
                // A list, a catalogue or a description: the other tenant sees none of alpha's records in it.
                var (status, text) = await SendAsync(target, platform.BetaAdmin, method, path, body);
                var leaked = AlphaIds().FirstOrDefault(v => text.Contains(v, StringComparison.Ordinal));
                if (status != HttpStatusCode.OK || leaked is not null)
                {
                    failures.Add($"{target} as another tenant: {(int)status}{(leaked is null ? "" : $", shows alpha's {leaked}")}");
                }
            }
        }

        Assert.True(checkedCount > 60, $"only {checkedCount} REST endpoints checked");
        Assert.True(failures.Count == 0, string.Join('\n', failures));
    }

    [Fact]
    public async Task EveryGrpcMethod_NoCredentialsUnauthenticated_WrongScopePermissionDenied_OtherTenantNotFound()
    {
        var failures = new List<string>();
        var checkedCount = 0;
        foreach (var target in Targets().Where(t => t.Grpc is not null && !t.Open))
        {
            checkedCount++;
            var empty = Array.Empty<byte>();
            await ExpectGrpcAsync(target, null, empty, StatusCode.Unauthenticated, failures, "no credentials");
            var (under, underName) = UnderScoped(target.Scope);
            await ExpectGrpcAsync(target, under, empty, StatusCode.PermissionDenied, failures, underName);

            if (GrpcRequests.GetValueOrDefault(target.Key) is not { } json)
            {
                continue;
            }

            var request = Message(target, Substitute(target.Process, json));
            if (json.Contains('$', StringComparison.Ordinal))
            {
                await ExpectGrpcAsync(target, platform.BetaAdmin, request, StatusCode.NotFound, failures, "another tenant");
                var (owner, detail, _) = await CallAsync(target, platform.AlphaAdmin, request);
                if (owner is StatusCode.NotFound or StatusCode.Unauthenticated or StatusCode.PermissionDenied or StatusCode.Internal or StatusCode.Unknown)
                {
                    failures.Add($"{target} as the owner: {owner} {detail}");
                }
            }
            else
            {
                var (status, detail, text) = await CallAsync(target, platform.BetaAdmin, request);
                var leaked = AlphaIds().FirstOrDefault(v => text.Contains(v, StringComparison.Ordinal));
                if (status != StatusCode.OK || leaked is not null)
                {
                    failures.Add($"{target} as another tenant: {status} {detail}{(leaked is null ? "" : $", shows alpha's {leaked}")}");
                }
            }
        }

        Assert.True(checkedCount > 40, $"only {checkedCount} gRPC methods checked");
        Assert.True(failures.Count == 0, string.Join('\n', failures));
    }

    /// <summary>Credentials of alpha that lack <paramref name="scope"/>: a bearer token without scopes for read, a read key for run, a run key for admin.</summary>
    private (string Credential, string Name) UnderScoped(string scope) => scope switch
    {
        Scopes.Read => ("Bearer " + ScopelessToken(), "a token without scopes"),
        Scopes.Run => (platform.AlphaRead, "a read key"),
        _ => (platform.AlphaRun, "a run key"),
    };

    private static string ScopelessToken() => new JsonWebTokenHandler().CreateToken(new SecurityTokenDescriptor
    {
        Issuer = SecuredPlatform.Issuer,
        Claims = new Dictionary<string, object> { ["sub"] = "nobody", ["tenant"] = "alpha" },
        Expires = DateTime.UtcNow.AddHours(1),
        SigningCredentials = new SigningCredentials(new SymmetricSecurityKey(Convert.FromBase64String(SecuredPlatform.SigningKey)), SecurityAlgorithms.HmacSha256),
    });

    private (HttpMethod Method, string Path, string? Body) Request(Target target)
    {
        var method = new HttpMethod(target.Key.Split(' ')[0]);
        var pattern = ((RouteEndpoint)target.Endpoint).RoutePattern.RawText!;
        var path = "/" + pattern.TrimStart('/');
        var job = Job(target.Process);
        path = path
            .Replace("/api/datasets/{id}", $"/api/datasets/{platform.Alpha["points"]}", StringComparison.Ordinal)
            .Replace("/api/runs/{id}", $"/api/runs/{platform.Alpha["run"]}", StringComparison.Ordinal)
            .Replace("/steps/{step}/", "/steps/cluster/", StringComparison.Ordinal)
            .Replace("/api/keys/{id}", $"/api/keys/{platform.Alpha["key"]}", StringComparison.Ordinal)
            .Replace("/api/chem/compounds/{id}/properties", $"/api/chem/compounds/{platform.Alpha["compounds"]}/properties", StringComparison.Ordinal)
            .Replace("/api/chem/compounds/{id}/fingerprints/{type}", $"/api/chem/compounds/{platform.Alpha["compounds"]}/fingerprints/rdkit-ecfp4-1024", StringComparison.Ordinal)
            .Replace("/api/workflows/{name}", "/api/workflows/census-indiana", StringComparison.Ordinal)
            .Replace("/api/chem/depictions", "/api/chem/depictions?smiles=CCO", StringComparison.Ordinal)
            .Replace("/api/depictions", "/api/depictions?smiles=CCO", StringComparison.Ordinal)
            .Replace("{id}", job ?? Guid.NewGuid().ToString(), StringComparison.Ordinal)
            .Replace("/artifacts/{name}", $"/artifacts/{(path.StartsWith("/api/runs", StringComparison.Ordinal) ? platform.Alpha["artifact"] : platform.Alpha.GetValueOrDefault($"artifact:{target.Process}") ?? "none")}", StringComparison.Ordinal);
        var key = $"{method} {pattern}";
        var body = RestBodies.TryGetValue(key, out var template) ? Substitute(target.Process, template ?? "{}") : method == HttpMethod.Get || method == HttpMethod.Delete ? null : "{}";
        return (method, path, body);
    }

    /// <summary>Alpha's record ids (not the names of files, which workflows' descriptions name too).</summary>
    private IEnumerable<string> AlphaIds() => platform.Alpha.Where(a => !a.Key.StartsWith("artifact", StringComparison.Ordinal)).Select(a => a.Value);

    private string? Job(string process) => platform.Alpha.GetValueOrDefault($"job:{process}");

    private bool ReferencesAlpha(string path, string? body) =>
        platform.Alpha.Values.Any(v => path.Contains(v, StringComparison.Ordinal) || body?.Contains(v, StringComparison.Ordinal) == true);

    private string Substitute(string process, string template)
    {
        var text = template
            .Replace("$job\"", $"{Job(process) ?? Guid.NewGuid().ToString()}\"", StringComparison.Ordinal)
            .Replace("$artifact:job", platform.Alpha.GetValueOrDefault($"artifact:{process}") ?? "none", StringComparison.Ordinal);
        foreach (var (name, value) in platform.Alpha.OrderByDescending(a => a.Key.Length))
        {
            text = text.Replace("$" + name, value, StringComparison.Ordinal);
        }

        return text;
    }

    private async Task ExpectAsync(Target target, string? credential, HttpMethod method, string path, string? body, HttpStatusCode expected, List<string> failures, string who)
    {
        var (status, text) = await SendAsync(target, credential, method, path, body);
        if (status != expected)
        {
            failures.Add($"{target} ({method} {path}) with {who}: {(int)status}, not {(int)expected}: {text[..Math.Min(text.Length, 200)]}");
        }
    }

    private async Task ExpectOwnerAsync(Target target, HttpMethod method, string path, string? body, List<string> failures)
    {
        if (method == HttpMethod.Delete)
        {
            return; // the owner's delete would remove the record the other checks use; DELETE by the owner is covered elsewhere
        }

        var (status, text) = await SendAsync(target, platform.AlphaAdmin, method, path, body);
        if (status is HttpStatusCode.NotFound or HttpStatusCode.Unauthorized or HttpStatusCode.Forbidden || (int)status >= 500)
        {
            failures.Add($"{target} ({method} {path}) as the owner: {(int)status} {text[..Math.Min(text.Length, 200)]}");
        }
    }

    private async Task<(HttpStatusCode Status, string Text)> SendAsync(Target target, string? credential, HttpMethod method, string path, string? body)
    {
        using var client = platform.Rest(target.Process, null);
        using var request = new HttpRequestMessage(method, path);
        if (credential?.StartsWith("Bearer ", StringComparison.Ordinal) == true)
        {
            request.Headers.TryAddWithoutValidation("Authorization", credential);
        }
        else if (credential is not null)
        {
            request.Headers.Add(CredentialHeaders.Key, credential);
        }

        if (body is not null)
        {
            request.Content = new StringContent(body, Encoding.UTF8, path.EndsWith("/csv", StringComparison.Ordinal) ? "text/csv" : "application/json");
        }

        using var limit = CancellationTokenSource.CreateLinkedTokenSource(Token);
        limit.CancelAfter(TimeSpan.FromSeconds(30));
        using var response = await client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, limit.Token);
        if (response.Content.Headers.ContentType?.MediaType == "text/event-stream")
        {
            return (response.StatusCode, ""); // a stream that stays open: its status is the answer
        }

        return (response.StatusCode, await response.Content.ReadAsStringAsync(limit.Token));
    }

    private static byte[] Message(Target target, string json)
    {
        var service = target.Grpc!.ServiceType;
        var descriptor = (Google.Protobuf.Reflection.ServiceDescriptor)FindDescriptor(service)!;
        var method = descriptor.FindMethodByName(target.Key.Split('/')[1]);
        return JsonParser.Default.Parse(json, method.InputType).ToByteArray();
    }

    private static object? FindDescriptor(Type service)
    {
        for (var type = service.BaseType; type is not null; type = type.BaseType)
        {
            if (type.DeclaringType?.GetProperty("Descriptor", System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Static) is { } property)
            {
                return property.GetValue(null);
            }
        }

        throw new InvalidOperationException($"No service descriptor for {service}.");
    }

    private async Task ExpectGrpcAsync(Target target, string? credential, byte[] request, StatusCode expected, List<string> failures, string who)
    {
        var (status, detail, _) = await CallAsync(target, credential, request);
        if (status != expected)
        {
            failures.Add($"{target} with {who}: {status}, not {expected}: {detail}");
        }
    }

    private static readonly Marshaller<byte[]> Bytes = Marshallers.Create(b => b, b => b);

    /// <summary>Calls the method with raw request bytes; its status, detail, and what it answered (as text, for leaks).</summary>
    private async Task<(StatusCode Status, string Detail, string Text)> CallAsync(Target target, string? credential, byte[] request)
    {
        var headers = new Metadata();
        if (credential?.StartsWith("Bearer ", StringComparison.Ordinal) == true)
        {
            headers.Add("authorization", credential);
        }
        else if (credential is not null)
        {
            headers.Add(CredentialHeaders.Key, credential);
        }

        using var channel = GrpcChannel.ForAddress(platform.Processes[target.Process].Ports.GrpcAddress);
        var name = target.Key.Split('/');
        var method = target.Grpc!.Method.Type;
        var call = new Method<byte[], byte[]>(method, name[0], name[1], Bytes, Bytes);
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(Token);
        limit.CancelAfter(TimeSpan.FromSeconds(30));
        var options = new CallOptions(headers, cancellationToken: limit.Token);
        var invoker = channel.CreateCallInvoker();
        var answered = new StringBuilder();
        try
        {
            switch (method)
            {
                case MethodType.Unary:
                    answered.Append(Encoding.Latin1.GetString(await invoker.AsyncUnaryCall(call, null, options, request).ResponseAsync));
                    break;
                case MethodType.ServerStreaming:
                    using (var stream = invoker.AsyncServerStreamingCall(call, null, options, request))
                    {
                        // The first message is enough: a watch would stay open.
                        if (await stream.ResponseStream.MoveNext(limit.Token))
                        {
                            answered.Append(Encoding.Latin1.GetString(stream.ResponseStream.Current));
                        }
                    }

                    break;
                case MethodType.ClientStreaming:
                    using (var upload = invoker.AsyncClientStreamingCall(call, null, options))
                    {
                        try
                        {
                            await upload.RequestStream.WriteAsync(request, limit.Token);
                            await upload.RequestStream.CompleteAsync();
                        }
                        catch (Exception e) when (e is RpcException or InvalidOperationException)
                        {
                            // The server answered (a refusal) before the request was written: its status is the response's.
                        }

                        answered.Append(Encoding.Latin1.GetString(await upload.ResponseAsync));
                    }

                    break;
                default:
                    throw new InvalidOperationException($"{target}: {method} calls are not covered.");
            }

            return (StatusCode.OK, "", answered.ToString());
        }
        catch (RpcException e)
        {
            return (e.StatusCode, e.Status.Detail, answered.ToString());
        }
    }
}
