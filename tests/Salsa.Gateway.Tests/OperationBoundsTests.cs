using System.Text.Json.Nodes;
using Grpc.Core;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Contracts.Operations;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Hops;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Gateway.Workflows;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// Real inputs for every operation: census points (Indiana, 5,281 block groups), 2,000 compounds'
/// fingerprints, and finished clustering, Butina and embedding jobs, made by a workflow run.
/// </summary>
public sealed class OperationInputsFixture : IAsyncLifetime
{
    private const string Workflow = """
        name: inputs
        steps:
          census: { service: census, operation: import, parameters: { source: indiana } }
          points: { service: census, operation: query, inputs: { dataset: census.dataset } }
          kmeans: { service: kmeans, operation: cluster, inputs: { dataset: points.dataset }, parameters: { clusters: 4 } }
          chem: { service: chem, operation: import, parameters: { source: 40k, limit: 2000 } }
          fingerprints: { service: chem, operation: fingerprints, inputs: { dataset: chem.dataset } }
          butina: { service: fingerprints, operation: butina, inputs: { dataset: fingerprints.dataset }, parameters: { medoids: 50 } }
          embed: { service: mds, operation: embed, inputs: { dataset: fingerprints.dataset, items: butina.medoids } }
        """;

    private readonly TemporaryDirectory _directory = new();

    public GatewayServer Gateway { get; private set; } = null!;

    public IReadOnlyDictionary<string, JsonNode?> Outputs { get; private set; } = null!;

    public async ValueTask InitializeAsync()
    {
        Gateway = await GatewayServer.StartAsync(_directory.Combine("salsa.db"), cancellationToken: TestContext.Current.CancellationToken);
        var id = await Gateway.StartRunAsync(new { yaml = Workflow }, TestContext.Current.CancellationToken);
        var run = await Gateway.Runs.WaitAsync(id, TestContext.Current.CancellationToken);
        Assert.True(run.State == Runs.RunState.Succeeded, run.Error);
        Outputs = run.Steps.SelectMany(s => s.Outputs!.Select(o => KeyValuePair.Create($"{s.Id}.{o.Key}", o.Value))).ToDictionary(StringComparer.Ordinal);
    }

    public async ValueTask DisposeAsync()
    {
        await Gateway.DisposeAsync();
        _directory.Dispose();
    }
}

/// <summary>
/// Every bound the gateway checks a workflow against is the service's own: for each numeric bound
/// of every operation, the operation's own call is made with the parameter at the bound (the
/// service accepts it) and just beyond it (the service refuses it, INVALID_ARGUMENT or
/// RESOURCE_EXHAUSTED) — so the gateway can neither refuse what the service takes nor pass on
/// what it refuses.
/// </summary>
public sealed class OperationBoundsTests(OperationInputsFixture fixture) : IClassFixture<OperationInputsFixture>
{
    /// <summary>Where each input of each operation comes from in the fixture's run.</summary>
    private static readonly Dictionary<string, string> Sources = new(StringComparer.Ordinal)
    {
        ["census.query/dataset"] = "census.dataset",
        ["annealing.cluster/dataset"] = "points.dataset",
        ["kmeans.cluster/dataset"] = "points.dataset",
        ["chem.fingerprints/dataset"] = "chem.dataset",
        ["fingerprints.butina/dataset"] = "fingerprints.dataset",
        ["fingerprints.search/dataset"] = "fingerprints.dataset",
        ["mds.embed/dataset"] = "fingerprints.dataset",
        ["mds.embed/items"] = "butina.medoids",
        ["render.census-map/points"] = "points.dataset",
        ["render.census-map/clustering"] = "kmeans.job",
        ["render.scatter/embedding"] = "embed.job",
        ["render.molecule-grid/compounds"] = "chem.dataset",
        ["render.molecule-grid/items"] = "butina.medoids",
        ["render.molecule-grid/sizes"] = "butina.sizes",
    };

    private static readonly Dictionary<string, JsonNode> RequiredValues = new(StringComparer.Ordinal)
    {
        ["census.import/source"] = "indiana",
        ["chem.import/source"] = "fixture",
        ["maxClusters"] = 3,
        ["clusters"] = 3,
        ["fingerprints.search/queryHex"] = "000000100240000000000100000000000000000000000000200000410000000000100020002000000000000010020000000000000000080000000002000000000000000000000200000a00000000000000040a0002000000000040000004080000000000800001100400022000000220000000c4000000000000040000028088",
    };

    public static TheoryData<string, string, string> Bounds()
    {
        var data = new TheoryData<string, string, string>();
        foreach (var (key, parameter, side) in BoundCases())
        {
            data.Add(key, parameter, side);
        }

        return data;
    }

