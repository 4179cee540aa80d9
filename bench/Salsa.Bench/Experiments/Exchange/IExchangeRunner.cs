namespace Salsa.Bench.Experiments.Exchange;

/// <summary>One implementation of the ring Exchange (send to both neighbours, receive from both).</summary>
public interface IExchangeRunner : IDisposable
{
    /// <summary>Case key, e.g. <c>salsa-threads</c>.</summary>
    string Name { get; }

    string Description { get; }

    /// <summary>Mean latency of one exchange in µs, as seen by the slowest rank.</summary>
    double Measure(int ranks, int iterations);
}
