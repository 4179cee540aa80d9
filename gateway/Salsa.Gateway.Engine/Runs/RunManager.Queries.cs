using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;
using Grpc.Core;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Security;
using Salsa.Store;

namespace Salsa.Gateway.Runs;

/// <summary>Runs as callers read them: one, a page, the feed of the list, a run's events, its artifacts and step logs; and cancelling one.</summary>
public sealed partial class RunManager
{
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

    /// <summary>
    /// A file of the caller's run, read from the one copy: the service job that stored it, through
    /// that service's <c>Jobs.DownloadArtifact</c> (a run recorded before files stayed with their
    /// jobs reads its own copy).
    /// </summary>
    public async Task<Artifact> GetArtifactAsync(Guid id, string name, CancellationToken cancellationToken = default)
    {
        var run = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        var kept = run.Artifacts.FirstOrDefault(a => a.Name == name)
            ?? throw new NotFoundException($"Run {id} has no artifact '{name}'{(run.Artifacts.Count == 0 ? "" : $"; it has {string.Join(", ", run.Artifacts.Select(a => $"'{a.Name}'"))}")}.");
        if (kept.Job is not { } job)
        {
            return await store.GetArtifactAsync(id, name, cancellationToken).ConfigureAwait(false)
                ?? throw new NotFoundException($"Run {id} has no artifact '{name}'.");
        }

        var channel = await services.ChannelAsync(job.Service, cancellationToken).ConfigureAwait(false);
        var (data, contentType) = await new JobsClient(channel)
            .DownloadArtifactAsync(job.JobId, name, new CallOptions(cancellationToken: cancellationToken)).ConfigureAwait(false);
        return new Artifact(name, contentType, data);
    }

    /// <summary>The caller's run's workflow as it ran it, as a workflow file (<see cref="EffectiveWorkflow"/>).</summary>
    public async Task<string> GetEffectiveWorkflowAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var (view, request) = await RecordedAsync(id, cancellationToken).ConfigureAwait(false);
        return EffectiveWorkflow.Yaml(Parse(request, request.Parameters), view);
    }

    /// <summary>
    /// A step of the caller's run as text: first the gateway's own lines (the step's start, each call
    /// it made to a service with its latency and outcome, its end), then each service job's lines
    /// (its service's <c>Jobs.GetLog</c>) under a heading naming the job — one job per try — or a line
    /// saying why its service could not give them (it let them go or restarted, or it is unreachable).
    /// </summary>
    public async Task<string> GetStepLogAsync(Guid id, string stepId, CancellationToken cancellationToken = default)
    {
        var run = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        var step = run.Steps.FirstOrDefault(s => s.Id == stepId)
            ?? throw new NotFoundException($"Run {id} has no step '{stepId}'; its steps are {string.Join(", ", run.Steps.Select(s => $"'{s.Id}'"))}.");
        var text = new StringBuilder();
        AppendGatewayLines(text, run, step);
        foreach (var job in step.Jobs)
        {
            text.Append(CultureInfo.InvariantCulture, $"# {job.Service} job {job.JobId} (step {step.Id})\n");
            try
            {
                var channel = await services.ChannelAsync(job.Service, cancellationToken).ConfigureAwait(false);
                var log = await new JobsClient(channel)
                    .GetLogAsync(new JobRef { JobId = job.JobId }, new CallOptions(deadline: DateTime.UtcNow.AddSeconds(10), cancellationToken: cancellationToken))
                    .ConfigureAwait(false);
                foreach (var line in log.Lines)
                {
                    text.Append(line).Append('\n');
                }

                if (log.DroppedLines > 0)
                {
                    text.Append(CultureInfo.InvariantCulture, $"# … {log.DroppedLines} more lines not kept by the {job.Service} service\n");
                }
            }
            catch (RpcException exception) when (exception.StatusCode is StatusCode.NotFound)
            {
                text.Append("# ").Append(exception.Status.Detail).Append('\n');
            }
            catch (RpcException exception) when (exception.StatusCode is StatusCode.Unavailable or StatusCode.DeadlineExceeded)
            {
                text.Append(CultureInfo.InvariantCulture, $"# the {job.Service} service did not answer ({exception.StatusCode}); try again later.\n");
            }
        }

        return text.ToString();
    }

    /// <summary>What the gateway saw of a step, in the form of a job's lines (UTC time, level, source: message).</summary>
    private static void AppendGatewayLines(StringBuilder text, RunView run, StepView step)
    {
        static string Time(DateTimeOffset at) => at.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);
        text.Append(CultureInfo.InvariantCulture, $"# gateway (step {step.Id}: {step.Service}.{step.Operation})\n");
        if (step.Started is not { } started)
        {
            text.Append(CultureInfo.InvariantCulture, $"# step {step.Id} has not started ({step.State.ToString().ToLowerInvariant()}).\n");
            return;
        }

        text.Append(CultureInfo.InvariantCulture, $"{Time(started)} info  gateway: started{(step.Attempts > 1 ? $" (try {step.Attempts})" : "")}{(step.Reused ? ", its outputs reused" : "")}\n");
        foreach (var hop in run.Hops.Where(h => h.Step == step.Id).OrderBy(h => h.Start))
        {
            var level = hop.Outcome is "ok" or "succeeded" ? "info " : "warn ";
            var retries = hop.Retries > 0 ? $", {hop.Retries} refusals waited out" : "";
            text.Append(CultureInfo.InvariantCulture, $"{Time(hop.Start)} {level} gateway: called {hop.Service} {hop.Operation}: {hop.LatencyMs:0.0} ms, {hop.Outcome}{retries}\n");
        }

        if (step.Finished is { } finished)
        {
            var level = step.State is StepState.Failed ? "error" : "info ";
            var error = step.Error is { Length: > 0 } message ? $": {message}" : "";
            text.Append(CultureInfo.InvariantCulture, $"{Time(finished)} {level} gateway: {step.State.ToString().ToLowerInvariant()}{(step.DurationMs is { } ms ? $" after {ms:0.0} ms" : "")}{error}\n");
        }

        if (step.Jobs.Count == 0 && step.State is not StepState.Running)
        {
            text.Append("# it started no service job: the calls above are its work.\n");
        }
    }
}
