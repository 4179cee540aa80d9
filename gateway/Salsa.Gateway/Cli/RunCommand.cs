using System.CommandLine;
using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Gateway.Workflows;
using Spectre.Console;

namespace Salsa.Gateway.Cli;

/// <summary>
/// <c>run &lt;workflow.yaml | name&gt;</c>: runs one workflow in this process — the gateway with its
/// embedded services (or remote ones when addressed) — or on a gateway server (<c>--gateway</c>), with
/// a live progress bar per step, prints the hop table and writes <c>out/&lt;run-id&gt;/</c>:
/// <c>result.json</c> and every file the run kept.
/// </summary>
public static class RunCommand
{
    private static readonly JsonSerializerOptions s_indented = new(RunManager.Json) { WriteIndented = true };

    /// <summary>What to run, and where: <paramref name="Gateway"/> null runs it in this process (with <paramref name="Settings"/>), else on that gateway server.
    /// <paramref name="Reproduce"/>, when set, is a run id or a <c>result.json</c> to run again exactly as recorded (<paramref name="Workflow"/> and <paramref name="Parameters"/> are then empty).
    /// <paramref name="Retry"/>, when set, is a run to run again from its step <paramref name="From"/>, with <paramref name="Parameters"/> as changes for that step and those downstream.</summary>
    public sealed record Options(string Workflow, IReadOnlyDictionary<string, JsonNode?> Parameters, string OutputRoot, IReadOnlyDictionary<string, string?> Settings, Uri? Gateway = null, string? ApiKey = null,
        string? Reproduce = null, Guid? Retry = null, string? From = null);

    /// <summary>Where the <c>run --gateway</c> command finds its API key when <c>--api-key</c> is not given.</summary>
    public const string ApiKeyVariable = "SALSA_API_KEY";

