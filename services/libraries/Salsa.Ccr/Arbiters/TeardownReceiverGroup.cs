namespace Salsa.Ccr;

/// <summary>Receivers that run alone, once, last.</summary>
public sealed class TeardownReceiverGroup(params ArbiterTask[] receivers)
{
    internal ArbiterTask[] Receivers { get; } = receivers;
}
