using System.Net;
using System.Text.Json;
using Grpc.Health.V1;
using Salsa.Gateway.Cli;
using Salsa.Hosting;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The gateway as a release: its REST contract is the committed <c>openapi/gateway.json</c>, and it
/// and every service process say which release they are (<c>--version</c>, <c>/api/version</c>, the
/// <c>Salsa-Version</c> header over REST and gRPC).
/// </summary>
public sealed class ReleaseContractTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task OpenApi_RunningDocument_IsTheCommittedContract()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);

        var difference = OpenApiContract.Difference("gateway", await gateway.Http.GetStringAsync("/openapi/v1.json", Token));

        Assert.True(difference is null, difference);
    }

    [Fact]
    public async Task Version_TheGateway_NamesTheReleaseOverRestAndGrpc()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);

        using var response = await gateway.Http.GetAsync("/api/version", Token);
        using var version = JsonDocument.Parse(await response.Content.ReadAsStringAsync(Token));
        using var missing = await gateway.Http.GetAsync($"/api/runs/{Guid.NewGuid()}", Token);
        var metadata = await new Health.HealthClient(gateway.Grpc).CheckAsync(new HealthCheckRequest(), cancellationToken: Token).ResponseHeadersAsync;

        Assert.Equal(("gateway", Release.Version, "v1"), (version.RootElement.GetProperty("service").GetString(), version.RootElement.GetProperty("version").GetString(), version.RootElement.GetProperty("contract").GetString()));
        Assert.Equal(Release.Version, Assert.Single(response.Headers.GetValues(SalsaVersion.Header)));
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        Assert.Equal(Release.Version, Assert.Single(missing.Headers.GetValues(SalsaVersion.Header)));
        Assert.Equal(Release.Version, metadata.GetValue("salsa-version"));
    }

    [Fact]
    public async Task Version_TheCommandLine_PrintsTheReleaseAndCommit()
    {
        using var output = new StringWriter();

        var code = await GatewayCommandLine.InvokeAsync(["--version"], output, TextWriter.Null, Token);

        Assert.Equal(0, code);
        Assert.Matches($"^{System.Text.RegularExpressions.Regex.Escape(Release.Version)}(\\+[0-9a-f]{{7,40}})?$", output.ToString().Trim());
    }

    /// <summary>Each process as a user starts it: <c>--version</c> prints the release and exits 0, without binding a port or opening a store.</summary>
    [Theory]
    [InlineData("Salsa.Gateway.dll")]
    [InlineData("Salsa.Annealing.dll")]
    [InlineData("Salsa.KMeans.dll")]
    [InlineData("Salsa.Fingerprints.dll")]
    [InlineData("Salsa.Mds.dll")]
    [InlineData("Salsa.Census.dll")]
    [InlineData("Salsa.Chem.dll")]
    [InlineData("Salsa.Render.dll")]
    public async Task Version_EveryProcess_PrintsTheRelease(string assembly)
    {
        var (code, printed) = await Release.PrintedByAsync(assembly, Token);

        Assert.Equal(0, code);
        Assert.Equal(SalsaVersion.Informational, printed);
        Assert.StartsWith(Release.Version, printed, StringComparison.Ordinal);
    }
}
