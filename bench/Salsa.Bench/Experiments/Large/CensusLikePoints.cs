using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Salsa.Bench.Harness;
using Salsa.Clustering;
using Salsa.DataFiles;
using Salsa.Store;
using Salsa.Store.Postgres;
using Salsa.Store.Sqlite;

namespace Salsa.Bench.Experiments.Large;

/// <summary>
/// Census-like synthetic data of any size: every populated national block group (2020) split into
/// the same number of points (give or take one), scattered around its centre with a normal jitter
/// of <see cref="JitterKm"/> in each planar coordinate (the census kernels' equirectangular km), each
/// point carrying an equal share of the group's population — so the weights still sum to the
/// nation's population and the clusters are the census's, only denser. Deterministic for a seed:
/// block group <c>g</c>'s points come from a generator seeded by (seed, g), so any range of rows can
/// be made again without the others, and the same seed gives the same bits on every machine.
/// </summary>
public sealed class CensusLikePoints
{
    /// <summary>The jitter's standard deviation: about a city block group's radius.</summary>
    public const double JitterKm = 0.75;

    private readonly double[] _centres;
    private readonly double[] _population;

    private CensusLikePoints(double[] centres, double[] population, long count, int seed, EquirectangularProjection projection) =>
        (_centres, _population, Count, Seed, Projection) = (centres, population, count, seed, projection);

    /// <summary>Points made in all.</summary>
    public long Count { get; }

    public int Seed { get; }

    public EquirectangularProjection Projection { get; }

    /// <summary>The populated block groups of <paramref name="censusFile"/> (default: the national file), to be split into <paramref name="count"/> points.</summary>
    public static CensusLikePoints Of(long count, int seed, string? censusFile = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        var groups = CensusBlockGroups.ReadFile(censusFile ?? CensusBlockGroups.NationalPath).Where(g => g.Population > 0).ToList();
        var projection = EquirectangularProjection.CentredOn(groups);
        var centres = new double[groups.Count * 2];
        var population = new double[groups.Count];
        for (var g = 0; g < groups.Count; g++)
        {
            (centres[2 * g], centres[2 * g + 1]) = projection.Forward(groups[g].Latitude, groups[g].Longitude);
            population[g] = groups[g].Population;
        }

        return new CensusLikePoints(centres, population, count, seed, projection);
    }

    /// <summary>The dataset's description for the store (Dense, 2-D planar km, the projection in its metadata).</summary>
    public DatasetInfo Info(Guid id) => new()
    {
        Id = id,
        Name = string.Create(CultureInfo.InvariantCulture, $"census-like-{Count}-seed{Seed}"),
        Kind = DatasetKind.Dense,
        Count = checked((int)Count),
        Dimension = 2,
        Created = DateTimeOffset.UtcNow,
        Source = string.Create(CultureInfo.InvariantCulture, $"generated: the national block groups split into {Count:N0} points (seed {Seed}, jitter {JitterKm} km)"),
        Metadata = new Dictionary<string, string>(Projection.ToMetadata()) { ["generator"] = "census-like" },
    };

    /// <summary>
    /// The points in parts of <paramref name="partSize"/> rows, each made on the thread pool while
    /// the caller stores the one before (memory: two parts).
    /// </summary>
    public async IAsyncEnumerable<DatasetContent> Parts(int partSize)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(partSize, 1);
        Task<DatasetContent> Make(long first) => Task.Run(() =>
        {
            var rows = (int)Math.Min(partSize, Count - first);
            var part = new DatasetContent { Values = new double[rows * 2], Weights = new double[rows] };
            Fill(first, part.Values, part.Weights);
            return part;
        });

