using System.Globalization;
using System.Net;
using System.Text;
using System.Text.Json;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Reflection.V1Alpha;
using Salsa.Annealing;
using Salsa.Census;
using Salsa.Chem;
using Salsa.Fingerprints;
using Salsa.KMeans;
using Salsa.Mds;
using Salsa.Render;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// Generated bad requests against every REST operation of every service's OpenAPI document and every
/// gRPC method its reflection lists: no 5xx (gRPC: no UNKNOWN or INTERNAL), every service alive, and
/// nothing changed in the store. Seeded (<c>SALSA_FUZZ_SEED</c> replays another run), so a failure
/// names the request and reproduces.
/// </summary>
public sealed class FuzzTests(EveryServiceFixture fixture) : IClassFixture<EveryServiceFixture>
{
    private const int DefaultSeed = 20261126;
    private static readonly string[] Names = [AnnealingService.Name, KMeansService.Name, FingerprintsService.Name, MdsService.Name, CensusService.Name, ChemService.Name, RenderService.Name];

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private static int Seed => int.TryParse(Environment.GetEnvironmentVariable("SALSA_FUZZ_SEED"), CultureInfo.InvariantCulture, out var seed) ? seed : DefaultSeed;

    [Fact]
    public Task RestOperations_GeneratedBadRequests_No5xxNothingChanged() => FuzzAsync("bad requests", 1_000, async (name, service, random, failures) =>
    {
        var sent = 0;
        using var document = JsonDocument.Parse(await service.Rest.GetStringAsync("/openapi/v1.json", Token));
        foreach (var path in document.RootElement.GetProperty("paths").EnumerateObject().Where(p => p.Name.StartsWith("/api/", StringComparison.Ordinal)))
        {
            foreach (var operation in path.Value.EnumerateObject().Where(o => o.Name is "get" or "post" or "delete" or "put"))
            {
                var contentType = operation.Value.TryGetProperty("requestBody", out var body) ? body.GetProperty("content").EnumerateObject().First().Name : null;
                for (var i = 0; i < 12; i++, sent++)
                {
                    using var request = BadRequest(random, operation.Name, path.Name, operation.Value, contentType);
                    var described = $"{name}: {request.Method} {request.RequestUri} ({request.Content?.Headers.ContentType?.MediaType ?? "no body"}, seed {Seed})";
                    using var limit = CancellationTokenSource.CreateLinkedTokenSource(Token);
                    limit.CancelAfter(TimeSpan.FromSeconds(20));
                    try
                    {
                        using var response = await service.Rest.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, limit.Token);
                        if ((int)response.StatusCode >= 500)
                        {
                            failures.Add($"{described} → {(int)response.StatusCode} {await response.Content.ReadAsStringAsync(Token)}");
                        }
                    }
                    catch (OperationCanceledException) when (!Token.IsCancellationRequested)
                    {
                        failures.Add($"{described} → no answer in 20 s");
                    }
                }
            }
        }

        return sent;
    });

    [Fact]
    public Task GrpcMethods_MalformedProtobuf_NoUnknownOrInternalNothingChanged() => FuzzAsync("malformed calls", 300, async (name, service, random, failures) =>
    {
        var sent = 0;
        foreach (var method in await MethodsAsync(service))
        {
            for (var i = 0; i < 8; i++, sent++)
            {
                var message = MalformedMessage(random);
                var (status, text) = await RawGrpc.CallAsync(service.Ports.GrpcAddress, method, message);
                if (status is 2 or 12 or 13)
                {
                    failures.Add($"{name}: {method} with {Convert.ToHexString(message)} (seed {Seed}) → status {status}: {text}");
                }
            }
        }

        return sent;
    });

    /// <summary>
    /// Sends what <paramref name="perService"/> generates to each service (it returns how many it sent
    /// and adds the answers that were faults), then checks that at least <paramref name="minimum"/>
    /// went out, none was a fault, every service lives and the store is as it was.
    /// </summary>
    private async Task FuzzAsync(string what, int minimum, Func<string, IRunningService, Random, List<string>, Task<int>> perService)
    {
        var random = new Random(Seed);
        var before = await StoreStateAsync();
        var sent = 0;
        var failures = new List<string>();
        foreach (var name in Names)
        {
            sent += await perService(name, fixture[name], random, failures);
        }

        Assert.True(sent >= minimum, $"only {sent} {what}");
        Assert.True(failures.Count == 0, $"{failures.Count} of {sent} {what} were answered as faults:\n{string.Join('\n', failures.Take(20))}");
        await AssertAliveAndUnchangedAsync(before);
    }

    /// <summary>Every method of every service the gRPC reflection lists (besides reflection and health), as <c>/package.Service/Method</c>.</summary>
    private static async Task<List<string>> MethodsAsync(IRunningService service)
    {
        using var call = new ServerReflection.ServerReflectionClient(service.Grpc).ServerReflectionInfo(GrpcCalls.Options);
        await call.RequestStream.WriteAsync(new ServerReflectionRequest { ListServices = "" }, Token);
        Assert.True(await call.ResponseStream.MoveNext(Token));
        var names = call.ResponseStream.Current.ListServicesResponse.Service.Select(s => s.Name)
            .Where(n => !n.StartsWith("grpc.", StringComparison.Ordinal)).ToList();
        var methods = new List<string>();
        foreach (var name in names)
        {
            await call.RequestStream.WriteAsync(new ServerReflectionRequest { FileContainingSymbol = name }, Token);
            Assert.True(await call.ResponseStream.MoveNext(Token));
            var files = call.ResponseStream.Current.FileDescriptorResponse.FileDescriptorProto.Select(FileDescriptorProto.Parser.ParseFrom);
            var described = files.SelectMany(f => f.Service.Select(s => (Full: $"{f.Package}.{s.Name}", s))).First(s => s.Full == name).s;
            methods.AddRange(described.Method.Select(m => $"/{name}/{m.Name}"));
        }

        await call.RequestStream.CompleteAsync();
        Assert.NotEmpty(methods);
        return methods;
    }

    private static byte[] MalformedMessage(Random random) => random.Next(6) switch
    {
        // Random bytes: wire types and lengths that lie.
        0 => RandomBytes(random, random.Next(1, 64)),
        // A length-delimited field claiming more bytes than follow.
        1 => [(byte)((random.Next(1, 15) << 3) | 2), 0xFF, 0xFF, 0x7F, .. RandomBytes(random, 3)],
        // A varint that never ends.
        2 => [(byte)(random.Next(1, 15) << 3), .. Enumerable.Repeat((byte)0xFF, 12)],
        // Field number 0 (invalid) or a group start without its end.
        3 => random.Next(2) == 0 ? [0x00, 0x01] : [(byte)((random.Next(1, 15) << 3) | 3), 0x08, 0x01],
        // A string field holding invalid UTF-8.
        4 => [(byte)((random.Next(1, 6) << 3) | 2), 0x04, 0xC3, 0x28, 0xFF, 0xFE],
        // A valid message of random small fields (wrong types for what the method expects).
        _ => ValidShapedGarbage(random),
    };

    private static byte[] ValidShapedGarbage(Random random)
    {
        using var stream = new MemoryStream();
        using var output = new CodedOutputStream(stream);
        for (var i = random.Next(1, 5); i > 0; i--)
        {
            var field = random.Next(1, 12);
            switch (random.Next(3))
            {
                case 0:
                    output.WriteTag(field, WireFormat.WireType.Varint);
                    output.WriteInt64(random.NextInt64(long.MinValue, long.MaxValue));
                    break;
                case 1:
                    output.WriteTag(field, WireFormat.WireType.Fixed64);
                    output.WriteDouble(random.Next(3) switch { 0 => double.NaN, 1 => double.PositiveInfinity, _ => -1e308 });
                    break;
                default:
                    output.WriteTag(field, WireFormat.WireType.LengthDelimited);
                    output.WriteString(random.Next(2) == 0 ? "not-a-guid" : new string('x', random.Next(0, 300)));
                    break;
            }
        }

        output.Flush();
        return stream.ToArray();
    }

    private static byte[] RandomBytes(Random random, int count)
    {
        var bytes = new byte[count];
        random.NextBytes(bytes);
        return bytes;
    }

    private static readonly string[] BadIds =
        ["zzz", "00000000-0000-0000-0000-000000000000", "not-a-guid-at-all", "..%2F..%2Fetc%2Fpasswd", "%00", "-1", "1e309", "%C3%BCml%C3%A4ut", new string('a', 3_000), "{id}", "NaN"];

    private static HttpRequestMessage BadRequest(Random random, string method, string template, JsonElement operation, string? contentType)
    {
        // Path ids: never one that exists (a random GUID names nothing), so nothing is touched.
        var path = System.Text.RegularExpressions.Regex.Replace(template, @"\{[^}]+\}", _ => random.Next(4) == 0 ? Guid.NewGuid().ToString() : BadIds[random.Next(BadIds.Length)]);
        var query = new List<string>();
        foreach (var parameter in operation.TryGetProperty("parameters", out var list) ? list.EnumerateArray() : default)
        {
            if (parameter.GetProperty("in").GetString() == "query" && random.Next(2) == 0)
            {
                query.Add($"{parameter.GetProperty("name").GetString()}={BadIds[random.Next(BadIds.Length)]}");
            }
        }

        var request = new HttpRequestMessage(new HttpMethod(method.ToUpperInvariant()), path + (query.Count > 0 ? "?" + string.Join('&', query) : ""));
        if (contentType is not null || random.Next(4) == 0)
        {
            request.Content = BadBody(random, contentType ?? "application/json");
        }

        return request;
    }

    private static StringContent BadBody(Random random, string contentType)
    {
        // Every JSON body here is invalid for any operation: malformed, of the wrong shape, or
        // carrying a member no request type has.
        var text = random.Next(9) switch
        {
            0 => "{\"datasetId\": ",
            1 => "[1, 2, 3]",
            2 => "{\"datasetId\":\"" + Guid.NewGuid() + "\",\"maxClusters\":3,\"clusters\":3,\"noSuchMember\":1}",
            3 => new string('[', 5_000) + new string(']', 5_000),
            4 => "{\"datasetId\":{\"nested\":[" + string.Join(',', Enumerable.Repeat("1e400", 50)) + "]}}",
            5 => "{\"maxClusters\":\"NaN\",\"coolingFactor\":\"Infinity\",\"zzz\":null}",
            6 => Encoding.Latin1.GetString(RandomBytes(random, random.Next(1, 200))),
            7 => "\"" + new string('x', 100_000) + "\"",
            _ => "null",
        };
        var content = new StringContent(text, Encoding.UTF8);
        content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue(random.Next(5) == 0 ? "text/plain" : contentType);
        return content;
    }

    /// <summary>What the store holds, as the services list it: every dataset and every service's jobs.</summary>
    private async Task<string> StoreStateAsync()
    {
        var state = new StringBuilder(await fixture[CensusService.Name].Rest.GetStringAsync("/api/datasets?limit=1000", Token));
        foreach (var name in new[] { AnnealingService.Name, KMeansService.Name, FingerprintsService.Name, MdsService.Name, RenderService.Name })
        {
            state.Append(await fixture[name].Rest.GetStringAsync("/api/jobs?limit=1000", Token));
        }

        return state.ToString();
    }

    private async Task AssertAliveAndUnchangedAsync(string before)
    {
        foreach (var name in Names)
        {
            using var alive = await fixture[name].Rest.GetAsync("/alive", Token);
            Assert.Equal(HttpStatusCode.OK, alive.StatusCode);
        }

        Assert.Equal(before, await StoreStateAsync());
    }
}
