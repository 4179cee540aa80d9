namespace Salsa.Grpc;

/// <summary>Per-call settings.</summary>
/// <param name="Headers">Custom metadata sent as request headers.</param>
/// <param name="Deadline">When the caller stops waiting (UTC, or local time converted): sent as grpc-timeout and enforced by a local timer.</param>
/// <param name="CancellationToken">Cancels the call: the stream is reset and the call ends with CANCELLED.</param>
public readonly record struct CallOptions(Metadata? Headers = null, DateTime? Deadline = null, CancellationToken CancellationToken = default);
