namespace Salsa.Contracts.Clients;

/// <summary>
/// The services by name: the configuration key of each (<c>Services:&lt;name&gt;</c>), its job records'
/// service, its telemetry name, and what a workflow step names. A caller reaches a service by these.
/// </summary>
public static class ServiceNames
{
    public const string Annealing = "annealing";

    public const string KMeans = "kmeans";

    public const string Fingerprints = "fingerprints";

    public const string Mds = "mds";

    public const string Census = "census";

    public const string Chem = "chem";

    public const string Render = "render";

    /// <summary>Every service a workflow can call, in a fixed order (the embedded default's pinned ports follow it).</summary>
    public static IReadOnlyList<string> All { get; } = [Census, Chem, Annealing, KMeans, Fingerprints, Mds, Render];
}
