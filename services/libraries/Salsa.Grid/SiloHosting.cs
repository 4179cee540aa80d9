using System.Net;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Orleans.Configuration;
using Orleans.Serialization;
using Salsa.Grid.Compute;
using Salsa.Grid.Jobs;

namespace Salsa.Grid;

/// <summary>Where a silo listens and which cluster it joins.</summary>
public sealed record SiloSettings
{
    /// <summary>Silos with the same cluster id form one cluster.</summary>
    public string ClusterId { get; init; } = "salsa";

    public string ServiceId { get; init; } = "salsa";

    /// <summary>PostgreSQL for membership; null runs a single silo on localhost clustering (the embedded default).</summary>
    public string? ConnectionString { get; init; }

    /// <summary>The address other silos reach this one at (its namespace's or host's address).</summary>
    public IPAddress Address { get; init; } = IPAddress.Loopback;

    public int SiloPort { get; init; } = SiloHosting.DefaultSiloPort;

    public int GatewayPort { get; init; } = 30000;

    /// <summary>The cores a partition's pass runs on.</summary>
    public int Ranks { get; init; } = Environment.ProcessorCount;

    /// <summary>Checkpoints, resumption and retries of the jobs this silo coordinates.</summary>
    public GridJobOptions Jobs { get; init; } = new();

