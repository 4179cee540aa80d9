using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Salsa.Grpc.Health.V1;
using Salsa.Grpc.Tests.Support;
using ServingStatus = Salsa.Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus;

namespace Salsa.Grpc.Tests;

public sealed class HealthServiceTests
{
    private static readonly Method<HealthCheckRequest, HealthCheckResponse> Check = new(HealthReflection.Descriptor.Services[0], "Check");
    private static readonly Method<HealthCheckRequest, HealthCheckResponse> Watch = new(HealthReflection.Descriptor.Services[0], "Watch");

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Check_OverallWithHealthyChecks_Serving()
    {
        await using var server = await GrpcTestServer.StartAsync(services: s => s.AddHealthChecks().AddCheck("ok", () => HealthCheckResult.Healthy()));
        using var channel = server.CreateChannel();

        var response = await channel.UnaryAsync(Check, new HealthCheckRequest { Service = "" }, new CallOptions(CancellationToken: Token));

        Assert.Equal(ServingStatus.Serving, response.Status);
    }

    [Fact]
    public async Task Check_UnhealthyCheck_NotServingForOverallAndMappedServices()
    {
        await using var server = await GrpcTestServer.StartAsync(services: s => s.AddHealthChecks().AddCheck("down", () => HealthCheckResult.Unhealthy()));
        using var channel = server.CreateChannel();

        var overall = await channel.UnaryAsync(Check, new HealthCheckRequest(), new CallOptions(CancellationToken: Token));
        var echo = await channel.UnaryAsync(Check, new HealthCheckRequest { Service = "salsa.test.v1.Echo" }, new CallOptions(CancellationToken: Token));

        Assert.Equal(ServingStatus.NotServing, overall.Status);
        Assert.Equal(ServingStatus.NotServing, echo.Status);
    }

    [Fact]
    public async Task Check_ManyConcurrentCalls_RunTheHealthChecksOncePerCachePeriod()
    {
        var runs = 0;
        await using var server = await GrpcTestServer.StartAsync(services: s =>
        {
            s.AddHealthChecks().AddCheck("counted", () =>
            {
                Interlocked.Increment(ref runs);
                return HealthCheckResult.Healthy();
            });
            s.Configure<GrpcServerOptions>(o => o.Health.ResultCacheDuration = TimeSpan.FromMinutes(5));
        });
        using var channel = server.CreateChannel();

        var responses = await Task.WhenAll(Enumerable.Range(0, 200).Select(_ =>
            channel.UnaryAsync(Check, new HealthCheckRequest(), new CallOptions(CancellationToken: Token)).ResponseAsync));

        Assert.All(responses, r => Assert.Equal(ServingStatus.Serving, r.Status));
        Assert.Equal(1, Volatile.Read(ref runs));
    }

    [Fact]
    public async Task Check_UnknownService_NotFound()
    {
        await using var server = await GrpcTestServer.StartAsync();
        using var channel = server.CreateChannel();

        var ex = await Assert.ThrowsAsync<RpcException>(() => channel.UnaryAsync(Check, new HealthCheckRequest { Service = "no.such.Service" }, new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.NotFound, ex.StatusCode);
    }

    [Fact]
    public async Task Check_ExplicitStatus_OverridesHealthChecks()
    {
        await using var server = await GrpcTestServer.StartAsync();
        using var channel = server.CreateChannel();
        var store = server.Services.GetRequiredService<GrpcHealthStatusStore>();
        store.SetStatus("salsa.test.v1.Echo", ServingStatus.NotServing);
        store.SetStatus("custom.Thing", ServingStatus.Serving);

        var echo = await channel.UnaryAsync(Check, new HealthCheckRequest { Service = "salsa.test.v1.Echo" }, new CallOptions(CancellationToken: Token));
        var custom = await channel.UnaryAsync(Check, new HealthCheckRequest { Service = "custom.Thing" }, new CallOptions(CancellationToken: Token));

        Assert.Equal(ServingStatus.NotServing, echo.Status);
        Assert.Equal(ServingStatus.Serving, custom.Status);
    }

    [Fact]
    public async Task Watch_StatusChanges_EachChangeStreamedAndUnknownReported()
    {
        await using var server = await GrpcTestServer.StartAsync();
        using var channel = server.CreateChannel();
        var store = server.Services.GetRequiredService<GrpcHealthStatusStore>();
        using var call = channel.ServerStreaming(Watch, new HealthCheckRequest { Service = "later.Service" }, new CallOptions(CancellationToken: Token));

        Assert.True(await call.ResponseStream.MoveNext(Token));
        Assert.Equal(ServingStatus.ServiceUnknown, call.ResponseStream.Current.Status);

        store.SetStatus("later.Service", ServingStatus.Serving);
        Assert.True(await call.ResponseStream.MoveNext(Token));
        Assert.Equal(ServingStatus.Serving, call.ResponseStream.Current.Status);

        store.SetStatus("later.Service", ServingStatus.NotServing);
        Assert.True(await call.ResponseStream.MoveNext(Token));
        Assert.Equal(ServingStatus.NotServing, call.ResponseStream.Current.Status);
    }
}
