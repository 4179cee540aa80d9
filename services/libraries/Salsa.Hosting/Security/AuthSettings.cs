using Microsoft.Extensions.Configuration;

namespace Salsa.Hosting.Security;

/// <summary>Whether a service asks callers who they are.</summary>
public enum AuthMode
{
    /// <summary>On when the service listens beyond loopback, off when only this machine can reach it.</summary>
    Auto,

    /// <summary>Every request needs credentials.</summary>
    On,

    /// <summary>Every request acts for the tenant <c>local</c> with every scope (refused beyond loopback).</summary>
    Off,
}

/// <summary>Authentication, authorization and rate limits of a service: <c>Salsa:Auth</c>.</summary>
public sealed class AuthSettings
{
    public const string Section = "Salsa:Auth";

    public AuthMode Mode { get; set; } = AuthMode.Auto;

    /// <summary>
    /// The credential services give each other (the gateway calling a service on a run's behalf):
    /// a secret of at least 32 characters, the same on every process of a deployment. A call with it
    /// names the tenant it acts for in the <c>salsa-tenant</c> header.
    /// </summary>
    public string? ServiceKey { get; set; }

    public JwtSettings Jwt { get; set; } = new();

    public RateLimitSettings RateLimit { get; set; } = new();

    /// <summary>How long a verified API key is trusted before the store is asked again (so a revocation takes at most this long on other processes).</summary>
    public TimeSpan KeyCacheTime { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>Whether authentication is on, given the process's <see cref="Exposure"/>; Off when exposed is refused.</summary>
    public bool ResolveEnabled(IConfiguration configuration)
    {
        var exposed = Exposure.Reason(configuration);
        return Mode switch
        {
            AuthMode.On => true,
            AuthMode.Off when exposed is not null => throw new InvalidOperationException(
                $"{Section}:Mode is Off, but the service is exposed ({exposed}): anyone who reaches it could read and delete every tenant's data. " +
                $"Leave {Section}:Mode at Auto (or On) and give callers API keys, or listen on 127.0.0.1 only."),
            AuthMode.Off => false,
            _ => exposed is not null,
        };
    }
}

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

/// <summary>Requests per credential (<c>Salsa:Auth:RateLimit</c>): a token bucket per API key or token subject.</summary>
public sealed class RateLimitSettings
{
    /// <summary>Requests a credential may make per second, sustained; 0 turns the limit off.</summary>
    public int PermitsPerSecond { get; set; } = 50;

    /// <summary>Requests a credential may make at once after a quiet spell.</summary>
    public int Burst { get; set; } = 100;

    /// <summary>
    /// Failed authentications (a made-up, revoked or altered API key) one client address may cause
    /// per second, sustained; beyond it, keys not verified recently are refused (429) without asking
    /// the store. 0 turns the limit off.
    /// </summary>
    public int FailuresPerSecond { get; set; } = 2;

    /// <summary>Failed authentications one client address may cause at once after a quiet spell.</summary>
    public int FailureBurst { get; set; } = 20;
}
