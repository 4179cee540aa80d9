namespace Salsa.Hosting.Security;

/// <summary>
/// What a credential may do. <c>read</c> lists and reads; <c>run</c> also creates (imports,
/// uploads, jobs, runs), cancels and deletes the tenant's own records; <c>admin</c> also manages API
/// keys. Each scope includes the ones before it.
/// </summary>
public static class Scopes
{
    public const string Read = "read";
    public const string Run = "run";
    public const string Admin = "admin";

    public static IReadOnlyList<string> All { get; } = [Read, Run, Admin];

    /// <summary>Whether <paramref name="granted"/> includes <paramref name="required"/>.</summary>
    public static bool Grant(IEnumerable<string> granted, string required)
    {
        ArgumentNullException.ThrowIfNull(granted);
        var needed = Rank(required);
        return needed > 0 && granted.Any(g => Rank(g) >= needed);
    }

    /// <summary>Scopes from a list such as <c>read,run</c> or <c>read run</c>; an unknown one is an <see cref="ArgumentException"/>.</summary>
    public static IReadOnlyList<string> Parse(IEnumerable<string> scopes)
    {
        ArgumentNullException.ThrowIfNull(scopes);
        var parsed = scopes.SelectMany(s => (s ?? "").Split([',', ' '], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            .Select(s => Rank(s) > 0 ? s : throw new ArgumentException($"'{s}' is not a scope: use {string.Join(", ", All)}.", nameof(scopes)))
            .Distinct(StringComparer.Ordinal)
            .OrderBy(Rank)
            .ToList();
        return parsed.Count > 0 ? parsed : throw new ArgumentException($"Name at least one scope: {string.Join(", ", All)}.", nameof(scopes));
    }

    private static int Rank(string? scope) => scope switch
    {
        Read => 1,
        Run => 2,
        Admin => 3,
        _ => 0,
    };
}
