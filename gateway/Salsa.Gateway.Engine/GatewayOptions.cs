using System.ComponentModel.DataAnnotations;
using Salsa.Contracts.Clients;
using Salsa.Gateway.Services;

namespace Salsa.Gateway;

/// <summary>
/// The gateway's own settings, the <c>Gateway</c> section (gateway/Salsa.Gateway/README.md,
/// "Settings"): which services are remote, the embedded default's ports and log, the workflows
/// folder, the console's links. Its limits are <see cref="Workflows.WorkflowLimits"/> and
/// <see cref="Runs.RunLimits"/>.
/// </summary>
public sealed class GatewayOptions : IValidatableObject
{
    public const string Section = "Gateway";

    /// <summary>
    /// <c>Gateway:Services:&lt;name&gt;</c>: the gRPC address of a service the gateway calls there
    /// (<c>http://annealing:5102</c> in compose); any service not named is embedded.
    /// </summary>
    public Dictionary<string, string> Services { get; set; } = new(StringComparer.Ordinal);

    /// <summary><c>Gateway:Ports:First</c>: where the embedded default's block of ports begins (<see cref="PinnedPorts"/>); unset, free ports drawn at random.</summary>
    public GatewayPortOptions Ports { get; set; } = new();

    /// <summary>The server starts (or connects to) every service at once instead of at the first run's call.</summary>
    public bool WarmStart { get; set; } = true;

    /// <summary>The least level of the embedded services' log.</summary>
    public LogLevel EmbeddedLogLevel { get; set; } = LogLevel.Warning;

    /// <summary>The workflows folder; unset, the first <c>workflows/</c> found from the current directory or the program's folder upwards.</summary>
    public string? WorkflowsDirectory { get; set; }

    public GatewayConsoleOptions Console { get; set; } = new();

    /// <summary>The configured gRPC address of a service, or null for the embedded default.</summary>
    public Uri? RemoteAddress(string service) =>
        Services.TryGetValue(service, out var address) && address is { Length: > 0 } ? new Uri(address) : null;

    public IEnumerable<ValidationResult> Validate(ValidationContext validationContext)
    {
        foreach (var (name, address) in Services)
        {
            if (!ServiceNames.All.Contains(name))
            {
                yield return new ValidationResult($"names no service (known: {string.Join(", ", ServiceNames.All)}).", [$"{nameof(Services)}:{name}"]);
            }
            else if (address is { Length: > 0 } && !(Uri.TryCreate(address, UriKind.Absolute, out var uri) && uri.Scheme is "http" or "https"))
            {
                yield return new ValidationResult($"is '{address}'; it must be an http or https address (http://host:port).", [$"{nameof(Services)}:{name}"]);
            }
        }

        if (Ports.First is { } first && (first < 1024 || first + PinnedPorts.Count - 1 > 65535))
        {
            yield return new ValidationResult($"is {first}: the first of {PinnedPorts.Count} consecutive ports, 1024 to {65536 - PinnedPorts.Count}.", [$"{nameof(Ports)}:{nameof(GatewayPortOptions.First)}"]);
        }
    }
}
