namespace Salsa.Grid;

/// <summary><c>Cluster:Tls</c>: the cluster certificate's file (PEM or PKCS#12) and its password, if it has one.</summary>
public sealed class GridTlsOptions
{
    public string? Certificate { get; set; }

    public string? Password { get; set; }
}
