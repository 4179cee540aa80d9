using System.Text.RegularExpressions;

namespace Salsa.Services.Tests.Architecture;

/// <summary>
/// An artifact moves once, and services read each other's results through one declared contract:
/// the store's jobs and files are read only by the job machinery of Salsa.Hosting (a service's own
/// jobs through its JobManager, another service's published results through JobResults) and by the
/// gateway's run records (its own); no service reads another's tables, and the gateway stores no
/// second copy of a step's files.
/// </summary>
public sealed partial class ArtifactContractTests
{
    // A store call that reads or writes a job or its files, whatever the store is called where it is used.
    [GeneratedRegex(@"\b[Ss]tore\s*\.\s*(GetJobAsync|GetArtifactAsync|ListArtifactsAsync|PutArtifactAsync)\s*\(")]
    private static partial Regex JobStoreCall();

    [Fact]
    public void JobsAndTheirFiles_AreReadOnlyThroughTheJobMachinery()
    {
        var calls = ProductionSources.Lines(JobStoreCall(),
            "services/libraries/Salsa.Store/",
            "services/libraries/Salsa.Hosting/Jobs/",
            "gateway/Salsa.Gateway.Engine/Runs/RunManager");
        Assert.True(calls.Count == 0,
            "A job or its files read or written outside the job machinery (use JobManager for the service's own jobs, JobResults for another's published results):\n" + string.Join('\n', calls));
    }

    [Fact]
    public void TheGateway_StoresNoCopyOfAStepsFiles()
    {
        var writes = ProductionSources.Lines(PutArtifact()).Where(l => l.StartsWith("gateway/", StringComparison.Ordinal)).ToList();
        Assert.True(writes.Count == 0, "The gateway writes a file to the store; a run refers to its step's job instead:\n" + string.Join('\n', writes));
    }

    [GeneratedRegex(@"\bPutArtifactAsync\s*\(")]
    private static partial Regex PutArtifact();
}
