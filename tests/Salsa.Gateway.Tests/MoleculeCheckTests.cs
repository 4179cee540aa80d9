using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Grpc.Core;
using Salsa.Contracts.Gateway;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// A run's query molecule is read when the run is submitted, by the chem service's RDKit: a SMILES it
/// cannot read refuses the run at its parameter (REST 400, gRPC INVALID_ARGUMENT) and nothing runs —
/// not the import, fingerprints and clustering that came before the search.
/// </summary>
public sealed class MoleculeCheckTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task AQuerySmilesRdkitCannotRead_RefusesTheRunAtItsParameter_BeforeAnyStep()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);

        using var response = await gateway.Http.PostAsJsonAsync("/api/runs", new { workflow = "chem-compounds", parameters = new Dictionary<string, object> { ["search.querySmiles"] = "C1CC" } }, Token);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        var problem = await response.Content.ReadFromJsonAsync<JsonElement>(Token);
        var message = Assert.Single(problem.GetProperty("errors").EnumerateArray()).GetProperty("message").GetString();
        Assert.StartsWith("step 'search': parameter 'querySmiles' is not a molecule RDKit can read: ", message, StringComparison.Ordinal);
        Assert.Contains("unclosed ring", message, StringComparison.Ordinal);
        var client = new Contracts.Gateway.Gateway.GatewayClient(gateway.Grpc);
        var grpc = await Assert.ThrowsAsync<RpcException>(async () => await client.StartRunAsync(new StartRunRequest { Workflow = "chem-compounds", Parameters = { ["search.querySmiles"] = "\"c1ccccc1X\"" } }, cancellationToken: Token));
        Assert.Equal(StatusCode.InvalidArgument, grpc.StatusCode);
        Assert.Contains("parameter 'querySmiles'", grpc.Status.Detail, StringComparison.Ordinal);
        Assert.Empty(await gateway.Runs.ListAsync(10, Token));

        // A molecule it reads starts the run.
        var good = await gateway.StartRunAsync(new { workflow = "chem-compounds", parameters = new Dictionary<string, object> { ["search.querySmiles"] = "c1ccccc1O" } }, Token);
        Assert.NotEqual(Guid.Empty, good);
        await gateway.Http.PostAsync($"/api/runs/{good}/cancel", content: null, Token);
    }
}
