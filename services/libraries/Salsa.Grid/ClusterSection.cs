using System.ComponentModel.DataAnnotations;

namespace Salsa.Grid;

/// <summary>
/// The <c>Cluster</c> section as it is written — the Orleans cluster a process joins and how its
/// silo listens (docs/grid.md, "Running it") — bound by the configuration binder and checked before
/// a silo or client is built (<see cref="SiloHosting.ReadSettings"/>). A bad value refuses the start
/// naming its key.
/// </summary>
public sealed class ClusterSection
{
    /// <summary>Silos with the same id form one cluster.</summary>
    [Required(AllowEmptyStrings = false)]
    public string Id { get; set; } = "salsa";

    [Required(AllowEmptyStrings = false)]
    public string ServiceId { get; set; } = "salsa";

    /// <summary>PostgreSQL for membership; without it (nor <c>ConnectionStrings:salsa</c>) a single silo on localhost clustering.</summary>
    public string? ConnectionString { get; set; }

    /// <summary>The address other silos reach this one at: an IP address, a host name or <c>auto</c> (<see cref="SiloHosting.ResolveAddress"/>).</summary>
    public string? Address { get; set; }

    [Range(1, 65_535)]
    public int SiloPort { get; set; } = 11111;

    [Range(1, 65_535)]
    public int GatewayPort { get; set; } = 30000;

    /// <summary>The cores a partition's pass runs on.</summary>
    [Range(1, 4_096)]
    public int Ranks { get; set; } = Environment.ProcessorCount;

    /// <summary>How often a running job's state is written, at most.</summary>
    [Range(0, 86_400)]
    public double CheckpointSeconds { get; set; } = 2;

    /// <summary>The period of the reminder that brings a job back when its coordinator's silo is lost.</summary>
    [Range(1, 86_400)]
    public double ResumeCheckSeconds { get; set; } = 60;

    /// <summary>The least time between two views a job's watcher is sent for progress alone.</summary>
    [Range(0, 60_000)]
    public double WatchIntervalMilliseconds { get; set; } = 50;

    /// <summary>How long a partition is asked again while the cluster replaces a lost silo.</summary>
    [Range(0.1, 86_400)]
    public double PartitionRetrySeconds { get; set; } = 120;

    /// <summary>Two of these missed in a row make the other silos vote a silo dead.</summary>
    [Range(0.1, 3_600)]
    public double ProbeTimeoutSeconds { get; set; } = 2;

    /// <summary>How long the grains of a lost silo wait before they activate elsewhere.</summary>
    [Range(0, 3_600)]
    public double DirectoryLeaseSeconds { get; set; } = 10;

    /// <summary>A span per grain call besides the jobs' own spans (thousands per second).</summary>
    public bool TraceGrainCalls { get; set; }

    public ClusterTlsSection Tls { get; set; } = new();

    /// <summary>Every failure of the section's annotations, named by its key (<c>Cluster:SiloPort: …</c>).</summary>
    public IReadOnlyList<string> Check()
    {
        var results = new List<ValidationResult>();
        Validator.TryValidateObject(this, new ValidationContext(this), results, validateAllProperties: true);
        return [.. results.Select(r => $"{SiloHosting.Section}:{string.Join(",", r.MemberNames)}: {r.ErrorMessage}")];
    }
}

/// <summary><c>Cluster:Tls</c>: the cluster certificate's file (PEM or PKCS#12) and its password, if it has one.</summary>
public sealed class ClusterTlsSection
{
    public string? Certificate { get; set; }

    public string? Password { get; set; }
}
