using System.Text;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Client;
using Salsa.Client.Generated.Models;
using Salsa.Hosting.Security;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The clients of <c>clients/</c> against a real gateway, as their users run them: authentication
/// on (a key of the run scope in <c>SALSA_API_KEY</c>), every service embedded. The Python client's
/// own tests (<c>clients/python/tests</c>) run in the interpreter of the machine.
/// </summary>
public sealed class ClientTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Python_TheClientsTests_PassAgainstARunningGateway()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?>
        {
            ["Salsa:Auth:Mode"] = "On",
        }, Token);
        var key = await gateway.App.Services.GetRequiredService<ApiKeys>().CreateAsync("python", "python-client", ["read", "run"], Token);

        // Installed as its README says, on Debian's Python with python3-requests and no index to ask.
        var environment = directory.Combine("venv");
        var python = Path.Combine(environment, "bin", "python");
        await RunAsync("/usr/bin/python3", directory.Path, ["-m", "venv", "--system-site-packages", environment]);
        await RunAsync(python, directory.Path, ["-m", "pip", "install", "--no-index", "--no-cache-dir", "--quiet", Path.Combine(Repository.Root, "clients", "python")]);

        var (code, output, error) = await ExternalProgram.RunAsync(
            python, directory.Path, ["-m", "unittest", "discover", "-s", Path.Combine(Repository.Root, "clients", "python", "tests"), "-v"], Token,
            new Dictionary<string, string?>
            {
                ["SALSA_GATEWAY_URL"] = gateway.Ports.RestAddress.ToString(),
                ["SALSA_API_KEY"] = key.Key,
                ["PYTHONDONTWRITEBYTECODE"] = "1",
            });

        Assert.True(code == 0, output + error);
        Assert.DoesNotContain("skipped", error, StringComparison.OrdinalIgnoreCase); // every test ran, none skipped
        Assert.Contains("Ran 5 tests", error, StringComparison.Ordinal);
        Assert.Contains(Path.Combine(environment, "lib"), (await RunAsync(python, directory.Path, ["-c", "import salsa_client; print(salsa_client.__file__)"])).Output, StringComparison.Ordinal); // the installed package ran, not the sources
    }

    private static async Task<(int ExitCode, string Output, string Error)> RunAsync(string program, string workingDirectory, string[] arguments)
    {
        var result = await ExternalProgram.RunAsync(program, workingDirectory, arguments, Token);
        Assert.True(result.ExitCode == 0, $"{program} {string.Join(' ', arguments)}: {result.Output}{result.Error}");
        return result;
    }

    [Fact]
    public async Task DotNet_TheGeneratedClient_UploadsRunsWaitsAndDownloads()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?>
        {
            ["Salsa:Auth:Mode"] = "On",
        }, Token);
        var key = await gateway.App.Services.GetRequiredService<ApiKeys>().CreateAsync("dotnet", "dotnet-client", ["read", "run"], Token);
        using var client = new SalsaGateway(gateway.Ports.RestAddress, key.Key);
        using var stranger = new SalsaGateway(gateway.Ports.RestAddress, "salsa_not-a-key");

        var version = await client.Api.Api.Version.GetAsync(cancellationToken: Token);
        using var towns = new MemoryStream(Encoding.UTF8.GetBytes("name,lat,lon,population\nParis,48.857,2.352,2161000\nLyon,45.764,4.836,516000\nBerlin,52.520,13.405,3645000\nMunich,48.135,11.582,1472000\n"));
        var upload = await client.UploadPlacesAsync(towns, "towns.csv", cancellationToken: Token);
        var parameters = new RunRequest_parameters();
        parameters.AdditionalData["import.dataset"] = upload.GetProperty("dataset").GetProperty("datasetId").GetString()!;
        parameters.AdditionalData["import.file"] = "";
        parameters.AdditionalData["cluster.maxClusters"] = 2;
        var started = await client.Api.Api.Runs.PostAsync(new RunRequest { Workflow = "census-places", Parameters = parameters }, cancellationToken: Token);
        var ended = await client.WaitAsync(started!.Id!.Value, Token);
        var page = await client.Api.Api.Runs.GetAsync(r => r.QueryParameters.Workflow = "census-places", Token);
        await using var map = await client.Api.Api.Runs[ended.Id!.Value].Artifacts["map.svg"].GetAsync(cancellationToken: Token);
        var missing = await Assert.ThrowsAsync<ProblemDetails>(() => client.Api.Api.Runs[Guid.NewGuid()].GetAsync(cancellationToken: Token));
        var invalid = await Assert.ThrowsAsync<ProblemDetails>(() => client.Api.Api.Runs.PostAsync(new RunRequest { Workflow = "no-such-workflow" }, cancellationToken: Token));
        var refused = await Assert.ThrowsAsync<ProblemDetails>(() => stranger.Api.Api.Workflows.GetAsync(cancellationToken: Token));

        Assert.Equal(("gateway", Release.Version, "v1"), (version!.Service, version.Version, version.Contract));
        Assert.Equal(RunState.Succeeded, ended.State);
        Assert.Equal(RunState.Succeeded, Assert.Single(page!, r => r.Id == ended.Id).State);
        Assert.Contains("<svg", await new StreamReader(map!).ReadToEndAsync(Token), StringComparison.Ordinal);
        Assert.Equal(404, missing.ResponseStatusCode);
        Assert.InRange(invalid.ResponseStatusCode, 400, 499);
        Assert.Contains("no-such-workflow", invalid.Detail, StringComparison.Ordinal);
        Assert.Equal(401, refused.ResponseStatusCode);
    }
}
