using System.IO.Compression;
using System.Security.Cryptography;

namespace Salsa.DataFiles.Tests;

/// <summary>The shipped data folder: found from anywhere in the repository, and every file checked against the manifest.</summary>
public sealed class DataDirectoryTests : IDisposable
{
    private readonly DirectoryInfo _scratch = Directory.CreateTempSubdirectory("salsa-data-test-");

    private static string RepositoryData => DataDirectory.Default.Root;

    public void Dispose() => _scratch.Delete(recursive: true);

    [Fact]
    public void Default_InTheRepository_IsTheRepositorysDataFolder()
    {
        Assert.Equal("data", Path.GetFileName(RepositoryData));
        Assert.True(File.Exists(Path.Combine(RepositoryData, "..", "Salsa.Services.sln")));
    }

    [Fact]
    public void Manifest_Embedded_EqualsTheFileInTheDataFolder()
    {
        using var onDisk = File.OpenRead(Path.Combine(RepositoryData, DataManifest.FileName));

        Assert.Equal(DataManifest.Parse(onDisk), DataManifest.Files);
    }

    [Fact]
    public void Manifest_EveryFileInTheDataFolder_IsListedWithItsSizeChecksumAndRows()
    {
        var onDisk = Directory.EnumerateFiles(RepositoryData, "*", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(RepositoryData, f).Replace('\\', '/'))
            .Where(f => f is not ("README.md" or DataManifest.FileName))
            .Order(StringComparer.Ordinal)
            .ToList();

        Assert.Equal(onDisk, DataManifest.Files.Select(f => f.Path).Order(StringComparer.Ordinal));
        foreach (var entry in DataManifest.Files)
        {
            var path = Path.Combine(RepositoryData, entry.Path);
            Assert.Equal(entry.Bytes, new FileInfo(path).Length);
            Assert.Equal(entry.Sha256, Convert.ToHexStringLower(SHA256.HashData(File.ReadAllBytes(path))));
            Assert.Equal(entry.Rows, DataRows(path));
            Assert.False(string.IsNullOrWhiteSpace(entry.Licence), entry.Path);
        }
    }

    [Fact]
    public void Discover_EnvironmentVariableSet_UsesItWithoutSearching()
    {
        Assert.Equal(_scratch.FullName, DataDirectory.Discover(_scratch.FullName, [Directory.GetCurrentDirectory()]));
    }

    [Fact]
    public void Discover_FromAFolderDeepInsideAProject_FindsTheDataFolderAbove()
    {
        var data = CopyOf("fixtures/gmm2d.csv");
        var deep = Directory.CreateDirectory(Path.Combine(_scratch.FullName, "app", "bin", "Release", "net10.0")).FullName;

        Assert.Equal(data, DataDirectory.Discover(null, [deep]));
        Assert.Equal(data, DataDirectory.Discover("  ", [Path.GetTempPath(), deep]));
    }

    [Fact]
    public void Discover_ADataFolderWithoutTheManifest_IsNotTaken()
    {
        Directory.CreateDirectory(Path.Combine(_scratch.FullName, "data", "census"));

        Assert.NotEqual(Path.Combine(_scratch.FullName, "data"), DataDirectory.Discover(null, [_scratch.FullName]));
    }

    [Fact]
    public void Check_IntactFile_GivesItsPathAndEntry()
    {
        var data = CopyOf("fixtures/gmm2d.csv");

        var file = new DataDirectory(data).Check("fixtures/gmm2d.csv");

        Assert.Equal(Path.Combine(data, "fixtures", "gmm2d.csv"), file.FullPath);
        Assert.Equal(DataManifest.Find("fixtures/gmm2d.csv"), file.Entry);
    }

    [Fact]
    public void Check_MissingFile_NamesItAndTheRemedy()
    {
        var data = CopyOf("fixtures/gmm2d.csv");

        var error = Assert.Throws<DataFileException>(() => new DataDirectory(data).Check("census/indiana_blockgroups_2020.csv.gz"));

        Assert.Contains("census/indiana_blockgroups_2020.csv.gz is missing", error.Message, StringComparison.Ordinal);
        Assert.Contains("git checkout -- data/census/indiana_blockgroups_2020.csv.gz", error.Message, StringComparison.Ordinal);
        Assert.Contains("SALSA_DATA", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Check_TruncatedFile_NamesItsSizeAndTheManifests()
    {
        var data = CopyOf("fixtures/gmm2d.csv");
        using (var stream = File.OpenWrite(Path.Combine(data, "fixtures", "gmm2d.csv")))
        {
            stream.SetLength(1000);
        }

        var error = Assert.Throws<DataFileException>(() => new DataDirectory(data).Check("fixtures/gmm2d.csv"));

        Assert.Contains("fixtures/gmm2d.csv", error.Message, StringComparison.Ordinal);
        Assert.Contains("1,000 bytes where the manifest says 47,537", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Check_SameSizeOtherBytes_NamesTheChecksums()
    {
        var data = CopyOf("fixtures/gmm2d.csv");
        Flip(Path.Combine(data, "fixtures", "gmm2d.csv"), at: 20_000);

        var error = Assert.Throws<DataFileException>(() => new DataDirectory(data).Check("fixtures/gmm2d.csv"));

        Assert.Contains($"where the manifest says {DataManifest.Find("fixtures/gmm2d.csv")!.Sha256}", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Check_FileDamagedAfterAGoodCheck_IsCaughtOnTheNextCheck()
    {
        var data = CopyOf("fixtures/gmm2d.csv");
        var directory = new DataDirectory(data);
        var path = directory.Check("fixtures/gmm2d.csv").FullPath;

        Flip(path, at: 100);
        File.SetLastWriteTimeUtc(path, DateTime.UtcNow.AddMinutes(1));

        Assert.Throws<DataFileException>(() => directory.Check("fixtures/gmm2d.csv"));
    }

    [Fact]
    public void Check_NoDataFolder_SaysWhereItLookedAndWhatToSet()
    {
        var error = Assert.Throws<DataFileException>(() => new DataDirectory(null).Check("fixtures/gmm2d.csv"));

        Assert.Contains("data/manifest.json", error.Message, StringComparison.Ordinal);
        Assert.Contains("SALSA_DATA", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Check_AFileTheManifestDoesNotList_IsRefused()
    {
        Assert.Throws<ArgumentException>(() => DataDirectory.Default.Check("census/texas.csv.gz"));
        Assert.Throws<ArgumentException>(() => DataDirectory.Default.Check("../Salsa.Services.sln"));
    }

    /// <summary>A data folder (with the manifest) in the scratch folder holding a copy of one shipped file.</summary>
    private string CopyOf(string relativePath)
    {
        var data = Path.Combine(_scratch.FullName, "data");
        var target = Path.Combine(data, relativePath);
        Directory.CreateDirectory(Path.GetDirectoryName(target)!);
        File.Copy(Path.Combine(RepositoryData, relativePath), target);
        File.Copy(Path.Combine(RepositoryData, DataManifest.FileName), Path.Combine(data, DataManifest.FileName));
        return data;
    }

    private static void Flip(string path, int at)
    {
        var bytes = File.ReadAllBytes(path);
        bytes[at] ^= 0x01;
        File.WriteAllBytes(path, bytes);
    }

    private static int DataRows(string path)
    {
        using var file = File.OpenRead(path);
        using Stream stream = path.EndsWith(".gz", StringComparison.Ordinal) ? new GZipStream(file, CompressionMode.Decompress) : file;
        using var reader = new StreamReader(stream);
        var lines = 0;
        while (reader.ReadLine() is not null)
        {
            lines++;
        }

        return lines - 1;
    }
}
