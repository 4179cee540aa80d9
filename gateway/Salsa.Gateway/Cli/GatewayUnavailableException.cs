namespace Salsa.Gateway.Cli;

/// <summary>The gateway a run was sent to did not answer, or refused for a reason of its own (busy, failing).</summary>
public sealed class GatewayUnavailableException(string message, Exception? inner = null) : Exception(message, inner);
