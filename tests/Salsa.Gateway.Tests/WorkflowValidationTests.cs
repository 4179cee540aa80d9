using System.Text.Json.Nodes;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Tests;

/// <summary>Workflows are checked when they load: every error is reported with the line and column a person can fix.</summary>
public sealed class WorkflowValidationTests
{
    private static readonly WorkflowParser s_parser = new(new OperationCatalog());

    private const string Valid = """
        name: small
        description: import, query, cluster
        steps:
          import:
            service: census
            operation: import
            parameters: { source: indiana-1000 }
          query:
            service: census
            operation: query
            inputs: { dataset: import.dataset }
          cluster:
            service: kmeans
            operation: cluster
            inputs: { dataset: query.dataset }
            parameters: { clusters: 4 }
            timeout: 90s
            retry: { attempts: 3, backoff: 500ms }
        """;

    private static IReadOnlyList<WorkflowError> Errors(string yaml, Dictionary<string, JsonNode?>? overrides = null)
    {
        var exception = Assert.Throws<WorkflowValidationException>(() => s_parser.Parse(yaml, "test.yaml", null, overrides));
        Assert.NotEmpty(exception.Errors);
        Assert.Contains("test.yaml:", exception.Message, StringComparison.Ordinal);
        return exception.Errors;
    }

    private static WorkflowError Single(string yaml, string fragment, Dictionary<string, JsonNode?>? overrides = null)
    {
        var errors = Errors(yaml, overrides);
        return errors.FirstOrDefault(e => e.Message.Contains(fragment, StringComparison.Ordinal))
            ?? throw new Xunit.Sdk.XunitException($"No error mentions '{fragment}': {string.Join(" | ", errors)}");
    }

    [Fact]
    public void ValidWorkflow_ParsesWithDefaultsDependenciesTimeoutAndRetry()
    {
        var workflow = s_parser.Parse(Valid, "test.yaml");

        Assert.Equal("small", workflow.Name);
        Assert.Equal(["import", "query", "cluster"], workflow.Order.Select(s => s.Id));
        var query = workflow.Step("query");
        Assert.Equal(["import"], query.DependsOn);
        Assert.True(query.Parameters["skipUnpopulated"]!.GetValue<bool>()); // the default applied
        var cluster = workflow.Step("cluster");
        Assert.Equal(TimeSpan.FromSeconds(90), cluster.Timeout);
        Assert.Equal(new RetryPolicy(3, TimeSpan.FromMilliseconds(500)), cluster.Retry);
        Assert.Equal(TimeSpan.FromSeconds(1), cluster.Retry.DelayBefore(3));
        Assert.Equal(new SourcePosition(12, 3), cluster.Position);
    }

    [Fact]
    public void ShippedWorkflows_AllLoad_AndChemRunsItsClusteringsConcurrently()
    {
        var library = new WorkflowLibrary(s_parser, Microsoft.Extensions.Options.Options.Create(new GatewayOptions()));
        var entries = library.List();

        Assert.Equal(["census-indiana", "census-places", "census-us", "chem-40k", "chem-compounds"], entries.Select(e => e.Name));
        Assert.All(entries, e => Assert.True(e.Definition is not null, $"{e.Name}: {string.Join("; ", e.Errors)}"));
        var chem = library.Load("chem-40k");
        Assert.Equal(["fingerprints"], chem.Step("annealing").DependsOn);
        Assert.Equal(["fingerprints"], chem.Step("butina").DependsOn);
        Assert.Equal(["fingerprints", "butina"], chem.Step("embed").DependsOn);
        Assert.Equal(20, library.Load("census-indiana").Step("cluster").Parameters["maxClusters"]!.GetValue<long>());
        Assert.Equal(100, library.Load("census-us").Step("cluster").Parameters["maxClusters"]!.GetValue<long>());
    }

    [Fact]
    public void BadYaml_IsReportedAtItsLine()
    {
        var error = Single("name: x\nsteps:\n  a:\n    service: census\n   operation: [import\n", "YAML");
        Assert.Equal(5, error.Line);
    }

    [Fact]
    public void DuplicateKey_IsReportedAtItsLine()
    {
        var error = Single(Valid + "\n  query:\n    service: census\n    operation: query\n", "YAML");
        Assert.Equal(19, error.Line);
    }

