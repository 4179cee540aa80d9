using System.Globalization;
using System.Text;
using Salsa.Gateway.Cli;

namespace Salsa.Gateway.Tests;

/// <summary>The gateway's command line as a user meets it: help for every mode, usage errors with exit code 2.</summary>
public sealed class CommandLineTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Theory]
    [InlineData(new[] { "--help" }, "run", "schema", "operations", "--Key=value")]
    [InlineData(new[] { "run", "--help" }, "<workflow>", "--set", "--out", "--store", "--gateway")]
    [InlineData(new[] { "schema", "-h" }, "JSON Schema", "workflow.schema.json")]
    [InlineData(new[] { "operations", "--help" }, "--markdown")]
    public async Task Help_EveryMode_DescribesItsArgumentsAndExitsZero(string[] args, params string[] mentions)
    {
        var (code, output, error) = await InvokeAsync(args);

        Assert.Equal(0, code);
        Assert.Equal("", error);
        Assert.All(mentions, m => Assert.Contains(m, output, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData(new[] { "run" }, "workflow", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "census-indiana", "--frobnicate" }, "--frobnicate", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "census-indiana", "--set", "cluster.maxClusters" }, "cluster.maxClusters", "step.parameter=value")]
    [InlineData(new[] { "run", "census-indiana", "--out" }, "--out", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "census-indiana", "--gateway", "ftp://127.0.0.1:5080" }, "ftp://127.0.0.1:5080", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "census-indiana", "--gateway", "127.0.0.1:5080" }, "not an http(s) address", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "census-indiana", "--gateway", "http://127.0.0.1:5080", "--store", "s.db" }, "--store", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "census-indiana", "--reproduce", "3f2c9b9e-5d1c-4a37-9c1e-0d6f1b0c2a11" }, "one of them", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "--retry", "3f2c9b9e-5d1c-4a37-9c1e-0d6f1b0c2a11" }, "--retry and --from go together", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "census-indiana", "--retry", "3f2c9b9e-5d1c-4a37-9c1e-0d6f1b0c2a11", "--from", "map" }, "one of them", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "--retry", "not-a-run", "--from", "map" }, "not-a-run", "Salsa.Gateway run --help")]
    [InlineData(new[] { "run", "--reproduce", "result.json", "--set", "cluster.maxClusters=3" }, "--set changes a run", "Salsa.Gateway run --help")]
    [InlineData(new[] { "schema", "extra" }, "extra", "Salsa.Gateway schema --help")]
    [InlineData(new[] { "operations", "--markdwn" }, "--markdwn", "Salsa.Gateway operations --help")]
    public async Task UsageError_SaysWhatWasWrongAndExitsTwo(string[] args, string names, string advice)
    {
        var (code, output, error) = await InvokeAsync(args);

        Assert.Equal(GatewayCommandLine.UsageError, code);
        Assert.Equal("", output);
        Assert.Contains(names, error, StringComparison.Ordinal);
        Assert.Contains(advice, error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Operations_Summary_ListsEveryOperationOfTheCatalog()
    {
        var (code, output, _) = await InvokeAsync(["operations"]);

        Assert.Equal(0, code);
        Assert.All(new Catalog.OperationCatalog().Specifications, o => Assert.Contains(o.Key, output, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("10", "10")]
    [InlineData("true", "true")]
    [InlineData("[1,2]", "[1,2]")]
    [InlineData("indiana", "\"indiana\"")]
    [InlineData("a=b", "\"a=b\"")]
    public void ParseValue_JsonWhenItParsesElseText(string text, string json)
    {
        Assert.Equal(json, RunCommand.ParseValue(text)!.ToJsonString());
    }

    [Fact]
    public async Task Keys_CreateListRevoke_KeyPrintedOnceStoredAsAHashRefusedOnBadInput()
    {
        using var directory = new Salsa.Testing.TemporaryDirectory();
        var store = directory.Combine("keys.db");

        var (created, key, createdNote) = await InvokeAsync(["keys", "create", "--tenant", "acme", "--scopes", "read,run", "--name", "ci", "--store", store]);
        Assert.True(created == 0, createdNote);
        key = key.Trim();
        Assert.True(Salsa.Hosting.Security.ApiKeys.TrySplit(key, out var id, out var secret), key);
        Assert.Contains($"Created key {id} for tenant 'acme' with scopes read, run", createdNote, StringComparison.Ordinal);
        Assert.DoesNotContain(secret, Encoding.Latin1.GetString(await File.ReadAllBytesAsync(store, Token)), StringComparison.Ordinal);

        var (listed, table, _) = await InvokeAsync(["keys", "list", "--tenant", "acme", "--store", store]);
        Assert.Equal(0, listed);
        Assert.Contains(id, table, StringComparison.Ordinal);
        Assert.DoesNotContain(secret, table, StringComparison.Ordinal);

        Assert.Equal(0, (await InvokeAsync(["keys", "revoke", id, "--store", store])).Code);
        var (again, _, againError) = await InvokeAsync(["keys", "revoke", id, "--store", store]);
        Assert.Equal(1, again);
        Assert.Contains("not revoked already", againError, StringComparison.Ordinal);

        foreach (var bad in new[] { new[] { "--scopes", "bogus", "--name", "x" }, ["--scopes", "run", "--name", "x", "--tenant", "Not Valid"], ["--scopes", "run", "--name", " "] })
        {
            var (code, output, error) = await InvokeAsync(["keys", "create", .. bad, "--store", store]);
            Assert.True(code == GatewayCommandLine.UsageError, $"{string.Join(' ', bad)}: {code} {error}");
            Assert.Empty(output);
            Assert.DoesNotContain("   at ", error, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Reproduce_AnUnknownRunOrNotAResult_SaysWhyAndExitsTwo()
    {
        using var directory = new Salsa.Testing.TemporaryDirectory();
        var notAResult = directory.Combine("result.json");
        await File.WriteAllTextAsync(notAResult, "{\"steps\": 7}", Token);
        var unknown = Guid.NewGuid().ToString();

        foreach (var (recorded, says) in new[] { (unknown, unknown), (notAResult, "is not a run's result.json"), (directory.Combine("missing.json"), "neither a run id nor a result.json") })
        {
            var (code, output, error) = await InvokeAsync(["run", "--reproduce", recorded, "--store", directory.Combine("salsa.db"), "--out", directory.Combine("out")]);

            Assert.True(code == GatewayCommandLine.UsageError, $"{recorded}: {code} {output} {error}");
            Assert.Contains(says, output, StringComparison.Ordinal);
            Assert.DoesNotContain("   at ", output + error, StringComparison.Ordinal);
        }

        Assert.False(Directory.Exists(directory.Combine("out")) && Directory.EnumerateFileSystemEntries(directory.Combine("out")).Any());
    }

    [Fact]
    public async Task Retry_FromAStep_RunsItAgain_WithTheStepsBeforeItReused()
    {
        using var directory = new Salsa.Testing.TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        var output = directory.Combine("out");
        var (code, text, error) = await InvokeAsync(["run", "census-indiana", "--set", "cluster.maxClusters=3", "--store", store, "--out", output]);
        Assert.True(code == 0, $"{code} {text} {error}");
        var first = Directory.GetDirectories(output).Single();

        (code, text, error) = await InvokeAsync(["run", "--retry", Path.GetFileName(first), "--from", "map", "--set", "map.width=500", "--store", store, "--out", output]);

        Assert.True(code == 0, $"{code} {text} {error}");
        var again = Directory.GetDirectories(output).Single(d => d != first);
        using var result = System.Text.Json.JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(again, "result.json"), Token));
        var root = result.RootElement;
        Assert.Equal(("map", Path.GetFileName(first)), (root.GetProperty("retriedFrom").GetString(), root.GetProperty("rerunOf").GetString()));
        Assert.Equal(["import", "query", "cluster"], root.GetProperty("steps").EnumerateArray().Where(s => s.GetProperty("reused").GetBoolean()).Select(s => s.GetProperty("id").GetString()));
        Assert.Equal(500, root.GetProperty("parameters").GetProperty("map.width").GetInt32());
        Assert.True(File.Exists(Path.Combine(again, "map.svg")));

        (code, text, _) = await InvokeAsync(["run", "--retry", Path.GetFileName(first), "--from", "map", "--set", "cluster.maxClusters=5", "--store", store, "--out", output]);
        Assert.Equal(GatewayCommandLine.UsageError, code);
        Assert.Contains("retry from 'cluster' to change it", text, StringComparison.Ordinal);
    }

    private static async Task<(int Code, string Output, string Error)> InvokeAsync(string[] args)
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture);
        using var error = new StringWriter(CultureInfo.InvariantCulture);
        var code = await GatewayCommandLine.InvokeAsync(args, output, error, Token);
        return (code, output.ToString(), error.ToString());
    }
}
