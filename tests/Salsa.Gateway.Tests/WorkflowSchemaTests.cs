using System.Globalization;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Cli;
using Salsa.Gateway.Workflows;
using Salsa.Testing;
using YamlDotNet.Core;
using YamlDotNet.RepresentationModel;

namespace Salsa.Gateway.Tests;

/// <summary>
/// <c>workflows/workflow.schema.json</c> and the operations reference of <c>docs/workflows.md</c> are
/// what the catalog generates, and the schema agrees with the parser: it accepts the shipped workflows
/// and what the parser accepts, and rejects what the parser rejects for reasons a schema can state.
/// The examples of <c>docs/workflows.md</c> validate, or fail, as the page says.
/// </summary>
public sealed partial class WorkflowSchemaTests
{
    private static readonly OperationCatalog s_catalog = new();
    private static readonly WorkflowParser s_parser = new(s_catalog);
    private static readonly string s_root = Repository.Root;
    private static readonly JsonSchemaSubset s_schema = new(JsonNode.Parse(File.ReadAllText(Path.Combine(s_root, WorkflowSchema.CommittedPath)))!.AsObject());

    // Every step key, a duration in each form, `after` and `artifacts` as a name and as a list.
    private const string Valid = """
        name: small
        description: import, query, cluster, map
        steps:
          import:
            service: census
            operation: import
            parameters: { source: indiana-1000 }
            retry: { attempts: 3, backoff: 500ms }
          query:
            service: census
            operation: query
            inputs: { dataset: import.dataset }
            parameters: { states: ["18"], boundingBox: [37.5, -88.1, 41.8, -84.8] }
          cluster:
            service: kmeans
            operation: cluster
            inputs: { dataset: query.dataset }
            parameters: { clusters: 4, tolerance: 0.001, seed: -7 }
            timeout: 90s
            artifacts: assignments
          map:
            service: render
            operation: census-map
            inputs: { points: query.dataset, clustering: cluster.job }
            after: import
            timeout: 300
            artifacts: [map.svg, clusters.geojson]
        """;

