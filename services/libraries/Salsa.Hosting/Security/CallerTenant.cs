using Salsa.Store;

namespace Salsa.Hosting.Security;

/// <summary>
/// The tenant the code running now acts for: set from the caller's credentials for the length of a
/// request (REST or gRPC), and from its record while a job or a run computes, so what they create
/// and read is the tenant's own. Outside both, there is no tenant and asking is an error.
/// </summary>
public static class CallerTenant
{
    private static readonly AsyncLocal<string?> s_current = new();

    /// <summary>The tenant of the request, job or run in progress.</summary>
    public static string Current => s_current.Value
        ?? throw new InvalidOperationException("No tenant: this code runs outside any request, job or run, so it acts for nobody.");

    public static string? CurrentOrNull => s_current.Value;

    /// <summary>Acts for <paramref name="tenant"/> in this asynchronous flow until the result is disposed (or the flow ends).</summary>
    public static Scope Enter(string tenant)
    {
        var previous = s_current.Value;
        s_current.Value = Tenants.Require(tenant);
        return new Scope(previous);
    }

    /// <summary>Restores the tenant acted for before.</summary>
    public readonly struct Scope(string? previous) : IDisposable
    {
        public void Dispose() => s_current.Value = previous;
    }
}
