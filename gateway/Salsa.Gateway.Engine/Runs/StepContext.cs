using System.Diagnostics;
using System.Text.Json;
using System.Text.Json.Nodes;
using Grpc.Core;
using Grpc.Core.Interceptors;
using Grpc.Net.Client;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Gateway.Hops;
using Salsa.Gateway.Services;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Jobs;

namespace Salsa.Gateway.Runs;

/// <summary>Progress of a step, as its service job reports it.</summary>
public sealed record StepProgress(string Phase, int Iteration, double? Temperature, int Clusters, double Objective, double ElapsedMs)
{
    public static StepProgress From(JobProgress p) =>
        new(p.Phase, p.Iteration, p.HasTemperature ? p.Temperature : null, p.Clusters, p.Objective, p.ElapsedMs);
}

/// <summary>
/// What an operation gets while it runs (<see cref="IStepContext"/>): its step, resolved inputs and
/// parameters, and calls to the services — each a recorded hop of the step.
/// </summary>
public sealed class StepContext(StepDefinition step, IReadOnlyDictionary<string, JsonNode?> inputs, ServiceDirectory services,
    HopRecorder hops, Action<StepProgress> progress, CancellationToken cancellationToken) : IStepContext
{
    private int _jobCalls;

    /// <summary>Jobs this step started before the gateway stopped (the run is resumed): the n-th job call watches the n-th of them again while it lives.</summary>
    public IReadOnlyList<Runs.StepJob> Earlier { get; init; } = [];

    /// <summary>Told of every job the step starts or takes up again, before it is watched (so it is stored, and found after a crash).</summary>
    public Func<Runs.StepJob, Task> JobStarted { get; init; } = _ => Task.CompletedTask;

    /// <summary>Told the state of the service job the step waits on as the service reports it (queued, running, then its end).</summary>
    public Action<string> JobStateChanged { get; init; } = _ => { };

    public StepDefinition Step { get; } = step;

    public ServiceDirectory Services { get; } = services;

    public HopRecorder Hops { get; } = hops;

    public string StepId => Step.Id;

    /// <summary>Cancelled when the run is cancelled, the step's attempt times out or the gateway stops.</summary>
    public CancellationToken CancellationToken { get; } = cancellationToken;

    public CallOptions CallOptions => new(cancellationToken: CancellationToken);

    public void Report(StepProgress update) => progress(update);

    public bool HasInput(string name) => inputs.TryGetValue(name, out var value) && value is not null;

    public JsonNode Input(string name) =>
        inputs.TryGetValue(name, out var value) && value is not null ? value : throw new InvalidOperationException($"Step '{Step.Id}' has no input '{name}'.");

    public string InputString(string name) => Input(name).GetValue<string>();

    public JobAddress InputJob(string name) => JobAddress.FromJson(Input(name));

    public bool HasParameter(string name) => Step.Parameters.TryGetValue(name, out var value) && value is not null;

    public T Parameter<T>(string name) =>
        Step.Parameters.TryGetValue(name, out var value) && value is not null ? Convert<T>(value) : throw new InvalidOperationException($"Step '{Step.Id}' has no parameter '{name}'.");

    public T? OptionalParameter<T>(string name)
        where T : struct =>
        Step.Parameters.TryGetValue(name, out var value) && value is not null ? Convert<T>(value) : null;

    // Values come from YAML (long, double), from defaults (int, double) and from JSON (elements): read any as T.
    private static T Convert<T>(JsonNode value) =>
        value is JsonValue v && v.TryGetValue<T>(out var direct) ? direct : value.Deserialize<T>() ?? throw new InvalidOperationException($"{value.ToJsonString()} is not a {typeof(T).Name}.");

    public IEnumerable<string> Strings(string name) =>
        Step.Parameters.TryGetValue(name, out var value) && value is JsonArray list ? list.Select(x => x!.GetValue<string>()) : [];

    public async Task<CallInvoker> InvokerAsync(string service)
    {
        var channel = await Services.ChannelAsync(service, CancellationToken).ConfigureAwait(false);
        return RecordedInvoker(channel, service);
    }

    /// <summary>Calls through <paramref name="channel"/>, each a hop of this step named by its method.</summary>
    private CallInvoker RecordedInvoker(GrpcChannel channel, string service) => channel.Intercept(new HopInterceptor(Hops, Step.Id, service));

    /// <summary>
    /// Runs a job on <paramref name="service"/>: the start call, then the watch stream (its progress
    /// becomes the step's; the hop carries the job's queue and compute time). The job is cancelled
    /// on the service if this step is cancelled or times out, so no work is left running. Returns
    /// the job once it succeeded; any other end is an exception with the service's reason.
    /// </summary>
    public async Task<JobAddress> RunJobAsync(string service, Func<CallInvoker, CallOptions, AsyncUnaryCall<JobInfo>> start)
    {
        ArgumentNullException.ThrowIfNull(start);
        var channel = await Services.ChannelAsync(service, CancellationToken).ConfigureAwait(false);
        CancellationToken.ThrowIfCancellationRequested();

        var jobs = new JobsClient(channel);
        var call = _jobCalls++;
        var job = call < Earlier.Count && Earlier[call].Service == service ? await LiveJobAsync(service, jobs, Earlier[call].JobId).ConfigureAwait(false) : null;
        if (job is null)
        {
            // The start call is not cut short by the step's cancellation: a job the service accepted
            // must be known by id so it can be cancelled, never left running unseen. It is brief (the
            // job is queued, not run) and has its own limit.
            using var startLimit = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            job = await start(RecordedInvoker(channel, service), new CallOptions(cancellationToken: startLimit.Token)).ConfigureAwait(false);
        }

        try
        {
            await JobStarted(new Runs.StepJob(service, job.JobId)).ConfigureAwait(false);
        }
        catch
        {
            // Not recorded, so it could not be found again: not left running either.
            await CancelJobAsync(service, jobs, job.JobId).ConfigureAwait(false);
            throw;
        }

        if (CancellationToken.IsCancellationRequested)
        {
            await CancelJobAsync(service, jobs, job.JobId).ConfigureAwait(false);
            CancellationToken.ThrowIfCancellationRequested();
        }

        var clock = Stopwatch.GetTimestamp();
        var began = DateTimeOffset.UtcNow;
        using var flight = Hops.Begin(Step.Id, service, "Jobs.Watch", began);
        JobInfo final;
        long bytes = 0;
        try
        {
            final = await jobs.WatchToEndAsync(job.JobId, e =>
            {
                bytes += e.CalculateSize();
                if (e.Status is { } status)
                {
                    JobStateChanged(status.State.ToString().ToLowerInvariant());
                }

                // A progress event, or the job as it is when the watch attaches (or ends) with its
                // latest progress: a job quicker than the watch's start still shows how far it went.
                if ((e.Progress ?? e.Status?.Progress) is { } p)
                {
                    Report(StepProgress.From(p));
                }
            }, new CallOptions(cancellationToken: CancellationToken)).ConfigureAwait(false);
        }
        catch (Exception exception) when (CancellationToken.IsCancellationRequested && exception is OperationCanceledException or RpcException)
        {
            Hops.Add(new Hop
            {
                Step = Step.Id, Service = service, Operation = "Jobs.Watch", Start = began, LatencyMs = Stopwatch.GetElapsedTime(clock).TotalMilliseconds,
                ResponseBytes = bytes, Outcome = "cancelled",
            });
            await CancelJobAsync(service, jobs, job.JobId).ConfigureAwait(false);
            throw;
        }

        // The job's time in the service (queue + compute) began at the start call, a little before
        // this watch: as the hop's server time it is capped at the watch's own latency.
        var watched = Stopwatch.GetElapsedTime(clock).TotalMilliseconds;
        Hops.Add(new Hop
        {
            Step = Step.Id, Service = service, Operation = "Jobs.Watch", Start = began, LatencyMs = watched,
            ServerMs = Math.Min(final.QueueMs + final.ComputeMs, watched), QueueMs = final.QueueMs, ComputeMs = final.ComputeMs,
            Resources = JobResourcesView.FromProto(final.Resources),
            RequestBytes = new JobRef { JobId = job.JobId }.CalculateSize(), ResponseBytes = bytes, Outcome = final.State.ToString().ToLowerInvariant(),
        });
        return final.State == JobState.Succeeded
            ? new JobAddress(service, job.JobId)
            : throw new StepFailedException($"The {service} job {job.JobId} ended {final.State.ToString().ToLowerInvariant()}: {final.Error}");
    }

    /// <summary>
    /// A job started before the gateway stopped, when it still queues, runs or has succeeded (it is
    /// then watched again, not started twice); null when it is gone or ended otherwise.
    /// </summary>
    private async Task<JobInfo?> LiveJobAsync(string service, JobsClient jobs, string jobId)
    {
        try
        {
            var job = await Hops.CallAsync(Step.Id, service, "Jobs.Get", new JobRef { JobId = jobId }, jobs.GetAsync, CancellationToken).ConfigureAwait(false);
            return job.State is JobState.Queued or JobState.Running or JobState.Succeeded ? job : null;
        }
        catch (RpcException exception) when (exception.StatusCode is StatusCode.NotFound)
        {
            return null;
        }
    }

    private async Task CancelJobAsync(string service, JobsClient jobs, string jobId)
    {
        using var grace = new CancellationTokenSource(TimeSpan.FromSeconds(5));
        try
        {
            await Hops.CallAsync(Step.Id, service, "Jobs.Cancel", new JobRef { JobId = jobId }, jobs.CancelAsync, grace.Token).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is RpcException or OperationCanceledException)
        {
            // Best effort: the hop records the failure; the job's service marks it at its own stop.
        }
    }

    /// <summary>A dataset as <paramref name="service"/> describes it (its shape, digest and RDKit release); recorded as a hop.</summary>
    public async Task<Contracts.Datasets.DatasetInfo> DatasetAsync(string service, string datasetId)
    {
        var channel = await Services.ChannelAsync(service, CancellationToken).ConfigureAwait(false);
        return await Hops.CallAsync(Step.Id, service, "Datasets.Get", new Contracts.Datasets.DatasetRef { DatasetId = datasetId }, new DatasetsClient(channel).GetAsync, CancellationToken)
            .ConfigureAwait(false);
    }

    /// <summary>The files a succeeded job stored (names, types, sizes, digests), as its service lists them; recorded as a hop.</summary>
    public async Task<IReadOnlyList<ArtifactInfo>> ArtifactsOfAsync(JobAddress job)
    {
        ArgumentNullException.ThrowIfNull(job);
        var channel = await Services.ChannelAsync(job.Service, CancellationToken).ConfigureAwait(false);
        var info = await Hops.CallAsync(Step.Id, job.Service, "Jobs.Get", new JobRef { JobId = job.JobId }, new JobsClient(channel).GetAsync, CancellationToken).ConfigureAwait(false);
        return info.Artifacts;
    }
}
