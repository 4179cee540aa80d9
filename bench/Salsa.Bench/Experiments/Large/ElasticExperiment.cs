using Salsa.Bench.Harness;
using Salsa.Testing;

namespace Salsa.Bench.Experiments.Large;

/// <summary>
/// <c>large</c>'s silos joining and leaving on their own: census-like points (10 million; 500,000
/// with --quick) imported into PostgreSQL, DA passes running back to back on two silo processes, a
/// third joining, then one of the three stopped with SIGTERM — the pauses, the share after the join,
/// the retries, every pass's bits.
/// </summary>
public sealed class ElasticExperiment : IExperiment
{
    public string Name => "elastic";

    public string Description => "Silos joining and leaving under DA passes at 10M census-like points (--quick 500k), as in large: pauses, shares, retries, bits.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        await using var postgres = await PostgresServer.StartAsync(cancellationToken);
        var connectionString = await postgres.CreateDatabaseAsync("elastic", cancellationToken);
        await LargeDataExperiment.ElasticAsync(context, connectionString, points: 0, Guid.Empty, cancellationToken);
    }
}
