using Salsa.Bench.Harness;

namespace Salsa.Bench.Experiments.Exchange;

/// <summary>Open MPI's shared-memory path: <c>bench/peers/exchange.c</c> under mpirun, one process per rank.</summary>
public sealed class OpenMpiExchange : IExchangeRunner
{
    public string Name => "openmpi";

    public string Description => "Open MPI 4 in C, MPI_Sendrecv right then left, zero-byte messages, processes (shared-memory BTL)";

    public double Measure(int ranks, int iterations)
    {
        if (Peers.BuildError is { } error)
        {
            throw new InvalidOperationException(error);
        }

        var result = Peers.RunJson("mpirun",
            ["--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", ranks.ToString(System.Globalization.CultureInfo.InvariantCulture),
             Peers.PathOf("exchange"), iterations.ToString(System.Globalization.CultureInfo.InvariantCulture), Math.Max(iterations / 10, 100).ToString(System.Globalization.CultureInfo.InvariantCulture)],
            TimeSpan.FromMinutes(5),
            new Dictionary<string, string> { ["OMPI_MCA_btl"] = "self,vader", ["OMPI_MCA_rmaps_base_oversubscribe"] = "1" });
        return result.GetProperty("latency_us").GetDouble();
    }

    public void Dispose()
    {
    }
}
