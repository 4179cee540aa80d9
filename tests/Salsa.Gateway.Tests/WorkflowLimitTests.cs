using System.Net;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Gateway;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Workflows;
using Salsa.Testing;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException;

namespace Salsa.Gateway.Tests;

/// <summary>
/// Workflows beyond the gateway's limits (steps, bytes of YAML, steps depending on one step) are
/// refused before they are validated — 413 / RESOURCE_EXHAUSTED naming the limit — and a large
/// workflow within raised limits is validated in one linear pass.
/// </summary>
public sealed class WorkflowLimitTests
{
    private static readonly OperationCatalog s_catalog = new();

    /// <summary>Census imports, each after the one before: <paramref name="after"/> + 1 steps, written last-first when <paramref name="reversed"/>.</summary>
    private static string Chain(int after, bool reversed = false)
    {
        var steps = Enumerable.Range(0, after + 1).Select(i =>
            $"  s{i}:\n    service: census\n    operation: import\n    parameters: {{ source: indiana-1000 }}\n" + (i == 0 ? "" : $"    after: [s{i - 1}]\n"));
        return "name: chain\nsteps:\n" + string.Concat(reversed ? steps.Reverse() : steps);
    }

    /// <summary>An import that <paramref name="queries"/> census queries all read.</summary>
    private static string Star(int queries)
    {
        var yaml = new StringBuilder("name: star\nsteps:\n  hub:\n    service: census\n    operation: import\n    parameters: { source: indiana-1000 }\n");
        for (var i = 1; i <= queries; i++)
        {
            yaml.Append("  q").Append(i).Append(":\n    service: census\n    operation: query\n    inputs: { dataset: hub.dataset }\n");
        }

        return yaml.ToString();
    }

    [Fact]
    public void StepsOverTheLimit_RefusedNamingIt()
    {
        var parser = new WorkflowParser(s_catalog, new WorkflowLimits { MaxSteps = 50 });

        var error = Assert.Throws<LimitExceededException>(() => parser.Parse(Chain(50), "chain.yaml"));

        Assert.Equal("chain.yaml has 51 steps: over this gateway's limit of 50 steps (Gateway:Workflows:MaxSteps).", error.Message);
        Assert.Equal(50, parser.Parse(Chain(49), "chain.yaml").Steps.Count);
    }

