using System.Globalization;
using System.Net;

namespace Salsa.Testing;

/// <summary>
/// Hosts of their own on this machine: network namespaces, each with one end of a veth pair whose
/// other end is on a bridge in the root namespace, all on one /24 (the bridge is .1, host i is
/// .i+1). Made by the test with iproute2 (root needed) and removed when disposed.
/// </summary>
public sealed class TestNetwork : IAsyncDisposable
{
    private readonly string _id = Convert.ToHexString(BitConverter.GetBytes(Random.Shared.Next())).ToLowerInvariant()[..6];
    private readonly List<string> _namespaces = [];
    private readonly int _subnet = Random.Shared.Next(1, 250);

    private TestNetwork()
    {
    }

    /// <summary>The root namespace's address on the network (where a server all hosts reach listens).</summary>
    public IPAddress Bridge => IPAddress.Parse(string.Create(CultureInfo.InvariantCulture, $"10.77.{_subnet}.1"));

    /// <summary>The namespaces, and each one's address.</summary>
    public IReadOnlyList<(string Namespace, IPAddress Address)> Hosts =>
        [.. _namespaces.Select((n, i) => (n, IPAddress.Parse(string.Create(CultureInfo.InvariantCulture, $"10.77.{_subnet}.{i + 2}"))))];

    private string BridgeName => $"brs{_id}";

    public static async Task<TestNetwork> CreateAsync(int hosts, CancellationToken cancellationToken)
    {
        var network = new TestNetwork();
        try
        {
            await IpAsync(cancellationToken, "link", "add", network.BridgeName, "type", "bridge");
            await IpAsync(cancellationToken, "addr", "add", $"{network.Bridge}/24", "dev", network.BridgeName);
            await IpAsync(cancellationToken, "link", "set", network.BridgeName, "up");
            for (var i = 0; i < hosts; i++)
            {
                var (name, outside, inside) = ($"salsa-{network._id}-{i}", $"vh{network._id}{i}", $"vn{network._id}{i}");
                await IpAsync(cancellationToken, "netns", "add", name);
                network._namespaces.Add(name);
                await IpAsync(cancellationToken, "link", "add", outside, "type", "veth", "peer", "name", inside);
                await IpAsync(cancellationToken, "link", "set", inside, "netns", name);
                await IpAsync(cancellationToken, "link", "set", outside, "master", network.BridgeName);
                await IpAsync(cancellationToken, "link", "set", outside, "up");
                await IpAsync(cancellationToken, "netns", "exec", name, "ip", "addr", "add", $"{network.Hosts[i].Address}/24", "dev", inside);
                await IpAsync(cancellationToken, "netns", "exec", name, "ip", "link", "set", inside, "up");
                await IpAsync(cancellationToken, "netns", "exec", name, "ip", "link", "set", "lo", "up");
            }

            return network;
        }
        catch
        {
            await network.DisposeAsync();
            throw;
        }
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var name in _namespaces)
        {
            await ExternalProgram.RunAsync("ip", "/", ["netns", "delete", name], CancellationToken.None);
        }

        await ExternalProgram.RunAsync("ip", "/", ["link", "delete", BridgeName], CancellationToken.None);
    }

    private static async Task IpAsync(CancellationToken cancellationToken, params string[] arguments)
    {
        var (exitCode, _, error) = await ExternalProgram.RunAsync("ip", "/", arguments, cancellationToken);
        if (exitCode != 0)
        {
            throw new InvalidOperationException($"ip {string.Join(' ', arguments)} failed ({exitCode}): {error.Trim()} — network namespaces need root and iproute2.");
        }
    }
}
