using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Salsa.Testing;

/// <summary>Self-signed cluster certificates (ECDSA P-256), as <c>openssl req -x509</c> would make them.</summary>
public static class ClusterCertificates
{
    private static readonly Lazy<(X509Certificate2 Certificate, string Path)> s_shared = new(() =>
    {
        var certificate = Create();
        var path = Path.Combine(Directory.CreateTempSubdirectory("salsa-cluster-tls-").FullName, "cluster.pem");
        WritePem(certificate, path);
        return (certificate, path);
    });

    /// <summary>One certificate for this test process, and the PEM file (certificate and key) that holds it.</summary>
    public static (X509Certificate2 Certificate, string Path) Shared => s_shared.Value;

    /// <summary>A new certificate: the same subject every time, a new key (a look-alike of any other).</summary>
    public static X509Certificate2 Create(string subject = "CN=salsa-cluster", DateTimeOffset? notBefore = null, DateTimeOffset? notAfter = null, bool serverOnly = false)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest(subject, key, HashAlgorithmName.SHA256);
        if (serverOnly)
        {
            request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], critical: false));
        }

        return request.CreateSelfSigned(notBefore ?? DateTimeOffset.UtcNow.AddMinutes(-5), notAfter ?? DateTimeOffset.UtcNow.AddDays(30));
    }

    /// <summary>Writes the certificate and its private key to one PEM file.</summary>
    public static void WritePem(X509Certificate2 certificate, string path)
    {
        using var key = certificate.GetECDsaPrivateKey() ?? throw new ArgumentException("The certificate has no ECDSA private key.", nameof(certificate));
        File.WriteAllText(path, certificate.ExportCertificatePem() + "\n" + key.ExportPkcs8PrivateKeyPem() + "\n");
    }
}
