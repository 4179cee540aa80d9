using System.Net;
using System.Net.Sockets;

namespace Salsa.Hosting.Datasets;

/// <summary>
/// The addresses a service may fetch a user's URL from: the public internet, and the networks an
/// operator lists. Never, unless listed: this machine (loopback), link-local (cloud metadata at
/// 169.254.169.254), private and shared networks, multicast, and the reserved and documentation
/// ranges — the addresses a caller could use to reach what stands behind the service.
/// </summary>
internal sealed class OutboundAddresses
{
    private static readonly IPNetwork[] NotPublic = [.. new[]
    {
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
        "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "ff00::/8",
    }.Select(IPNetwork.Parse)];

    private readonly IPNetwork[] _allowed;

    public OutboundAddresses(IEnumerable<string> allowedNetworks)
    {
        ArgumentNullException.ThrowIfNull(allowedNetworks);
        _allowed = [.. allowedNetworks.Select(n => IPNetwork.TryParse(n, out var network) ? network
            : throw new ArgumentException($"{UserFileOptions.Section}:AllowedNetworks holds '{n}', not a network in CIDR notation (10.20.0.0/16, 127.0.0.1/32, fd00::/8)."))];
    }

    public bool Allows(IPAddress address)
    {
        ArgumentNullException.ThrowIfNull(address);
        if (address.IsIPv4MappedToIPv6)
        {
            address = address.MapToIPv4();
        }

        return _allowed.Any(n => n.Contains(address))
            || (address.AddressFamily is AddressFamily.InterNetwork or AddressFamily.InterNetworkV6 && !NotPublic.Any(n => n.Contains(address)));
    }
}