    /// <summary>The <c>run</c> command of the gateway's command line.</summary>
    public static Command Create()
    {
        var workflow = new Argument<string?>("workflow")
        {
            Description = "A workflow file (.yaml) or the name of one in the workflows folder (census-indiana, chem-40k, …); none with --reproduce.",
            Arity = ArgumentArity.ZeroOrOne,
        };
        var reproduce = new Option<string?>("--reproduce")
        {
            Description = "Runs again a recorded run exactly as it ran — its id (on this machine's store, or the --gateway server's) or its result.json from anywhere — and says, output by output, whether it came out identical (exit code 0) or not (1), and which step first differs.",
            HelpName = "run-id|result.json",
        };
        var retry = new Option<Guid?>("--retry")
        {
            Description = "Runs an ended run again from one of its steps (--from): that step and everything downstream of it run anew, with --set changes for those steps; every other step that succeeded is reused (its outputs, the same dataset ids).",
            HelpName = "run-id",
        };
        var from = new Option<string?>("--from") { Description = "With --retry: the step to run again from.", HelpName = "step" };
        var set = new Option<string[]>("--set")
        {
            Description = "Sets a workflow parameter, step.parameter=value (repeatable); the value is JSON when it parses (10, true, [1,2]), else a string.",
            HelpName = "step.parameter=value",
            Arity = ArgumentArity.ZeroOrMore,
        };
        set.Validators.Add(result =>
        {
            foreach (var token in result.Tokens.Where(t => t.Value.IndexOf('=', StringComparison.Ordinal) <= 0))
            {
                result.AddError($"--set '{token.Value}' is not step.parameter=value.");
            }
        });
        var output = new Option<string>("--out") { Description = "Where the run's folder (result.json and its files) is written.", HelpName = "dir", DefaultValueFactory = _ => "out" };
        var store = new Option<string?>("--store") { Description = "The SQLite file that keeps runs, datasets and jobs (default .salsa/salsa.db).", HelpName = "path" };
        var gateway = new Option<Uri?>("--gateway")
        {
            Description = "Runs the workflow on the gateway server at this address (e.g. the compose deployment's http://127.0.0.1:5080) instead of in this process; the workflow is read here and sent.",
            HelpName = "url",
            CustomParser = result =>
            {
                var text = result.Tokens.Single().Value;
                if (Uri.TryCreate(text, UriKind.Absolute, out var uri) && uri.Scheme is "http" or "https")
                {
                    return uri;
                }

                result.AddError($"--gateway '{text}' is not an http(s) address.");
                return null;
            },
        };
        var apiKey = new Option<string?>("--api-key")
        {
            Description = $"The API key for a gateway server that asks for one (default: the {ApiKeyVariable} environment variable; prefer it, a command line is visible to other users).",
            HelpName = "key",
        };
        var ports = new Option<int?>("--ports")
        {
            Description = $"Pins the embedded gateway, its silo and its services to the {PinnedPorts.Count} loopback ports from this one (the gateway's REST is this port; the order is in the gateway's README) instead of free ports drawn at random.",
            HelpName = "first",
        };
        var command = new Command("run", "Runs one workflow — in this process with the services embedded, or on a gateway server (--gateway) — with live progress and the hop table; writes <out>/<run-id>/.")
        {
            workflow, set, output, store, gateway, apiKey, ports, reproduce, retry, from,
        };
        command.Validators.Add(result =>
        {
            if (new[] { result.GetValue(workflow) is not null, result.GetResult(reproduce) is not null, result.GetResult(retry) is not null }.Count(given => given) != 1)
            {
                result.AddError("Name a workflow to run, a run to reproduce (--reproduce run-id|result.json) or a run to retry (--retry run-id --from step): one of them.");
            }

            if ((result.GetResult(retry) is null) != (result.GetResult(from) is null))
            {
                result.AddError("--retry and --from go together: the run, and the step it runs again from.");
            }

            if (result.GetResult(reproduce) is not null && result.GetResult(set) is { Tokens.Count: > 0 })
            {
                result.AddError("--reproduce runs the recorded parameters; --set changes a run (re-run it from the console or POST /api/runs/{id}/rerun).");
            }

            if (result.GetResult(gateway) is not null && result.GetResult(store) is not null)
            {
                result.AddError("--store is the embedded gateway's store; a run on a gateway server (--gateway) is kept in that server's.");
            }

            if (result.GetResult(gateway) is not null && result.GetResult(ports) is not null)
            {
                result.AddError("--ports pins the embedded gateway's ports; a gateway server (--gateway) listens where it was started.");
            }
        });
        command.SetAction(async (parse, cancellationToken) =>
        {
            var parameters = new Dictionary<string, JsonNode?>(StringComparer.Ordinal);
            foreach (var assignment in parse.GetValue(set) ?? [])
            {
                var eq = assignment.IndexOf('=', StringComparison.Ordinal);
                parameters[assignment[..eq]] = ParseValue(assignment[(eq + 1)..]);
            }

            var settings = new Dictionary<string, string?>(StringComparer.Ordinal);
            if (parse.GetValue(store) is { } path)
            {
                settings["Store:SqlitePath"] = path;
            }

            if (parse.GetValue(ports) is { } first)
            {
                settings[PinnedPorts.Key] = first.ToString(CultureInfo.InvariantCulture);
            }

            using var interrupt = new CancellationTokenSource();
            using var linked = CancellationTokenSource.CreateLinkedTokenSource(interrupt.Token, cancellationToken);
            ConsoleCancelEventHandler onInterrupt = (_, e) =>
            {
                e.Cancel = true;
                interrupt.Cancel();
            };
            Console.CancelKeyPress += onInterrupt;
            try
            {
                var key = parse.GetValue(apiKey) ?? Environment.GetEnvironmentVariable(ApiKeyVariable);
                return await RunAsync(new Options(parse.GetValue(workflow) ?? "", parameters, parse.GetValue(output)!, settings, parse.GetValue(gateway), key, parse.GetValue(reproduce), parse.GetValue(retry), parse.GetValue(from)),
                    GatewayCommandLine.ConsoleOf(parse), linked.Token).ConfigureAwait(false);
            }
            finally
            {
                Console.CancelKeyPress -= onInterrupt;
            }
        });
        return command;
    }

    /// <summary>A <c>--set</c> value: JSON when it parses (10, true, [1,2]), else the text itself (us, indiana).</summary>
    public static JsonNode? ParseValue(string text)
    {
        try
        {
            return JsonNode.Parse(text);
        }
        catch (JsonException)
        {
            return JsonValue.Create(text);
        }
    }

