using System.Globalization;
using Salsa.Bench.Harness;

namespace Salsa.Bench.Experiments;

/// <summary>
/// The grid on P machines of 16 cores: a pass is its compute spread over P·16 cores plus its
/// messaging through the fan-in tree, each way of costing the tree's levels (<see cref="Way"/>) a
/// column pair of one table. Efficiency = (c·n/16) / (P·T(P)) against one machine of 16 cores
/// without messaging.
/// </summary>
internal static class GridModel
{
    public const int Cores = 16;

    /// <summary>A LAN round trip per level: an assumption, this machine's kernel has no netem to measure one.</summary>
    public const double RoundTripUs = 200;

    public static readonly long[] Sizes = [10_000_000, 50_000_000, 500_000_000];

    public static readonly int[] Machines = [8, 32, 128];

    /// <summary>One way of costing a pass's messaging on P machines, in µs: its rows' case suffix and its column's name.</summary>
    public sealed record Way(string Case, string Header, Func<int, double> MessagingUs);

    /// <summary>Adds <c>model_seconds_per_pass</c> and <c>model_efficiency</c> per size, machine count and way, and their table.</summary>
    public static void Add(ExperimentContext context, double perPointCoreUs, IReadOnlyList<Way> ways)
    {
        double Compute(long n, int machines) => perPointCoreUs * n / (machines * Cores);
        double Efficiency(long n, int machines, Way way) => perPointCoreUs * n / Cores / (machines * (Compute(n, machines) + way.MessagingUs(machines)));
        foreach (var n in Sizes)
        {
            foreach (var p in Machines)
            {
                foreach (var way in ways)
                {
                    var @case = string.Create(CultureInfo.InvariantCulture, $"machines={p},cores={Cores},points={n},fold=tree,messaging={way.Case}");
                    context.Add(@case, "model_seconds_per_pass", (Compute(n, p) + way.MessagingUs(p)) / 1e6, "s");
                    context.Add(@case, "model_efficiency", Efficiency(n, p, way), "ratio");
                }
            }
        }

        context.Table(["points", "machines", "tree levels", "compute, ms", .. ways.SelectMany(w => new[] { $"messaging, {w.Header}, ms", "efficiency" })],
            Sizes.SelectMany(n => Machines.Select(p => (IReadOnlyList<string>)[
                n.ToString("N0", CultureInfo.InvariantCulture),
                p.ToString(CultureInfo.InvariantCulture),
                GridExperiment.TreeLevels(p).ToString(CultureInfo.InvariantCulture),
                (Compute(n, p) / 1000).ToString("F2", CultureInfo.InvariantCulture),
                .. ways.SelectMany(w => new[]
                {
                    (w.MessagingUs(p) / 1000).ToString("F2", CultureInfo.InvariantCulture),
                    Efficiency(n, p, w).ToString("F2", CultureInfo.InvariantCulture),
                })])));
    }
}
