using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using Orleans.Serialization;
using Salsa.Grid.Compute;
using Salsa.Grid.Jobs;

namespace Salsa.Grid;

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
            LeaveTimeout = options.LeaveTimeout,
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

        // A stop first hands the silo's partitions over (SiloLeaving, up to LeaveTimeout), then
        // Orleans' own graceful shutdown runs: the host must wait for both.
        builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromTicks(Math.Max(o.ShutdownTimeout.Ticks, (settings.LeaveTimeout + TimeSpan.FromSeconds(30)).Ticks)));

        builder.UseOrleans(silo =>
        {
            silo.Services.AddPlacementDirector<Partitions.PartitionPlacement, Partitions.PartitionPlacementDirector>();
            silo.Services.AddPlacementDirector<Partitions.SiloPinnedPlacement, Partitions.SiloPinnedPlacementDirector>();
            silo.Services.AddSingleton<Partitions.SiloPartitions>();
            silo.Services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(services => new Partitions.SiloLeaving(
                services.GetRequiredService<Partitions.SiloPartitions>(), services.GetRequiredService<IClusterMembershipService>(), services.GetRequiredService<ILocalSiloDetails>(),
                services.GetRequiredService<ILogger<Partitions.SiloLeaving>>(), settings.LeaveTimeout));
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
