using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Google.Protobuf.Reflection;
using Grpc.Core;
using Grpc.Health.V1;
using Grpc.Net.Client;
using Grpc.Reflection.V1Alpha;
using Salsa.Annealing;
using Salsa.Census;
using Salsa.Chem;
using Salsa.Contracts.Clients;
using Salsa.Fingerprints;
using Salsa.Hosting.Host;
using Salsa.Hosting.Timing;
using Salsa.KMeans;
using Salsa.Mds;
using Salsa.Render;
using Salsa.Services.Tests.Support;
using Salsa.Testing;
using ServingStatus = Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus;

namespace Salsa.Services.Tests.Hosting;

/// <summary>All seven services, running at once on one shared SQLite store, as a deployment runs them.</summary>
public sealed class EveryServiceFixture : IAsyncLifetime
{
    private readonly TemporaryDirectory _directory = new();
    private readonly Dictionary<string, IRunningService> _services = [];

    public IRunningService this[string name] => _services[name];

    public async ValueTask InitializeAsync()
    {
        var store = TestStore.Sqlite(_directory);
        var started = await Task.WhenAll(
            StartAsync<AnnealingService>(store),
            StartAsync<KMeansService>(store),
            StartAsync<FingerprintsService>(store),
            StartAsync<MdsService>(store),
            StartAsync<CensusService>(store),
            StartAsync<ChemService>(store),
            StartAsync<RenderService>(store));
        foreach (var (name, service) in started)
        {
            _services[name] = service;
        }
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var service in _services.Values)
        {
            await service.DisposeAsync();
        }

        _directory.Dispose();
    }

    private static async Task<(string Name, IRunningService Service)> StartAsync<TService>(TestStore store)
        where TService : ISalsaService =>
        (TService.Name, await ServiceUnderTest.StartAsync<TService>(store));
}

/// <summary>
/// What the shared hosting gives every service, whether or not it maps endpoints of its own:
/// OpenAPI and its UI, health over HTTP and gRPC, gRPC reflection, Server-Timing on every response,
/// and the caller's W3C trace continued.
/// </summary>
public sealed class EveryServiceTests(EveryServiceFixture fixture) : IClassFixture<EveryServiceFixture>
{
    private static readonly string[] DatasetRestPaths = ["/api/datasets", "/api/datasets/csv", "/api/datasets/{id}"];

    private static readonly string[] JobRestPaths =
        ["/api/jobs", "/api/jobs/{id}", "/api/jobs/{id}/events", "/api/jobs/{id}/cancel", "/api/jobs/{id}/result", "/api/jobs/{id}/artifacts/{name}"];

    /// <summary>The services that run jobs, and so add the shared Jobs API; census and chem answer at once.</summary>
    private static readonly HashSet<string> JobServices = [AnnealingService.Name, KMeansService.Name, FingerprintsService.Name, MdsService.Name, RenderService.Name];

