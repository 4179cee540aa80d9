using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text;
using Orleans.Connections.Security;

namespace Salsa.Grid;

/// <summary>
/// Mutual TLS between the machines of the cluster (Orleans' <c>Microsoft.Orleans.Connections.Security</c>):
/// every silo and every cluster client holds the one cluster certificate and its key, shows it on
/// every connection — silo to silo, client to a silo's gateway — and accepts only a peer showing the
/// very same certificate. A process without it (or with a look-alike: same name, another key) can
/// neither join the cluster nor call a grain.
/// </summary>
public static class ClusterTls
{
    private const string ServerAuthentication = "1.3.6.1.5.5.7.3.1";
    private const string ClientAuthentication = "1.3.6.1.5.5.7.3.2";

    /// <summary>
    /// The cluster certificate from <paramref name="path"/>: a PEM file holding the certificate and
    /// its private key (encrypted with <paramref name="password"/> when given), or a PKCS#12 file
    /// (<c>.pfx</c>, <c>.p12</c>). Refused with a message that says why: no such file, unreadable, no
    /// private key, outside its validity, or not usable for both ends of a connection.
    /// </summary>
    public static X509Certificate2 Load(string path, string? password = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        if (!File.Exists(path))
        {
            throw new ArgumentException($"Cluster:Tls:Certificate '{path}' does not exist.", nameof(path));
        }

        var pem = IsPem(path);
        if (pem && !File.ReadAllText(path).Contains("PRIVATE KEY-----", StringComparison.Ordinal))
        {
            throw new ArgumentException($"Cluster:Tls:Certificate '{path}' has no private key: the file must hold the key too.", nameof(path));
        }

        X509Certificate2 certificate;
        try
        {
            certificate = pem
                ? string.IsNullOrEmpty(password) ? X509Certificate2.CreateFromPemFile(path) : X509Certificate2.CreateFromEncryptedPemFile(path, password)
                : X509CertificateLoader.LoadPkcs12FromFile(path, password);
        }
        catch (CryptographicException e)
        {
            throw new ArgumentException(
                $"Cluster:Tls:Certificate '{path}' could not be read ({e.Message}): give a PEM file with the certificate and its private key, or a PKCS#12 file (and Cluster:Tls:Password if it is encrypted).",
                nameof(path),
                e);
        }

        return Check(certificate, path);
    }

    /// <summary>The checks of <see cref="Load"/>, for a certificate made in memory.</summary>
    public static X509Certificate2 Check(X509Certificate2 certificate, string name = "the cluster certificate")
    {
        ArgumentNullException.ThrowIfNull(certificate);
        if (!certificate.HasPrivateKey)
        {
            throw new ArgumentException($"Cluster:Tls:Certificate '{name}' has no private key: the file must hold the key too.", nameof(certificate));
        }

        var now = DateTime.Now;
        if (now < certificate.NotBefore || now > certificate.NotAfter)
        {
            throw new ArgumentException($"Cluster:Tls:Certificate '{name}' is valid from {certificate.NotBefore:u} to {certificate.NotAfter:u}, not now.", nameof(certificate));
        }

        if (certificate.Extensions.OfType<X509EnhancedKeyUsageExtension>().FirstOrDefault() is { } usages)
        {
            var oids = usages.EnhancedKeyUsages.Cast<Oid>().Select(o => o.Value).ToHashSet();
            if (!oids.Contains(ServerAuthentication) || !oids.Contains(ClientAuthentication))
            {
                throw new ArgumentException($"Cluster:Tls:Certificate '{name}' limits its use without allowing both server and client authentication: every machine of the cluster is both.", nameof(certificate));
            }
        }

        return certificate;
    }

    /// <summary>Silo to silo and client to silo over mutual TLS with <paramref name="certificate"/>.</summary>
    public static ISiloBuilder UseClusterTls(this ISiloBuilder silo, X509Certificate2 certificate) =>
        silo.UseTls(certificate, options => Configure(options, certificate));

    /// <summary>This client to the silos' gateways over mutual TLS with <paramref name="certificate"/>.</summary>
    public static IClientBuilder UseClusterTls(this IClientBuilder client, X509Certificate2 certificate) =>
        client.UseTls(certificate, options => Configure(options, certificate));

    /// <summary>Whether <paramref name="remote"/> is the cluster's own certificate (its bytes, so its public key too).</summary>
    public static bool IsClusterCertificate(X509Certificate2 remote, X509Certificate2 cluster) =>
        remote.RawData.AsSpan().SequenceEqual(cluster.RawData);

    private static void Configure(TlsOptions options, X509Certificate2 certificate)
    {
        options.LocalCertificate = certificate;
        // Both ends show the certificate: a silo asks its callers for theirs, a caller presents it.
        options.RemoteCertificateMode = RemoteCertificateMode.RequireCertificate;
        options.ClientCertificateMode = RemoteCertificateMode.RequireCertificate;
        // Pinned, not chained: the cluster is exactly the holders of this key. Name and chain (a
        // self-signed certificate has none) say nothing more about a peer than that.
        options.RemoteCertificateValidation = (remote, _, _) => IsClusterCertificate(remote, certificate);
        options.OnAuthenticateAsClient = (_, ssl) => ssl.TargetHost = certificate.GetNameInfo(X509NameType.SimpleName, forIssuer: false);
    }

    private static bool IsPem(string path)
    {
        Span<byte> start = stackalloc byte[64];
        using var file = File.OpenRead(path);
        var read = file.ReadAtLeast(start, start.Length, throwOnEndOfStream: false);
        return Encoding.ASCII.GetString(start[..read]).Contains("-----BEGIN", StringComparison.Ordinal);
    }
}
