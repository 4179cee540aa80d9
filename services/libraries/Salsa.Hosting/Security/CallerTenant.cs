using System.Security.Claims;
using Salsa.Store;

namespace Salsa.Hosting.Security;

/// <summary>Where a caller puts its credentials (beside <c>Authorization: Bearer …</c> or <c>Authorization: ApiKey …</c>).</summary>
public static class CredentialHeaders
{
    /// <summary>An API key, or the service key.</summary>
    public const string Key = "X-Api-Key";

    /// <summary>The tenant a call with the service key acts for.</summary>
    public const string Tenant = "salsa-tenant";
}

/// <summary>The claims a credential becomes, whichever kind it was (API key, service key, bearer token).</summary>
public static class CallerClaims
{
    public const string Tenant = "salsa:tenant";
    public const string Scope = "salsa:scope";

    /// <summary>Who holds the credential: an API key's id, <c>service</c>, <c>jwt:&lt;subject&gt;</c> or <c>local</c>; rate limits count per holder.</summary>
    public const string Holder = "salsa:holder";

    public const string ServiceHolder = "service";

    public static ClaimsPrincipal Principal(string scheme, string tenant, string holder, IEnumerable<string> scopes)
    {
        ArgumentNullException.ThrowIfNull(scopes);
        var identity = new ClaimsIdentity(scheme, Holder, null);
        identity.AddClaim(new Claim(Tenant, tenant));
        identity.AddClaim(new Claim(Holder, holder));
        foreach (var scope in scopes)
        {
            identity.AddClaim(new Claim(Scope, scope));
        }

        return new ClaimsPrincipal(identity);
    }

    public static string? TenantOf(ClaimsPrincipal? user) =>
        user?.Identity?.IsAuthenticated == true ? user.FindFirst(Tenant)?.Value : null;

    public static string? HolderOf(ClaimsPrincipal? user) =>
        user?.Identity?.IsAuthenticated == true ? user.FindFirst(Holder)?.Value : null;

    public static IEnumerable<string> ScopesOf(ClaimsPrincipal user)
    {
        ArgumentNullException.ThrowIfNull(user);
        return user.FindAll(Scope).Select(c => c.Value);
    }
}

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
