using System.Globalization;
using Salsa.Contracts.Clients;
using Salsa.Hosting.Host;

namespace Salsa.Gateway.Services;

/// <summary>
/// Where the embedded default listens when its ports are pinned (<see cref="Key"/>, or the
/// <c>run</c> command's <c>--ports</c>): one block of consecutive loopback ports from the first, in a
/// fixed order — the gateway's REST and gRPC, the silo's and its gateway's, then REST and gRPC of
/// each embedded service in <see cref="ServiceNames.All"/>'s order — instead of free ports drawn
/// at random, so two users of one host, or a firewall, can plan for them.
/// </summary>
public sealed record PinnedPorts(int First)
{
    public const string Key = "Gateway:Ports:First";

    /// <summary>How many ports the block holds.</summary>
    public static int Count => 4 + (2 * ServiceNames.All.Count);

    public ServicePorts Gateway => new(First, First + 1);

    public int Silo => First + 2;

    public int SiloGateway => First + 3;

    /// <summary>The REST and gRPC ports of the embedded service <paramref name="name"/>.</summary>
    public ServicePorts Service(string name)
    {
        var index = ServiceNames.All.ToList().IndexOf(name);
        return index >= 0 ? new(First + 4 + (2 * index), First + 5 + (2 * index)) : throw new ArgumentException($"Unknown service '{name}'.", nameof(name));
    }

    /// <summary>Every port of the block and what listens on it, for the documentation and for errors.</summary>
    public IEnumerable<(int Port, string Use)> Uses()
    {
        yield return (Gateway.Rest, "the gateway's REST");
        yield return (Gateway.Grpc, "the gateway's gRPC");
        yield return (Silo, "the silo");
        yield return (SiloGateway, "the silo's client gateway");
        foreach (var name in ServiceNames.All)
        {
            var ports = Service(name);
            yield return (ports.Rest, $"the {name} service's REST");
            yield return (ports.Grpc, $"the {name} service's gRPC");
        }
    }

    /// <summary>The pinned block the gateway's settings name, or null when ports are drawn at random.</summary>
    public static PinnedPorts? From(GatewayOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return options.Ports.First is { } first ? new PinnedPorts(first) : null;
    }

    /// <summary>What a port of the block is for, in an error about it.</summary>
    public string Describe(int port) =>
        Uses().FirstOrDefault(u => u.Port == port) is { Use: { } use } ? string.Create(CultureInfo.InvariantCulture, $"port {port} ({use}, {Key} {First})") : port.ToString(CultureInfo.InvariantCulture);
}
