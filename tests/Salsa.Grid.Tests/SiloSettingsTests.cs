using System.Net;
using System.Security.Cryptography.X509Certificates;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Hosting;
using Salsa.Settings;
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

    /// <summary>A silo as an operator starts it: <c>--version</c> prints the release and exits 0, before it looks for a store or a port.</summary>
    [Fact]
    public async Task Version_TheSiloProcess_PrintsTheRelease()
    {
        var (code, printed) = await Release.PrintedByAsync("Salsa.Silo.dll", TestContext.Current.CancellationToken);

        Assert.Equal(0, code);
        Assert.Equal(Salsa.Hosting.SalsaVersion.Informational, printed);
        Assert.StartsWith(Release.Version, printed, StringComparison.Ordinal);
    }

    [Fact]
    public void Settings_ClusterCertificate_FromPemOrPkcs12()
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
    public void Settings_UnusableCertificate_RefusedSayingWhy()
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

    [Theory]
    [InlineData("SiloPort", "0")]
    [InlineData("GatewayPort", "70000")]
    [InlineData("Ranks", "0")]
    [InlineData("ProbeTimeout", "-00:00:01")]
    [InlineData("ResumeCheck", "00:00:00")]
    [InlineData("Id", "")]
    public void Settings_BadValue_RefusedNamingItsKey(string key, string value)
    {
        var refused = Assert.Throws<Microsoft.Extensions.Options.OptionsValidationException>(() => Read([(key, value)]));

        Assert.Contains($"{SiloHosting.Section}:{key}", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Settings_ValueOfTheWrongType_RefusedNamingItsKey()
    {
        var refused = Assert.Throws<InvalidOperationException>(() => Read([("SiloPort", "eleven")]));

        Assert.Contains($"{SiloHosting.Section}:SiloPort", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Settings_TheSectionAsWritten_EveryKeyTaken()
    {
        var read = Read([("Id", "blue"), ("ServiceId", "svc"), ("Address", "10.1.2.3"), ("SiloPort", "12000"), ("GatewayPort", "31000"), ("Ranks", "3"),
            ("CheckpointInterval", "00:00:00.5"), ("ResumeCheck", "00:00:30"), ("PartitionRetry", "00:00:09"), ("ProbeTimeout", "00:00:01.5"), ("DirectoryLease", "00:00:04"),
            ("LeaveTimeout", "00:00:12"), ("TraceGrainCalls", "true"), ("ConnectionString", "Host=db")]);
        var defaults = Read([]);

        Assert.Equal(("blue", "svc", IPAddress.Parse("10.1.2.3"), 12000, 31000, 3), (read.ClusterId, read.ServiceId, read.Address, read.SiloPort, read.GatewayPort, read.Ranks));
        Assert.Equal((TimeSpan.FromSeconds(0.5), TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(9)), (read.Jobs.CheckpointInterval, read.Jobs.ResumeCheck, read.Jobs.PartitionRetry));
        Assert.Equal((TimeSpan.FromSeconds(1.5), TimeSpan.FromSeconds(4), TimeSpan.FromSeconds(12), true, "Host=db"), (read.ProbeTimeout, read.DirectoryLease, read.LeaveTimeout, read.TraceGrainCalls, read.ConnectionString));
        // Unwritten keys take the documented defaults (those of SiloSettings).
        var expected = new SiloSettings();
        Assert.Equal((expected.ClusterId, expected.Address, expected.SiloPort, expected.GatewayPort, expected.ProbeTimeout, expected.DirectoryLease, expected.LeaveTimeout, expected.Jobs),
            (defaults.ClusterId, defaults.Address, defaults.SiloPort, defaults.GatewayPort, defaults.ProbeTimeout, defaults.DirectoryLease, defaults.LeaveTimeout, defaults.Jobs));
    }

    [Fact]
    public async Task SiloProcess_BadSetting_RefusesInOneLineAndExits1()
    {
        var (exitCode, output, error) = await ExternalProgram.RunAsync("dotnet", AppContext.BaseDirectory,
            [Path.Combine(AppContext.BaseDirectory, "Salsa.Silo.dll"), "--Cluster:Ranks=0", "--Kestrel:Endpoints:Rest:Url=http://127.0.0.1:0"], TestContext.Current.CancellationToken);

        Assert.True(exitCode == 1, $"exit {exitCode}: {output}{error}");
        var line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("silo did not start: ", line, StringComparison.Ordinal);
        Assert.Contains("Cluster:Ranks", line, StringComparison.Ordinal);
    }

    private static SiloSettings Read(IEnumerable<(string Key, string Value)> settings) =>
        SiloHosting.Settings(SalsaOptions.Read<GridOptions>(new ConfigurationBuilder()
            .AddInMemoryCollection(settings.Select(s => KeyValuePair.Create<string, string?>($"{SiloHosting.Section}:{s.Key}", s.Value)))
            .Build(), SiloHosting.Section));

    private static string Refusal(IEnumerable<(string Key, string Value)> settings) =>
        Assert.Throws<ArgumentException>(() => Read(settings)).Message;
}
