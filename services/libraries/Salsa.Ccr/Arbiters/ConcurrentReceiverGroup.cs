namespace Salsa.Ccr;

/// <summary>Receivers whose handlers may run together.</summary>
public sealed class ConcurrentReceiverGroup(params ArbiterTask[] receivers)
{
    internal ArbiterTask[] Receivers { get; } = receivers;
}