    private static readonly string[] SharedGrpcServices =
        ["salsa.datasets.v1.Datasets", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"];

    /// <summary>The services that map their own endpoints in this branch, and one REST path and the gRPC service of each.</summary>
    private static readonly Dictionary<string, (string RestPath, string GrpcService)> Own = new()
    {
        [AnnealingService.Name] = ("/api/annealing/jobs", "salsa.annealing.v1.Annealing"),
        [KMeansService.Name] = ("/api/kmeans/jobs", "salsa.kmeans.v1.KMeans"),
        [CensusService.Name] = ("/api/census/queries", "salsa.census.v1.Census"),
        [ChemService.Name] = ("/api/chem/imports", "salsa.chem.v1.Chem"),
        [FingerprintsService.Name] = ("/api/fingerprints/search", "salsa.fingerprints.v1.Fingerprints"),
        [MdsService.Name] = ("/api/mds/jobs", "salsa.mds.v1.Mds"),
        [RenderService.Name] = ("/api/render/census-map", "salsa.render.v1.Render"),
    };

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    public static TheoryData<string> Services =>
    [
        AnnealingService.Name, KMeansService.Name, FingerprintsService.Name, MdsService.Name, CensusService.Name, ChemService.Name, RenderService.Name,
    ];

    [Theory]
    [MemberData(nameof(Services))]
    public async Task OpenApi_ValidJson_ListsDatasetPathsAndJobPathsOfJobServices(string name)
    {
        using var document = JsonDocument.Parse(await fixture[name].Rest.GetStringAsync("/openapi/v1.json", Token));

        var root = document.RootElement;
        Assert.StartsWith("3.", root.GetProperty("openapi").GetString(), StringComparison.Ordinal);
        var paths = root.GetProperty("paths").EnumerateObject().Select(p => p.Name.TrimEnd('/')).ToHashSet(StringComparer.Ordinal);
        foreach (var path in DatasetRestPaths.Concat(JobServices.Contains(name) ? JobRestPaths : []).Concat(Own.TryGetValue(name, out var own) ? [own.RestPath] : []))
        {
            Assert.True(paths.Contains(path), $"{name}: {path} is not in the OpenAPI document ({string.Join(", ", paths)})");
        }

        if (!JobServices.Contains(name))
        {
            Assert.DoesNotContain("/api/jobs", paths);
        }
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task OpenApi_RunningDocument_IsTheCommittedContract(string name)
    {
        var difference = OpenApiContract.Difference(name, await fixture[name].Rest.GetStringAsync("/openapi/v1.json", Token));

        Assert.True(difference is null, difference);
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task Version_EveryService_NamesTheReleaseOverRestAndGrpc(string name)
    {
        var release = Release.Version;
        using var response = await fixture[name].Rest.GetAsync("/api/version", Token);
        using var version = JsonDocument.Parse(await response.Content.ReadAsStringAsync(Token));
        var health = new Health.HealthClient(fixture[name].Grpc).CheckAsync(new HealthCheckRequest(), cancellationToken: Token);
        var metadata = await health.ResponseHeadersAsync;
        using var problem = await fixture[name].Rest.GetAsync("/api/datasets/not-an-id", Token);

        Assert.Equal((name, release, "v1"), (version.RootElement.GetProperty("service").GetString(), version.RootElement.GetProperty("version").GetString(), version.RootElement.GetProperty("contract").GetString()));
        Assert.Equal(release, Assert.Single(response.Headers.GetValues(Salsa.Hosting.SalsaVersion.Header)));
        Assert.Equal(release, metadata.GetValue("salsa-version"));
        Assert.Equal(HttpStatusCode.BadRequest, problem.StatusCode);
        Assert.Equal(release, Assert.Single(problem.Headers.GetValues(Salsa.Hosting.SalsaVersion.Header))); // errors name it too
        Assert.Equal(release, Salsa.Hosting.SalsaVersion.Informational.Split('+')[0]);
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task OpenApi_EveryOperation_DeclaresItsProblemResponsesAndIdFormats(string name)
    {
        using var document = JsonDocument.Parse(await fixture[name].Rest.GetStringAsync("/openapi/v1.json", Token));
        var root = document.RootElement;
        Assert.Equal("object", root.GetProperty("components").GetProperty("schemas").GetProperty("ProblemDetails").GetProperty("type").GetString());

        var checkedOperations = 0;
        foreach (var path in root.GetProperty("paths").EnumerateObject().Where(p => p.Name.StartsWith("/api/", StringComparison.Ordinal)))
        {
            foreach (var operation in path.Value.EnumerateObject().Where(o => o.Name is "get" or "post" or "delete" or "put"))
            {
                var responses = operation.Value.GetProperty("responses");
                var where = $"{name}: {operation.Name.ToUpperInvariant()} {path.Name}";
                void Declares(string status)
                {
                    Assert.True(responses.TryGetProperty(status, out var response), $"{where} does not declare {status}");
                    var schema = response.GetProperty("content").GetProperty("application/problem+json").GetProperty("schema");
                    Assert.Equal("#/components/schemas/ProblemDetails", schema.GetProperty("$ref").GetString());
                }

                if (path.Name.Contains('{', StringComparison.Ordinal))
                {
                    Declares("400");
                    Declares("404");
                }

                if (operation.Value.TryGetProperty("requestBody", out var body))
                {
                    Declares("400");
                    Declares("413");
                    Declares("415");
                    if (BodyMembers(root, body).Any(m => m.EndsWith("Id", StringComparison.Ordinal)))
                    {
                        Declares("404"); // the dataset or job the body names may not exist
                    }
                }

                if (operation.Name == "post" && responses.TryGetProperty("202", out _))
                {
                    Declares("429");
                }

                foreach (var parameter in operation.Value.TryGetProperty("parameters", out var list) ? list.EnumerateArray() : default)
                {
                    if (parameter.GetProperty("in").GetString() == "path" && parameter.GetProperty("name").GetString() == "id")
                    {
                        Assert.Equal("uuid", parameter.GetProperty("schema").GetProperty("format").GetString());
                    }
                }

                checkedOperations++;
            }
        }

        Assert.True(checkedOperations >= 5, $"{name}: {checkedOperations} operations");
    }

    /// <summary>The members of a request body's JSON schema, its reference followed.</summary>
    private static List<string> BodyMembers(JsonElement root, JsonElement body)
    {
        if (!body.GetProperty("content").TryGetProperty("application/json", out var json))
        {
            return [];
        }

        var schema = json.GetProperty("schema");
        if (schema.TryGetProperty("$ref", out var reference))
        {
            schema = root.GetProperty("components").GetProperty("schemas").GetProperty(reference.GetString()!["#/components/schemas/".Length..]);
        }

        return schema.TryGetProperty("properties", out var properties) ? properties.EnumerateObject().Select(p => p.Name).ToList() : [];
    }

    [Fact]
    public async Task OpenApi_JobEventStream_EveryEventSentFitsTheSchemaItsNameMapsTo()
    {
        var annealing = fixture["annealing"];
        using var document = JsonDocument.Parse(await annealing.Rest.GetStringAsync("/openapi/v1.json", Token));
        var declared = OpenApiEvents.Declared(document.RootElement, "/api/jobs/{id}/events");
        Assert.Equal(new Dictionary<string, string> { ["progress"] = "#/components/schemas/JobProgressUpdate", ["status"] = "#/components/schemas/JobView" }, declared);

        var dataset = await annealing.Rest.UploadCsvAsync("name=events&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
        var job = await annealing.Rest.StartJobAsync("/api/annealing/jobs", new { datasetId = dataset.DatasetId, maxClusters = 5, coolingFactor = 0.99, fixedCooling = true });
        var events = await annealing.Rest.WatchAsync(job.JobId);

        Assert.Contains(events, e => e.Event == "progress");
        Assert.Empty(events.SelectMany(e => OpenApiEvents.Misfits(document.RootElement, declared, e.Event, e.Data)).Distinct());
    }

    [Theory]
    [InlineData("annealing", "AnnealingRequest", "maxClusters", "coolingFactor")]
    [InlineData("kmeans", "KMeansRequest", "clusters", null)]
    [InlineData("mds", "EmbeddingRequest", "maxIterations", null)]
    [InlineData("fingerprints", "ButinaRequest", null, "cutoff")]
    public async Task OpenApi_RequestSchemas_StateTheRangesTheValidatorsEnforce(string name, string schemaName, string? count, string? fraction)
    {
        using var document = JsonDocument.Parse(await fixture[name].Rest.GetStringAsync("/openapi/v1.json", Token));
        var properties = document.RootElement.GetProperty("components").GetProperty("schemas").GetProperty(schemaName).GetProperty("properties");

        if (count is not null)
        {
            Assert.Equal(1, properties.GetProperty(count).GetProperty("minimum").GetInt32());
        }

        if (fraction is not null)
        {
            var schema = properties.GetProperty(fraction).ToString();
            Assert.Contains("exclusiveMinimum", schema, StringComparison.Ordinal);
            Assert.Contains("exclusiveMaximum", schema, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData("annealing", "AnnealingResult")]
    [InlineData("kmeans", "KMeansResult")]
    [InlineData("mds", "EmbeddingResult")]
    public async Task OpenApi_JobViewResult_IsOneOfTheServicesResultsOrNull(string name, string result)
    {
        using var document = JsonDocument.Parse(await fixture[name].Rest.GetStringAsync("/openapi/v1.json", Token));
        var schema = document.RootElement.GetProperty("components").GetProperty("schemas").GetProperty("JobView").GetProperty("properties").GetProperty("result");

        var choices = schema.GetProperty("oneOf").EnumerateArray().Select(c => c.TryGetProperty("$ref", out var r) ? r.GetString() : c.GetProperty("type").GetString()).ToList();
        Assert.Contains($"#/components/schemas/{result}", choices);
        Assert.Contains("null", choices);
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task Docs_SwaggerUi_AnswersWithThePage(string name)
    {
        using var response = await fixture[name].Rest.GetAsync("/docs", Token);
        var body = await response.Content.ReadAsStringAsync(Token);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/html", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains("swagger-ui", body, StringComparison.OrdinalIgnoreCase);
        Assert.Contains("/openapi/v1.json", await fixture[name].Rest.GetStringAsync("/docs/index.js", Token), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task ApiReference_Scalar_ServesThePageAndItsScriptsFromTheService(string name)
    {
        using var page = await fixture[name].Rest.GetAsync("/scalar/", Token);
        var body = await page.Content.ReadAsStringAsync(Token);
        Assert.Equal(HttpStatusCode.OK, page.StatusCode);
        Assert.Equal("text/html", page.Content.Headers.ContentType?.MediaType);
        Assert.Contains("\"url\":\"openapi/v1.json\"", body, StringComparison.Ordinal);
        Assert.Contains("\"withDefaultFonts\":false", body, StringComparison.Ordinal);
        Assert.Contains("\"telemetry\":false", body, StringComparison.Ordinal);
        // Every script the page loads is relative: served by the service, nothing from a CDN.
        var scripts = System.Text.RegularExpressions.Regex.Matches(body, "src=\"([^\"]+)\"").Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(["scalar.js", "scalar.aspnetcore.js"], scripts);

        using var script = await fixture[name].Rest.GetAsync("/scalar/scalar.js", Token);
        Assert.Equal(HttpStatusCode.OK, script.StatusCode);
        Assert.Equal("text/javascript", script.Content.Headers.ContentType?.MediaType);
        Assert.Contains("createApiReference", await script.Content.ReadAsStringAsync(Token), StringComparison.Ordinal);

        using var again = new HttpRequestMessage(HttpMethod.Get, "/scalar/scalar.js");
        again.Headers.IfNoneMatch.Add(script.Headers.ETag!);
        using var revalidated = await fixture[name].Rest.SendAsync(again, Token);
        Assert.Equal(HttpStatusCode.NotModified, revalidated.StatusCode);
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task BareErrors_UnknownRouteWrongMethodOrMediaType_ProblemDetailsButGrpcStatusOnGrpc(string name)
    {
        using var unknown = await fixture[name].Rest.GetAsync("/no/such/route", Token);
        using var method = await fixture[name].Rest.PutAsync("/api/datasets", null, Token);
        using var media = await fixture[name].Rest.PostAsync("/api/datasets", new StringContent("name=x", System.Text.Encoding.UTF8, "text/plain"), Token);

        await RestCalls.ProblemAsync(unknown, 404, requireDetail: false);
        await RestCalls.ProblemAsync(method, 405, requireDetail: false);
        Assert.Equal(["GET", "POST"], method.Content.Headers.Allow.Order(StringComparer.Ordinal));
        await RestCalls.ProblemAsync(media, 415, requireDetail: false);
        // The gRPC endpoint keeps the gRPC protocol's own answer for an unknown method.
        var (status, _) = await RawGrpc.CallAsync(fixture[name].Ports.GrpcAddress, "/no.such.v1.Service/Call", []);
        Assert.Equal((int)StatusCode.Unimplemented, status);
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task HealthAndAlive_Rest_200(string name)
    {
        foreach (var path in new[] { "/health", "/alive" })
        {
            using var response = await fixture[name].Rest.GetAsync(path, Token);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal("Healthy", await response.Content.ReadAsStringAsync(Token));
        }
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task GrpcHealthCheck_ServerAndSharedServices_Serving(string name)
    {
        var health = new Health.HealthClient(fixture[name].Grpc);
        string[] services = ["", "salsa.datasets.v1.Datasets", .. JobServices.Contains(name) ? ["salsa.common.v1.Jobs"] : Array.Empty<string>(), .. Own.TryGetValue(name, out var own) ? [own.GrpcService] : Array.Empty<string>()];

        foreach (var service in services)
        {
            var response = await health.CheckAsync(new HealthCheckRequest { Service = service }, GrpcCalls.Options);
            Assert.True(response.Status == ServingStatus.Serving, $"{name}: '{service}' is {response.Status}");
        }
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task GrpcReflection_ListsSharedServices_AndDescribesTheirFilesWithImports(string name)
    {
        var jobs = JobServices.Contains(name);
        using var call = new ServerReflection.ServerReflectionClient(fixture[name].Grpc).ServerReflectionInfo(GrpcCalls.Options);
        await call.RequestStream.WriteAsync(new ServerReflectionRequest { ListServices = "" }, Token);
        await call.RequestStream.WriteAsync(new ServerReflectionRequest { FileContainingSymbol = jobs ? "salsa.common.v1.Jobs" : "salsa.datasets.v1.Datasets" }, Token);
        await call.RequestStream.CompleteAsync();
        var responses = await call.ResponseStream.ReadAllAsync(Token).ToListAsync(Token);

        var listed = responses[0].ListServicesResponse.Service.Select(s => s.Name).ToList();
        foreach (var service in SharedGrpcServices.Concat(jobs ? ["salsa.common.v1.Jobs"] : []).Concat(Own.TryGetValue(name, out var own) ? [own.GrpcService] : []))
        {
            Assert.True(listed.Contains(service), $"{name}: reflection does not list {service} ({string.Join(", ", listed)})");
        }

        Assert.Equal(jobs, listed.Contains("salsa.common.v1.Jobs"));
        var files = responses[1].FileDescriptorResponse.FileDescriptorProto.Select(FileDescriptorProto.Parser.ParseFrom).ToList();
        if (jobs)
        {
            Assert.Equal("salsa.common.v1", files[0].Package);
            Assert.Contains(files[0].Service, s => s.Name == "Jobs" && s.Method.Any(m => m.Name == "Watch" && m.ServerStreaming));
            Assert.Contains(files, f => f.Name == "google/protobuf/timestamp.proto");
        }
        else
        {
            Assert.Equal("salsa.datasets.v1", files[0].Package);
            Assert.Contains(files[0].Service, s => s.Name == "Datasets" && s.Method.Any(m => m.Name == "Upload" && m.ClientStreaming));
        }
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task ServerTiming_EveryResponse_RestHeaderAndGrpcTrailer(string name)
    {
        var service = fixture[name];
        var unknown = Guid.NewGuid();
        string[] paths = ["/", "/health", "/alive", "/openapi/v1.json", "/docs/index.html", "/api/jobs", "/api/datasets", $"/api/jobs/{unknown}", "/api/datasets/zzz", "/no/such/route"];
        foreach (var path in paths)
        {
            using var response = await service.Rest.GetAsync(path, Token);
            AssertAppTiming(name, path, response);
        }

        using (var bad = await service.Rest.PostJsonTextAsync("/api/datasets", "{"))
        {
            AssertAppTiming(name, "POST /api/datasets", bad);
        }

        var datasets = new DatasetsClient(service.Grpc);
        using (var list = datasets.ListAsync(new Contracts.Datasets.ListDatasetsRequest(), GrpcCalls.Options))
        {
            await list;
            Assert.Contains("app;dur=", list.GetTrailers().GetValue(ServerTiming.TrailerName), StringComparison.Ordinal);
        }

        var missing = await Assert.ThrowsAsync<RpcException>(async () => await datasets.GetAsync(new Contracts.Datasets.DatasetRef { DatasetId = unknown.ToString() }, GrpcCalls.Options));
        Assert.Equal(StatusCode.NotFound, missing.StatusCode);
        Assert.Contains("app;dur=", missing.Trailers.GetValue(ServerTiming.TrailerName), StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Services))]
    public async Task TraceParent_RestAndGrpc_ServerSpansContinueTheCallersTrace(string name)
    {
        using var recorder = new ActivityRecorder("Microsoft.AspNetCore");
        // No propagator on the caller's handler: the traceparent the test writes is the one sent.
        using var handler = new SocketsHttpHandler { ActivityHeadersPropagator = null };

        var (restTrace, restParent) = (ActivityTraceId.CreateRandom(), ActivitySpanId.CreateRandom());
        using (var client = new HttpClient(handler, disposeHandler: false) { BaseAddress = fixture[name].Ports.RestAddress })
        using (var request = new HttpRequestMessage(HttpMethod.Get, "/api/datasets"))
        {
            request.Headers.Add("traceparent", $"00-{restTrace}-{restParent}-01");
            using var response = await client.SendAsync(request, Token);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        }

        var rest = await recorder.WaitForAsync(a => a.TraceId == restTrace && a.Kind == ActivityKind.Server, Token);
        Assert.Equal(restParent, rest.ParentSpanId);

        var (grpcTrace, grpcParent) = (ActivityTraceId.CreateRandom(), ActivitySpanId.CreateRandom());
        using var grpcHandler = new SocketsHttpHandler { ActivityHeadersPropagator = null };
        using (var channel = GrpcChannel.ForAddress(fixture[name].Ports.GrpcAddress, new GrpcChannelOptions { HttpHandler = grpcHandler }))
        {
            var headers = new Metadata { { "traceparent", $"00-{grpcTrace}-{grpcParent}-01" } };
            await new DatasetsClient(channel).ListAsync(new Contracts.Datasets.ListDatasetsRequest(), new CallOptions(headers, cancellationToken: Token));
        }

        // grpc-dotnet serves the call in ASP.NET Core's request span, named and tagged after the method.
        var call = await recorder.WaitForAsync(a => a.TraceId == grpcTrace && a.Kind == ActivityKind.Server, Token);
        Assert.Equal(grpcParent, call.ParentSpanId);
        Assert.Equal("salsa.datasets.v1.Datasets/List", call.DisplayName);
        Assert.Equal(("grpc", "salsa.datasets.v1.Datasets", "List", 0),
            (call.GetTagItem("rpc.system"), call.GetTagItem("rpc.service"), call.GetTagItem("rpc.method"), call.GetTagItem("rpc.grpc.status_code")));
    }

    private static void AssertAppTiming(string service, string request, HttpResponseMessage response)
    {
        Assert.True(response.Headers.TryGetValues(ServerTiming.HeaderName, out var values), $"{service}: {request} ({(int)response.StatusCode}) has no Server-Timing header");
        Assert.True(RestCalls.ParseServerTiming(string.Join(",", values)).ContainsKey("app"), $"{service}: {request} Server-Timing has no app entry");
    }
}
