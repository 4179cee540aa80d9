using System.Security.Cryptography.X509Certificates;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Orleans.Configuration;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// The machine level's own credential: silos and clients holding the cluster certificate form the
/// cluster over mutual TLS; a silo or a client without it, or with a look-alike (same name, another
/// key), is turned away and changes nothing.
/// </summary>
public sealed class ClusterTlsTests(PostgresFixture postgres)
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task HoldersOfTheClusterCertificate_FormTheCluster_AnyoneElseIsTurnedAway()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        var clusterId = $"tls{Guid.NewGuid():N}";
        var certificate = ClusterCertificates.Create();
        using var first = await Silos.StartAsync(connectionString, clusterId, certificate: certificate);
        using var second = await Silos.StartAsync(connectionString, clusterId, certificate: certificate);
        await Silos.ActiveSilosAsync(first, 2);
        using (var client = await Silos.StartClientAsync(connectionString, clusterId, certificate))
        {
            Assert.Equal(3, await client.Services.GetRequiredService<IClusterClient>().GetGrain<ICounterGrain>("tls").AddAsync(3));
        }

        foreach (var (intruder, what) in new (X509Certificate2?, string)[] { (ClusterCertificates.Create(), "a look-alike certificate"), (null, "no certificate") })
        {
            var joining = await Record.ExceptionAsync(() => Silos.StartAsync(connectionString, clusterId, QuickToGiveUp, intruder));
            Assert.True(joining is not null, $"A silo with {what} joined the cluster.");
            // Orleans' client keeps trying a gateway that refuses it for minutes: twenty seconds show it.
            var calling = await Record.ExceptionAsync(() => Silos.StartClientAsync(connectionString, clusterId, intruder, TimeSpan.FromSeconds(20)));
            Assert.True(calling is not null, $"A client with {what} connected to the cluster.");
        }

        // The cluster is still exactly its two silos, and serves its own.
        var members = first.Services.GetRequiredService<IClusterMembershipService>().CurrentSnapshot.Members.Values;
        Assert.Equal(2, members.Count(m => m.Status == SiloStatus.Active));
        using var again = await Silos.StartClientAsync(connectionString, clusterId, certificate);
        Assert.Equal(5, await again.Services.GetRequiredService<IClusterClient>().GetGrain<ICounterGrain>("tls").AddAsync(2));
    }

    /// <summary>A silo that cannot reach the others gives up its join after seconds, not Orleans' five minutes.</summary>
    private static void QuickToGiveUp(IHostApplicationBuilder builder) =>
        builder.Services.Configure<ClusterMembershipOptions>(o => o.MaxJoinAttemptTime = TimeSpan.FromSeconds(10));
}