    [Fact]
    public void YamlOverTheLimit_RefusedBeforeItIsRead()
    {
        var parser = new WorkflowParser(s_catalog, new WorkflowLimits { MaxBytes = 1_000 });
        var yaml = Chain(1) + new string('#', 1_000); // a comment: valid YAML, too many bytes

        var error = Assert.Throws<LimitExceededException>(() => parser.Parse(yaml, "big.yaml"));

        Assert.Contains("(Gateway:Workflows:MaxBytes)", error.Message, StringComparison.Ordinal);
        Assert.StartsWith($"big.yaml is {Encoding.UTF8.GetByteCount(yaml):N0} bytes of YAML", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void FanOutOverTheLimit_RefusedNamingTheStep()
    {
        var parser = new WorkflowParser(s_catalog, new WorkflowLimits { MaxFanOut = 8 });
        Assert.Equal(9, parser.Parse(Star(8), "star.yaml").Steps.Count);

        var error = Assert.Throws<LimitExceededException>(() => parser.Parse(Star(9), "star.yaml"));

        Assert.Contains("more than 8 steps depend on step 'hub'", error.Message, StringComparison.Ordinal);
        Assert.Contains("(Gateway:Workflows:MaxFanOut)", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TwentyThousandSteps_WithinRaisedLimits_ValidatedInOrder()
    {
        // Validation used to be quadratic (40,000 steps took a minute); now one pass. The steps are
        // written last-first, so the order is the reverse of the text.
        var parser = new WorkflowParser(s_catalog, new WorkflowLimits { MaxSteps = 30_000, MaxBytes = 16 << 20, MaxNodes = 1_000_000, MaxValueBytes = 16 << 20 });
        var yaml = Chain(20_000, reversed: true);

        var workflow = parser.Parse(yaml, "chain.yaml");

        Assert.Equal(20_001, workflow.Order.Count);
        Assert.Equal(Enumerable.Range(0, 20_001).Select(i => $"s{i}"), workflow.Order.Select(s => s.Id));
    }

    /// <summary>
    /// "Billion laughs": each level a list of nine aliases of the level before, <paramref name="levels"/>
    /// deep (nine: 9⁹ = 387 million strings from under 600 bytes), under a step's parameters or, when
    /// <paramref name="underUnknownKey"/>, under a key the workflow does not have.
    /// </summary>
    private static string AliasBomb(int levels, bool underUnknownKey = false)
    {
        var yaml = new StringBuilder("name: bomb\n");
        var indent = underUnknownKey ? "  " : "      ";
        yaml.Append(underUnknownKey ? "junk:\n" : "steps:\n  a:\n    service: census\n    operation: import\n    parameters:\n      source: indiana-1000\n");
        yaml.Append(indent).Append("l0: &l0 [").Append(string.Join(", ", Enumerable.Repeat("lol", 9))).Append("]\n");
        for (var level = 1; level < levels; level++)
        {
            yaml.Append(indent).Append($"l{level}: &l{level} [").Append(string.Join(", ", Enumerable.Repeat($"*l{level - 1}", 9))).Append("]\n");
        }

        return underUnknownKey ? yaml.Append("steps:\n  a:\n    service: census\n    operation: import\n    parameters: { source: indiana-1000 }\n").ToString() : yaml.ToString();
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void AliasBomb_RefusedBeforeItExpands_InBoundedMemory(bool underUnknownKey)
    {
        var parser = new WorkflowParser(s_catalog);
        var yaml = AliasBomb(9, underUnknownKey);
        Assert.True(yaml.Length < 700, $"{yaml.Length} bytes");

        var before = GC.GetAllocatedBytesForCurrentThread();
        var error = Assert.Throws<LimitExceededException>(() => parser.Parse(yaml, "bomb.yaml"));
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.StartsWith("bomb.yaml expands to more than 200,000 nodes", error.Message, StringComparison.Ordinal);
        Assert.Contains("(Gateway:Workflows:MaxNodes)", error.Message, StringComparison.Ordinal);
        Assert.True(allocated < 4 << 20, $"refusing the bomb allocated {allocated:N0} bytes");
    }

    [Fact]
    public void AliasesWithinTheBudget_ReadAsTheirAnchors()
    {
        var parser = new WorkflowParser(s_catalog);
        const string yaml = """
            name: shared
            steps:
              first:
                service: census
                operation: query
                inputs: { dataset: source.dataset }
                parameters: &selection { states: ["18", "17"], skipUnpopulated: true }
              second:
                service: census
                operation: query
                inputs: { dataset: source.dataset }
                parameters: *selection
              source:
                service: census
                operation: import
                parameters: { source: indiana-1000 }
            """;

        var workflow = parser.Parse(yaml, "shared.yaml");

        var first = workflow.Steps.Single(s => s.Id == "first").Parameters;
        var second = workflow.Steps.Single(s => s.Id == "second").Parameters;
        Assert.Equal(first["states"]!.ToJsonString(), second["states"]!.ToJsonString());
        Assert.Equal("[\"18\",\"17\"]", second["states"]!.ToJsonString());
    }

    [Theory]
    [InlineData("[", "]")]
    [InlineData("{a: ", "}")]
    [InlineData("- ", "")]
    public void NestingBeyondTheDepthLimit_RefusedNamingIt(string open, string close)
    {
        var parser = new WorkflowParser(s_catalog);
        var value = open == "- "
            ? string.Concat(Enumerable.Range(0, 200).Select(i => "\n" + new string(' ', 8 + 2 * i) + "- ")) + "x"
            : string.Concat(Enumerable.Repeat(open, 50_000)) + "x" + string.Concat(Enumerable.Repeat(close, 50_000));
        var yaml = $"name: deep\nsteps:\n  a:\n    service: census\n    operation: import\n    parameters:\n      source: indiana-1000\n      deep: {value}\n";

        var error = Assert.Throws<LimitExceededException>(() => parser.Parse(yaml, "deep.yaml"));

        Assert.StartsWith("deep.yaml nests more than 64 levels", error.Message, StringComparison.Ordinal);
        Assert.Contains("(Gateway:Workflows:MaxDepth)", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ComplexKeyInParameters_AnErrorAtItsLine()
    {
        var parser = new WorkflowParser(s_catalog);
        const string yaml = "name: keys\nsteps:\n  a:\n    service: census\n    operation: import\n    parameters:\n      source: indiana-1000\n      odd: { [x, y]: 1 }\n";

        var error = Assert.Throws<WorkflowValidationException>(() => parser.Parse(yaml, "keys.yaml"));

        var only = Assert.Single(error.Errors);
        Assert.Equal(8, only.Line);
        Assert.Contains("keys must be plain names", only.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AliasBomb_ThroughTheApi_413AndTheGatewayStillAnswers()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);

        foreach (var path in new[] { "/api/workflows/validate", "/api/runs" })
        {
            using var refused = await gateway.Http.PostAsJsonAsync(path, new { yaml = AliasBomb(9) }, token);
            Assert.Equal(HttpStatusCode.RequestEntityTooLarge, refused.StatusCode);
            var problem = JsonDocument.Parse(await refused.Content.ReadAsStringAsync(token)).RootElement;
            Assert.Contains("Gateway:Workflows:MaxNodes", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
        }

        var client = new GatewayClient(gateway.Grpc);
        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await client.StartRunAsync(new StartRunRequest { Yaml = AliasBomb(9) }, new CallOptions(cancellationToken: token)));
        Assert.Equal(StatusCode.ResourceExhausted, rpc.StatusCode);
        Assert.Equal(0, JsonDocument.Parse(await gateway.Http.GetStringAsync("/api/runs", token)).RootElement.GetArrayLength());
        using var fine = await gateway.Http.PostAsJsonAsync("/api/workflows/validate", new { yaml = Chain(3) }, token);
        Assert.Equal(HttpStatusCode.OK, fine.StatusCode);
    }

    [Fact]
    public async Task OverTheLimit_ThroughTheApi_413NamingTheLimitAndNoRun()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"),
            new Dictionary<string, string?> { ["Gateway:Workflows:MaxSteps"] = "20" }, token);

        using var refused = await gateway.Http.PostAsJsonAsync("/api/runs", new { yaml = Chain(20) }, token);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, refused.StatusCode);
        Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
        var problem = JsonDocument.Parse(await refused.Content.ReadAsStringAsync(token)).RootElement;
        Assert.Contains("Gateway:Workflows:MaxSteps", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
        using var validate = await gateway.Http.PostAsJsonAsync("/api/workflows/validate", new { yaml = Chain(20) }, token);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, validate.StatusCode);

        var client = new GatewayClient(gateway.Grpc);
        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await client.StartRunAsync(new StartRunRequest { Yaml = Chain(20) }, new CallOptions(cancellationToken: token)));
        Assert.Equal(StatusCode.ResourceExhausted, rpc.StatusCode);
        Assert.Contains("Gateway:Workflows:MaxSteps", rpc.Status.Detail, StringComparison.Ordinal);

        var runs = JsonDocument.Parse(await gateway.Http.GetStringAsync("/api/runs", token)).RootElement;
        Assert.Equal(0, runs.GetArrayLength());
        using var accepted = await gateway.Http.PostAsJsonAsync("/api/workflows/validate", new { yaml = Chain(19) }, token);
        Assert.Equal(HttpStatusCode.OK, accepted.StatusCode);
    }
}