    /// <summary>
    /// How long a silo that stopped answering (killed, cut off) goes unnoticed at most, roughly: the
    /// probe timeout, of which two in a row missed make the others vote it dead.
    /// </summary>
    public TimeSpan ProbeTimeout { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>Exports a span per grain call (Orleans' activity sources) besides the jobs' own spans; off by default (thousands per second).</summary>
    public bool TraceGrainCalls { get; init; }

    /// <summary>How long the grains of a lost silo wait before they activate elsewhere (the directory's safety lease).</summary>
    public TimeSpan DirectoryLease { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// The cluster certificate (<see cref="ClusterTls"/>): with it every connection between silos and
    /// from clients is mutual TLS; a silo listening beyond loopback must have it.
    /// </summary>
    public X509Certificate2? Certificate { get; init; }
}

/// <summary>A process becomes a silo of the Salsa cluster.</summary>
public static class SiloHosting
{
    /// <summary>The configuration section of a silo's settings (<c>Cluster:Id</c>, <c>Cluster:SiloPort</c>, …).</summary>
    public const string Section = "Cluster";

    /// <summary>
    /// A silo's settings from the bound <c>Cluster</c> section: the membership database is
    /// <c>Cluster:ConnectionString</c>, else the store's PostgreSQL (<c>ConnectionStrings:salsa</c>); the
    /// cluster certificate is the file <c>Cluster:Tls:Certificate</c> (<see cref="ClusterTls.Load"/>, with
    /// <c>Cluster:Tls:Password</c> when it is encrypted).
    /// </summary>
    public static SiloSettings Settings(GridOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new SiloSettings
        {
            ClusterId = options.Id,
            ServiceId = options.ServiceId,
            ConnectionString = options.ConnectionString ?? options.StoreConnectionString,
            Address = options.Address is { } address ? ResolveAddress(address) : IPAddress.Loopback,
            SiloPort = options.SiloPort ?? DefaultSiloPort,
            GatewayPort = options.GatewayPort,
            Ranks = options.Ranks,
            ProbeTimeout = options.ProbeTimeout,
            DirectoryLease = options.DirectoryLease,
            TraceGrainCalls = options.TraceGrainCalls,
            Certificate = options.Tls.Certificate is { Length: > 0 } certificate ? ClusterTls.Load(certificate, options.Tls.Password) : null,
            Jobs = new GridJobOptions
            {
                CheckpointInterval = options.CheckpointInterval,
                ResumeCheck = options.ResumeCheck,
                PartitionRetry = options.PartitionRetry,
                WatchInterval = options.WatchInterval,
            },
        };
    }

    /// <summary>The silo-to-silo port when <c>Cluster:SiloPort</c> is not set.</summary>
    public const int DefaultSiloPort = 11111;

    /// <summary>
    /// <c>Cluster:Address</c>: an IP address, a host name (resolved to its first IPv4 address), or
    /// <c>auto</c> — this host's own first non-loopback IPv4 address, what a container replicated with
    /// <c>--scale</c> advertises, since no two replicas may share one address.
    /// </summary>
    public static IPAddress ResolveAddress(string address)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(address);
        if (IPAddress.TryParse(address, out var parsed))
        {
            return parsed;
        }

        var auto = string.Equals(address, "auto", StringComparison.OrdinalIgnoreCase);
        var candidates = Dns.GetHostAddresses(auto ? Dns.GetHostName() : address).Where(a => a.AddressFamily == AddressFamily.InterNetwork).ToList();
        return candidates.FirstOrDefault(a => !IPAddress.IsLoopback(a)) ?? candidates.FirstOrDefault()
            ?? throw new ArgumentException($"Cluster:Address '{address}' has no IPv4 address.", nameof(address));
    }

    public const string AdoNetInvariant = "Npgsql";

    public static IHostApplicationBuilder AddSalsaSilo(this IHostApplicationBuilder builder, SiloSettings settings, Action<ISiloBuilder>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(settings);
        if (settings.ConnectionString is not null && !IPAddress.IsLoopback(settings.Address) && settings.Certificate is null)
        {
            // As with the services' credentials: beyond loopback, never open. Without TLS anyone who
            // reaches the silo port could join the cluster and run or read any grain.
            throw new InvalidOperationException(
                $"A silo listening beyond loopback (Cluster:Address {settings.Address}) needs the cluster certificate: set Cluster:Tls:Certificate to the file every silo and cluster client shares (docs/security.md).");
        }

        if (!string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable("OTEL_EXPORTER_OTLP_ENDPOINT")))
        {
            // Beside the service's own OpenTelemetry (which exports over OTLP): the jobs' spans and
            // meters, Orleans' meter, and Orleans' per-call spans when asked for.
            builder.Services.AddOpenTelemetry()
                .WithTracing(tracing => tracing.AddSource([GridTelemetry.Name, .. settings.TraceGrainCalls ? GridTelemetry.OrleansSources : []]))
                .WithMetrics(metrics => metrics.AddMeter(GridTelemetry.Name, GridTelemetry.OrleansMeter));
        }

        if (settings.ConnectionString is { } schemaDatabase)
        {
            // Before the silo starts (hosted services start in order): its tables and stored queries.
            builder.Services.AddHostedService(_ => new OrleansSchemaInitializer(schemaDatabase));
        }

        builder.UseOrleans(silo =>
        {
            silo.Services.AddPlacementDirector<Partitions.PartitionPlacement, Partitions.PartitionPlacementDirector>();
            silo.Services.AddPlacementDirector<Partitions.SiloPinnedPlacement, Partitions.SiloPinnedPlacementDirector>();
            silo.Services.AddSingleton<Partitions.SiloPartitions>();
            silo.Services.SerializeStoreExceptions();
            silo.Services.AddGridSerialization();
            silo.Services.AddSingleton(_ => new SiloCompute(settings.Ranks));
            silo.Services.Configure<GridJobOptions>(o => (o.CheckpointInterval, o.ResumeCheck, o.PartitionRetry, o.WatchInterval) = (settings.Jobs.CheckpointInterval, settings.Jobs.ResumeCheck, settings.Jobs.PartitionRetry, settings.Jobs.WatchInterval));
            if (settings.Jobs.ResumeCheck < TimeSpan.FromMinutes(1))
            {
                // A resume check more often than Orleans' minimum (tests, impatient deployments).
                silo.Configure<ReminderOptions>(o => o.MinimumReminderPeriod = TimeSpan.FromSeconds(5));
            }

            silo.Configure<ClusterMembershipOptions>(o =>
            {
                (o.ProbeTimeout, o.NumMissedProbesLimit) = (settings.ProbeTimeout, 2);
                // A silo computing on all its cores is slow to answer; that is no reason to wait
                // longer for one that is gone.
                o.ExtendProbeTimeoutDuringDegradation = false;
            });
            silo.Configure<ClusterOptions>(o => (o.ClusterId, o.ServiceId) = (settings.ClusterId, settings.ServiceId));
            if (settings.TraceGrainCalls)
            {
                silo.AddActivityPropagation();
            }

            if (settings.Certificate is { } certificate)
            {
                silo.UseClusterTls(certificate);
            }

            if (settings.ConnectionString is { } connectionString)
            {
                silo.UseAdoNetClustering(o => (o.Invariant, o.ConnectionString) = (AdoNetInvariant, connectionString));
                // The strongly consistent directory: while a lost silo is being replaced, the default
                // (eventually consistent) one may let a second activation of a grain start — for a job's
                // coordinator, a second run of the job.
#pragma warning disable ORLEANSEXP003 // Evaluation API of Orleans 10; the documented way to a single activation through failures.
                silo.AddDistributedGrainDirectory();
#pragma warning restore ORLEANSEXP003
                // After a silo is lost its grains may not register elsewhere until this lease ends (a
                // silo declared dead might still be running them). Orleans' default (30 s) is for
                // slow failure detection; ours declares a silo dead within a few probes.
                silo.Configure<GrainDirectoryOptions>(o => o.RangeLeaseDuration = settings.DirectoryLease);
                silo.AddAdoNetGrainStorageAsDefault(o => (o.Invariant, o.ConnectionString) = (AdoNetInvariant, connectionString));
                silo.UseAdoNetReminderService(o => (o.Invariant, o.ConnectionString) = (AdoNetInvariant, connectionString));
                silo.ConfigureEndpoints(settings.Address, settings.SiloPort, settings.GatewayPort, listenOnAnyHostAddress: false);
            }
            else
            {
                silo.UseLocalhostClustering(settings.SiloPort, settings.GatewayPort);
                silo.AddMemoryGrainStorageAsDefault();
                silo.UseInMemoryReminderService();
            }

            configure?.Invoke(silo);
        });
        return builder;
    }
}

/// <summary>A process that is not a silo talks to the cluster as an Orleans client.</summary>
public static class ClusterClientHosting
{
    /// <summary>
    /// Joins the cluster of <paramref name="settings"/> as a client: through its PostgreSQL membership,
    /// or — without a connection string — the single localhost silo whose gateway listens on
    /// <see cref="SiloSettings.GatewayPort"/> (the embedded default, where the gateway's process is the silo).
    /// Started before any silo, it waits for one (<see cref="ClusterConnectionRetry"/>) rather than failing.
    /// </summary>
    public static IHostApplicationBuilder AddSalsaClusterClient(this IHostApplicationBuilder builder, SiloSettings settings)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(settings);
        builder.UseOrleansClient(client =>
        {
            client.Configure<ClusterOptions>(o => (o.ClusterId, o.ServiceId) = (settings.ClusterId, settings.ServiceId));
            client.Services.SerializeStoreExceptions();
            client.Services.AddGridSerialization();
            client.Services.AddSingleton<IClientConnectionRetryFilter, ClusterConnectionRetry>();
            client.Services.TryAddSingleton(TimeProvider.System);
            if (settings.Certificate is { } certificate)
            {
                client.UseClusterTls(certificate);
            }

            if (settings.ConnectionString is { } connectionString)
            {
                client.UseAdoNetClustering(o => (o.Invariant, o.ConnectionString) = (SiloHosting.AdoNetInvariant, connectionString));
                client.Configure<GatewayOptions>(o => o.GatewayListRefreshPeriod = TimeSpan.FromSeconds(5));
            }
            else
            {
                client.UseLocalhostClustering(settings.GatewayPort, settings.ServiceId, settings.ClusterId);
            }
        });
        return builder;
    }
}

internal static class StoreExceptionSerialization
{
    /// <summary>
    /// Lets a database failure inside a grain (a partition reading its rows) reach its caller as
    /// itself — message, inner exception and whether it is transient — instead of as a codec error
    /// (Orleans serializes only exceptions of the Microsoft, System and Azure namespaces by default).
    /// </summary>
    public static IServiceCollection SerializeStoreExceptions(this IServiceCollection services) =>
        services.Configure<ExceptionSerializationOptions>(o => o.SupportedNamespacePrefixes.Add("Npgsql"));
}

/// <summary>Applies the Orleans tables and stored queries before the silo joins.</summary>
internal sealed class OrleansSchemaInitializer(string connectionString) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken) => OrleansSchema.ApplyAsync(connectionString, cancellationToken);

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
