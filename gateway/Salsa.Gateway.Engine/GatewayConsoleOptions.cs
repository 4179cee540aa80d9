namespace Salsa.Gateway;

/// <summary><c>Gateway:Console</c>: what the web console links to.</summary>
public sealed class GatewayConsoleOptions
{
    /// <summary>The trace viewer's page of a trace, <c>{traceId}</c> in it (the Aspire dashboard's <c>http://127.0.0.1:18888/traces/detail/{traceId}</c>).</summary>
    public string? TraceUrl { get; set; }
}
