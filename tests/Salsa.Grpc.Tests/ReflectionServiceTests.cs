using Google.Protobuf.Reflection;
using Salsa.Grpc.Reflection.V1Alpha;
using Salsa.Grpc.Tests.Support;
using V1 = Salsa.Grpc.Reflection.V1;

namespace Salsa.Grpc.Tests;

public sealed class ReflectionServiceTests(EchoServerFixture fixture) : IClassFixture<EchoServerFixture>
{
    private static readonly Method<ServerReflectionRequest, ServerReflectionResponse> Info =
        new(ReflectionV1AlphaReflection.Descriptor.Services[0], "ServerReflectionInfo");

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ListServices_MappedServices_AllListed()
    {
        var response = await AskAsync(new ServerReflectionRequest { ListServices = "" });

        Assert.Equal(
            ["grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection", "salsa.test.v1.Echo"],
            response.ListServicesResponse.Service.Select(s => s.Name).Order(StringComparer.Ordinal));
    }

    [Theory]
    [InlineData("salsa.test.v1.Echo")]
    [InlineData("salsa.test.v1.Echo.Duplex")]
    [InlineData("salsa.test.v1.EchoRequest")]
    public async Task FileContainingSymbol_KnownSymbol_ParseableFileDescriptor(string symbol)
    {
        var response = await AskAsync(new ServerReflectionRequest { FileContainingSymbol = symbol });

        var file = FileDescriptorProto.Parser.ParseFrom(response.FileDescriptorResponse.FileDescriptorProto[0]);
        Assert.Equal("Protos/echo.proto", file.Name);
        Assert.Equal("salsa.test.v1", file.Package);
        Assert.Equal("Echo", Assert.Single(file.Service).Name);
        Assert.Contains(file.Service[0].Method, m => m.Name == "Duplex" && m.ClientStreaming && m.ServerStreaming);
    }

    [Fact]
    public async Task FileByFilename_HealthProto_Returned()
    {
        var response = await AskAsync(new ServerReflectionRequest { FileByFilename = "health.proto" });

        var file = FileDescriptorProto.Parser.ParseFrom(response.FileDescriptorResponse.FileDescriptorProto[0]);
        Assert.Equal("grpc.health.v1", file.Package);
    }

    [Fact]
    public async Task FileContainingSymbol_Unknown_NotFoundErrorResponse()
    {
        var response = await AskAsync(new ServerReflectionRequest { FileContainingSymbol = "no.such.Symbol" });

        Assert.Equal((int)StatusCode.NotFound, response.ErrorResponse.ErrorCode);
    }

    [Fact]
    public async Task FileContainingExtension_NoExtensions_NotFoundErrorResponse()
    {
        var response = await AskAsync(new ServerReflectionRequest
        {
            FileContainingExtension = new ExtensionRequest { ContainingType = "salsa.test.v1.EchoRequest", ExtensionNumber = 100 },
        });

        Assert.Equal((int)StatusCode.NotFound, response.ErrorResponse.ErrorCode);
    }

    [Fact]
    public async Task ServerReflectionInfo_SeveralRequestsOnOneStream_AnsweredInOrder()
    {
        using var call = fixture.Channel.DuplexStreaming(Info, new CallOptions(CancellationToken: Token));
        await call.RequestStream.WriteAsync(new ServerReflectionRequest { ListServices = "" }, Token);
        await call.RequestStream.WriteAsync(new ServerReflectionRequest { FileContainingSymbol = "salsa.test.v1.Echo" }, Token);
        await call.RequestStream.CompleteAsync();

        var responses = await call.ResponseStream.ReadAllAsync(Token).ToListAsync(Token);

        Assert.Equal(2, responses.Count);
        Assert.NotNull(responses[0].ListServicesResponse);
        Assert.NotNull(responses[1].FileDescriptorResponse);
    }

    [Fact]
    public async Task V1ListServices_MappedServices_Listed()
    {
        var method = new Method<V1.ServerReflectionRequest, V1.ServerReflectionResponse>(V1.ReflectionV1Reflection.Descriptor.Services[0], "ServerReflectionInfo");
        using var call = fixture.Channel.DuplexStreaming(method, new CallOptions(CancellationToken: Token));
        await call.RequestStream.WriteAsync(new V1.ServerReflectionRequest { ListServices = "" }, Token);
        await call.RequestStream.CompleteAsync();

        Assert.True(await call.ResponseStream.MoveNext(Token));

        Assert.Contains(call.ResponseStream.Current.ListServicesResponse.Service, s => s.Name == "salsa.test.v1.Echo");
    }

    private async Task<ServerReflectionResponse> AskAsync(ServerReflectionRequest request)
    {
        using var call = fixture.Channel.DuplexStreaming(Info, new CallOptions(CancellationToken: Token));
        await call.RequestStream.WriteAsync(request, Token);
        await call.RequestStream.CompleteAsync();
        Assert.True(await call.ResponseStream.MoveNext(Token));
        var response = call.ResponseStream.Current;
        Assert.False(await call.ResponseStream.MoveNext(Token));
        return response;
    }
}
