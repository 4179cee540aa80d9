namespace Salsa.Hosting.Security;

/// <summary>Where a caller puts its credentials (beside <c>Authorization: Bearer …</c> or <c>Authorization: ApiKey …</c>).</summary>
public static class CredentialHeaders
{
    /// <summary>An API key, or the service key.</summary>
    public const string Key = "X-Api-Key";

    /// <summary>The tenant a call with the service key acts for.</summary>
    public const string Tenant = "salsa-tenant";
}
