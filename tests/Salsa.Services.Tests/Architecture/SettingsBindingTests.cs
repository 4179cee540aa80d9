using System.Text.RegularExpressions;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Salsa.Grid;
using Salsa.Settings;
using Salsa.Store;

namespace Salsa.Services.Tests.Architecture;

/// <summary>
/// Settings one way (services/libraries/Salsa.Settings): every configuration key is read by the
/// binding of an options type, nowhere else — held over the sources, so a new raw read fails here —
/// and the binding itself: keys outside a section, bound once, options a host is given winning.
/// </summary>
public sealed partial class SettingsBindingTests
{
    // A read of configuration by key, or of its sections, in any spelling the API allows.
    [GeneratedRegex(@"(?i)\bconfiguration\s*(\[|\.Get|\.Bind\b|\.AsEnumerable)|\bGetSection\(|\bGetConnectionString\(|\bGetChildren\(|\bIConfigurationSection\b|\bBindConfiguration\(")]
    private static partial Regex ConfigurationRead();

    [Fact]
    public void ConfigurationKeys_AreReadOnlyByTheBinding()
    {
        var reads = ProductionSources.Lines(ConfigurationRead(), "services/libraries/Salsa.Settings/");
        Assert.True(reads.Count == 0, "Configuration read outside an options type's binding (give it an options type, AddSalsaOptions or BindSalsaOptions):\n" + string.Join('\n', reads));
    }

    [Fact]
    public void ConfigurationPath_BindsKeysOutsideTheSection_AndNamesThemInRefusals()
    {
        var store = SalsaOptions.Read<StoreOptions>(Configuration(("Store:SqlitePath", "a.db"), ("ConnectionStrings:salsa", "Host=db;Database=salsa"), ("Salsa:Quota:MaxDatasets", "7")), StoreOptions.Section);

        Assert.Equal((Path.GetFullPath("a.db"), "Host=db;Database=salsa", 7, StorageQuota.DefaultMaxBytes), (store.SqlitePath, store.ConnectionString, store.Quota!.MaxDatasets, store.Quota.MaxBytes));
        var refused = Assert.Throws<OptionsValidationException>(() => SalsaOptions.Read<StoreOptions>(Configuration(("Salsa:Quota:MaxBytes", "0")), StoreOptions.Section));
        Assert.Contains("Salsa:Quota:MaxBytes:", refused.Message, StringComparison.Ordinal);
        refused = Assert.Throws<OptionsValidationException>(() => SalsaOptions.Read<StoreOptions>(Configuration(("ConnectionStrings:salsa", "nonsense")), StoreOptions.Section));
        Assert.Contains("ConnectionStrings:salsa:", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Durations_AreTimeSpans_WrittenAsTheBinderReadsThem()
    {
        var grid = SalsaOptions.Read<GridOptions>(Configuration(("Cluster:ProbeTimeout", "00:00:01.5"), ("Cluster:ResumeCheck", "00:02:00"), ("Cluster:Role", "client")), SiloHosting.Section);

        Assert.Equal((TimeSpan.FromSeconds(1.5), TimeSpan.FromMinutes(2), GridRole.Client), (grid.ProbeTimeout, grid.ResumeCheck, grid.Role));
        var refused = Assert.Throws<OptionsValidationException>(() => SalsaOptions.Read<GridOptions>(Configuration(("Cluster:DirectoryLease", "02:00:00")), SiloHosting.Section));
        Assert.Contains("Cluster:DirectoryLease:", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void BindSalsaOptions_BindsOnce_AndInjectsThatOne()
    {
        var services = new ServiceCollection();
        var configuration = Configuration(("Cluster:Ranks", "3"));

        var first = services.BindSalsaOptions<GridOptions>(configuration, SiloHosting.Section);
        configuration["Cluster:Ranks"] = "5";
        var second = services.BindSalsaOptions<GridOptions>(configuration, SiloHosting.Section);

        Assert.Same(first, second);
        Assert.Equal(3, first.Ranks);
        using var provider = services.BuildServiceProvider();
        Assert.Same(first, provider.GetRequiredService<GridOptions>());
        Assert.Same(first, provider.GetRequiredService<IOptions<GridOptions>>().Value);
    }

    [Fact]
    public void GivenOptions_WinOverTheConfiguration_BoundOrRegistered()
    {
        var services = new ServiceCollection();
        var configuration = Configuration(("Cluster:Ranks", "3"), ("Store:SqlitePath", "configured.db"));
        var store = new StoreOptions { SqlitePath = "given.db" };
        var grid = new GridOptions { Ranks = 9, Role = GridRole.Client };
        services.AddSingleton<IConfiguration>(configuration).Give(store).Give(grid);

        services.AddSalsaOptions<StoreOptions>(StoreOptions.Section);
        Assert.Same(grid, services.BindSalsaOptions<GridOptions>(configuration, SiloHosting.Section));

        using var provider = services.BuildServiceProvider();
        Assert.Equal(Path.GetFullPath("given.db"), provider.GetRequiredService<IOptions<StoreOptions>>().Value.SqlitePath);
    }

    private static IConfigurationRoot Configuration(params (string Key, string Value)[] settings) =>
        new ConfigurationBuilder().AddInMemoryCollection(settings.Select(s => KeyValuePair.Create<string, string?>(s.Key, s.Value))).Build();
}
