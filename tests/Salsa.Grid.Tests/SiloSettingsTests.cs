using System.Net;
using System.Security.Cryptography.X509Certificates;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Hosting;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// How a silo reads the address it advertises (literal, a host name, or its own: a scaled
/// container's) and the cluster certificate, and refuses to listen beyond loopback without one.
/// </summary>
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

    [Fact]
    public void ReadSettings_ClusterCertificate_FromPemOrPkcs12()
    {
        using var directory = new TemporaryDirectory();
        var certificate = ClusterCertificates.Create();
        var pem = directory.Combine("cluster.pem");
        ClusterCertificates.WritePem(certificate, pem);
        var pfx = directory.Combine("cluster.pfx");
        File.WriteAllBytes(pfx, certificate.Export(X509ContentType.Pkcs12, "a password"));

        Assert.Null(Read([]).Certificate);
        foreach (var read in new[] { Read([("Tls:Certificate", pem)]), Read([("Tls:Certificate", pfx), ("Tls:Password", "a password")]) })
        {
            Assert.NotNull(read.Certificate);
            Assert.True(read.Certificate.HasPrivateKey);
            Assert.True(ClusterTls.IsClusterCertificate(read.Certificate, certificate));
        }
    }

    [Fact]
    public void ReadSettings_UnusableCertificate_RefusedSayingWhy()
    {
        using var directory = new TemporaryDirectory();
        var certificate = ClusterCertificates.Create();
        var pfx = directory.Combine("cluster.pfx");
        File.WriteAllBytes(pfx, certificate.Export(X509ContentType.Pkcs12, "a password"));
        var publicOnly = directory.Combine("public.pem");
        File.WriteAllText(publicOnly, certificate.ExportCertificatePem());
        var expired = directory.Combine("expired.pem");
        ClusterCertificates.WritePem(ClusterCertificates.Create(notBefore: DateTimeOffset.UtcNow.AddDays(-10), notAfter: DateTimeOffset.UtcNow.AddDays(-1)), expired);
        var serverOnly = directory.Combine("server-only.pem");
        ClusterCertificates.WritePem(ClusterCertificates.Create(serverOnly: true), serverOnly);

        Assert.Contains("does not exist", Refusal([("Tls:Certificate", directory.Combine("missing.pem"))]), StringComparison.Ordinal);
        Assert.Contains("could not be read", Refusal([("Tls:Certificate", pfx), ("Tls:Password", "not the password")]), StringComparison.Ordinal);
        Assert.Contains("no private key", Refusal([("Tls:Certificate", publicOnly)]), StringComparison.Ordinal);
        Assert.Contains("not now", Refusal([("Tls:Certificate", expired)]), StringComparison.Ordinal);
        Assert.Contains("client authentication", Refusal([("Tls:Certificate", serverOnly)]), StringComparison.Ordinal);
        // The refusal names the file, never the password.
        Assert.DoesNotContain("not the password", Refusal([("Tls:Certificate", pfx), ("Tls:Password", "not the password")]), StringComparison.Ordinal);
    }

    [Fact]
    public void Silo_BeyondLoopbackWithoutTheClusterCertificate_Refused()
    {
        var settings = new SiloSettings { ConnectionString = "Host=10.1.2.3;Database=salsa", Address = IPAddress.Parse("10.1.2.3") };

        var refusal = Assert.Throws<InvalidOperationException>(() => Host.CreateApplicationBuilder().AddSalsaSilo(settings));

        Assert.Contains("Cluster:Tls:Certificate", refusal.Message, StringComparison.Ordinal);
        // With it, the same silo is configured (starting it needs the database).
        Host.CreateApplicationBuilder().AddSalsaSilo(settings with { Certificate = ClusterCertificates.Create() });
    }

    private static SiloSettings Read(IEnumerable<(string Key, string Value)> settings) =>
        SiloHosting.ReadSettings(new ConfigurationBuilder()
            .AddInMemoryCollection(settings.Select(s => KeyValuePair.Create<string, string?>($"{SiloHosting.Section}:{s.Key}", s.Value)))
            .Build());

    private static string Refusal(IEnumerable<(string Key, string Value)> settings) =>
        Assert.Throws<ArgumentException>(() => Read(settings)).Message;
}
