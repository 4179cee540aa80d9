using System.Text.Json;
using System.Text.Json.Nodes;
using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Common;
using Salsa.Contracts.Gateway;
using Salsa.Gateway.Runs;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Security;
using Proto = Salsa.Contracts.Gateway;

namespace Salsa.Gateway.Api;

/// <summary>gRPC face of the runs API (<c>salsa.gateway.v1.Gateway</c>), over the same <see cref="RunManager"/> as REST.</summary>
public sealed class GatewayGrpcService(RunManager runs) : global::Salsa.Contracts.Gateway.Gateway.GatewayBase
{
    public override async Task<Run> StartRun(StartRunRequest request, ServerCallContext context)
    {
        var parameters = request.Parameters.ToDictionary(p => p.Key, p => ParseJson(p.Key, p.Value), StringComparer.Ordinal);
        var view = await runs.SubmitAsync(new RunRequest
        {
            Workflow = NullIfEmpty(request.Workflow),
            Yaml = NullIfEmpty(request.Yaml),
            Parameters = parameters,
        }, context.CancellationToken);
        return ToProto(view);
    }

    [Authorize(Scopes.Read)]
    public override async Task<Run> GetRun(RunRef request, ServerCallContext context) =>
        ToProto(await runs.GetRequiredAsync(GatewayApi.ParseId(request.RunId), context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<ListRunsResponse> ListRuns(ListRunsRequest request, ServerCallContext context)
    {
        var query = RunQuery.Of(request.Workflow, request.State, request.CreatedFrom?.ToDateTimeOffset(), request.CreatedBefore?.ToDateTimeOffset(),
            request.Offset, request.Limit == 0 ? null : request.Limit);
        var page = await runs.QueryAsync(query, context.CancellationToken);
        var response = new ListRunsResponse { Total = page.Total };
        foreach (var run in page.Runs)
        {
            var proto = ToProto(run);
            proto.Hops.Clear();
            response.Runs.Add(proto);
        }

        return response;
    }

    [Authorize(Scopes.Read)]
    public override async Task WatchRun(RunRef request, IServerStreamWriter<Proto.RunEvent> responseStream, ServerCallContext context)
    {
        var id = GatewayApi.ParseId(request.RunId);
        await runs.GetRequiredAsync(id, context.CancellationToken);
        await foreach (var item in runs.WatchAsync(id, context.CancellationToken))
        {
            await responseStream.WriteAsync(item switch
            {
                Runs.RunEvent.RunChanged r => new Proto.RunEvent { Run = ToProto(r.View) },
                Runs.RunEvent.StepChanged s => new Proto.RunEvent { Step = ToProto(s.View) },
                Runs.RunEvent.ProgressReported p => new Proto.RunEvent { Progress = new StepProgressEvent { Step = p.StepId, Progress = ToProto(p.Update) } },
                Runs.RunEvent.HopRecorded h => new Proto.RunEvent { Hop = ToProto(h.Hop) },
                Runs.RunEvent.HopBegan b => new Proto.RunEvent
                {
                    HopStart = new HopStart { Step = b.Call.Step, Service = b.Call.Service, Operation = b.Call.Operation, Start = Timestamp.FromDateTimeOffset(b.Call.Start) },
                },
                _ => throw new InvalidOperationException("Unknown run event."),
            });
        }
    }

    public override async Task<Run> RerunRun(Proto.RerunRequest request, ServerCallContext context)
    {
        // "null" parses to a null node: the override is dropped.
        var changes = request.Parameters.ToDictionary(p => p.Key, p => ParseJson(p.Key, p.Value), StringComparer.Ordinal);
        return ToProto(await runs.RerunAsync(GatewayApi.ParseId(request.RunId), changes, context.CancellationToken));
    }

    public override async Task<Run> RetryRun(RetryRunRequest request, ServerCallContext context)
    {
        var changes = request.Parameters.ToDictionary(p => p.Key, p => ParseJson(p.Key, p.Value), StringComparer.Ordinal);
        return ToProto(await runs.RetryFromAsync(GatewayApi.ParseId(request.RunId), request.Step, changes, context.CancellationToken));
    }

    public override async Task<Run> ReproduceRun(ReproduceRunRequest request, ServerCallContext context) => ToProto(request.RecordedCase switch
    {
        ReproduceRunRequest.RecordedOneofCase.RunId => await runs.ReproduceAsync(GatewayApi.ParseId(request.RunId), context.CancellationToken),
        ReproduceRunRequest.RecordedOneofCase.ResultJson => await runs.ReproduceAsync(ParseRecorded(request.ResultJson), context.CancellationToken),
        _ => throw new ArgumentException("Name the run to reproduce (run_id) or give its result.json (result_json)."),
    });

    private static RunView ParseRecorded(string json)
    {
        try
        {
            return JsonSerializer.Deserialize<RunView>(json, RunManager.Json) ?? throw new ArgumentException("result_json is null; give a run's result.json.");
        }
        catch (JsonException exception)
        {
            throw new ArgumentException($"result_json is not a run's result.json: {exception.Message}", exception);
        }
    }

    public override async Task<Run> CancelRun(RunRef request, ServerCallContext context) =>
        ToProto(await runs.CancelAsync(GatewayApi.ParseId(request.RunId), context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task DownloadArtifact(DownloadRunArtifactRequest request, IServerStreamWriter<Chunk> responseStream, ServerCallContext context) =>
        await ArtifactChunks.WriteAsync(await runs.GetArtifactAsync(GatewayApi.ParseId(request.RunId), request.Name, context.CancellationToken), responseStream);

    [Authorize(Scopes.Read)]
    public override async Task<StepLog> GetStepLog(StepLogRequest request, ServerCallContext context) =>
        new() { Text = await runs.GetStepLogAsync(GatewayApi.ParseId(request.RunId), request.Step, context.CancellationToken) };

    private static JsonNode? ParseJson(string key, string value)
    {
        try
        {
            return JsonNode.Parse(value);
        }
        catch (JsonException exception)
        {
            throw new ArgumentException($"Parameter override '{key}' is not JSON ({exception.Message}); write numbers as 10, strings as \"us\".", exception);
        }
    }

    private static string? NullIfEmpty(string value) => value.Length == 0 ? null : value;

    private static string Lower<T>(T value)
        where T : struct, System.Enum => JsonSerializer.Serialize(value, RunManager.Json).Trim('"');

    public static Run ToProto(RunView view)
    {
        ArgumentNullException.ThrowIfNull(view);
        var run = new Run
        {
            RunId = view.Id.ToString(),
            Workflow = view.Workflow,
            State = Lower(view.State),
            Created = Timestamp.FromDateTimeOffset(view.Created),
            Error = view.Error ?? "",
            TraceId = view.TraceId ?? "",
            Resumes = view.Resumes,
            WorkflowVersion = view.WorkflowVersion ?? "",
            RerunOf = view.RerunOf?.ToString() ?? "",
            RetriedFrom = view.RetriedFrom ?? "",
            Provenance = view.Provenance is { } provenance
                ? new Proto.RunProvenance { Platform = provenance.Platform, Workflow = provenance.Workflow, Rdkit = provenance.Rdkit ?? "" }
                : null,
            Reproduction = view.Reproduction is { } reproduction ? ToProto(reproduction) : null,
        };
        foreach (var (name, value) in view.Parameters)
        {
            run.Parameters[name] = value?.ToJsonString() ?? "null";
        }

        if (view.Started is { } started)
        {
            run.Started = Timestamp.FromDateTimeOffset(started);
        }

        if (view.Finished is { } finished)
        {
            run.Finished = Timestamp.FromDateTimeOffset(finished);
        }

        run.Steps.AddRange(view.Steps.Select(ToProto));
        run.Hops.AddRange(view.Hops.Select(ToProto));
        run.Artifacts.AddRange(view.Artifacts.Select(a => new RunArtifact
        {
            Name = a.Name, ContentType = a.ContentType, Size = a.Size, Step = a.Step, JobId = a.Job?.JobId ?? "", Service = a.Job?.Service ?? "", Sha256 = a.Sha256 ?? "",
        }));
        return run;
    }

    private static Proto.RunReproduction ToProto(Runs.RunReproduction reproduction)
    {
        var proto = new Proto.RunReproduction
        {
            Of = reproduction.Of.ToString(),
            RecordedPlatform = reproduction.RecordedPlatform ?? "",
            RecordedRdkit = reproduction.RecordedRdkit ?? "",
            FirstDifference = reproduction.FirstDifference ?? "",
        };
        if (reproduction.Identical is { } identical)
        {
            proto.Identical = identical;
        }

        proto.Pinned.AddRange(reproduction.Pinned);
        proto.Outputs.AddRange(reproduction.Outputs.Select(o => new Proto.OutputComparison
        {
            Step = o.Step, Name = o.Name, File = o.File, Recorded = o.Recorded ?? "", Reproduced = o.Reproduced ?? "", Identical = o.Identical,
        }));
        return proto;
    }

    private static Step ToProto(StepView view)
    {
        var step = new Step
        {
            Id = view.Id,
            Service = view.Service,
            Operation = view.Operation,
            State = Lower(view.State),
            Attempts = view.Attempts,
            DurationMs = view.DurationMs ?? 0,
            Error = view.Error ?? "",
            OutputsJson = view.Outputs?.ToJsonString() ?? "",
            Reused = view.Reused,
        };
        step.DependsOn.AddRange(view.DependsOn);
        foreach (var (name, value) in view.Parameters)
        {
            step.Parameters[name] = value?.ToJsonString() ?? "null";
        }

        foreach (var (output, digest) in view.Digests ?? new Dictionary<string, string>())
        {
            step.Digests[output] = digest;
        }

        if (view.Started is { } started)
        {
            step.Started = Timestamp.FromDateTimeOffset(started);
        }

        if (view.Finished is { } finished)
        {
            step.Finished = Timestamp.FromDateTimeOffset(finished);
        }

        if (view.Progress is { } progress)
        {
            step.Progress = ToProto(progress);
        }

        return step;
    }

    private static JobProgress ToProto(Runs.StepProgress p)
    {
        var progress = new JobProgress { Phase = p.Phase, Iteration = p.Iteration, Clusters = p.Clusters, Objective = p.Objective, ElapsedMs = p.ElapsedMs };
        if (p.Temperature is { } t)
        {
            progress.Temperature = t;
        }

        return progress;
    }

    private static Proto.Hop ToProto(Hops.Hop h)
    {
        var hop = new Proto.Hop
        {
            Step = h.Step,
            Service = h.Service,
            Operation = h.Operation,
            Start = Timestamp.FromDateTimeOffset(h.Start),
            LatencyMs = h.LatencyMs,
            RequestBytes = h.RequestBytes,
            ResponseBytes = h.ResponseBytes,
            Retries = h.Retries,
            Outcome = h.Outcome,
        };
        if (h.ServerMs is { } server)
        {
            hop.ServerMs = server;
        }

        if (h.QueueMs is { } queue)
        {
            hop.QueueMs = queue;
        }

        if (h.ComputeMs is { } compute)
        {
            hop.ComputeMs = compute;
        }

        if (h.NetworkMs is { } network)
        {
            hop.NetworkMs = network;
        }

        hop.Resources = h.Resources?.ToProto();
        return hop;
    }
}
