using System.Diagnostics;
using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Workflows;
using Salsa.Testing;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The workflow reader under hostile YAML (<see cref="HostileYaml"/>): every text is answered — a
/// workflow, or a refusal the API turns into a 4xx (<see cref="WorkflowValidationException"/> 400,
/// <see cref="LimitExceededException"/> 413) — never another exception, never a crash, in a few MB
/// of allocation; and through a real gateway every one is a 4xx while the gateway keeps answering.
/// Recursive aliases overflowed the stack and ended the process before; aliases before their
/// anchors, and one long scalar aliased thousands of times, grew it by gigabytes.
/// </summary>
public sealed class HostileYamlTests(ITestOutputHelper output)
{
    /// <summary>What one text may allocate while it is read and refused: a few MB, whatever it would expand to.</summary>
    private const long AllocationBound = 8L << 20;

    private static readonly OperationCatalog s_catalog = new();

    /// <summary>Reads <paramref name="yaml"/> on a thread of its own (so a stack overflow, were there one, could not hide in a pool thread's larger stack), with what it allocated and how long it took.</summary>
    private static (Exception? Error, long Allocated, TimeSpan Elapsed) Read(WorkflowParser parser, string yaml)
    {
        Exception? error = null;
        long allocated = 0;
        var clock = Stopwatch.StartNew();
        var thread = new Thread(() =>
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            try
            {
                parser.Parse(yaml, "hostile.yaml");
            }
#pragma warning disable CA1031 // the test reports whatever escaped
            catch (Exception exception)
#pragma warning restore CA1031
            {
                error = exception;
            }

            allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        }, maxStackSize: 1 << 20);
        thread.Start();
        // A watchdog, not a timing: a reader that loops would otherwise hang the suite.
        Assert.True(thread.Join(TimeSpan.FromSeconds(30)), "the reader did not return within 30 s");
        return (error, allocated, clock.Elapsed);
    }

    private static bool IsRefusal(Exception? error) => error is WorkflowValidationException or LimitExceededException;

    [Fact]
    public void Corpus_EveryTextAnsweredWithAWorkflowOrARefusal_InAFewMegabytes()
    {
        var parser = new WorkflowParser(s_catalog);
        var slowest = (Name: "", Elapsed: TimeSpan.Zero);
        var count = 0;
        foreach (var (name, yaml) in HostileYaml.Documents())
        {
            var (error, allocated, elapsed) = Read(parser, yaml);
            Assert.True(error is null || IsRefusal(error), $"{name}: {error}");
            Assert.True(allocated < AllocationBound, $"{name}: reading it allocated {allocated:N0} bytes");
            slowest = elapsed > slowest.Elapsed ? (name, elapsed) : slowest;
            count++;
        }

        output.WriteLine($"{count} texts; the slowest, '{slowest.Name}', took {slowest.Elapsed.TotalMilliseconds:F0} ms");
    }

    [Fact]
    public void Corpus_TheValuesThatMustBeRefused_AreRefusedWhereverTheyStand()
    {
        var parser = new WorkflowParser(s_catalog);
        foreach (var (value, text, refused) in HostileYaml.Values.Where(v => v.Refused))
        {
            foreach (var (place, template) in HostileYaml.Places)
            {
                var (error, _, _) = Read(parser, template.Replace("{0}", text, StringComparison.Ordinal));
                Assert.True(IsRefusal(error), $"{value} in {place}: {error?.ToString() ?? "accepted"}");
            }
        }
    }

    [Fact]
    public void RandomAnchorsAndAliases_TwoThousandTexts_EachAnsweredInBoundedMemory()
    {
        var parser = new WorkflowParser(s_catalog);
        var random = new Random(53);
        var outcomes = new Dictionary<string, int>(StringComparer.Ordinal);
        for (var trial = 0; trial < 2_000; trial++)
        {
            var value = HostileYaml.Random(random);
            var place = HostileYaml.Places[trial % HostileYaml.Places.Length].Template;
            var (error, allocated, _) = Read(parser, place.Replace("{0}", value, StringComparison.Ordinal));
            Assert.True(error is null || IsRefusal(error), $"trial {trial}, {value}: {error}");
            Assert.True(allocated < AllocationBound, $"trial {trial}, {value}: {allocated:N0} bytes");
            var kind = error?.GetType().Name ?? "accepted";
            outcomes[kind] = outcomes.GetValueOrDefault(kind) + 1;
        }

        output.WriteLine(string.Join(", ", outcomes.Select(o => $"{o.Key} {o.Value}")));
        Assert.True(outcomes.Count >= 2, "the generator should give both valid and refused texts");
    }

    [Theory]
    [InlineData("groupColumns: &r [*r]", "alias *r is inside the node its anchor &r names")]
    [InlineData("groupColumns: &r {a: [b, *r]}", "alias *r is inside the node its anchor &r names")]
    [InlineData("groupColumns: [*a, &a x]", "alias *a comes before any anchor &a")]
    [InlineData("groupColumns: {&k a: 1, *k : 2}", "keys must be plain names, not an alias (*k)")]
    public void AliasesThatCannotBeBuilt_AnErrorAtTheirPosition(string parameter, string expected)
    {
        var parser = new WorkflowParser(s_catalog);
        var error = Assert.Throws<WorkflowValidationException>(() => parser.Parse(HostileYaml.Step($"parameters:\n      source: indiana-1000\n      {parameter}"), "alias.yaml"));

        var only = Assert.Single(error.Errors);
        Assert.Equal(8, only.Line);
        Assert.Contains(expected, only.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void BombWithAliasesBeforeAnchors_RefusedAsTheNodesItWouldExpandTo()
    {
        var parser = new WorkflowParser(s_catalog);
        var yaml = HostileYaml.Bomb(8, 8, forward: true);
        Assert.True(yaml.Length < 700, $"{yaml.Length} bytes");

        var error = Assert.Throws<WorkflowValidationException>(() => parser.Parse(yaml, "bomb.yaml"));

        // Each level's aliases name a level not yet written: YAML's own rule refuses them, before anything is built.
        Assert.All(error.Errors.SkipLast(1), e => Assert.Contains("comes before any anchor", e.Message, StringComparison.Ordinal));
        Assert.Equal("… and 6 more errors", error.Errors[^1].Message); // 7 levels of 8: 56

        // However many a text holds, 50 are listed and one more says how many are not.
        var wide = Assert.Throws<WorkflowValidationException>(() => parser.Parse(HostileYaml.Bomb(2, 1_000, forward: true), "wide.yaml"));
        Assert.Equal(WorkflowValidationException.MaxListed + 1, wide.Errors.Count);
        Assert.Equal("… and 950 more errors", wide.Errors[^1].Message);
    }

    [Fact]
    public void LongScalarAliasedThousandsOfTimes_RefusedByTheBytesItWouldExpandTo()
    {
        var parser = new WorkflowParser(s_catalog);
        var yaml = HostileYaml.LongScalarRepeated(180_000, 15_000);
        Assert.True(yaml.Length < 256 * 1024, $"{yaml.Length} bytes"); // within the text's own limit

        var error = Assert.Throws<LimitExceededException>(() => parser.Parse(yaml, "long.yaml"));

        Assert.StartsWith("long.yaml expands to more than 1,048,576 bytes of values", error.Message, StringComparison.Ordinal);
        Assert.Contains("(Gateway:Workflows:MaxValueBytes)", error.Message, StringComparison.Ordinal);
        // Within the budget, the same shape is read: each alias its anchor's value.
        var fine = parser.Parse(HostileYaml.Step($"parameters:\n      source: indiana-1000\n      groupColumns: [&s {new string('g', 1_000)}, {string.Join(", ", Enumerable.Repeat("*s", 100))}]"), "fine.yaml");
        var columns = Assert.IsType<System.Text.Json.Nodes.JsonArray>(fine.Steps.Single().Parameters["groupColumns"]);
        Assert.Equal(101, columns.Count);
        Assert.All(columns, c => Assert.Equal(1_000, c!.GetValue<string>().Length));
    }

    [Fact]
    public void NestingGrownByAliases_RefusedAtTheDepthItWouldReach()
    {
        var parser = new WorkflowParser(s_catalog);

        var error = Assert.Throws<LimitExceededException>(() => parser.Parse(HostileYaml.DeepThroughAliases(40, 2), "deep.yaml"));

        Assert.StartsWith("deep.yaml nests more than 64 levels", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("      maxClusters: 20\n", "      maxClusters: 20\n      tolerance: 1e400\n", "'1e400' is beyond the range of a number")]
    [InlineData("backoff: 1s", "backoff: 2000h", "import.retry.backoff '2000h' is longer than 1 hour, the most it may be")]
    [InlineData("    retry: { attempts: 3", "    timeout: 240000h\n    retry: { attempts: 3", "import.timeout '240000h' is longer than 7 days, the most it may be")]
    public async Task OutOfRangeValues_400InOurWords_ThroughTheApi(string written, string replaced, string expected)
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var yaml = await File.ReadAllTextAsync(Path.Combine(Repository.Root, "workflows", "census-indiana.yaml"), token);
        Assert.Contains(written, yaml, StringComparison.Ordinal);
        yaml = yaml.Replace(written, replaced, StringComparison.Ordinal);

        foreach (var path in new[] { "/api/workflows/validate", "/api/runs" })
        {
            using var refused = await gateway.Http.PostAsJsonAsync(path, new { yaml }, token);
            var body = await refused.Content.ReadAsStringAsync(token);
            Assert.True(refused.StatusCode == HttpStatusCode.BadRequest, $"{path}: {refused.StatusCode} {body}");
            Assert.Contains(expected, body, StringComparison.Ordinal);
            Assert.DoesNotContain("JSON", body, StringComparison.Ordinal);
            Assert.DoesNotContain("Parameter '", body, StringComparison.Ordinal);
        }

        Assert.Equal(0, JsonDocument.Parse(await gateway.Http.GetStringAsync("/api/runs", token)).RootElement.GetArrayLength());
    }

    [Theory]
    [InlineData("1e400", "is beyond the range of a number")]
    [InlineData("-1e400", "is beyond the range of a number")]
    public async Task OutOfRangeOverride_400InOurWords(string number, string expected)
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        using var content = new StringContent("{\"workflow\": \"census-indiana\", \"parameters\": {\"cluster.tolerance\": " + number + ", \"cluster.maxClusters\": 1e20}}",
            System.Text.Encoding.UTF8, "application/json");

        using var refused = await gateway.Http.PostAsync("/api/runs", content, token);

        var body = await refused.Content.ReadAsStringAsync(token);
        Assert.True(refused.StatusCode == HttpStatusCode.BadRequest, $"{refused.StatusCode} {body}");
        Assert.Contains(expected, body, StringComparison.Ordinal);
        Assert.Contains("parameter 'maxClusters' is 1E+20; it must be a whole number from -2147483648 to 2147483647", body, StringComparison.Ordinal);
        Assert.DoesNotContain("JSON", body, StringComparison.Ordinal);
    }

    [Fact]
    public void RetryDelay_NeverBeyondWhatATimerTakes()
    {
        var policy = new RetryPolicy(10, TimeSpan.FromHours(2000));

        Assert.Equal(TimeSpan.FromMilliseconds(uint.MaxValue - 1), policy.DelayBefore(10));
        Assert.Equal(TimeSpan.FromSeconds(4), new RetryPolicy(3, TimeSpan.FromSeconds(2)).DelayBefore(3));
    }

    [Fact]
    public async Task Corpus_ThroughARealGateway_Every4xx_AndTheGatewayKeepsAnswering()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?> { ["Gateway:WarmStart"] = "false" }, token);
        var statuses = new Dictionary<HttpStatusCode, int>();
        foreach (var (name, yaml) in HostileYaml.Documents())
        {
            foreach (var path in new[] { "/api/workflows/validate", "/api/runs" })
            {
                // Expect: 100-continue: a body over the limit is refused (413) before it is sent, not
                // met by a broken pipe on the connection the gateway closes while it is still going.
                using var request = new HttpRequestMessage(HttpMethod.Post, path) { Content = JsonContent.Create(new { yaml }) };
                request.Headers.ExpectContinue = true;
                using var answer = await gateway.Http.SendAsync(request, token);
                var body = await answer.Content.ReadAsStringAsync(token);
                var status = answer.StatusCode;
                statuses[status] = statuses.GetValueOrDefault(status) + 1;
                Assert.True(status is HttpStatusCode.BadRequest or HttpStatusCode.RequestEntityTooLarge or HttpStatusCode.OK or HttpStatusCode.Accepted, $"{name} to {path}: {status} {body[..Math.Min(body.Length, 400)]}");
                Assert.True(body.Length < 64 << 10, $"{name} to {path}: an answer of {body.Length:N0} characters");
                if (status == HttpStatusCode.Accepted)
                {
                    var id = JsonDocument.Parse(body).RootElement.GetProperty("id").GetGuid();
                    using var cancelled = await gateway.Http.PostAsync($"/api/runs/{id}/cancel", null, token);
                }
            }
        }

        output.WriteLine(string.Join(", ", statuses.Select(s => $"{(int)s.Key} × {s.Value}")));
        using var health = await gateway.Http.GetAsync("/health", token);
        Assert.Equal(HttpStatusCode.OK, health.StatusCode);
    }
}
