using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.Extensions.Options;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Workflows;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Scheduling;
using Salsa.Hosting.Security;
using Salsa.Store;

namespace Salsa.Gateway.Runs;

// Design: a run is accepted (validated, a place in the bounded queue, stored Queued) before the
// caller hears its id, so every run that exists can be found: that insert is the only store write a
// caller waits for. The run starts meanwhile; its own writes wait for the insert, and a run the store
// refuses is stopped, unwritten and unlisted, before its caller hears. Runs live in `_live` while they
// execute and until their final view is stored (in the background, written behind: RunPersister);
// finished runs are read from the store. Runs are JobRecords of service "gateway" in the shared
// store (SQLite or PostgreSQL): kind = workflow name, parameters = the request (YAML and
// overrides), result = the run view (steps, outputs, hops, artifacts), artifacts = the files the
// steps kept. At start, runs a previous process left Queued or
// Running are resumed — steps that had succeeded keep their outputs, the others run again — or,
// when resuming is off or impossible, marked Interrupted with the reason. None vanish.
public sealed partial class RunManager(IDataStore store, WorkflowLibrary library, OperationCatalog catalog, Services.ServiceDirectory services,
    IOptions<RunLimits> options, ILoggerFactory loggers) : IHostedLifecycleService
{
    /// <summary>The records' service: not the gateway's own name, whose job manager marks its jobs interrupted at start.</summary>
    public const string Service = DatasetCatalog.RunsOwner;

    internal static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);

    private readonly ConcurrentDictionary<Guid, LiveRun> _live = new();
    private readonly RunLimits _limits = options.Value;
    private readonly TenantScheduler<LiveRun> _scheduler = new(
        new TenantShares(options.Value.Concurrent, options.Value.QueueDepth, options.Value.MaxQueuedPerTenant, options.Value.MaxRunningPerTenant ?? options.Value.Concurrent - 1),
        run => run.Admitted.TrySetResult());
    private readonly WorkflowRunner _runner = new(catalog, services, loggers.CreateLogger<WorkflowRunner>());
    private readonly ILogger _logger = loggers.CreateLogger<RunManager>();
    private readonly RunFeed _feed = new();
    private volatile bool _stopping;

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        var stale = (await store.ListJobsAsync(Service, null, 10_000, cancellationToken).ConfigureAwait(false))
            .Where(r => r.State is JobState.Queued or JobState.Running)
            .OrderBy(r => r.Created)
            .ToList();
        foreach (var record in stale)
        {
            await RecoverAsync(record, cancellationToken).ConfigureAwait(false);
        }
    }

    public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>
    /// The host is stopping: every run in flight is stopped now, before Kestrel drains its requests
    /// (a run's event stream stays open until the run ends, so waiting for the drain would let the
    /// runs go on computing while the process is going away).
    /// </summary>
    public async Task StoppingAsync(CancellationToken cancellationToken)
    {
        _stopping = true;
        foreach (var run in _live.Values)
        {
            run.Stopping = true;
            await run.Cancellation.CancelAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Each run records where it stopped before the process goes.</summary>
    public async Task StopAsync(CancellationToken cancellationToken)
    {
        await StoppingAsync(cancellationToken).ConfigureAwait(false); // idempotent: covers a host that skipped the lifecycle call
        await Task.WhenAll(_live.Values.Select(r => r.Stored.Task)).WaitAsync(cancellationToken).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
    }

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>Validates and accepts a run; it starts as soon as a slot is free.</summary>
    public async Task<RunView> SubmitAsync(RunRequest request, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(request);
        var parameters = request.Parameters ?? [];
        WorkflowDefinition workflow = (request.Workflow, request.Yaml) switch
        {
            (null or "", null or "") => throw new ArgumentException("Name a workflow (workflow) or give one inline (yaml)."),
            ({ Length: > 0 }, { Length: > 0 }) => throw new ArgumentException("Give a workflow name or inline YAML, not both."),
            ({ Length: > 0 } name, _) => library.Load(name, parameters),
            (_, { } yaml) => library.Parse(yaml, "inline", null, parameters),
            _ => throw new ArgumentException("Name a workflow (workflow) or give one inline (yaml)."),
        };
        return await SubmitAsync(workflow, parameters, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Accepts a parsed workflow (e.g. a file the CLI read).</summary>
    public Task<RunView> SubmitAsync(WorkflowDefinition workflow, IReadOnlyDictionary<string, JsonNode?> parameters, CancellationToken cancellationToken = default) =>
        SubmitAsync(workflow, parameters, rerunOf: null, cancellationToken);

    /// <summary>
    /// Runs again the workflow text a run of the caller's ran, with its parameters and
    /// <paramref name="changes"/> over them (a null value drops an override). The text is the one
    /// recorded with the run, not the workflow file as it is now, so a re-run repeats the run.
    /// </summary>
    public async Task<RunView> RerunAsync(Guid id, IReadOnlyDictionary<string, JsonNode?>? changes, CancellationToken cancellationToken = default)
    {
        var (_, request) = await RecordedAsync(id, cancellationToken).ConfigureAwait(false);
        var parameters = WithChanges(request.Parameters, changes);
        return await SubmitAsync(Parse(request, parameters), parameters, id, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>A run's parameter overrides with <paramref name="changes"/> over them: a value replaces, null drops an override.</summary>
    private static Dictionary<string, JsonNode?> WithChanges(IReadOnlyDictionary<string, JsonNode?> parameters, IReadOnlyDictionary<string, JsonNode?>? changes)
    {
        var merged = new Dictionary<string, JsonNode?>(parameters);
        foreach (var (name, value) in changes ?? new Dictionary<string, JsonNode?>())
        {
            if (value is null)
            {
                merged.Remove(name);
            }
            else
            {
                merged[name] = value.DeepClone();
            }
        }

        return merged;
    }

    /// <summary>The workflow text a run was asked to run, with <paramref name="parameters"/> applied.</summary>
    private WorkflowDefinition Parse(RunRequestRecord request, IReadOnlyDictionary<string, JsonNode?> parameters) =>
        library.Parse(request.Yaml, request.File is { } file ? Path.GetFileName(file) : "inline", request.File, parameters);

    /// <summary>A run of the caller's, as it is now, with what it was asked to run.</summary>
    private async Task<(RunView View, RunRequestRecord Request)> RecordedAsync(Guid id, CancellationToken cancellationToken)
    {
        if (_live.TryGetValue(id, out var live) && live.Tenant == CallerTenant.Current)
        {
            return (live.View(), live.Request);
        }

        var record = await store.GetJobAsync(id, cancellationToken).ConfigureAwait(false);
        return record is { Service: Service } && record.Tenant == CallerTenant.Current
            ? (FromRecord(record), RequestOf(record) ?? throw new ArgumentException($"Run {id} was recorded without its request; start the workflow anew."))
            : throw new NotFoundException($"No run {id}.");
    }

    private async Task<RunView> SubmitAsync(WorkflowDefinition workflow, IReadOnlyDictionary<string, JsonNode?> parameters, Guid? rerunOf, CancellationToken cancellationToken,
        RunReproduction? reproduction = null, RunRetry? retry = null)
    {
        ArgumentNullException.ThrowIfNull(workflow);
        if (_stopping)
        {
            throw new QueueFullException("The gateway is stopping.", _limits.RetryAfter);
        }

        await CheckMoleculesAsync(workflow, cancellationToken).ConfigureAwait(false);
        var record = new RunRequestRecord(workflow.Name, workflow.Yaml, workflow.File, parameters);
        var view = new RunView
        {
            Id = Guid.NewGuid(),
            Workflow = workflow.Name,
            State = RunState.Queued,
            Created = DateTimeOffset.UtcNow,
            // A retry's steps before the one it retries are the earlier run's, outputs and all.
            Steps = [.. workflow.Steps.Select(s => retry?.Reused.GetValueOrDefault(s.Id)
                ?? new StepView { Id = s.Id, Service = s.Service, Operation = s.Operation, DependsOn = s.DependsOn, Parameters = s.Parameters })],
            Artifacts = retry?.Artifacts ?? [],
            Parameters = parameters,
            WorkflowVersion = record.Version,
            RerunOf = rerunOf,
            RetriedFrom = retry?.From,
            Provenance = new RunProvenance(SalsaVersion.Informational, workflow.Yaml),
            Reproduction = reproduction,
        };
        // The request's span (in the caller's trace) names the run; the run's root span links back to it.
        Activity.Current?.SetTag("salsa.run", view.Id.ToString());
        var inserted = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        var run = new LiveRun(view, workflow, record, CallerTenant.Current, announced: false)
        {
            StartedBy = Activity.Current?.Context ?? default,
            Changed = _feed.Publish,
            Inserted = inserted.Task, // set before the run can start, so its first write waits for the insert
        };
        if (_scheduler.TryEnqueue(run.Tenant, run) is var refusal and not SchedulerRefusal.None)
        {
            var reason = _scheduler.Describe(refusal, "runs", $"{RunLimits.Section}:{nameof(RunLimits.MaxQueuedPerTenant)}", $"{RunLimits.Section}:{nameof(RunLimits.QueueDepth)}");
            throw new QueueFullException($"{reason} Retry after {_limits.RetryAfter.TotalSeconds:0.#} s.", _limits.RetryAfter);
        }

        // The run starts while it is stored: its id is given out only once the insert landed, and its
        // own writes wait for the insert, but its steps need not. Both are queued on this thread's own
        // queue, the run last, so this thread, as soon as it awaits the insert, starts the run up to its
        // first call, then makes the insert while the call is in flight, unless an idle pool thread
        // took the insert meanwhile (bench/results/gateway.md).
        var submitted = run.View(); // stored as queued, serialized by the insert's thread
        _live[run.Id] = run; // a gateway that stops now stops it too
        var insert = Task.Run(() => store.InsertJobAsync(ToRecord(submitted, run.RequestJson, run.Tenant), cancellationToken), CancellationToken.None);
        Start(run);
        try
        {
            await insert.ConfigureAwait(false);
        }
        catch
        {
            // Refused: the run is stopped before the caller hears so (it ends cancelled, unwritten and
            // unlisted, and gives its place back); the steps it began wrote nothing of it.
            inserted.SetResult(false);
            await run.Cancellation.CancelAsync().ConfigureAwait(false);
            await run.Stored.Task.ConfigureAwait(false);
            throw;
        }

        inserted.SetResult(true);
        run.Announce();
        RunLog.Accepted(_logger, run.Id, workflow.Name, workflow.Steps.Count);
        return run.View();
    }
}
