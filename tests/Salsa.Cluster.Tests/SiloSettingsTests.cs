using System.Net;

namespace Salsa.Cluster.Tests;

/// <summary>How a silo reads the address it advertises: literal, a host name, or its own (a scaled container's).</summary>
public sealed class SiloSettingsTests
{
    [Theory]
    [InlineData("10.1.2.3", "10.1.2.3")]
    [InlineData("127.0.0.1", "127.0.0.1")]
    [InlineData("localhost", "127.0.0.1")]
    public void ResolveAddress_LiteralOrHostName_TheIPv4Address(string address, string expected) =>
        Assert.Equal(IPAddress.Parse(expected), SiloHosting.ResolveAddress(address));

    [Fact]
    public void ResolveAddress_Auto_IsAnAddressOfThisHost()
    {
        var own = Dns.GetHostAddresses(Dns.GetHostName());

        var resolved = SiloHosting.ResolveAddress("auto");

        Assert.Equal(System.Net.Sockets.AddressFamily.InterNetwork, resolved.AddressFamily);
        Assert.Contains(resolved, own);
    }

    [Fact]
    public void ResolveAddress_UnknownHost_Throws() =>
        Assert.ThrowsAny<Exception>(() => SiloHosting.ResolveAddress("no-such-host.invalid"));
}