    [Fact]
    public void UnknownService_NamesTheKnownOnes()
    {
        var error = Single(Valid.Replace("service: kmeans", "service: kmeanz", StringComparison.Ordinal), "unknown service 'kmeanz'");
        Assert.Equal(13, error.Line);
        Assert.Contains("annealing", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void UnknownOperation_NamesTheServicesOperations()
    {
        var error = Single(Valid.Replace("operation: query", "operation: select", StringComparison.Ordinal), "has no operation 'select'");
        Assert.Equal((10, 16), (error.Line, error.Column));
        Assert.Contains("import, query", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Cycle_NamesItsSteps()
    {
        var yaml = """
            name: loop
            steps:
              a:
                service: census
                operation: import
                parameters: { source: indiana }
                after: [b]
              b:
                service: census
                operation: query
                inputs: { dataset: a.dataset }
            """;
        var error = Single(yaml, "cycle");
        Assert.Contains(error.Line, new[] { 3, 8 }); // at a step of the cycle
        Assert.Matches("(a → b → a|b → a → b)", error.Message);
    }

    [Fact]
    public void CycleThroughAfter_IsFound()
    {
        var yaml = Valid.Replace("    inputs: { dataset: import.dataset }", "    inputs: { dataset: import.dataset }\n    after: [cluster]", StringComparison.Ordinal);
        Assert.Matches("cycle: (query → cluster → query|cluster → query → cluster)", Single(yaml, "cycle").Message);
    }

    [Fact]
    public void CycleThroughInputs_IsReportedAsACycle()
    {
        // query takes cluster's job (a clustering, not points) and cluster takes query's dataset:
        // the wiring is a cycle, whatever else is wrong with it.
        var yaml = Valid.Replace("    inputs: { dataset: import.dataset }", "    inputs: { dataset: cluster.job }", StringComparison.Ordinal);

        Assert.Matches("cycle: (query → cluster → query|cluster → query → cluster)", Single(yaml, "cycle").Message);
    }

    [Fact]
    public void MissingInput_IsNamed()
    {
        var error = Single(Valid.Replace("    inputs: { dataset: query.dataset }\n", "", StringComparison.Ordinal), "needs input 'dataset'");
        Assert.Equal(12, error.Line);
    }

    [Fact]
    public void InputFromUnknownStepOrOutput_OrOfTheWrongType_IsAnError()
    {
        Assert.Equal(11, Single(Valid.Replace("dataset: import.dataset", "dataset: importt.dataset", StringComparison.Ordinal), "unknown step 'importt'").Line);
        Single(Valid.Replace("dataset: import.dataset", "dataset: import.points", StringComparison.Ordinal), "has no output 'points'");
        Single(Valid.Replace("dataset: query.dataset", "dataset: import.dataset", StringComparison.Ordinal), "takes a points, but 'import.dataset' is a census-dataset");
        Single(Valid.Replace("dataset: import.dataset", "dataset: import", StringComparison.Ordinal), "must name an earlier step's output as step.output");
    }

    [Fact]
    public void Parameters_AreCheckedForNameTypeBoundsAndPresence()
    {
        Single(Valid.Replace("clusters: 4", "clusters: four", StringComparison.Ordinal), "parameter 'clusters' must be a whole number");
        Single(Valid.Replace("clusters: 4", "clusters: 0", StringComparison.Ordinal), "it must be at least 1");
        Single(Valid.Replace("clusters: 4", "k: 4", StringComparison.Ordinal), "has no parameter 'k'");
        Single(Valid.Replace("clusters: 4", "restarts: 4", StringComparison.Ordinal), "needs parameter 'clusters'");
        Single(Valid.Replace("source: indiana-1000", "source: ohio", StringComparison.Ordinal), "it must be one of us, indiana, indiana-1000");
    }

    [Fact]
    public void UnknownKeys_BadDurationsAndRetries_AreErrors()
    {
        Assert.Equal(17, Single(Valid.Replace("timeout: 90s", "timeout: soon", StringComparison.Ordinal), "not a positive duration").Line);
        Single(Valid.Replace("attempts: 3", "attempts: 30", StringComparison.Ordinal), "from 1 to 10");
        Single(Valid.Replace("    timeout: 90s", "    timout: 90s", StringComparison.Ordinal), "unknown key 'timout'");
        Single(Valid.Replace("description:", "descripton:", StringComparison.Ordinal), "unknown key 'descripton'");
    }

    [Fact]
    public void DurationsBeyondTimeSpanOrInOtherDigits_AreErrorsAtTheirLine_NotFailedRequests()
    {
        Assert.Equal(17, Single(Valid.Replace("timeout: 90s", "timeout: 99999999999999999h", StringComparison.Ordinal), "not a positive duration").Line);
        Assert.Equal(17, Single(Valid.Replace("timeout: 90s", "timeout: \u0663s", StringComparison.Ordinal), "not a positive duration").Line);
    }

    [Fact]
    public void ArtifactsMustBeFilesTheOperationProduces()
    {
        Single(Valid.Replace("    timeout: 90s", "    artifacts: [map.svg]\n    timeout: 90s", StringComparison.Ordinal), "produces no file 'map.svg'");
    }

    [Fact]
    public void TwoStepsKeepingAFileOfTheSameName_IsAnError()
    {
        var yaml = Valid.Replace("    timeout: 90s", "    artifacts: [assignments]\n    timeout: 90s", StringComparison.Ordinal)
            + "\n  again:\n    service: kmeans\n    operation: cluster\n    inputs: { dataset: query.dataset }\n    parameters: { clusters: 3 }\n    artifacts: [assignments]\n";
        var error = Single(yaml, "keeps 'assignments', as step 'cluster' does");
        Assert.Equal(20, error.Line);
    }

    [Theory]
    [InlineData("examples/places.csv", "/srv/flows/examples/places.csv")]
    [InlineData("../data/places.csv", "/srv/data/places.csv")]
    [InlineData("/abs/places.csv", "/abs/places.csv")]
    [InlineData("https://example.org/places.csv", "https://example.org/places.csv")]
    [InlineData("", "")]
    public void APathWrittenRelative_IsReadFromTheWorkflowFilesFolder_AnythingElseAsGiven(string written, string read)
    {
        var yaml = $"name: mine\nsteps:\n  import:\n    service: census\n    operation: import\n    parameters: {{ file: '{written}' }}\n";

        var fromFile = s_parser.Parse(yaml, "mine.yaml", "/srv/flows/mine.yaml");
        var inline = s_parser.Parse(yaml, "inline");
        var overridden = s_parser.Parse(yaml, "mine.yaml", "/srv/flows/mine.yaml", new Dictionary<string, JsonNode?> { ["import.file"] = "examples/other.csv" });

        Assert.Equal(read, fromFile.Steps.Single().Parameters["file"]!.GetValue<string>());
        Assert.Equal(written, inline.Steps.Single().Parameters["file"]!.GetValue<string>());
        Assert.Equal("examples/other.csv", overridden.Steps.Single().Parameters["file"]!.GetValue<string>()); // the caller's, as the caller gave it
    }

    [Fact]
    public void EveryErrorIsReported_NotJustTheFirst()
    {
        var yaml = Valid.Replace("service: kmeans", "service: nope", StringComparison.Ordinal).Replace("source: indiana-1000", "source: 7", StringComparison.Ordinal);
        Assert.True(Errors(yaml).Count >= 2);
    }

    [Fact]
    public async Task ATextReadOnce_IsCheckedAnewForEveryCaller_FromManyThreads_AndTheMemoryStaysBounded()
    {
        var parser = new WorkflowParser(new OperationCatalog());
        var broken = Valid.Replace("operation: query", "operation: nosuch", StringComparison.Ordinal);
        var refusedAt = Errors(Valid, new Dictionary<string, JsonNode?> { ["cluster.clusters"] = -1 }).Single();
        var unknownAt = Single(broken, "nosuch");
        var malformed = Valid + "\ncolour: blue\n";
        var malformedAt = Single(malformed, "unknown key 'colour'");

        // 8 threads × 400 parses of one text, each with its own overrides, some invalid; of a text whose
        // reading is fine and which names an unknown operation (remembered, refused by the check every
        // time); and of one that does not read (an unknown key: never remembered). Every caller gets
        // its own answer, its errors placed as on the first reading.
        await Task.WhenAll(Enumerable.Range(0, 8).Select(thread => Task.Run(() =>
        {
            for (var i = 0; i < 400; i++)
            {
                var clusters = (thread * 400 + i) % 1_000 + 1;
                switch (i % 4)
                {
                    case 0 or 1:
                        var workflow = parser.Parse(Valid, "test.yaml", null, new Dictionary<string, JsonNode?> { ["cluster.clusters"] = clusters });
                        Assert.Equal(clusters, workflow.Step("cluster").Parameters["clusters"]!.GetValue<int>());
                        Assert.Equal(Valid, workflow.Yaml);
                        break;
                    case 2:
                        var refused = Assert.Throws<WorkflowValidationException>(() =>
                            parser.Parse(Valid, "test.yaml", null, new Dictionary<string, JsonNode?> { ["cluster.clusters"] = -clusters }));
                        var error = Assert.Single(refused.Errors);
                        Assert.Contains("must be at least 1", error.Message, StringComparison.Ordinal);
                        Assert.Equal((refusedAt.Line, refusedAt.Column), (error.Line, error.Column)); // placed by the remembered nodes
                        break;
                    default:
                        var unknown = Assert.Throws<WorkflowValidationException>(() => parser.Parse(broken, "test.yaml"));
                        Assert.Contains(unknownAt, unknown.Errors);
                        var unread = Assert.Throws<WorkflowValidationException>(() => parser.Parse(malformed, "test.yaml"));
                        Assert.Contains(malformedAt, unread.Errors);
                        break;
                }
            }
        }, TestContext.Current.CancellationToken)));
        Assert.Equal(2, parser.Remembered); // Valid and broken

        // Texts that differ in every request (a hostile caller) never hold more than the bound.
        for (var i = 0; i < WorkflowParser.RememberedTexts * 3; i++)
        {
            parser.Parse(Valid.Replace("import, query, cluster", $"variant {i}", StringComparison.Ordinal), "test.yaml");
            Assert.InRange(parser.Remembered, 1, WorkflowParser.RememberedTexts);
        }

        // Nor does a text longer than the longest remembered.
        var before = parser.Remembered;
        var longText = Valid.Replace("import, query, cluster", new string('x', WorkflowParser.RememberedLength), StringComparison.Ordinal);
        Assert.Equal("small", parser.Parse(longText, "test.yaml").Name);
        Assert.Equal(before, parser.Remembered);
    }

    [Fact]
    public void Overrides_ReplaceParameters_AndUnknownOnesAreErrors()
    {
        var workflow = s_parser.Parse(Valid, "test.yaml", null, new Dictionary<string, JsonNode?> { ["cluster.clusters"] = 9 });
        Assert.Equal(9, workflow.Step("cluster").Parameters["clusters"]!.GetValue<int>());
        Single(Valid, "names no parameter", new Dictionary<string, JsonNode?> { ["cluster.k"] = 9 });
        Single(Valid, "must be at least 1", new Dictionary<string, JsonNode?> { ["cluster.clusters"] = -1 });
    }

    [Fact]
    public void ProgressLimit_ComesFromTheParameterItsOperationNames_AsWrittenOrOverridden()
    {
        // The CLI's progress bars end at it; the operation (not the CLI) says which parameter it is.
        var written = s_parser.Parse(Valid, "test.yaml");
        var overridden = s_parser.Parse(Valid, "test.yaml", null, new Dictionary<string, JsonNode?> { ["cluster.clusters"] = 9 });
        var annealing = s_parser.Parse(Valid.Replace("service: kmeans", "service: annealing", StringComparison.Ordinal)
            .Replace("parameters: { clusters: 4 }", "parameters: { maxClusters: 12 }", StringComparison.Ordinal), "test.yaml");

        Assert.Equal(4, written.Step("cluster").ProgressLimit);
        Assert.Equal(9, overridden.Step("cluster").ProgressLimit);
        Assert.Equal(12, annealing.Step("cluster").ProgressLimit);
        Assert.Null(written.Step("import").ProgressLimit);
    }

    [Fact]
    public void EmptyOrNonMappingDocuments_AreErrors()
    {
        Single("", "empty");
        Single("- a\n- b\n", "a workflow is a mapping");
        Single("name: x\n", "no steps");
        Single("name: Bad Name\nsteps: {}\n", "lower-case letters");
    }
}
