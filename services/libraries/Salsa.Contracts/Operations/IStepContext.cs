using System.Text.Json.Nodes;
using Grpc.Core;
using Salsa.Contracts.Common;

namespace Salsa.Contracts.Operations;

/// <summary>
/// What an operation gets while its step runs: the step's resolved inputs and parameters, and calls
/// to services that are recorded as the step's hops (latency, the service's own time, bytes,
/// retries of refusals that carry a retry hint). Implemented by the gateway.
/// </summary>
public interface IStepContext
{
    string StepId { get; }

    /// <summary>Cancelled when the run is cancelled, the step's attempt times out or the gateway stops.</summary>
    CancellationToken CancellationToken { get; }

    /// <summary>Options for a call made through <see cref="InvokerAsync"/>: the step's cancellation.</summary>
    CallOptions CallOptions { get; }

    bool HasInput(string name);

    JsonNode Input(string name);

    string InputString(string name);

    JobAddress InputJob(string name);

    /// <summary>Whether the workflow set the parameter, or it has a default.</summary>
    bool HasParameter(string name);

    /// <summary>A parameter the workflow set, or its default; throws when neither exists.</summary>
    T Parameter<T>(string name);

    /// <summary>A parameter the workflow set, or null (the service then takes its own default).</summary>
    T? OptionalParameter<T>(string name)
        where T : struct;

    /// <summary>The items of a list parameter, none when it is not set.</summary>
    IEnumerable<string> Strings(string name);

    /// <summary>
    /// Calls into <paramref name="service"/> (started first when the gateway hosts it): wrap it in the
    /// service's typed client; every unary call through it is a hop of this step, named by its method.
    /// </summary>
    Task<CallInvoker> InvokerAsync(string service);

    /// <summary>
    /// Runs a job: <paramref name="start"/> makes the start call through the invoker it is given,
    /// then the job is watched to its end (its progress is the step's; the hop carries its queue and
    /// compute time) and cancelled on the service if the step is. Returns the job once it
    /// succeeded; any other end is a <see cref="StepFailedException"/> with the service's reason.
    /// </summary>
    Task<JobAddress> RunJobAsync(string service, Func<CallInvoker, CallOptions, AsyncUnaryCall<JobInfo>> start);
}