    [Fact]
    public async Task CommittedSchema_IsWhatTheSchemaCommandPrints()
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture);
        Assert.Equal(0, await GatewayCommandLine.InvokeAsync(["schema"], output, TextWriter.Null, TestContext.Current.CancellationToken));

        var committed = File.ReadAllText(Path.Combine(s_root, WorkflowSchema.CommittedPath)).ReplaceLineEndings("\n");
        Assert.True(committed == output.ToString(),
            $"{WorkflowSchema.CommittedPath} differs from the catalog's schema; regenerate it: dotnet run --project gateway/Salsa.Gateway -- schema > {WorkflowSchema.CommittedPath}");
    }

    [Fact]
    public async Task DocsOperationsReference_IsWhatTheOperationsCommandPrints()
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture);
        Assert.Equal(0, await GatewayCommandLine.InvokeAsync(["operations", "--markdown"], output, TextWriter.Null, TestContext.Current.CancellationToken));
        var generated = output.ToString();

        var docs = Docs();
        var begin = docs.IndexOf(OperationReference.BeginMarker, StringComparison.Ordinal);
        var end = docs.IndexOf(OperationReference.EndMarker, StringComparison.Ordinal);
        Assert.True(begin >= 0 && end > begin, "docs/workflows.md has no generated operations reference between its markers.");
        Assert.True(docs[begin..(end + OperationReference.EndMarker.Length + 1)] == generated,
            "The operations reference of docs/workflows.md differs from the catalog's; replace it with the output of: dotnet run --project gateway/Salsa.Gateway -- operations --markdown");
        Assert.All(s_catalog.Specifications, o =>
        {
            Assert.Contains($"### {o.Key}\n", generated, StringComparison.Ordinal);
            Assert.All(o.Parameters, p => Assert.Contains($"| `{p.Name}` |", generated, StringComparison.Ordinal));
        });
    }

    [Fact]
    public void DocsExamples_ValidateOrFail_AsTheDocsSay()
    {
        var blocks = CodeBlocks(Docs()).ToList();
        var example = blocks.Single(b => b.Language == "yaml" && b.Text.Contains("name: indiana-two-ways", StringComparison.Ordinal)).Text;
        var broken = blocks.Single(b => b.Language == "yaml" && b.Text.StartsWith("name: broken", StringComparison.Ordinal)).Text;
        var reported = blocks.Single(b => b.Language == "text" && b.Text.StartsWith("broken.yaml is not a valid workflow:", StringComparison.Ordinal)).Text;

        var workflow = s_parser.Parse(example, "indiana-two-ways.yaml");
        Assert.Equal(["import", "query", "annealing", "kmeans", "annealing-map", "kmeans-map"], workflow.Order.Select(s => s.Id));
        Assert.Equal(["annealing-map", "kmeans", "query"], workflow.Step("kmeans-map").DependsOn.Order(StringComparer.Ordinal));
        Assert.Empty(s_schema.Errors(Json(example)));

        var invalid = Assert.Throws<WorkflowValidationException>(() => s_parser.Parse(broken, "broken.yaml"));
        Assert.Equal(reported.TrimEnd('\n'), invalid.Message);
    }

    [Fact]
    public void ShippedWorkflows_SatisfyTheSchema_AndDeclareIt()
    {
        var files = Directory.GetFiles(Path.Combine(s_root, "workflows"), "*.yaml").Order(StringComparer.Ordinal).ToList();

        Assert.Equal(["census-indiana.yaml", "census-places.yaml", "census-us.yaml", "chem-40k.yaml", "chem-compounds.yaml"], files.Select(f => Path.GetFileName(f)));
        Assert.All(files, file =>
        {
            var yaml = File.ReadAllText(file);
            Assert.StartsWith("# yaml-language-server: $schema=./workflow.schema.json\n", yaml, StringComparison.Ordinal);
            s_parser.Parse(yaml, Path.GetFileName(file));
            Assert.Empty(s_schema.Errors(Json(yaml)));
        });
    }

    [Theory]
    [InlineData("", "")]
    [InlineData("timeout: 90s", "timeout: 1.5")]
    [InlineData("timeout: 90s", "timeout: 250 ms")]
    [InlineData("timeout: 90s", "timeout: 2h")]
    [InlineData("after: import", "after: [import, query]")]
    [InlineData("after: import", "after: []")]
    [InlineData("artifacts: assignments", "artifacts: [assignments]")]
    [InlineData("retry: { attempts: 3, backoff: 500ms }", "retry: {}")]
    [InlineData("clusters: 4,", "clusters: 4.0,")]
    [InlineData("parameters: { states: [\"18\"], boundingBox: [37.5, -88.1, 41.8, -84.8] }", "parameters: {}")]
    public void WhatTheParserAccepts_TheSchemaAccepts(string from, string to)
    {
        var yaml = from.Length == 0 ? Valid : Valid.Replace(from, to, StringComparison.Ordinal);
        Assert.NotEqual(from.Length == 0, yaml != Valid);
        s_parser.Parse(yaml, "test.yaml");
        Assert.Empty(s_schema.Errors(Json(yaml)));
    }

    [Theory]
    [InlineData("description:", "descripton:", "$.descripton: not allowed")]
    [InlineData("name: small", "name: Small", "$.name: \"Small\" does not match")]
    [InlineData("    timeout: 90s", "    timout: 90s", "$.steps.cluster.timout: not allowed")]
    [InlineData("service: kmeans", "service: kmeanz", "$.steps.cluster.service: \"kmeanz\" is not one of")]
    [InlineData("operation: query", "operation: select", "$.steps.query.operation: \"select\" is not one of [\"import\",\"query\"]")]
    [InlineData("operation: census-map", "operation: scatter", "$.steps.map.inputs: 'embedding' is required")]
    [InlineData("inputs: { dataset: query.dataset }", "inputs: { dataset: query.dataset, points: query.dataset }", "$.steps.cluster.inputs.points: not allowed")]
    [InlineData("inputs: { points: query.dataset, clustering: cluster.job }", "inputs: { points: query.dataset }", "$.steps.map.inputs: 'clustering' is required")]
    [InlineData("    inputs: { dataset: import.dataset }\n", "", "$.steps.query: 'inputs' is required")]
    [InlineData("dataset: import.dataset", "dataset: import", "$.steps.query.inputs.dataset: \"import\" does not match")]
    [InlineData("clusters: 4,", "clusters: four,", "$.steps.cluster.parameters.clusters: \"four\" is not of type integer")]
    [InlineData("clusters: 4,", "clusters: 0,", "$.steps.cluster.parameters.clusters: 0 breaks minimum 1")]
    [InlineData("clusters: 4,", "clusters: 4.5,", "$.steps.cluster.parameters.clusters: 4.5 is not of type integer")]
    [InlineData("clusters: 4,", "k: 4,", "$.steps.cluster.parameters.k: not allowed")]
    [InlineData("seed: -7", "seed: 1e20", "$.steps.cluster.parameters.seed: 1E+20 breaks exclusiveMaximum")]
    [InlineData("tolerance: 0.001", "tolerance: -1", "$.steps.cluster.parameters.tolerance: -1 breaks minimum 0")]
    [InlineData("source: indiana-1000", "source: ohio", "$.steps.import.parameters.source: \"ohio\" is not one of")]
    [InlineData("parameters: { clusters: 4, tolerance", "parameters: { tolerance", "$.steps.cluster.parameters: 'clusters' is required")]
    [InlineData("    parameters: { clusters: 4, tolerance: 0.001, seed: -7 }\n", "", "$.steps.cluster: 'parameters' is required")]
    [InlineData("states: [\"18\"]", "states: \"18\"", "$.steps.query.parameters.states: \"18\" is not of type array")]
    [InlineData("boundingBox: [37.5, -88.1, 41.8, -84.8]", "boundingBox: [north, south]", "$.steps.query.parameters.boundingBox[0]: \"north\" is not of type number")]
    [InlineData("timeout: 90s", "timeout: soon", "$.steps.cluster.timeout: \"soon\" matches no alternative")]
    [InlineData("timeout: 90s", "timeout: \u0663s", "$.steps.cluster.timeout: \"\\u0663s\" matches no alternative")]
    [InlineData("timeout: 90s", "timeout: 0s", "$.steps.cluster.timeout: \"0s\" matches no alternative")]
    [InlineData("timeout: 300", "timeout: 0", "$.steps.map.timeout: 0 matches no alternative")]
    [InlineData("timeout: 300", "timeout: -5", "$.steps.map.timeout: -5 matches no alternative")]
    [InlineData("attempts: 3", "attempts: 11", "$.steps.import.retry.attempts: 11 breaks maximum 10")]
    [InlineData("attempts: 3", "attempts: 0", "$.steps.import.retry.attempts: 0 breaks minimum 1")]
    [InlineData("backoff: 500ms", "backof: 500ms", "$.steps.import.retry.backof: not allowed")]
    [InlineData("backoff: 500ms", "backoff: 0ms", "$.steps.import.retry.backoff: \"0ms\" matches no alternative")]
    [InlineData("retry: { attempts: 3, backoff: 500ms }", "retry: 3", "$.steps.import.retry: 3 is not of type object")]
    [InlineData("artifacts: assignments", "artifacts: map.svg", "$.steps.cluster.artifacts: \"map.svg\" matches no alternative")]
    [InlineData("artifacts: [map.svg, clusters.geojson]", "artifacts: [map.svg, assignments]", "$.steps.map.artifacts: [\"map.svg\",\"assignments\"] matches no alternative")]
    [InlineData("    retry: { attempts: 3, backoff: 500ms }\n", "    retry: { attempts: 3, backoff: 500ms }\n    artifacts: [anything]\n", "$.steps.import.artifacts: 1 breaks maxItems 0")]
    [InlineData("after: import", "after: Import", "$.steps.map.after: \"Import\" matches no alternative")]
    [InlineData("  query:\n", "  Query:\n", "$.steps[name 'Query']: \"Query\" does not match")]
    public void WhatTheParserRejects_TheSchemaRejects(string from, string to, string because)
    {
        Assert.Contains(from, Valid, StringComparison.Ordinal);
        var yaml = Valid.Replace(from, to, StringComparison.Ordinal);

        Assert.Throws<WorkflowValidationException>(() => s_parser.Parse(yaml, "test.yaml"));
        var errors = s_schema.Errors(Json(yaml));
        Assert.True(errors.Any(e => e.StartsWith(because, StringComparison.Ordinal)), $"No schema error starts with '{because}': {string.Join(" | ", errors)}");
    }

    [Theory]
    [InlineData("name: empty\nsteps: {}\n", "$.steps: 0 breaks minProperties 1")]
    [InlineData("name: nameless\n", "$: 'steps' is required")]
    [InlineData("steps:\n  a: { service: census, operation: import, parameters: { source: us } }\n", "$: 'name' is required")]
    [InlineData("name: scalar\nsteps:\n  a: census\n", "$.steps.a: \"census\" is not of type object")]
    [InlineData("name: listed\nsteps:\n  - service: census\n", "$.steps: [{\"service\":\"census\"}] is not of type object")]
    public void Documents_TheParserRejects_TheSchemaRejects(string yaml, string because)
    {
        Assert.Throws<WorkflowValidationException>(() => s_parser.Parse(yaml, "test.yaml"));
        var errors = s_schema.Errors(Json(yaml));
        Assert.True(errors.Any(e => e.StartsWith(because, StringComparison.Ordinal)), $"No schema error starts with '{because}': {string.Join(" | ", errors)}");
    }

    [Theory]
    [InlineData("dataset: import.dataset", "dataset: importt.dataset")]
    [InlineData("dataset: import.dataset", "dataset: import.points")]
    [InlineData("dataset: query.dataset", "dataset: import.dataset")]
    [InlineData("after: import", "after: [map]")]
    [InlineData("    inputs: { dataset: import.dataset }\n", "    inputs: { dataset: import.dataset }\n    after: cluster\n")]
    public void WiringBetweenSteps_IsTheParsersCheck_AndTheSchemaSaysSo(string from, string to)
    {
        var yaml = Valid.Replace(from, to, StringComparison.Ordinal);

        Assert.Throws<WorkflowValidationException>(() => s_parser.Parse(yaml, "test.yaml"));
        Assert.Empty(s_schema.Errors(Json(yaml)));
        var comment = JsonNode.Parse(File.ReadAllText(Path.Combine(s_root, WorkflowSchema.CommittedPath)))!["$comment"]!.GetValue<string>();
        Assert.Contains("no cycle", comment, StringComparison.Ordinal);
        Assert.Contains("of the type the input takes", comment, StringComparison.Ordinal);
    }

    private static string Docs() => File.ReadAllText(Path.Combine(s_root, "docs", "workflows.md")).ReplaceLineEndings("\n");

    private static IEnumerable<(string Language, string Text)> CodeBlocks(string markdown) =>
        CodeBlockPattern().Matches(markdown).Select(m => (m.Groups[1].Value, m.Groups[2].Value));

    /// <summary>YAML → JSON as editors read it (YAML 1.2 core schema: plain null, booleans, integers, floats).</summary>
    private static JsonNode? Json(string yaml)
    {
        var stream = new YamlStream();
        stream.Load(new StringReader(yaml));
        return Json(stream.Documents[0].RootNode);
    }

    private static JsonNode? Json(YamlNode node) => node switch
    {
        YamlScalarNode { Style: ScalarStyle.Plain, Value: var plain } => plain switch
        {
            null or "" or "~" or "null" or "Null" or "NULL" => null,
            "true" or "True" or "TRUE" => true,
            "false" or "False" or "FALSE" => false,
            _ when IntegerPattern().IsMatch(plain) => long.Parse(plain, CultureInfo.InvariantCulture),
            _ when FloatPattern().IsMatch(plain) => double.Parse(plain, CultureInfo.InvariantCulture),
            _ => plain,
        },
        YamlScalarNode scalar => scalar.Value,
        YamlSequenceNode list => new JsonArray([.. list.Children.Select(Json)]),
        YamlMappingNode map => new JsonObject(map.Children.Select(kv => KeyValuePair.Create(((YamlScalarNode)kv.Key).Value!, Json(kv.Value)))),
        _ => throw new NotSupportedException(node.GetType().Name),
    };

    [GeneratedRegex("^```([a-z]*)\n(.*?)^```$", RegexOptions.Multiline | RegexOptions.Singleline)]
    private static partial Regex CodeBlockPattern();

    [GeneratedRegex("^[-+]?[0-9]+$")]
    private static partial Regex IntegerPattern();

    [GeneratedRegex(@"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")]
    private static partial Regex FloatPattern();
}
