namespace Salsa.Ccr;

/// <summary>Two ports under one name, e.g. a result or its failure (CCR's PortSet).</summary>
public class PortSet<T0, T1>
{
    public Port<T0> P0 { get; } = new();

    public Port<T1> P1 { get; } = new();

    public void Post(T0 item) => P0.Post(item);

    public void Post(T1 item) => P1.Post(item);
}
