namespace Salsa.Store;

/// <summary>
/// Who owns a dataset, a job or a run. Every caller acts for one tenant and sees only its own
/// records; the embedded default (one user, loopback only) is the tenant <see cref="Local"/>.
/// </summary>
public static class Tenants
{
    /// <summary>The one user of a platform that runs without authentication, and the owner of records made before tenants existed.</summary>
    public const string Local = "local";

    public const int MaxLength = 64;

    /// <summary>1–64 characters: lower-case ASCII letters, digits, '-', '_' and '.', starting with a letter or digit.</summary>
    public static bool IsValid(string? tenant) =>
        tenant is { Length: > 0 and <= MaxLength }
        && char.IsAsciiLetterOrDigit(tenant[0])
        && tenant.All(c => char.IsAsciiLetterLower(c) || char.IsAsciiDigit(c) || c is '-' or '_' or '.');

    /// <summary>The tenant, or an <see cref="ArgumentException"/> saying what a tenant name may be.</summary>
    public static string Require(string? tenant, string parameter = "tenant") =>
        IsValid(tenant)
            ? tenant!
            : throw new ArgumentException($"'{tenant}' is not a tenant name: 1–{MaxLength} lower-case letters, digits, '-', '_' or '.', starting with a letter or digit.", parameter);
}
