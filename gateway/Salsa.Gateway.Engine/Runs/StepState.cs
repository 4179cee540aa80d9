using System.Text.Json.Serialization;

namespace Salsa.Gateway.Runs;

[JsonConverter(typeof(JsonStringEnumConverter<StepState>))]
public enum StepState
{
    [JsonStringEnumMemberName("pending")]
    Pending,
    [JsonStringEnumMemberName("running")]
    Running,
    [JsonStringEnumMemberName("succeeded")]
    Succeeded,
    [JsonStringEnumMemberName("failed")]
    Failed,
    [JsonStringEnumMemberName("cancelled")]
    Cancelled,

    /// <summary>Not run: a step failed first (after a failure no new step starts), or one it depends on did not succeed.</summary>
    [JsonStringEnumMemberName("skipped")]
    Skipped,
}
