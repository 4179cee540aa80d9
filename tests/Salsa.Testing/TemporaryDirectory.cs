namespace Salsa.Testing;

/// <summary>A fresh directory under the system's temporary folder, deleted with everything in it on dispose.</summary>
public sealed class TemporaryDirectory : IDisposable
{
    public TemporaryDirectory(string prefix = "salsa-test-") => Path = Directory.CreateTempSubdirectory(prefix).FullName;

    public string Path { get; }

    /// <summary>A path inside the directory (nothing is created).</summary>
    public string Combine(params string[] parts) => System.IO.Path.Combine([Path, .. parts]);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
    }
}