    public static async Task<int> RunAsync(Options options, IAnsiConsole console, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(console);

        // In this process the run is this machine's one user's (the tenant 'local'); a server knows its caller by the key.
        using var tenant = Salsa.Hosting.Security.CallerTenant.Enter(Salsa.Store.Tenants.Local);
        IRunHost started;
        try
        {
            started = options.Gateway is { } gateway
                ? new RemoteRunHost(gateway, options.ApiKey)
                : await EmbeddedRunHost.StartAsync(options.Settings, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is ArgumentException or InvalidOperationException)
        {
            // A setting the gateway will not start with (a pinned port taken, …): said, not thrown.
            console.MarkupLineInterpolated($"[red]{exception.Message}[/]");
            return 1;
        }

        await using var host = started;

        WorkflowDefinition workflow;
        RunView run;
        try
        {
            if (options.Retry is { } retried)
            {
                run = await host.RetryFromAsync(retried, options.From!, options.Parameters, cancellationToken).ConfigureAwait(false);
                workflow = host.Parse(run.Provenance!.Workflow, run.Parameters);
            }
            else if (options.Reproduce is { } recorded)
            {
                run = await Reproduction.StartAsync(host, recorded, cancellationToken).ConfigureAwait(false);
                workflow = host.Parse(run.Provenance!.Workflow, run.Parameters);
            }
            else
            {
                workflow = host.Load(options.Workflow, options.Parameters);
                run = await host.SubmitAsync(workflow, options.Parameters, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (Exception exception) when (exception is WorkflowValidationException or FileNotFoundException or Salsa.Hosting.Errors.NotFoundException or Salsa.Hosting.Errors.ConflictException
            or ArgumentException)
        {
            console.MarkupLineInterpolated($"[red]{exception.Message}[/]");
            return GatewayCommandLine.UsageError;
        }
        catch (GatewayUnavailableException exception)
        {
            console.MarkupLineInterpolated($"[red]{exception.Message}[/]");
            return 1;
        }

        console.MarkupLineInterpolated($"[bold]{workflow.Name}[/] run [bold]{run.Id}[/]  [grey]({string.Join(" → ", workflow.Order.Select(s => s.Id))}; watch at {host.Address}#/runs/{run.Id})[/]");
        using var cancelOnInterrupt = cancellationToken.Register(() => _ = host.CancelAsync(run.Id));

        RunView final;
        string directory;
        try
        {
            await console.Progress()
                .AutoClear(false)
                .Columns(new TaskDescriptionColumn { Alignment = Justify.Left }, new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn(), new SpinnerColumn())
                .StartAsync(async progress =>
                {
                    var bars = workflow.Steps.ToDictionary(s => s.Id, s =>
                    {
                        var task = progress.AddTask(Describe(s.Id, s.Service, s.Operation), autoStart: false, maxValue: 1);
                        task.IsIndeterminate = true;
                        return task;
                    });
                    await foreach (var item in host.WatchAsync(run.Id, CancellationToken.None))
                    {
                        switch (item)
                        {
                            case RunEvent.StepChanged { View: var step }:
                                Show(bars[step.Id], step);
                                break;
                            case RunEvent.ProgressReported { StepId: var id, Update: var p }:
                                var bar = bars[id];
                                if (workflow.Step(id).ProgressLimit is { } max)
                                {
                                    bar.IsIndeterminate = false;
                                    bar.MaxValue = max;
                                    bar.Value = Math.Min(p.Clusters, max);
                                }

                                bar.Description = Describe(id, workflow.Step(id).Service, workflow.Step(id).Operation) + string.Create(CultureInfo.InvariantCulture,
                                    $"  [grey]{(p.Temperature is { } t ? $"T={t:G4}  " : "")}K={p.Clusters}  F={p.Objective:G6}  it={p.Iteration}[/]");
                                break;
                            case RunEvent.RunChanged { View: var view }:
                                foreach (var step in view.Steps)
                                {
                                    Show(bars[step.Id], step);
                                }

                                break;
                        }
                    }
                });

            final = await host.WaitAsync(run.Id, CancellationToken.None).ConfigureAwait(false);
            directory = Path.GetFullPath(Path.Combine(options.OutputRoot, final.Id.ToString()));
            Directory.CreateDirectory(directory);
            await File.WriteAllTextAsync(Path.Combine(directory, "result.json"), JsonSerializer.Serialize(final, s_indented), CancellationToken.None).ConfigureAwait(false);
            foreach (var artifact in final.Artifacts)
            {
                var data = await host.GetArtifactAsync(final.Id, artifact.Name, CancellationToken.None).ConfigureAwait(false);
                await File.WriteAllBytesAsync(Path.Combine(directory, artifact.Name), data, CancellationToken.None).ConfigureAwait(false);
            }
        }
        catch (GatewayUnavailableException exception)
        {
            // The run goes on (or ended) there; only this view of it is lost.
            console.MarkupLineInterpolated($"[red]{exception.Message}[/] The run is the gateway's: {host.Address}#/runs/{run.Id}");
            return 1;
        }

        if (Console.IsOutputRedirected)
        {
            console.Profile.Width = 180; // a log file, not a terminal: one line per hop
        }

        console.Write(HopTable(final));
        var colour = final.State == RunState.Succeeded ? "green" : "red";
        console.MarkupLineInterpolated($"[{colour}]{final.State.ToString().ToLowerInvariant()}[/] {final.Error} → [bold]{directory}[/]");
        console.MarkupLineInterpolated($"[grey]{string.Join(", ", final.Artifacts.Select(a => a.Name).Prepend("result.json"))}[/]");
        if (final.Reproduction is { } reproduction)
        {
            Reproduction.Show(console, reproduction);
            return reproduction.Identical == true ? 0 : 1;
        }

        return final.State == RunState.Succeeded ? 0 : 1;
    }

    private static string Describe(string id, string service, string operation) => $"{Markup.Escape(id),-10} [grey]{service}.{operation}[/]";

    private static void Show(ProgressTask bar, StepView step)
    {
        switch (step.State)
        {
            case StepState.Running when !bar.IsStarted:
                bar.StartTask();
                break;
            case StepState.Succeeded or StepState.Failed or StepState.Cancelled or StepState.Skipped:
                if (!bar.IsStarted)
                {
                    bar.StartTask();
                }

                bar.IsIndeterminate = false;
                bar.Value = bar.MaxValue;
                var mark = step.State switch { StepState.Succeeded => "[green]✓[/]", StepState.Skipped => "[grey]–[/]", _ => "[red]✗[/]" };
                bar.Description = $"{mark} {Describe(step.Id, step.Service, step.Operation)}{(step.Reused ? " [grey](kept)[/]" : "")}";
                bar.StopTask();
                break;
        }
    }

    /// <summary>The run's hops: latency, the service's own time, the rest, bytes, retries, outcome.</summary>
    public static Table HopTable(RunView run)
    {
        ArgumentNullException.ThrowIfNull(run);
        static string Ms(double? value) => value is { } v ? v.ToString("0.0", CultureInfo.InvariantCulture) : "–";
        static string N(long value) => value.ToString("N0", CultureInfo.InvariantCulture);
        var table = new Table().Border(TableBorder.Simple)
            .AddColumns("step", "service", "operation", "start ms", "latency ms", "server ms", "queue ms", "compute ms", "network ms", "req B", "resp B", "retries", "outcome");
        foreach (var column in table.Columns.Skip(3).Take(9))
        {
            column.RightAligned();
        }

        var origin = run.Started ?? run.Created;
        foreach (var hop in run.Hops.OrderBy(h => h.Start))
        {
            table.AddRow(hop.Step, hop.Service, hop.Operation, Ms((hop.Start - origin).TotalMilliseconds), Ms(hop.LatencyMs), Ms(hop.ServerMs), Ms(hop.QueueMs), Ms(hop.ComputeMs),
                Ms(hop.NetworkMs), N(hop.RequestBytes), N(hop.ResponseBytes), hop.Retries.ToString(CultureInfo.InvariantCulture),
                hop.Outcome is "ok" or "succeeded" ? hop.Outcome : $"[red]{Markup.Escape(hop.Outcome)}[/]");
        }

        return table;
    }
}
