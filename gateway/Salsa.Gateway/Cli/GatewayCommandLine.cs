using System.CommandLine;
using System.CommandLine.Parsing;
using System.Text;
using Microsoft.Extensions.Options;
using Salsa.Gateway.Services;
using Salsa.Hosting.Host;
using Spectre.Console;

namespace Salsa.Gateway.Cli;

/// <summary>
/// The gateway's command line: with no command, the server; <c>run</c>, <c>schema</c>,
/// <c>operations</c> and <c>keys</c> as documented by <c>--help</c>. Usage errors print what was wrong and exit 2;
/// a run that fails exits 1.
/// </summary>
public static class GatewayCommandLine
{
    public const int UsageError = 2;

    public static RootCommand Create()
    {
        var root = new RootCommand(
            "The Salsa workflow gateway. With no command it is the server: the web UI and REST on http://127.0.0.1:5080, gRPC on 5081, every service embedded. " +
            "Configuration may follow as --Key=value (for example --Store:SqlitePath=salsa.db or --Gateway:WarmStart=false).")
        {
            // Configuration keys for the host (--Kestrel:…, --Store:…) are not options of this parser.
            TreatUnmatchedTokensAsErrors = false,
        };
        root.SetAction(async (parse, cancellationToken) => await ServeAsync([.. parse.UnmatchedTokens], cancellationToken).ConfigureAwait(false));
        root.Add(RunCommand.Create());
        root.Add(SchemaCommand.CreateSchema());
        root.Add(SchemaCommand.CreateOperations());
        root.Add(KeysCommand.Create());
        return root;
    }

    /// <summary>Parses and runs <paramref name="args"/>; the output and error writers default to the console.</summary>
    public static async Task<int> InvokeAsync(string[] args, TextWriter? output = null, TextWriter? error = null, CancellationToken cancellationToken = default)
    {
        var result = Create().Parse(args);
        // UTF-8 whatever the locale: what the commands print (the schema, the operations reference) is committed.
        await using var stdout = output is null ? new StandardOutput() : null;
        var configuration = new InvocationConfiguration
        {
            Output = output ?? stdout!,
            Error = error ?? Console.Error,
            // The host (server) and the run command stop cleanly on Ctrl+C themselves.
            ProcessTerminationTimeout = null,
        };
        // Only the server takes tokens it does not know (they are the host's configuration); the
        // parser applies the root's leniency to every command, so the commands' strictness is here.
        var problems = result.Errors.Select(e => e.Message).ToList();
        if (result.CommandResult.Command is not RootCommand)
        {
            problems.AddRange(result.UnmatchedTokens.Select(t => $"Unrecognized command or argument '{t}'."));
        }

        if (problems.Count > 0)
        {
            foreach (var problem in problems)
            {
                await configuration.Error.WriteLineAsync(problem).ConfigureAwait(false);
            }

            await configuration.Error.WriteLineAsync($"Try '{CommandPath(result)} --help'.").ConfigureAwait(false);
            return UsageError;
        }

        return await result.InvokeAsync(configuration, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Where a command's live display goes: the terminal's own console (colours, live tables) when
    /// its output is the process's, else a plain console over the writer it was given.
    /// </summary>
    internal static IAnsiConsole ConsoleOf(ParseResult parse)
    {
        if (parse.InvocationConfiguration.Output is StandardOutput)
        {
            return AnsiConsole.Console;
        }

        var console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Out = new AnsiConsoleOutput(parse.InvocationConfiguration.Output),
            Ansi = AnsiSupport.No,
            ColorSystem = ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.No,
        });
        console.Profile.Width = 240; // a writer has no window to wrap at
        return console;
    }

    private static string CommandPath(ParseResult result)
    {
        var names = new List<string>();
        for (var command = result.CommandResult; command is not null; command = command.Parent as CommandResult)
        {
            names.Insert(0, command.Command is RootCommand ? "Salsa.Gateway" : command.Command.Name);
        }

        return string.Join(' ', names);
    }

    private static async Task<int> ServeAsync(string[] args, CancellationToken cancellationToken)
    {
        return await SalsaServiceHost.RunAsync(GatewayService.Name, () => SalsaServiceHost.Create<GatewayService>(args), async app =>
        {
            if (app.Services.GetRequiredService<IOptions<GatewayOptions>>().Value.WarmStart)
            {
                // The embedded services start now rather than at the first run's first call.
                await app.Services.GetRequiredService<ServiceDirectory>().StartAllAsync(app.Lifetime.ApplicationStopping).ConfigureAwait(false);
            }
        }, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The process's standard output, UTF-8 whatever the locale.</summary>
    private sealed class StandardOutput : StreamWriter
    {
        public StandardOutput()
            : base(Console.OpenStandardOutput(), new UTF8Encoding(false)) => AutoFlush = true;
    }
}
