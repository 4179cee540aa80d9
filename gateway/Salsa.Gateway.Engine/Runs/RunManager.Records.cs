using System.Text.Json;
using Salsa.Store;

namespace Salsa.Gateway.Runs;

/// <summary>Runs as the store keeps them: JobRecords of the runs' service, mapped at the store's edge.</summary>
public sealed partial class RunManager
{
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
