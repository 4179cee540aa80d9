using System.ComponentModel.DataAnnotations;
using Microsoft.Extensions.Options;

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

    /// <summary>Unrevoked API keys one tenant may have at once (each has its own rate limit, so keys without bound would multiply it).</summary>
    [Range(1, 100_000)]
    public int MaxKeysPerTenant { get; set; } = 100;

    /// <summary>How long a verified API key is trusted before the store is asked again (so a revocation takes at most this long on other processes).</summary>
    [Range(typeof(TimeSpan), "00:00:00", "1.00:00:00")]
    public TimeSpan KeyCacheTime { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>A copy, for a process that hosts others (the gateway's services ask for its credentials).</summary>
    public AuthSettings Copy() => (AuthSettings)MemberwiseClone();

    /// <summary>Whether authentication is on, given the process's <see cref="Exposure"/>; Off when exposed is refused.</summary>
    public bool ResolveEnabled(ExposureOptions exposure)
    {
        var exposed = Exposure.Reason(exposure);
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

/// <summary>
/// What <see cref="AuthSettings"/> may not be, checked at start: a service key shorter than 32
/// characters, authentication off on an exposed process.
/// </summary>
internal sealed class AuthSettingsValidation(IOptions<ExposureOptions> exposure) : IValidateOptions<AuthSettings>
{
    public ValidateOptionsResult Validate(string? name, AuthSettings options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.ServiceKey is { Length: > 0 and < 32 })
        {
            return ValidateOptionsResult.Fail(
                $"{AuthSettings.Section}:ServiceKey has {options.ServiceKey.Length} characters; a service key has at least 32 (e.g. `openssl rand -base64 32`).");
        }

        try
        {
            options.ResolveEnabled(exposure.Value);
        }
        catch (InvalidOperationException refused)
        {
            return ValidateOptionsResult.Fail(refused.Message);
        }

        return ValidateOptionsResult.Success;
    }
}
