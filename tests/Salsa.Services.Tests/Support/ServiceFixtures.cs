using Salsa.Hosting.Host;
using Salsa.Testing;

namespace Salsa.Services.Tests.Support;

/// <summary>One service on its own SQLite store, shared by the tests of a class (an xunit class fixture).</summary>
public class ServiceFixture<TService> : IAsyncLifetime
    where TService : ISalsaService
{
    private readonly TemporaryDirectory _directory = new();

    public ServiceUnderTest<TService> Service { get; private set; } = null!;

    /// <summary>Configuration the service starts with, over its defaults (e.g. small limits).</summary>
    protected virtual IReadOnlyDictionary<string, string?>? Settings => null;

    public virtual async ValueTask InitializeAsync() =>
        Service = await ServiceUnderTest.StartAsync<TService>(TestStore.Sqlite(_directory), Settings);

    public async ValueTask DisposeAsync()
    {
        await Service.DisposeAsync();
        _directory.Dispose();
        GC.SuppressFinalize(this);
    }
}

/// <summary>
/// A vector-clustering service with small limits (configured, as an operator would, under
/// <c>Salsa:Limits</c>), fed bad input on every endpoint: the gmm points and their first 30 (fewer
/// points than some legal cluster counts) are uploaded.
/// </summary>
public class BadInputFixture<TService> : ServiceFixture<TService>
    where TService : ISalsaService
{
    public Guid Gmm { get; private set; }

    public Guid Tiny { get; private set; }

    protected override IReadOnlyDictionary<string, string?> Settings { get; } = new Dictionary<string, string?>
    {
        ["Salsa:Limits:MaxRequestBytes"] = "200000",
        ["Salsa:Limits:MaxGrpcMessageBytes"] = "100000",
        ["Salsa:Limits:MaxPoints"] = "5000",
        ["Salsa:Limits:MaxClusters"] = "50",
        ["Salsa:Limits:MaxIterations"] = "500",
        ["Salsa:Limits:MaxRestarts"] = "20",
        ["Salsa:Limits:MaxTemperatures"] = "2000",
        ["Salsa:Limits:MaxSplitMergeAttempts"] = "40",
    };

    /// <summary>Replaces the <c>$gmm</c> and <c>$tiny</c> placeholders with the dataset ids.</summary>
    public string Resolve(string text) => text
        .Replace("$gmm", Gmm.ToString(), StringComparison.Ordinal)
        .Replace("$tiny", Tiny.ToString(), StringComparison.Ordinal);

    public override async ValueTask InitializeAsync()
    {
        await base.InitializeAsync();
        var csv = Fixtures.GmmCsv();
        Gmm = (await Service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", csv)).DatasetId;
        var tiny = string.Join('\n', csv.Split('\n').Take(31)) + "\n";
        Tiny = (await Service.Rest.UploadCsvAsync("name=tiny&kind=dense&dimension=2&weights=true", tiny)).DatasetId;
    }
}
