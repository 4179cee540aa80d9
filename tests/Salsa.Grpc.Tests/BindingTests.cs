using Microsoft.AspNetCore.Builder;
using Salsa.Grpc.Tests.Echo;

namespace Salsa.Grpc.Tests;

[System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1822:Mark members as static", Justification = "Service methods are bound as instance methods.")]
public sealed class BindingTests
{
    [Fact]
    public void MapGrpcService_MissingMethods_FailsNamingEachWithExpectedSignature()
    {
        var ex = Assert.Throws<InvalidOperationException>(() => Map<IncompleteService>());

        Assert.Contains("'ServerStream': no public method named ServerStream or ServerStreamAsync", ex.Message, StringComparison.Ordinal);
        Assert.Contains("Task ServerStream(EchoRequest request, IServerStreamWriter<EchoReply> responses, ServerCallContext context)", ex.Message, StringComparison.Ordinal);
        Assert.Contains("'Unimplemented'", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void MapGrpcService_WrongSignature_FailsShowingFoundAndExpected()
    {
        var ex = Assert.Throws<InvalidOperationException>(() => Map<MistypedService>());

        Assert.Contains("`Task<EchoReply> Unary(String request, ServerCallContext context)` does not have the expected signature `Task<EchoReply> Unary(EchoRequest request, ServerCallContext context)`", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void MapGrpcService_WithoutAddSalsaGrpc_FailsSayingSo()
    {
        var builder = WebApplication.CreateSlimBuilder();
        using var app = builder.Build();

        var ex = Assert.Throws<InvalidOperationException>(() => app.MapGrpcService<MistypedService>(EchoReflection.Descriptor.Services[0]));

        Assert.Contains("AddSalsaGrpc", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void MapGrpcService_AsyncSuffixAndValueTask_Binds()
    {
        Map<AsyncSuffixService>();
    }

    private static void Map<TService>()
        where TService : class
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Services.AddSalsaGrpc();
        using var app = builder.Build();
        app.MapGrpcService<TService>(EchoReflection.Descriptor.Services[0]);
    }

    private sealed class IncompleteService
    {
        public Task<EchoReply> Unary(EchoRequest request, ServerCallContext context) => Task.FromResult(new EchoReply());
    }

    private sealed class MistypedService
    {
        public Task<EchoReply> Unary(string request, ServerCallContext context) => Task.FromResult(new EchoReply());
    }

    [UnimplementedRpc("WaitForCancellation")]
    [UnimplementedRpc("Fail")]
    [UnimplementedRpc("Throw")]
    [UnimplementedRpc("Unimplemented")]
    private sealed class AsyncSuffixService
    {
        public ValueTask<EchoReply> UnaryAsync(EchoRequest request, ServerCallContext context) => ValueTask.FromResult(new EchoReply());

        public Task ServerStreamAsync(EchoRequest request, IServerStreamWriter<EchoReply> responses, ServerCallContext context) => Task.CompletedTask;

        public Task<EchoReply> ClientStreamAsync(IAsyncStreamReader<EchoRequest> requests, ServerCallContext context) => Task.FromResult(new EchoReply());

        public Task DuplexAsync(IAsyncStreamReader<EchoRequest> requests, IServerStreamWriter<EchoReply> responses, ServerCallContext context) => Task.CompletedTask;
    }
}
