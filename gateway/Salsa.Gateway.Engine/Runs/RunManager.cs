using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Nodes;
using Salsa.Gateway.Operations;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Scheduling;
using Salsa.Hosting.Security;
using Salsa.Store;

namespace Salsa.Gateway.Runs;

/// <summary>What to run: a workflow by name or inline YAML, with parameter overrides (<c>step.parameter</c>).</summary>
public sealed record RunRequest
{
    public string? Workflow { get; init; }

    public string? Yaml { get; init; }

    public Dictionary<string, JsonNode?>? Parameters { get; init; }
}

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
public sealed class RunManager(IDataStore store, WorkflowLibrary library, OperationCatalog catalog, Services.ServiceDirectory services,
    Microsoft.Extensions.Options.IOptions<RunLimits> options, ILoggerFactory loggers) : IHostedLifecycleService
{
    /// <summary>The records' service: not the gateway's own name, whose job manager marks its jobs interrupted at start.</summary>
    public const string Service = DatasetCatalog.RunsOwner;

    internal static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);

    private readonly ConcurrentDictionary<Guid, LiveRun> _live = new();
    private readonly RunLimits _limits = options.Value;
    private readonly TenantScheduler<LiveRun> _scheduler = new(
        new TenantShares(options.Value.Concurrent, options.Value.QueueDepth, options.Value.MaxQueuedPerTenant, options.Value.MaxRunningPerTenant ?? options.Value.Concurrent - 1),
        run => run.Admitted.TrySetResult());
    private readonly WorkflowRunner _runner = new(catalog, services, store, loggers.CreateLogger<WorkflowRunner>());
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
        RunRequestRecord request;
        if (_live.TryGetValue(id, out var live) && live.Tenant == CallerTenant.Current)
        {
            request = live.Request;
        }
        else
        {
            var record = await store.GetJobAsync(id, cancellationToken).ConfigureAwait(false);
            request = record is { Service: Service } && record.Tenant == CallerTenant.Current
                ? RequestOf(record) ?? throw new ArgumentException($"Run {id} was recorded without its request; start the workflow anew.")
                : throw new NotFoundException($"No run {id}.");
        }

        var parameters = new Dictionary<string, JsonNode?>(request.Parameters);
        foreach (var (name, value) in changes ?? new Dictionary<string, JsonNode?>())
        {
            if (value is null)
            {
                parameters.Remove(name);
            }
            else
            {
                parameters[name] = value.DeepClone();
            }
        }

        var workflow = library.Parse(request.Yaml, request.File is { } file ? Path.GetFileName(file) : "inline", request.File, parameters);
        return await SubmitAsync(workflow, parameters, id, cancellationToken).ConfigureAwait(false);
    }

    private async Task<RunView> SubmitAsync(WorkflowDefinition workflow, IReadOnlyDictionary<string, JsonNode?> parameters, Guid? rerunOf, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(workflow);
        if (_stopping)
        {
            throw new QueueFullException("The gateway is stopping.", _limits.RetryAfter);
        }

        var record = new RunRequestRecord(workflow.Name, workflow.Yaml, workflow.File, parameters);
        var view = new RunView
        {
            Id = Guid.NewGuid(),
            Workflow = workflow.Name,
            State = RunState.Queued,
            Created = DateTimeOffset.UtcNow,
            Steps = [.. workflow.Steps.Select(s => new StepView { Id = s.Id, Service = s.Service, Operation = s.Operation, DependsOn = s.DependsOn, Parameters = s.Parameters })],
            Parameters = parameters,
            WorkflowVersion = record.Version,
            RerunOf = rerunOf,
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

    /// <summary>The calling tenant's run; null when unknown or another tenant's.</summary>
    public async Task<RunView?> GetAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var tenant = CallerTenant.Current;
        if (_live.TryGetValue(id, out var live))
        {
            return live.Tenant == tenant ? live.View() : null;
        }

        var record = await store.GetJobAsync(id, cancellationToken).ConfigureAwait(false);
        return record is { Service: Service } && record.Tenant == tenant ? FromRecord(record) : null;
    }

    public async Task<RunView> GetRequiredAsync(Guid id, CancellationToken cancellationToken = default) =>
        await GetAsync(id, cancellationToken).ConfigureAwait(false) ?? throw new NotFoundException($"No run {id}.");

    public async Task<IReadOnlyList<RunView>> ListAsync(int limit, CancellationToken cancellationToken = default) =>
        (await QueryAsync(new RunQuery { Limit = limit }, cancellationToken).ConfigureAwait(false)).Runs;

    /// <summary>A page of the calling tenant's runs that <paramref name="query"/> selects, newest first, and how many it selects in all.</summary>
    public async Task<RunPage> QueryAsync(RunQuery query, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(query);
        // The runs live before the query: a run that ends meanwhile is its newest view here even if
        // the store answered before its final write (a run leaves the live set only once stored).
        var live = _live.ToDictionary();
        var page = await store.QueryJobsAsync(new JobQuery
        {
            Service = Service,
            Tenant = CallerTenant.Current,
            Kind = query.Workflow,
            State = query.State is { } state ? ToJobState(state) : null,
            CreatedFrom = query.From,
            CreatedBefore = query.Before,
            Offset = query.Offset,
            Limit = query.Limit,
        }, cancellationToken).ConfigureAwait(false);
        return new([.. page.Jobs.Select(r => live.TryGetValue(r.Id, out var run) ? run.View() : FromRecord(r))], page.Total);
    }

    /// <summary>
    /// Every run of the calling tenant accepted or changing state from now on, until cancelled. The
    /// first item, null, says the watch has begun: a list read after it misses no change.
    /// </summary>
    public async IAsyncEnumerable<RunSummary?> WatchListAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        var reader = _feed.Watch(CallerTenant.Current);
        try
        {
            yield return null;
            await foreach (var summary in reader.ReadAllAsync(cancellationToken).ConfigureAwait(false))
            {
                yield return summary;
            }
        }
        finally
        {
            _feed.Unwatch(reader);
        }
    }

    public async Task<RunView> CancelAsync(Guid id, CancellationToken cancellationToken = default)
    {
        await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false); // the caller's, or a 404
        if (_live.TryGetValue(id, out var live))
        {
            await live.Cancellation.CancelAsync().ConfigureAwait(false);
            return live.View();
        }

        return await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false); // ended: as stored
    }

    /// <summary>The run's events until it ends (just its state when it has ended).</summary>
    public async IAsyncEnumerable<RunEvent> WatchAsync(Guid id, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false); // the caller's, or a 404
        if (!_live.TryGetValue(id, out var live))
        {
            // Ended, perhaps since the line above read it live: a run leaves the live set only once
            // its final view is stored, so the store has that view now.
            yield return new RunEvent.RunChanged(await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false));
            yield break;
        }

        var reader = live.Watch();
        try
        {
            await foreach (var item in reader.ReadAllAsync(cancellationToken).ConfigureAwait(false))
            {
                yield return item;
            }
        }
        finally
        {
            live.Unwatch(reader);
        }
    }

    /// <summary>Waits until the run has ended and returns it.</summary>
    public async Task<RunView> WaitAsync(Guid id, CancellationToken cancellationToken = default)
    {
        await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false); // the caller's, or a 404
        if (_live.TryGetValue(id, out var live))
        {
            // Its final view, as every watcher hears it; not read back from the store.
            await live.Completion.Task.WaitAsync(cancellationToken).ConfigureAwait(false);
            return live.View();
        }

        // Ended (perhaps since the line above read it live): stored before it left the live set.
        return await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
    }

    public async Task<Artifact> GetArtifactAsync(Guid id, string name, CancellationToken cancellationToken = default)
    {
        await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        return await store.GetArtifactAsync(id, name, cancellationToken).ConfigureAwait(false)
            ?? throw new NotFoundException($"Run {id} has no artifact '{name}'.");
    }

    /// <summary>
    /// What the service jobs of a step of the caller's run logged, as text: each job's lines (its
    /// service's <c>Jobs.GetLog</c>) under a heading naming the job, or a line saying why its service
    /// could not give them (it let them go or restarted, or it is unreachable).
    /// </summary>
    public async Task<string> GetStepLogAsync(Guid id, string stepId, CancellationToken cancellationToken = default)
    {
        var run = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        var step = run.Steps.FirstOrDefault(s => s.Id == stepId)
            ?? throw new NotFoundException($"Run {id} has no step '{stepId}'; its steps are {string.Join(", ", run.Steps.Select(s => $"'{s.Id}'"))}.");
        var text = new System.Text.StringBuilder();
        if (step.Jobs.Count == 0)
        {
            text.Append(System.Globalization.CultureInfo.InvariantCulture, $"# step {step.Id} ({step.Service}.{step.Operation}) {(step.State is StepState.Pending ? "has not started" : "started no service job")}: no log.\n");
        }

        foreach (var job in step.Jobs)
        {
            text.Append(System.Globalization.CultureInfo.InvariantCulture, $"# {job.Service} job {job.JobId} (step {step.Id})\n");
            try
            {
                var channel = await services.ChannelAsync(job.Service, cancellationToken).ConfigureAwait(false);
                var log = await new Salsa.Contracts.Clients.JobsClient(channel)
                    .GetLogAsync(new Salsa.Contracts.Common.JobRef { JobId = job.JobId }, new Grpc.Core.CallOptions(deadline: DateTime.UtcNow.AddSeconds(10), cancellationToken: cancellationToken))
                    .ConfigureAwait(false);
                foreach (var line in log.Lines)
                {
                    text.Append(line).Append('\n');
                }

                if (log.DroppedLines > 0)
                {
                    text.Append(System.Globalization.CultureInfo.InvariantCulture, $"# … {log.DroppedLines} more lines not kept by the {job.Service} service\n");
                }
            }
            catch (Grpc.Core.RpcException exception) when (exception.StatusCode is Grpc.Core.StatusCode.NotFound)
            {
                text.Append("# ").Append(exception.Status.Detail).Append('\n');
            }
            catch (Grpc.Core.RpcException exception) when (exception.StatusCode is Grpc.Core.StatusCode.Unavailable or Grpc.Core.StatusCode.DeadlineExceeded)
            {
                text.Append(System.Globalization.CultureInfo.InvariantCulture, $"# the {job.Service} service did not answer ({exception.StatusCode}); try again later.\n");
            }
        }

        return text.ToString();
    }

    /// <summary>
    /// Starts the run on the thread pool, queued on this thread's own queue: the submitting thread,
    /// about to wait for the run or answer its caller, takes it up as soon as it is free, unless an
    /// idle thread steals it first (a hop through the global queue waits for a sleeping thread to wake).
    /// </summary>
    private void Start(LiveRun run) =>
        ThreadPool.QueueUserWorkItem(static state => _ = state.Manager.ExecuteAsync(state.Run), (Manager: this, Run: run), preferLocal: true);

    private async Task ExecuteAsync(LiveRun run)
    {
        using var tenant = CallerTenant.Enter(run.Tenant); // every service call of the run acts for its tenant
        var persist = Persister(run);
        // Hops are stored as they are recorded, so those made before a crash are in the resumed run.
        run.Hops.Recorded += _ => persist.Changed();
        try
        {
            try
            {
                await run.Admitted.Task.WaitAsync(run.Cancellation.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                Release(run);
                await EndAsync(run, persist, run.Stopping ? RunState.Queued : RunState.Cancelled, run.Stopping ? null : "Cancelled while queued.").ConfigureAwait(false);
                return;
            }

            // One trace per run: a new root, whatever the caller's context, carried into every service.
            var previous = Activity.Current;
            Activity.Current = null;
            var activity = WorkflowRunner.Activities.StartActivity($"run {run.Workflow.Name}", ActivityKind.Internal, parentContext: default,
                links: run.StartedBy == default ? null : [new ActivityLink(run.StartedBy)]);
            try
            {
                Activity.Current = activity;
                activity?.SetTag("salsa.run", run.Id.ToString());
                activity?.SetTag("salsa.workflow", run.Workflow.Name);
                // Not stored on its own: the first step's change stores the run (now Running) in the
                // background, and a run the store still shows Queued is resumed exactly like a Running
                // one. Only a service job's id waits for the store; the run's end is stored after its
                // waiters hear it (bench/results/gateway.md).
                run.Update(v => v with { State = RunState.Running, Started = v.Started ?? DateTimeOffset.UtcNow, TraceId = activity?.TraceId.ToString() ?? v.TraceId });
                var failure = await _runner.RunAsync(run, persist).ConfigureAwait(false);
                var state = run.Stopping ? RunState.Running
                    : run.Cancellation.IsCancellationRequested ? RunState.Cancelled
                    : failure is null ? RunState.Succeeded
                    : RunState.Failed;
                activity?.SetStatus(state == RunState.Succeeded ? ActivityStatusCode.Ok : ActivityStatusCode.Error, failure);
                Activity.Current = previous;
                var span = activity;
                activity = null; // ended by EndAsync, before anyone waiting for the run hears it ended
                await EndAsync(run, persist, state, state is RunState.Failed or RunState.Cancelled ? failure : null, span).ConfigureAwait(false);
            }
            finally
            {
                activity?.Dispose();
                Release(run);
            }
        }
#pragma warning disable CA1031 // A run never takes the process down: an unexpected fault is the run's failure, recorded.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            await EndAsync(run, persist, RunState.Failed, $"The gateway failed running this workflow: {exception.Message}").ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Ends the run: whoever waits or watches hears its final view first, then the view is stored
    /// (bench/results/gateway.md). The run stays live until it is stored, so a read in between
    /// gets the final view, and the gateway's stop waits for the write (<see cref="LiveRun.Stored"/>).
    /// A crash in between loses no run: the store still has it running, and it is resumed.
    /// </summary>
    private async Task EndAsync(LiveRun run, RunPersister persist, RunState state, string? error, Activity? span = null)
    {
        var ended = state is not (RunState.Queued or RunState.Running);
        span?.Dispose(); // the run's span has ended (and is exported) once anyone hears the run ended
        run.Update(v => v with { State = state, Error = error, Finished = ended ? DateTimeOffset.UtcNow : null });
        run.Complete();
        if (!run.Refused) // a run the store refused was never accepted: its submit failed
        {
            RunLog.Ended(_logger, run.Id, run.Workflow.Name, state);
            if (ended)
            {
                GatewayMetrics.Ended(run.View());
            }
        }

        try
        {
            await persist.FlushAsync().ConfigureAwait(false);
        }
#pragma warning disable CA1031 // Logged by the persister; the run has ended either way, and a resumed gateway finds it unfinished.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
        finally
        {
            _live.TryRemove(run.Id, out _);
            run.Stored.TrySetResult();
        }
    }

    /// <summary>Stores the run's view in the background as its steps change it (see <see cref="RunPersister"/>).</summary>
    private RunPersister Persister(LiveRun run) =>
        new(run, async (r, token) =>
        {
            if (await r.Inserted.ConfigureAwait(false)) // never before the insert, never for a refused run
            {
                await store.UpdateJobAsync(ToRecord(r), token).ConfigureAwait(false);
            }
        }, _limits.WriteBehind, _logger);

    private async Task RecoverAsync(JobRecord record, CancellationToken cancellationToken)
    {
        var view = FromRecord(record);
        string reason;
        try
        {
            var request = RequestOf(record) ?? throw new InvalidDataException("The run has no request.");
            var workflow = library.Parse(request.Yaml, request.File ?? "inline", request.File, request.Parameters);
            if (_limits.ResumeInterrupted)
            {
                var kept = view.Steps.Count(s => s.State == StepState.Succeeded);
                var resumed = view with
                {
                    State = RunState.Queued,
                    Resumes = view.Resumes + 1,
                    Steps = [.. workflow.Steps.Select(s => view.Steps.FirstOrDefault(v => v.Id == s.Id) is { State: StepState.Succeeded } done
                        ? done with { Reused = true }
                        : new StepView { Id = s.Id, Service = s.Service, Operation = s.Operation, DependsOn = s.DependsOn, Parameters = s.Parameters, Jobs = view.Steps.FirstOrDefault(v => v.Id == s.Id)?.Jobs ?? [] })],
                };
                var run = new LiveRun(resumed, workflow, request, record.Tenant) { Changed = _feed.Publish };
                _live[run.Id] = run;
                await store.UpdateJobAsync(ToRecord(run), cancellationToken).ConfigureAwait(false);
                RunLog.Resumed(_logger, run.Id, workflow.Name, kept);
                _scheduler.Requeue(run.Tenant, run); // accepted before the restart: never refused now
                Start(run);
                return;
            }

            reason = "The gateway stopped while the run was in flight (resuming is off: Gateway:Runs:ResumeInterrupted).";
        }
        catch (Exception exception) when (exception is WorkflowValidationException or JsonException or InvalidDataException)
        {
            reason = $"The gateway stopped while the run was in flight, and it cannot be resumed: {exception.Message}";
        }

        var done = view.Steps.Where(s => s.State == StepState.Succeeded).Select(s => s.Id).ToList();
        reason += done.Count > 0 ? $" Steps that had finished: {string.Join(", ", done)}." : " No step had finished.";
        var interrupted = view with { State = RunState.Interrupted, Finished = DateTimeOffset.UtcNow, Error = reason };
        await store.UpdateJobAsync(ToRecord(interrupted, record.ParametersJson, record.Tenant), cancellationToken).ConfigureAwait(false);
        RunLog.MarkedInterrupted(_logger, record.Id, reason);
    }

    /// <summary>The run leaves the scheduler: out of the queue when it was waiting, else its slot goes to the next tenant in turn.</summary>
    private void Release(LiveRun run)
    {
        if (!_scheduler.TryRemove(run.Tenant, run))
        {
            _scheduler.Completed(run.Tenant);
        }
    }

    private static JobRecord ToRecord(LiveRun run) => ToRecord(run.View(), run.RequestJson, run.Tenant);

    private static JobRecord ToRecord(RunView view, string parametersJson, string tenant) => new()
    {
        Id = view.Id,
        Tenant = tenant,
        Service = Service,
        Kind = view.Workflow,
        State = ToJobState(view.State),
        Created = view.Created,
        Started = view.Started,
        Finished = view.Finished,
        QueueMilliseconds = view.Started is { } s ? (s - view.Created).TotalMilliseconds : 0,
        ComputeMilliseconds = view.Started is { } b ? ((view.Finished ?? DateTimeOffset.UtcNow) - b).TotalMilliseconds : 0,
        ParametersJson = parametersJson,
        ResultJson = JsonSerializer.Serialize(view, Json),
        Error = view.Error,
    };

    private static RunRequestRecord? RequestOf(JobRecord record) =>
        string.IsNullOrEmpty(record.ParametersJson) ? null : JsonSerializer.Deserialize<RunRequestRecord>(record.ParametersJson, Json);

    private static RunView FromRecord(JobRecord record)
    {
        var view = record.ResultJson is { } json ? JsonSerializer.Deserialize<RunView>(json, Json) : null;
        view ??= new RunView { Id = record.Id, Workflow = record.Kind };
        if (view.WorkflowVersion is null && RequestOf(record) is { } request)
        {
            // Runs stored before their views carried the request: it is in the record's parameters.
            view = view with { Parameters = request.Parameters, WorkflowVersion = request.Version };
        }

        return view with
        {
            HopsInFlight = [], // a stored view's calls in flight are those of a process that has gone
            Id = record.Id,
            Created = record.Created,
            Started = record.Started,
            Finished = record.Finished,
            Error = record.Error,
            State = record.State switch
            {
                JobState.Queued => RunState.Queued,
                JobState.Running => RunState.Running,
                JobState.Succeeded => RunState.Succeeded,
                JobState.Failed => RunState.Failed,
                JobState.Cancelled => RunState.Cancelled,
                _ => RunState.Interrupted,
            },
        };
    }

    private static JobState ToJobState(RunState state) => state switch
    {
        RunState.Queued => JobState.Queued,
        RunState.Running => JobState.Running,
        RunState.Succeeded => JobState.Succeeded,
        RunState.Failed => JobState.Failed,
        RunState.Cancelled => JobState.Cancelled,
        _ => JobState.Interrupted,
    };
}
