using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Salsa.Chemistry.Tests;

/// <summary>A service that adds RDKit has an engine ready once it has started, before any request asks for one.</summary>
public sealed class RdkitHostingTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task AddRdkit_TheHostStarting_MakesAnEngineWithoutARequest()
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Services.AddRdkit(_ => 1);
        using var host = builder.Build();

        await host.StartAsync(Token);

        var warmUp = host.Services.GetRequiredService<RdkitWarmUp>();
        Assert.Contains(warmUp, host.Services.GetServices<IHostedService>());
        Assert.Equal("2026.09.1", await warmUp.Ready.WaitAsync(TimeSpan.FromMinutes(2), Token));
        await host.StopAsync(Token);
    }
}