    private static List<(string Key, string Parameter, string Side)> BoundCases()
    {
        var data = new List<(string, string, string)>();
        foreach (var operation in new OperationCatalog().Specifications.OrderBy(o => o.Key, StringComparer.Ordinal))
        {
            foreach (var parameter in operation.Parameters.Where(p => !p.OperationOnly))
            {
                foreach (var side in new[] { "min", "max" })
                {
                    if ((side == "min" ? parameter.Minimum ?? parameter.ExclusiveMinimum : parameter.Maximum ?? parameter.ExclusiveMaximum) is not null)
                    {
                        data.Add((operation.Key, parameter.Name, side));
                    }
                }
            }
        }

        return data;
    }

    [Fact]
    public void Bounds_CoverEveryNumericBoundOfEveryOperation()
    {
        // Guards the theory below against a catalog it would silently skip.
        var cases = BoundCases();
        Assert.True(cases.Count >= 40, $"only {cases.Count} bounds");
        Assert.Contains(("kmeans.cluster", "restarts", "max"), cases);
        Assert.Contains(("annealing.cluster", "coolingFactor", "max"), cases);
    }

    [Theory]
    [MemberData(nameof(Bounds))]
    public async Task Bound_TheServiceAcceptsItAndRefusesJustBeyond(string key, string parameterName, string side)
    {
        var operation = new OperationCatalog().Specifications.Single(o => o.Key == key);
        var parameter = operation.Parameters.Single(p => p.Name == parameterName);
        var integer = parameter.Kind == ParameterKind.Integer;
        var (bound, exclusive, direction) = side == "min"
            ? (parameter.Minimum ?? parameter.ExclusiveMinimum!.Value, parameter.Minimum is null, -1)
            : (parameter.Maximum ?? parameter.ExclusiveMaximum!.Value, parameter.Maximum is null, +1);
        // Inside: the bound itself, or a step inside an open one. Beyond: a step out, or the open bound itself.
        var step = integer ? 1 : 0.001;
        var inside = exclusive ? bound - (direction * step) : bound;
        var beyond = exclusive ? bound : bound + (direction * step);
        Assert.True(WorkflowChecker.Check(parameter, Value(inside, integer)) is null, $"the gateway refuses {parameterName} = {inside}");
        Assert.True(WorkflowChecker.Check(parameter, Value(beyond, integer)) is not null, $"the gateway passes {parameterName} = {beyond}");

        await AcceptedAsync(operation, parameterName, Value(inside, integer));
        var refused = await Assert.ThrowsAsync<RpcException>(() => RunAsync(operation, parameterName, Value(beyond, integer), CancellationToken.None));
        Assert.True(refused.StatusCode is StatusCode.InvalidArgument or StatusCode.ResourceExhausted,
            $"{key}: {parameterName} = {beyond} ended {refused.StatusCode}: {refused.Status.Detail}");
    }

    private static JsonValue Value(double value, bool integer) => integer ? JsonValue.Create((long)value) : JsonValue.Create(value);

    /// <summary>Accepted: the call returns, or a job starts (it is then cancelled: only the service's checks are at stake).</summary>
    private async Task AcceptedAsync(OperationSpec operation, string parameter, JsonNode value)
    {
        using var started = new CancellationTokenSource();
        try
        {
            await RunAsync(operation, parameter, value, started.Token, started);
        }
        catch (OperationCanceledException) when (started.IsCancellationRequested)
        {
        }
        catch (RpcException exception) when (exception.StatusCode == StatusCode.Cancelled && started.IsCancellationRequested)
        {
        }
    }

    private async Task RunAsync(OperationSpec operation, string parameter, JsonNode value, CancellationToken cancellationToken, CancellationTokenSource? cancelOnceStarted = null)
    {
        // Defaults, required values, and a value for each "one of these" parameter the operation needs one of.
        var parameters = operation.Parameters.Where(p => p.Default is not null || p.Required || RequiredValues.ContainsKey($"{operation.Key}/{p.Name}"))
            .ToDictionary(p => p.Name, p => (JsonNode?)(p.Default?.DeepClone() ?? (RequiredValues.GetValueOrDefault($"{operation.Key}/{p.Name}") ?? RequiredValues[p.Name]).DeepClone()), StringComparer.Ordinal);
        parameters[parameter] = value;
        var inputs = operation.Inputs.Where(i => Sources.ContainsKey($"{operation.Key}/{i.Name}"))
            .ToDictionary(i => i.Name, i => fixture.Outputs[Sources[$"{operation.Key}/{i.Name}"]]?.DeepClone(), StringComparer.Ordinal);
        var hops = new HopRecorder();
        if (cancelOnceStarted is not null)
        {
            hops.Recorded += hop =>
            {
                if (hop.Operation.StartsWith("Start", StringComparison.Ordinal) && hop.Outcome == "ok")
                {
                    cancelOnceStarted.Cancel();
                }
            };
        }

        var step = new StepDefinition { Id = "bound", Service = operation.Service, Operation = operation.Name, Parameters = parameters };
        var services = fixture.Gateway.App.Services.GetRequiredService<ServiceDirectory>();
        await operation.Execute(new StepContext(step, inputs, services, hops, _ => { }, cancellationToken));
    }
}
