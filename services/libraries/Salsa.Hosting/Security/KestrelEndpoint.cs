namespace Salsa.Hosting.Security;

/// <summary>A Kestrel endpoint as configured: its URL.</summary>
public sealed class KestrelEndpoint
{
    public string? Url { get; set; }
}
