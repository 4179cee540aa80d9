namespace Salsa.Bench.Experiments.Exchange;

/// <summary>How the exchange experiments measure a set of implementations at one rank count.</summary>
public static class ExchangeSampling
{
    /// <summary>
    /// A pilot of <paramref name="pilotIterations"/> exchanges sets each implementation's iteration
    /// count for about <paramref name="targetSeconds"/> of wall time; then a discarded warm-up round
    /// (JIT tiering, dispatcher threads, mpirun caches) and <paramref name="repeats"/> measured ones,
    /// round-robin, so drift hits all alike. Returns the latencies (µs) of each implementation that
    /// ran; Open MPI failing to run is recorded in <paramref name="failures"/>, not thrown.
    /// </summary>
    public static Dictionary<string, List<double>> Sample(IExchangeRunner[] runners, int ranks, int repeats, double targetSeconds, int pilotIterations,
        Dictionary<string, string> failures, CancellationToken cancellationToken)
    {
        var iterations = new Dictionary<string, int>();
        foreach (var runner in runners.Where(r => !failures.ContainsKey(r.Name)))
        {
            Try(runner, failures, () =>
            {
                var pilot = runner.Measure(ranks, pilotIterations);
                iterations[runner.Name] = (int)Math.Clamp(targetSeconds / (pilot * 1e-6), pilotIterations, 5_000_000);
            });
        }

        var samples = runners.ToDictionary(r => r.Name, _ => new List<double>());
        for (var repeat = -1; repeat < repeats; repeat++)
        {
            foreach (var runner in runners.Where(r => !failures.ContainsKey(r.Name)))
            {
                cancellationToken.ThrowIfCancellationRequested();
                Try(runner, failures, () =>
                {
                    var latency = runner.Measure(ranks, iterations[runner.Name]);
                    if (repeat >= 0)
                    {
                        samples[runner.Name].Add(latency);
                    }
                });
            }
        }

        return samples;
    }

    private static void Try(IExchangeRunner runner, Dictionary<string, string> failures, Action measure)
    {
        try
        {
            measure();
        }
        catch (Exception exception) when (runner is OpenMpiExchange)
        {
            failures[runner.Name] = exception.Message;
        }
    }
}
