namespace Salsa.Datasets;

/// <summary>
/// Finds the shared data folder (<c>../shared/data</c> beside the repository). The data sets are
/// never copied into the repository, so every consumer resolves them through this one place.
/// </summary>
public static class DataDirectory
{
    /// <summary>Environment variable that overrides discovery.</summary>
    public const string EnvironmentVariable = "SALSA_DATA";

    private static readonly Lazy<string?> s_root = new(Discover);

    /// <summary>The data root, or <c>null</c> when it cannot be found.</summary>
    public static string? TryGetRoot() => s_root.Value;

    /// <summary>The data root; throws with the places searched when it cannot be found.</summary>
    public static string Root => s_root.Value ?? throw new DirectoryNotFoundException(
        $"The shared data folder was not found. Set {EnvironmentVariable} to the folder holding " +
        "census/, chem/ and fixtures/ (normally ../shared/data beside the repository).");

    /// <summary>Path of a file below the data root, e.g. <c>Path("fixtures", "gmm2d.csv")</c>.</summary>
    public static string PathOf(params string[] parts) => System.IO.Path.Combine([Root, .. parts]);

    private static string? Discover()
    {
        var fromEnvironment = Environment.GetEnvironmentVariable(EnvironmentVariable);
        if (!string.IsNullOrWhiteSpace(fromEnvironment))
        {
            return IsDataRoot(fromEnvironment) ? System.IO.Path.GetFullPath(fromEnvironment) : null;
        }

        foreach (var start in new[] { Directory.GetCurrentDirectory(), AppContext.BaseDirectory })
        {
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            {
                foreach (var candidate in new[] { System.IO.Path.Combine(dir.FullName, "shared", "data"), System.IO.Path.Combine(dir.FullName, "..", "shared", "data") })
                {
                    if (IsDataRoot(candidate))
                    {
                        return System.IO.Path.GetFullPath(candidate);
                    }
                }
            }
        }

        // A clean clone made in a temporary folder has no sibling data folder; the workspace's is the
        // one every machine of this project has.
        const string Workspace = "/work/shared/data";
        return IsDataRoot(Workspace) ? Workspace : null;
    }

    private static bool IsDataRoot(string path) =>
        Directory.Exists(System.IO.Path.Combine(path, "census")) && Directory.Exists(System.IO.Path.Combine(path, "fixtures"));
}