        var next = Count > 0 ? Make(0) : null;
        for (long first = 0; next is not null; first += partSize)
        {
            var part = await next.ConfigureAwait(false);
            next = first + partSize < Count ? Make(first + partSize) : null;
            yield return part;
        }
    }

    /// <summary>All the points at once (for an in-process reference; Count × 24 bytes).</summary>
    public DenseVectors All()
    {
        var values = new double[checked(Count * 2)];
        var weights = new double[Count];
        Fill(0, values, weights);
        return new DenseVectors(values, 2, weights);
    }

    /// <summary>Rows [first, first + weights.Length): block group g holds rows [Start(g), Start(g + 1)).</summary>
    private void Fill(long first, double[] values, double[] weights)
    {
        var groups = _population.Length;
        var last = first + weights.Length;
        for (var g = Group(first); g < groups && Start(g) < last; g++)
        {
            var (start, end) = (Start(g), Start(g + 1));
            if (start == end)
            {
                continue;
            }

            var random = new Random(unchecked((Seed * 1_000_003) + g)); // not HashCode: it is salted per process
            var share = _population[g] / (end - start);
            // Every point of the group is drawn (so row r's values never depend on where a part
            // begins); those outside [first, last) are skipped.
            for (var row = start; row < end; row++)
            {
                var (dx, dy) = Normal(random);
                if (row < first || row >= last)
                {
                    continue;
                }

                var i = (int)(row - first);
                values[2 * i] = _centres[2 * g] + (JitterKm * dx);
                values[2 * i + 1] = _centres[2 * g + 1] + (JitterKm * dy);
                weights[i] = share;
            }
        }
    }

    private long Start(int group) => Count * group / _population.Length;

    /// <summary>The group holding row <paramref name="row"/>.</summary>
    private int Group(long row)
    {
        var g = (int)(row * _population.Length / Math.Max(Count, 1));
        while (g > 0 && Start(g) > row)
        {
            g--;
        }

        while (g < _population.Length && Start(g + 1) <= row)
        {
            g++;
        }

        return g;
    }

    /// <summary>Two independent standard normal draws (Box–Muller).</summary>
    private static (double, double) Normal(Random random)
    {
        var u = 1.0 - random.NextDouble();
        var radius = Math.Sqrt(-2.0 * Math.Log(u));
        var angle = 2.0 * Math.PI * random.NextDouble();
        return (radius * Math.Cos(angle), radius * Math.Sin(angle));
    }

    /// <summary>
    /// <c>Salsa.Bench --generate --points N [--seed S] [--part ROWS] (--sqlite FILE | --postgres CONNECTION)</c>:
    /// makes the points and streams them into the store (<see cref="IDataStore.ImportDatasetAsync"/>);
    /// prints one JSON line — the dataset's id, the rows, the seconds and this process's peak
    /// resident memory — for the <c>large</c> experiment, which runs it as a process of its own.
    /// </summary>
    public static async Task<int> GenerateAsync(string[] args)
    {
        string? Arg(string name)
        {
            var i = Array.IndexOf(args, name);
            return i >= 0 && i + 1 < args.Length ? args[i + 1] : null;
        }

        if (Arg("--points") is not { } pointsText || !long.TryParse(pointsText, CultureInfo.InvariantCulture, out var points) || points < 0
            || (Arg("--sqlite") is null) == (Arg("--postgres") is null))
        {
            Console.Error.WriteLine("usage: Salsa.Bench --generate --points N [--seed S] [--part ROWS] (--sqlite FILE | --postgres CONNECTION)");
            return 2;
        }

        var seed = int.Parse(Arg("--seed") ?? "1", CultureInfo.InvariantCulture);
        var partSize = int.Parse(Arg("--part") ?? "65536", CultureInfo.InvariantCulture);
        var generator = Of(points, seed);
        await using IDataStore store = Arg("--sqlite") is { } file ? new SqliteDataStore(file) : new PostgresDataStore(Arg("--postgres")!);
        await store.InitializeAsync();
        var clock = Stopwatch.StartNew();
        var info = await store.ImportDatasetAsync(generator.Info(Guid.NewGuid()), generator.Parts(partSize));
        var seconds = clock.Elapsed.TotalSeconds;
        Console.WriteLine(JsonSerializer.Serialize(new { id = info.Id, points = info.Count, totalWeight = info.TotalWeight, seconds, peakRssBytes = ProcessMemory.PeakResidentBytes() }));
        return 0;
    }
}
