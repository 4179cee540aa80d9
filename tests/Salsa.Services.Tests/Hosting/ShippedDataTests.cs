using Grpc.Core;
using Salsa.Census;
using Salsa.Chem;
using Salsa.Contracts.Census;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Clients;
using Salsa.DataFiles;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// Services whose data folder (<c>Salsa:DataDirectory</c>) lacks a file or holds a damaged one: the
/// import is refused at once, over both faces, with the file and the remedy named; nothing is stored;
/// the intact files still import.
/// </summary>
public sealed class ShippedDataTests : IDisposable
{
    private readonly TemporaryDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public async Task CensusImport_DamagedFile_RefusedNamingItAndNothingStored()
    {
        var data = DataFolder("census/indiana_blockgroups_2020.csv.gz", "fixtures/indiana_bg_1000.csv");
        Truncate(Path.Combine(data, "census", "indiana_blockgroups_2020.csv.gz"), 5_000);
        await using var service = await ServiceUnderTest.StartAsync<CensusService>(TestStore.Sqlite(_directory), Settings(data));

        using var response = await service.Rest.PostJsonTextAsync("/api/census/imports", "{\"source\":\"indiana\"}");
        var problem = await RestCalls.ProblemAsync(response, 500);
        var message = await GrpcCalls.FailsWithAsync(StatusCode.Internal, async () =>
            await new CensusClient(service.Grpc).ImportAsync(new ImportCensusRequest { Source = "indiana" }, GrpcCalls.Options));

        foreach (var said in new[] { problem, message })
        {
            Assert.Contains("census/indiana_blockgroups_2020.csv.gz", said, StringComparison.Ordinal);
            Assert.Contains("5,000 bytes where the manifest says 74,637", said, StringComparison.Ordinal);
            Assert.Contains("git checkout -- data/census/indiana_blockgroups_2020.csv.gz", said, StringComparison.Ordinal);
        }

        Assert.Equal(0, await service.Rest.CountDatasetsAsync());
        var fixture = await new CensusClient(service.Grpc).ImportAsync(new ImportCensusRequest { Source = "indiana-1000" }, GrpcCalls.Options);
        Assert.Equal(1_000, fixture.Count);
    }

    [Fact]
    public async Task ChemImport_MissingFile_RefusedNamingItAndNothingStored()
    {
        var data = DataFolder("fixtures/chem_500.csv");
        await using var service = await ServiceUnderTest.StartAsync<ChemService>(TestStore.Sqlite(_directory), Settings(data));

        using var response = await service.Rest.PostJsonTextAsync("/api/chem/imports", "{\"source\":\"40k\"}");
        var problem = await RestCalls.ProblemAsync(response, 500);
        var message = await GrpcCalls.FailsWithAsync(StatusCode.Internal, async () =>
            await new ChemClient(service.Grpc).ImportAsync(new ImportCompoundsRequest { Source = "40k" }, GrpcCalls.Options));

        Assert.All(new[] { problem, message }, said => Assert.Contains("chem/compounds_40k.csv.gz is missing from the service's data folder (its log names it)", said, StringComparison.Ordinal));
        Assert.All(new[] { problem, message }, said => Assert.DoesNotContain(data, said, StringComparison.Ordinal)); // no server path reaches a caller
        Assert.Equal(0, await service.Rest.CountDatasetsAsync());
        var fixture = await new ChemClient(service.Grpc).ImportAsync(new ImportCompoundsRequest { Source = "fixture" }, GrpcCalls.Options);
        Assert.Equal(500, fixture.Count);
    }

    private static Dictionary<string, string?> Settings(string data) => new() { ["Salsa:DataDirectory"] = data };

    /// <summary>A data folder holding copies of the shipped <paramref name="files"/> only.</summary>
    private string DataFolder(params string[] files)
    {
        var data = _directory.Combine("data");
        foreach (var file in files)
        {
            var target = Path.Combine(data, file);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(DataDirectory.Default.Check(file).FullPath, target);
        }

        return data;
    }

    private static void Truncate(string path, int length)
    {
        using var stream = File.OpenWrite(path);
        stream.SetLength(length);
    }
}
