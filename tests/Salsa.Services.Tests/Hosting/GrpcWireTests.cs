using System.Net.Http.Headers;
using Google.Protobuf;
using Grpc.Core;
using Salsa.Census;
using Salsa.Contracts.Census;
using Salsa.Services.Tests.Census;
using Salsa.Services.Tests.Support;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// What a caller sees of the protocol on a service's two ports, beyond what grpc-dotnet does alone:
/// deadlines judged before any work, a malformed deadline refused, a malformed message refused as a
/// bad argument, unknown methods UNIMPLEMENTED on the gRPC port, and plain HTTP answers on the REST port.
/// </summary>
public sealed class GrpcWireTests(CensusServiceFixture fixture) : IClassFixture<CensusServiceFixture>
{
    private const string Import = "/salsa.census.v1.Census/Import";

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    private ServiceUnderTest<CensusService> Service => fixture.Service;

    private static byte[] ImportOf(string source) => new ImportCensusRequest { Source = source }.ToByteArray();

    [Theory]
    [InlineData("soon")]
    [InlineData("123456789S")]
    [InlineData("5")]
    [InlineData("-1S")]
    public async Task GrpcTimeout_Malformed_RefusedBeforeAnyWork(string timeout)
    {
        var before = await Service.Rest.CountDatasetsAsync();

        var (status, message) = await RawGrpc.CallAsync(Service.Ports.GrpcAddress, Import, ImportOf("us"), new Dictionary<string, string> { ["grpc-timeout"] = timeout });

        Assert.Equal((int)StatusCode.Internal, status);
        Assert.Contains($"Malformed grpc-timeout '{timeout}'", message, StringComparison.Ordinal);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task GrpcTimeout_AlreadyPassedWhenTheCallArrives_DeadlineExceededAndNothingImported()
    {
        var before = await Service.Rest.CountDatasetsAsync();

        var (status, _) = await RawGrpc.CallAsync(Service.Ports.GrpcAddress, Import, ImportOf("us"), new Dictionary<string, string> { ["grpc-timeout"] = "1n" });

        Assert.Equal((int)StatusCode.DeadlineExceeded, status);
        Assert.Equal(before, await Service.Rest.CountDatasetsAsync());
    }

    [Fact]
    public async Task GrpcDeadline_ClientLibraryDeadline_HonouredAndSucceedsWhenGenerous()
    {
        var client = new Salsa.Contracts.Clients.CensusClient(Service.Grpc);

        var expired = await Assert.ThrowsAsync<RpcException>(async () =>
            await client.ImportAsync(new ImportCensusRequest { Source = "indiana" }, deadline: DateTime.UtcNow.AddMinutes(-1), cancellationToken: Token));
        var imported = await client.ImportAsync(new ImportCensusRequest { Source = "indiana" }, deadline: DateTime.UtcNow.AddMinutes(1), cancellationToken: Token);

        Assert.Equal(StatusCode.DeadlineExceeded, expired.StatusCode);
        Assert.Equal(fixture.Indiana.ToString(), imported.DatasetId);
    }

    [Fact]
    public async Task GrpcMessage_NotProtobuf_InvalidArgumentNamingTheMessage()
    {
        var (status, message) = await RawGrpc.CallAsync(Service.Ports.GrpcAddress, Import, [0xff, 0xff, 0xff, 0xff, 0xff]);

        Assert.Equal((int)StatusCode.InvalidArgument, status);
        Assert.Contains("not a valid ImportCensusRequest message", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/salsa.census.v1.Census/NoSuchMethod")]
    [InlineData("/no.such.v1.Service/Call")]
    [InlineData("/")]
    public async Task GrpcPort_UnknownServiceOrMethod_Unimplemented(string path)
    {
        var (status, message) = await RawGrpc.CallAsync(Service.Ports.GrpcAddress, path, []);

        Assert.Equal((int)StatusCode.Unimplemented, status);
        Assert.Contains(path, message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RestPort_RoutingAnswers_404_405WithAllow_415_AndGrpcOverHttp11_426()
    {
        using var unknown = await Service.Rest.GetAsync("/api/census/nothing-here", Token);
        using var wrongMethod = await Service.Rest.PutAsync("/api/census/imports", null, Token);
        using var body = new StringContent("source=indiana");
        body.Headers.ContentType = new MediaTypeHeaderValue("text/plain");
        using var wrongType = await Service.Rest.PostAsync("/api/census/imports", body, Token);
        using var grpcOnRest = new HttpRequestMessage(HttpMethod.Post, Import) { Content = new ByteArrayContent([0, 0, 0, 0, 0]) };
        grpcOnRest.Content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");

        await RestCalls.ProblemAsync(unknown, 404, requireDetail: false);
        await RestCalls.ProblemAsync(wrongMethod, 405, requireDetail: false);
        Assert.Equal(["POST"], wrongMethod.Content.Headers.Allow);
        await RestCalls.ProblemAsync(wrongType, 415, requireDetail: false);
        // A gRPC call sent to the HTTP/1.1 REST port is told to use HTTP/2.
        using var grpcOnRestResponse = await Service.Rest.SendAsync(grpcOnRest, Token);
        await RestCalls.ProblemAsync(grpcOnRestResponse, 426, requireDetail: false);
    }
}
