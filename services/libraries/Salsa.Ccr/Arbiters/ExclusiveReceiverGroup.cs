namespace Salsa.Ccr;

/// <summary>Receivers whose handlers never overlap any other handler of the interleave.</summary>
public sealed class ExclusiveReceiverGroup(params ArbiterTask[] receivers)
{
    internal ArbiterTask[] Receivers { get; } = receivers;
}
