namespace Salsa.Gateway.Services;

/// <summary>
/// The services this process can host for the run engine when they are not addressed
/// (<c>Gateway:Services:&lt;name&gt;</c>), given by the host that references them (the gateway's
/// <c>HostedServices</c>); the engine itself knows no service's code.
/// </summary>
public sealed class EmbeddedServices(IEnumerable<ServiceModule> modules)
{
    private readonly Dictionary<string, ServiceModule> _modules = modules.ToDictionary(m => m.Name, StringComparer.Ordinal);

    /// <summary>None: every service must be addressed.</summary>
    public static EmbeddedServices None { get; } = new([]);

    /// <summary>The module of <paramref name="service"/>, or null when this process cannot host it.</summary>
    public ServiceModule? Find(string service) => _modules.GetValueOrDefault(service);
}
