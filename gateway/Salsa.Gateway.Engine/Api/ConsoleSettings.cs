namespace Salsa.Gateway.Api;

/// <summary>The web console's links: <see cref="TraceUrl"/> holds <c>{traceId}</c>, e.g. the Aspire dashboard's <c>http://127.0.0.1:18888/traces/detail/{traceId}</c>.</summary>
public sealed record ConsoleSettings(string? TraceUrl);
