using Salsa.Settings;

namespace Salsa.Hosting.Security;

/// <summary>Where the server is configured to listen, and <see cref="Exposure.Key"/>: bound from those keys (<see cref="Exposure"/>).</summary>
public sealed class ExposureOptions
{
    /// <summary><c>Salsa:Exposed</c>: treat the process as reachable from other machines whatever its endpoints.</summary>
    [ConfigurationPath(Exposure.Key)]
    public bool Exposed { get; set; }

    /// <summary><c>Kestrel:Endpoints</c>, by name.</summary>
    [ConfigurationPath("Kestrel:Endpoints")]
    public Dictionary<string, KestrelEndpoint> Endpoints { get; set; } = [];

    /// <summary><c>urls</c>: semicolon-separated listen URLs.</summary>
    [ConfigurationPath("urls")]
    public string? Urls { get; set; }

    [ConfigurationPath("http_ports")]
    public string? HttpPorts { get; set; }

    [ConfigurationPath("https_ports")]
    public string? HttpsPorts { get; set; }
}
