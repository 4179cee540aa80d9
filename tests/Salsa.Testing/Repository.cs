namespace Salsa.Testing;

/// <summary>The repository the tests run from.</summary>
public static class Repository
{
    /// <summary>The folder holding <c>Salsa.Services.sln</c>, found above the test's own binaries.</summary>
    public static string Root { get; } = Find();

    private static string Find()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Salsa.Services.sln")))
            {
                return dir.FullName;
            }
        }

        throw new DirectoryNotFoundException($"No Salsa.Services.sln above {AppContext.BaseDirectory}.");
    }
}
