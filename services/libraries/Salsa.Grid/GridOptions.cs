using System.ComponentModel.DataAnnotations;
using Salsa.Settings;

namespace Salsa.Grid;

/// <summary>What a process is to the grid: a silo that computes, or a client that sends the grid its jobs.</summary>
public enum GridRole
{
    Silo,
    Client,
}

/// <summary>
/// The <c>Cluster</c> section as it is written — the Orleans cluster (the grid) a process joins and
/// how its silo listens (docs/grid.md, "Running it") — bound once when the process registers its
/// services (<see cref="SalsaOptions.BindSalsaOptions"/>) and injected where used. A bad value
/// refuses the start naming its key. Durations are written as <c>hh:mm:ss</c> (<c>00:00:02</c>).
/// </summary>
public sealed class GridOptions
{
    /// <summary>Whether this service computes its jobs on the grid.</summary>
    public bool Enabled { get; set; }

    /// <summary>A silo (the default) or a client of the grid's silos.</summary>
    public GridRole Role { get; set; } = GridRole.Silo;

    /// <summary>Silos with the same id form one cluster.</summary>
    [Required(AllowEmptyStrings = false)]
    public string Id { get; set; } = "salsa";

    [Required(AllowEmptyStrings = false)]
    public string ServiceId { get; set; } = "salsa";

    /// <summary>PostgreSQL for membership; without it (nor <c>ConnectionStrings:salsa</c>) a single silo on localhost clustering.</summary>
    public string? ConnectionString { get; set; }

    /// <summary>The store's PostgreSQL (<c>ConnectionStrings:salsa</c>), membership's when <see cref="ConnectionString"/> is not set.</summary>
    [ConfigurationPath("ConnectionStrings:salsa")]
    public string? StoreConnectionString { get; set; }

    /// <summary>The address other silos reach this one at: an IP address, a host name or <c>auto</c> (<see cref="SiloHosting.ResolveAddress"/>).</summary>
    public string? Address { get; set; }

    /// <summary>The silo-to-silo port; not set, 11111 — or, for a single localhost silo, a free one.</summary>
    [Range(1, 65_535)]
    public int? SiloPort { get; set; }

    /// <summary>The port clients reach a silo at (Orleans' client gateway).</summary>
    [Range(1, 65_535)]
    public int GatewayPort { get; set; } = 30000;

    /// <summary>The cores a partition's pass runs on.</summary>
    [Range(1, 4_096)]
    public int Ranks { get; set; } = Environment.ProcessorCount;

    /// <summary>How often a running job's state is written, at most.</summary>
    [Range(typeof(TimeSpan), "00:00:00", "1.00:00:00")]
    public TimeSpan CheckpointInterval { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>The period of the reminder that brings a job back when its coordinator's silo is lost.</summary>
    [Range(typeof(TimeSpan), "00:00:01", "1.00:00:00")]
    public TimeSpan ResumeCheck { get; set; } = TimeSpan.FromSeconds(60);

    /// <summary>The least time between two views a job's watcher is sent for progress alone.</summary>
    [Range(typeof(TimeSpan), "00:00:00", "00:01:00")]
    public TimeSpan WatchInterval { get; set; } = TimeSpan.FromMilliseconds(50);

    /// <summary>How long a partition is asked again while the cluster replaces a lost silo.</summary>
    [Range(typeof(TimeSpan), "00:00:00.1", "1.00:00:00")]
    public TimeSpan PartitionRetry { get; set; } = TimeSpan.FromSeconds(120);

    /// <summary>How long a stopping silo waits at most for running jobs to move its partitions to the other silos.</summary>
    [Range(typeof(TimeSpan), "00:00:00", "01:00:00")]
    public TimeSpan LeaveTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Two of these missed in a row make the other silos vote a silo dead.</summary>
    [Range(typeof(TimeSpan), "00:00:00.1", "01:00:00")]
    public TimeSpan ProbeTimeout { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>How long the grains of a lost silo wait before they activate elsewhere.</summary>
    [Range(typeof(TimeSpan), "00:00:00", "01:00:00")]
    public TimeSpan DirectoryLease { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>A span per grain call besides the jobs' own spans (thousands per second).</summary>
    public bool TraceGrainCalls { get; set; }

    public GridTlsOptions Tls { get; set; } = new();

    /// <summary>A copy, for a process that hosts others (the gateway's services are its clients).</summary>
    public GridOptions Copy() => (GridOptions)MemberwiseClone();
}
