using System.Net;
using System.Security.Cryptography.X509Certificates;
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

    /// <summary>How long a stopping silo waits at most for running jobs to move its partitions to the other silos (<see cref="Partitions.SiloLeaving"/>).</summary>
    public TimeSpan LeaveTimeout { get; init; } = TimeSpan.FromSeconds(30);

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
