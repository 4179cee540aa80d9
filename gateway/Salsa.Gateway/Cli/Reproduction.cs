using System.Text.Json;
using Salsa.Gateway.Runs;
using Spectre.Console;

namespace Salsa.Gateway.Cli;

/// <summary><c>run --reproduce</c>: the run to make again (an id or a <c>result.json</c>), and what came of it, output by output.</summary>
internal static class Reproduction
{
    /// <summary>The most a <c>result.json</c> may weigh (a run's view with its hops and tables is tens of kilobytes).</summary>
    private const long MaxResultBytes = 64L << 20;

    /// <summary>Starts the reproduction of <paramref name="recorded"/>: a run id of the host's, or a <c>result.json</c> file.</summary>
    public static async Task<RunView> StartAsync(IRunHost host, string recorded, CancellationToken cancellationToken)
    {
        if (Guid.TryParse(recorded, out var id))
        {
            return await host.ReproduceAsync(id, cancellationToken).ConfigureAwait(false);
        }

        var file = new FileInfo(recorded);
        if (!file.Exists)
        {
            throw new FileNotFoundException($"--reproduce '{recorded}' is neither a run id nor a result.json file.", recorded);
        }

        if (file.Length > MaxResultBytes)
        {
            throw new ArgumentException($"{file.Name} has {file.Length:N0} bytes; a run's result.json has at most {MaxResultBytes:N0}.");
        }

        RunView? view;
        try
        {
            await using var stream = file.OpenRead();
            view = await JsonSerializer.DeserializeAsync<RunView>(stream, RunManager.Json, cancellationToken).ConfigureAwait(false);
        }
        catch (JsonException exception)
        {
            throw new ArgumentException($"{file.Name} is not a run's result.json: {exception.Message}", exception);
        }

        return await host.ReproduceAsync(view ?? throw new ArgumentException($"{file.Name} holds no run."), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Prints each output and file with its recorded and reproduced digests, then the verdict.</summary>
    public static void Show(IAnsiConsole console, RunReproduction reproduction)
    {
        ArgumentNullException.ThrowIfNull(console);
        ArgumentNullException.ThrowIfNull(reproduction);
        var table = new Table().Border(TableBorder.Simple).AddColumns("step", "output", "recorded sha256", "reproduced sha256", "");
        foreach (var output in reproduction.Outputs)
        {
            table.AddRow(
                Markup.Escape(output.Step),
                Markup.Escape(output.File ? $"file {output.Name}" : output.Name),
                Short(output.Recorded),
                Short(output.Reproduced),
                output switch
                {
                    { Identical: true } => "[green]identical[/]",
                    { Recorded: null } => "[yellow]no digest recorded[/]",
                    { Reproduced: null } => "[red]not made[/]",
                    _ => "[red]differs[/]",
                });
        }

        console.Write(table);
        console.MarkupLineInterpolated($"[grey]recorded by {reproduction.RecordedPlatform ?? "an unknown release"}{(reproduction.RecordedRdkit is { } rdkit ? $", RDKit {rdkit}" : "")}; run {reproduction.Of}[/]");
        if (reproduction.Pinned.Count > 0)
        {
            console.MarkupLineInterpolated($"[grey]set to the recorded values (this release's differ): {string.Join(", ", reproduction.Pinned)}[/]");
        }

        if (reproduction.Identical == true)
        {
            console.MarkupLineInterpolated($"[green]reproduced: all {reproduction.Outputs.Count} outputs and files identical[/]");
        }
        else
        {
            var differing = reproduction.Outputs.Count(o => !o.Identical);
            console.MarkupLineInterpolated($"[red]not reproduced: {differing} of {reproduction.Outputs.Count} outputs and files differ{(reproduction.FirstDifference is { } step ? $"; step '{step}' is the first to differ" : "")}[/]");
        }
    }

    private static string Short(string? digest) => digest is { Length: > 16 } ? digest[..16] + "…" : digest ?? "–";
}
