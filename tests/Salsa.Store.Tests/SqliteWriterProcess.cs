using System.Diagnostics;
using System.Globalization;
using Salsa.Store.Sqlite;

namespace Salsa.Store.Tests;

/// <summary>
/// A second process writing to a SQLite store, as another service on the same machine would:
/// it initialises the store, says <c>ready</c>, waits for <c>go</c> on standard input (so both
/// processes write at the same moment without any sleep), inserts jobs and creates datasets in
/// parallel, prints <c>dataset &lt;id&gt; &lt;seed&gt;</c> for each and exits 0.
/// </summary>
internal static class SqliteWriterProcess
{
    public const string Verb = "--sqlite-writer";

    /// <summary>Starts this test executable in writer mode.</summary>
    public static Process Start(string path, string service, int jobs, int datasets, int seed)
    {
        var assembly = typeof(SqliteWriterProcess).Assembly.Location;
        var appHost = Path.ChangeExtension(assembly, null);
        var start = File.Exists(appHost)
            ? new ProcessStartInfo(appHost)
            : new ProcessStartInfo("dotnet") { ArgumentList = { "exec", assembly } };
        foreach (var argument in (string[])[Verb, path, service, Text(jobs), Text(datasets), Text(seed)])
        {
            start.ArgumentList.Add(argument);
        }

        start.RedirectStandardInput = start.RedirectStandardOutput = start.RedirectStandardError = true;
        start.UseShellExecute = false;
        return Process.Start(start) ?? throw new InvalidOperationException($"Could not start {start.FileName}.");
    }

    public static async Task<int> RunAsync(string[] args)
    {
        var (path, service, jobs, datasets, seed) = (args[0], args[1], Number(args[2]), Number(args[3]), Number(args[4]));
        await using var store = new SqliteDataStore(path);
        await store.InitializeAsync();
        await Console.Out.WriteLineAsync("ready");
        await Console.Out.FlushAsync();
        if (await Console.In.ReadLineAsync() != "go")
        {
            return 2;
        }

        var created = Enumerable.Range(seed, datasets).Select(s => (Seed: s, Dataset: TestData.Dense(3000, 2, seed: s, labels: true))).ToArray();
        await Task.WhenAll(
            Enumerable.Range(0, jobs).Select(_ => Task.Run(() => store.InsertJobAsync(TestData.Job(service)))).Concat(
            created.Select(c => Task.Run(() => store.CreateDatasetAsync(c.Dataset.Info, c.Dataset.Content)))));
        foreach (var (s, (info, _)) in created)
        {
            await Console.Out.WriteLineAsync($"dataset {info.Id} {Text(s)}");
        }

        return 0;
    }

    private static string Text(int value) => value.ToString(CultureInfo.InvariantCulture);

    private static int Number(string text) => int.Parse(text, CultureInfo.InvariantCulture);
}
