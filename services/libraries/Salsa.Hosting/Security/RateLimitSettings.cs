using System.ComponentModel.DataAnnotations;

namespace Salsa.Hosting.Security;

/// <summary>Requests per credential (<c>Salsa:Auth:RateLimit</c>): a token bucket per API key or token subject.</summary>
public sealed class RateLimitSettings
{
    /// <summary>Requests a credential may make per second, sustained; 0 turns the limit off.</summary>
    [Range(0, int.MaxValue)]
    public int PermitsPerSecond { get; set; } = 50;

    /// <summary>Requests a credential may make at once after a quiet spell.</summary>
    [Range(1, int.MaxValue)]
    public int Burst { get; set; } = 100;

    /// <summary>
    /// Failed authentications (a made-up, revoked or altered API key) one client address may cause
    /// per second, sustained; beyond it, keys not verified recently are refused (429) without asking
    /// the store. 0 turns the limit off.
    /// </summary>
    [Range(0, int.MaxValue)]
    public int FailuresPerSecond { get; set; } = 2;

    /// <summary>Failed authentications one client address may cause at once after a quiet spell.</summary>
    [Range(1, int.MaxValue)]
    public int FailureBurst { get; set; } = 20;
}
