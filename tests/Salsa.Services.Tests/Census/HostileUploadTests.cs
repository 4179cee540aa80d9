using System.Text;
using Google.Protobuf;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Salsa.Census;
using Salsa.Contracts.Census;
using Salsa.Contracts.Clients;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Census;

/// <summary>A census service with the file limits an operator leaves alone (256 MiB a file, 1 MiB a line), fetching plain http from 127.0.0.1.</summary>
public sealed class HostileUploadFixture : ServiceFixture<CensusService>
{
    protected override IReadOnlyDictionary<string, string?> Settings { get; } = new Dictionary<string, string?>
    {
        ["Salsa:Files:AllowHttp"] = "true",
        ["Salsa:Files:AllowedNetworks:0"] = "127.0.0.1/32",
    };
}

/// <summary>
/// Uploads bounded by what they expand to, over every way a file arrives: a quarter-megabyte gzip
/// of one 250 MiB line is refused at that line (it was stored before, after the process grew by
/// gigabytes), over REST, a gRPC stream and an allowed URL alike; bytes after the last gzip member
/// are refused (they were ignored); a body that is not a file is held to 1 MiB, a file is not.
/// </summary>
public sealed class HostileUploadTests(HostileUploadFixture fixture) : IClassFixture<HostileUploadFixture>
{
    private ServiceUnderTest<CensusService> Service => fixture.Service;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    /// <summary>A place file whose second line holds an id of 250 MiB, gzip-compressed in pieces.</summary>
    private static readonly Lazy<byte[]> s_oneHugeLine = new(() => HostileFiles.GzipOfOneHugeLine());

    private const string Refusal = "line 2 is longer than 16,777,216 bytes, the longest line a file may have here (Salsa:Files:MaxRecordBytes); nothing of it is stored.";

    [Fact]
    public async Task OneLineOf250MiB_OverRest_413AtThatLine_NothingStored()
    {
        Assert.InRange(s_oneHugeLine.Value.Length, 1, 400_000);
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=huge.csv", new ByteArrayContent(s_oneHugeLine.Value), Token);

        Assert.Equal($"huge.csv {Refusal}", await RestCalls.ProblemAsync(response, 413));
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task OneLineOf250MiB_OverAGrpcStream_ResourceExhausted()
    {
        using var call = new CensusClient(Service.Grpc).Upload(cancellationToken: Token);
        await call.RequestStream.WriteAsync(new UploadPlacesRequest { Header = new UploadPlacesHeader { Name = "huge.csv" } }, Token);
        foreach (var chunk in s_oneHugeLine.Value.Chunk(64 * 1024))
        {
            await call.RequestStream.WriteAsync(new UploadPlacesRequest { Chunk = ByteString.CopyFrom(chunk) }, Token);
        }

        await call.RequestStream.CompleteAsync();
        var error = await Assert.ThrowsAsync<Grpc.Core.RpcException>(async () => await call);

        Assert.Equal((Grpc.Core.StatusCode.ResourceExhausted, $"huge.csv {Refusal}"), (error.StatusCode, error.Status.Detail));
    }

    [Fact]
    public async Task OneLineOf250MiB_ThroughAnAllowedUrl_413AtThatLine()
    {
        await using var server = await FileServerAsync(s_oneHugeLine.Value);

        using var response = await Service.Rest.PostJsonTextAsync("/api/census/imports", $"{{\"location\":\"{server.Urls.First()}/files/huge.csv\"}}");

        Assert.Equal($"huge.csv {Refusal}", await RestCalls.ProblemAsync(response, 413));
    }

    [Fact]
    public async Task BytesAfterTheLastGzipMember_400_NothingStored()
    {
        var file = Fixtures.Gzip(CensusUploadTests.TownsCsv()).Concat("and then some"u8.ToArray()).ToArray();
        var before = await Service.Rest.CountDatasetsAsync();

        using var response = await Service.Rest.PostAsync("/api/census/uploads?name=joined.csv.gz&id=town_id", new ByteArrayContent(file), Token);

        Assert.StartsWith("joined.csv.gz: bytes follow the last gzip member", await RestCalls.ProblemAsync(response, 400), StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task ABodyThatIsNotAFile_HeldToOneMegabyte_AFileIsNot()
    {
        var padding = new string(' ', 2 << 20);
        using var query = await Service.Rest.PostOversizedAsync("/api/census/queries",
            new StringContent($"{{\"datasetId\":\"{Guid.NewGuid()}\"{padding}}}", Encoding.UTF8, "application/json"));
        Assert.Equal("The request body is larger than this service's limit of 1,048,576 bytes (Salsa:Limits:MaxRequestBytes).", await RestCalls.ProblemAsync(query, 413));

        // A 3 MB place file, over REST and over a gRPC stream.
        var rows = string.Concat(Enumerable.Range(0, 120_000).Select(i => FormattableString.Invariant($"p{i},{40 + (i % 1000) / 1000.0},{-86 - (i % 997) / 1000.0},{i % 500}\n")));
        var csv = "id,latitude,longitude,population\n" + rows;
        Assert.True(csv.Length > 2 << 20, $"{csv.Length:N0}");
        using var upload = await Service.Rest.PostAsync("/api/census/uploads?name=big.csv", new StringContent(csv, Encoding.UTF8, "text/csv"), Token);
        await RestCalls.EnsureAsync(upload);

        using var call = new CensusClient(Service.Grpc).Upload(cancellationToken: Token);
        await call.RequestStream.WriteAsync(new UploadPlacesRequest { Header = new UploadPlacesHeader { Name = "big.csv" } }, Token);
        foreach (var chunk in Encoding.UTF8.GetBytes(csv).Chunk(64 * 1024))
        {
            await call.RequestStream.WriteAsync(new UploadPlacesRequest { Chunk = ByteString.CopyFrom(chunk) }, Token);
        }

        await call.RequestStream.CompleteAsync();
        Assert.Equal(120_000, (await call).Count);
    }

    private static async Task<WebApplication> FileServerAsync(byte[] file)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.Sources.Clear();
        builder.Configuration.AddInMemoryCollection();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        var app = builder.Build();
        app.MapGet("/files/huge.csv", () => Results.Bytes(file, "application/gzip"));
        await app.StartAsync(Token);
        return app;
    }
}
