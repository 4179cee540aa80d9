namespace Salsa.Gateway;

/// <summary><c>Gateway:Ports</c>.</summary>
public sealed class GatewayPortOptions
{
    public int? First { get; set; }
}
