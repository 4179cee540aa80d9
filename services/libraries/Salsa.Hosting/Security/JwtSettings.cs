namespace Salsa.Hosting.Security;

/// <summary>Bearer tokens from an identity provider (<c>Salsa:Auth:Jwt</c>): OpenID Connect discovery, or a shared signing key.</summary>
public sealed class JwtSettings
{
    /// <summary>The identity provider (its <c>.well-known/openid-configuration</c> gives keys and issuer).</summary>
    public string? Authority { get; set; }

    /// <summary>The audience tokens must be for.</summary>
    public string? Audience { get; set; }

    /// <summary>The issuer tokens must come from (with <see cref="SigningKey"/>).</summary>
    public string? Issuer { get; set; }

    /// <summary>A base64 HMAC-SHA256 key shared with the token issuer, for providers without discovery.</summary>
    public string? SigningKey { get; set; }

    /// <summary>The claim naming the caller's tenant.</summary>
    public string TenantClaim { get; set; } = "tenant";

    /// <summary>The claim listing the caller's scopes (space-separated, as OAuth 2.0 writes them; <c>scp</c> is read too).</summary>
    public string ScopeClaim { get; set; } = "scope";

    public bool Enabled => !string.IsNullOrEmpty(Authority) || !string.IsNullOrEmpty(SigningKey);
}
