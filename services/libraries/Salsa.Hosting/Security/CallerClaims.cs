using System.Security.Claims;

namespace Salsa.Hosting.Security;

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
