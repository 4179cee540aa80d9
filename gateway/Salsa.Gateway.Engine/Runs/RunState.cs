using System.Text.Json.Serialization;

namespace Salsa.Gateway.Runs;

/// <summary>Life of a run (the same states as a service job).</summary>
[JsonConverter(typeof(JsonStringEnumConverter<RunState>))]
public enum RunState
{
    [JsonStringEnumMemberName("queued")]
    Queued,
    [JsonStringEnumMemberName("running")]
    Running,
    [JsonStringEnumMemberName("succeeded")]
    Succeeded,
    [JsonStringEnumMemberName("failed")]
    Failed,
    [JsonStringEnumMemberName("cancelled")]
    Cancelled,

    /// <summary>The gateway stopped while the run was in flight and the run could not be resumed.</summary>
    [JsonStringEnumMemberName("interrupted")]
    Interrupted,
}
