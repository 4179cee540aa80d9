using System.Data.Common;
using System.Diagnostics;
using Orleans.Runtime.Messaging;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Jobs;

namespace Salsa.Grid.Partitions;

/// <summary>
/// A dataset's partition grid as grains, seen by an algorithm's loop (annealing, k-means): each pass
/// goes to every silo holding partitions at once — one call per silo (<see cref="ISiloPassGrain"/>),
/// which computes all of that silo's partitions and answers with each one's sums — and the sums are
/// folded in partition order. A silo lost mid-pass has its partitions asked again one by one
/// (Orleans activates them on survivors, where they reload their rows); a partition's sums depend
/// only on the pass and its rows, so the repeated pass gives the same bits.
/// </summary>
public sealed partial class GrainPartitions : IKMeansGrid
{
    private readonly IGrainFactory _factory;
    private readonly Guid _datasetId;
    private readonly IPartitionGrain[] _grains;
    private readonly string[] _keys;
    private readonly string[] _homes; // the silo each partition answered from last
    private readonly TimeSpan _retryFor;
    private readonly Lock _lock = new();
    private readonly HashSet<string> _silos = new(StringComparer.Ordinal); // the latest pass's
    private readonly HashSet<string> _former = new(StringComparer.Ordinal); // earlier passes', not the latest's
    private PassStatistics _statistics = PassStatistics.None;
    private long _siloCalls;
    private double _lastSiloTurnMicroseconds;
    private double _lastWayIn;
    private double _lastWayBack;
    private double _slowestPassMicroseconds;

    private readonly LocalSilo? _local;

    private long _inPlace;
    private long _seedingInPlace;
    private long _seedingCalls;
    private long _seedingSteps;

    private GrainPartitions(IGrainFactory factory, Guid datasetId, string[] keys, IPartitionGrain[] grains, PartitionInfo[] infos, TimeSpan retryFor, LocalSilo? local)
    {
        (_factory, _datasetId, _keys, _grains, _retryFor, _local) = (factory, datasetId, keys, grains, retryFor, local);
        _homes = [.. infos.Select(i => i.Silo)];
        Count = infos.Sum(i => i.Points);
        Dimension = infos[0].Dimension;
        TotalWeight = DensePartition.Fold([.. infos.Select(i => new[] { i.TotalWeight })])[0];
        _silos.UnionWith(infos.Select(i => i.Silo));
    }

    /// <summary>
    /// The grid of <paramref name="partitions"/> over <paramref name="datasetId"/>, its partitions
    /// activated (rows loaded). A coordinator on a silo gives it as <paramref name="local"/>: the
    /// partitions that silo holds are then computed in place, without a grain call — on the embedded
    /// single silo, all of them.
    /// </summary>
    public static GrainPartitions Open(IGrainFactory grains, Guid datasetId, int partitions, TimeSpan retryFor, CancellationToken cancellationToken, LocalSilo? local = null)
    {
        ArgumentNullException.ThrowIfNull(grains);
        var keys = PartitionKey.Grid(datasetId, partitions).Select(k => k.ToGrainKey()).ToArray();
        var refs = keys.Select(k => grains.GetGrain<IPartitionGrain>(k)).ToArray();
        var retries = 0L;
        var infos = Fan(refs, g => g.InfoAsync(), retryFor, TimeSpan.FromMinutes(2), ref retries, cancellationToken);
        if (infos.Any(i => i.Dimension != infos[0].Dimension))
        {
            throw new InvalidOperationException("The partitions disagree on the dataset's dimension.");
        }

        return new GrainPartitions(grains, datasetId, keys, refs, infos, retryFor, local) { _statistics = new PassStatistics(0, retries, 0, 0) };
    }

    public int Count { get; }

    /// <summary>
    /// The most silos a pass's coordinator calls (4 unless set): with more, silos call silos and
    /// answer for their subtree, so the coordinator's answers stay bounded as the grid grows.
    /// <see cref="int.MaxValue"/> gives the star (one call per silo), for comparison.
    /// </summary>
    public int FanIn
    {
        get;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            field = value;
        }
    } = 4;

    public int Dimension { get; }

    public double TotalWeight { get; }

    /// <summary>Passes so far, how often a partition was asked again, and the waits split into the busiest silo's compute and the rest.</summary>
    public PassStatistics Statistics
    {
        get
        {
            lock (_lock)
            {
                return _statistics;
            }
        }
    }

    /// <summary>Calls the passes made: one per silo holding partitions per pass, the coordinator's own silo aside (partitions asked again after a lost silo are <see cref="PassStatistics.Retries"/>).</summary>
    public long SiloCalls => Interlocked.Read(ref _siloCalls);

    /// <summary>Passes' shares computed in place: the partitions of the coordinator's own silo, without a grain call.</summary>
    public long InPlace => Interlocked.Read(ref _inPlace);

    /// <summary>k-means seeding steps, their answers computed in place (partitions of the coordinator's own silo), and the grain calls the steps made (one per other silo, one per partition asked alone).</summary>
    public (long Steps, long InPlace, long Calls) Seeding => (Interlocked.Read(ref _seedingSteps), Interlocked.Read(ref _seedingInPlace), Interlocked.Read(ref _seedingCalls));

    /// <summary>
    /// The latest pass's longest silo turn: from its call's arrival at a silo to the answer, compute
    /// included. The pass's wall time less this is the calls' travel (serialisation, the network,
    /// Orleans' scheduling); this less the compute is the silo's own overhead.
    /// </summary>
    public double LastSiloTurnMicroseconds => Volatile.Read(ref _lastSiloTurnMicroseconds);

    /// <summary>
    /// The latest pass's travel to and from its longest-turning silo: from the call's sending to
    /// its arrival at the silo, and from the silo's answer to its receipt here. Meaningful only when
    /// the silo shares this host's monotonic clock (silos on one machine: the benchmarks).
    /// </summary>
    public (double WayIn, double WayBack) LastSiloTravelMicroseconds => (Volatile.Read(ref _lastWayIn), Volatile.Read(ref _lastWayBack));

    /// <summary>The silos the partitions were found on in the latest pass.</summary>
    public string[] Silos
    {
        get
        {
            lock (_lock)
            {
                return [.. _silos.Order(StringComparer.Ordinal)];
            }
        }
    }

    /// <summary>Silos partitions were found on in earlier passes and not in the latest (they moved off them).</summary>
    public string[] FormerSilos
    {
        get
        {
            lock (_lock)
            {
                return [.. _former.Order(StringComparer.Ordinal)];
            }
        }
    }

    public double[] Reduce(PartitionPass pass, CancellationToken cancellationToken)
    {
        if (_members is not null)
        {
            Rebalance(cancellationToken);
        }

        var clock = Stopwatch.StartNew();
        var (total, turns, retries) = RunInPlace(pass, cancellationToken) is { } here
            ? (DensePartition.Fold([.. here.Select(s => s.Sums)]), here.Select((s, i) => s.AsTurn(i)).ToArray(), 0L)
            : RunByTreeAsync(pass, cancellationToken).GetAwaiter().GetResult();
        var wall = clock.Elapsed.TotalMicroseconds;
        if (retries == 0)
        {
            // The timeout follows passes as they normally run: one that waited out a lost silo
            // must not make the next loss wait twenty times as long.
            _slowestPassMicroseconds = Math.Max(_slowestPassMicroseconds, wall);
        }

        var slowest = SiloTurn.CriticalCompute(turns);
        GridTelemetry.Passes.Add(1);
        GridTelemetry.Messaging.Record(Math.Max(0, wall - slowest));
        if (retries > 0)
        {
            GridTelemetry.Retries.Add(retries);
        }

        lock (_lock)
        {
            _statistics = _statistics with
            {
                Passes = _statistics.Passes + 1,
                Retries = _statistics.Retries + retries,
                ComputeMicroseconds = _statistics.ComputeMicroseconds + slowest,
                MessagingMicroseconds = _statistics.MessagingMicroseconds + Math.Max(0, wall - slowest),
                LongestPassMicroseconds = Math.Max(_statistics.LongestPassMicroseconds, wall),
                CpuMicroseconds = _statistics.CpuMicroseconds + turns.Sum(t => t.CpuMicroseconds),
            };
            // The latest pass's silos replace the last; those it no longer uses become former ones.
            var latest = turns.Select(t => t.Silo).ToHashSet(StringComparer.Ordinal);
            _former.UnionWith(_silos);
            _former.ExceptWith(latest);
            _silos.Clear();
            _silos.UnionWith(latest);
            foreach (var turn in turns)
            {
                foreach (var partition in turn.Partitions)
                {
                    _homes[partition] = turn.Silo;
                }
            }
        }

        return total;
    }

    /// <summary>
    /// The pass computed on this thread when every partition was on the coordinator's own silo in
    /// the last pass (the embedded single silo): the same sums as the silo's pass grain gives, without
    /// a task, a hop to the thread pool or a wake-up per pass — what lets one silo cost what one
    /// process does. Null when a partition is elsewhere or has moved off: the pass then goes by silo.
    /// </summary>
    private PartitionSums[]? RunInPlace(PartitionPass pass, CancellationToken cancellationToken)
    {
        if (_local is not { } local)
        {
            return null;
        }

        lock (_lock)
        {
            if (_homes.Any(h => h != local.Identity))
            {
                return null;
            }
        }

        var held = local.Held.RunHeld(local.Compute, local.Identity, pass, _keys, cancellationToken);
        if (held.Any(h => h is null))
        {
            return null; // a partition moved off this silo since: asked where it now is
        }

        Interlocked.Increment(ref _inPlace);
        Volatile.Write(ref _lastSiloTurnMicroseconds, 0);
        return held!;
    }

    /// <summary>
    /// One pass down the fan-in tree of the silos that held partitions in the last pass (<see
    /// cref="Plan"/>): at most <see cref="FanIn"/> calls from here, each silo calling those below it
    /// and answering for its subtree as reduction-tree nodes; the coordinator's own silo computes its
    /// partitions in place beside the calls. A partition nobody answered for — its silo lost, a call
    /// late — is asked of its own grain, with <see cref="FanAsync"/>'s retries. Returns the root's
    /// sums, every silo's turn and the partitions asked again.
    /// </summary>
    private async Task<(double[] Total, SiloTurn[] Turns, long Retries)> RunByTreeAsync(PartitionPass pass, CancellationToken cancellationToken)
    {
        string[] homes;
        lock (_lock)
        {
            homes = [.. _homes];
        }

        var (own, plans) = Plan(homes, PassTimeout);
        var sent = Stopwatch.GetTimestamp();
        var calls = plans.Select(p =>
        {
            Interlocked.Increment(ref _siloCalls);
            return _factory.GetGrain<ISiloPassGrain>(p.Silo).RunAsync(pass, p).WaitAsync(p.Timeout, cancellationToken);
        }).ToArray();
        var answers = new List<SiloTreeAnswer>(calls.Length + 1);
        var missing = new List<int>();
        if (own is not null)
        {
            Interlocked.Increment(ref _inPlace);
            answers.Add(await _local!.Held.RunTreeAsync(_factory, _local.Compute, _local.Identity, pass, own).ConfigureAwait(false));
        }

        try
        {
            await Task.WhenAll(calls).ConfigureAwait(false);
        }
        catch (Exception) when (!cancellationToken.IsCancellationRequested)
        {
            // Inspected call by call below.
        }

        var received = Stopwatch.GetTimestamp();
        cancellationToken.ThrowIfCancellationRequested();
        var turn = 0.0;
        for (var c = 0; c < calls.Length; c++)
        {
            if (!calls[c].IsCompletedSuccessfully)
            {
                missing.AddRange(plans[c].AllPartitions);
                continue;
            }

            var answer = calls[c].Result;
            answers.Add(answer);
            if (answer.TurnMicroseconds >= turn)
            {
                turn = answer.TurnMicroseconds;
                Volatile.Write(ref _lastWayIn, Stopwatch.GetElapsedTime(sent, answer.ArrivedTimestamp).TotalMicroseconds);
                Volatile.Write(ref _lastWayBack, Stopwatch.GetElapsedTime(answer.AnsweredTimestamp, received).TotalMicroseconds);
            }
        }

        Volatile.Write(ref _lastSiloTurnMicroseconds, turn);
        var known = new Dictionary<ReductionTree.Node, double[]>();
        var turns = new List<SiloTurn>();
        foreach (var answer in answers)
        {
            foreach (var node in answer.Nodes)
            {
                known[node.Node] = node.Sums;
            }

            missing.AddRange(answer.Missing);
            turns.AddRange(answer.Turns);
            if (answer.Leaving.Length > 0)
            {
                lock (_lock)
                {
                    _leaving.UnionWith(answer.Leaving);
                }
            }
        }

        var retries = 0L;
        if (missing.Count > 0)
        {
            var again = missing.Order().ToArray();
            var (sums, asked) = await FanAsync([.. again.Select(i => _grains[i])], g => g.RunAsync(pass), _retryFor, PassTimeout, cancellationToken).ConfigureAwait(false);
            for (var j = 0; j < again.Length; j++)
            {
                known[new ReductionTree.Node(again[j], again[j] + 1)] = sums[j].Sums;
                turns.Add(sums[j].AsTurn(again[j]));
            }

            retries = again.Length + asked;
        }

        return (ReductionTree.Complete(_grains.Length, known), [.. turns], retries);
    }

    /// <summary>
    /// A pass's fan-in tree over the silos holding partitions (<paramref name="homes"/>): the
    /// coordinator's own silo's part, computed in place, and at most <see cref="FanIn"/> subtrees of
    /// the others. Silos are ordered by their first partition and each subtree is a contiguous run of
    /// them — with contiguous placement, a contiguous run of partitions, which its root adds up into
    /// the fewest nodes. A silo waits for those below it less long than its own caller waits for it.
    /// </summary>
    private (SiloPassPlan? Own, SiloPassPlan[] Plans) Plan(string[] homes, TimeSpan timeout)
    {
        var silos = Enumerable.Range(0, homes.Length).GroupBy(i => homes[i], StringComparer.Ordinal).Select(g => (Silo: g.Key, Partitions: g.ToArray())).ToList();
        var own = _local is { } local ? silos.Find(s => s.Silo == local.Identity) : default;
        SiloPassPlan? ownPlan = own.Partitions is null ? null : new SiloPassPlan(own.Silo, _datasetId, _grains.Length, own.Partitions, [], timeout);
        var others = silos.Where(s => own.Partitions is null || s.Silo != own.Silo).ToList();
        // The silos whose partitions are being loaded elsewhere to move: each is told with the pass.
        var handingOver = _pending is { } pending ? pending.Partitions.Select(i => homes[i]).ToHashSet(StringComparer.Ordinal) : [];
        return (ownPlan, Subtrees(others, 0, others.Count, timeout, handingOver).Plans);
    }

    private (SiloPassPlan[] Plans, int Height) Subtrees(List<(string Silo, int[] Partitions)> silos, int from, int to, TimeSpan timeout, HashSet<string> handingOver)
    {
        var count = to - from;
        var chunks = Math.Min(FanIn, count);
        var plans = new SiloPassPlan[chunks];
        var height = 0;
        for (var c = 0; c < chunks; c++)
        {
            var (start, end) = (from + (int)((long)count * c / chunks), from + (int)((long)count * (c + 1) / chunks));
            var (children, below) = Subtrees(silos, start + 1, end, timeout, handingOver);
            var level = children.Length == 0 ? 0 : below + 1;
            plans[c] = new SiloPassPlan(silos[start].Silo, _datasetId, _grains.Length, silos[start].Partitions, children, timeout * (level + 1), handingOver.Contains(silos[start].Silo));
            height = Math.Max(height, level);
        }

        return (plans, height);
    }

    public PartitionAssignments Assign(PartitionPass pass, CancellationToken cancellationToken)
    {
        var retries = 0L;
        var rows = Fan(_grains, g => g.AssignAsync(pass), _retryFor, PassTimeout, ref retries, cancellationToken);
        return new PartitionAssignments([.. rows.SelectMany(r => r.Assignments)], [.. rows.SelectMany(r => r.Weights)]);
    }


    // A call to a silo that was killed mid-call gets no answer until Orleans gives up on it (its
    // response timeout, 30 s); a pass that takes far longer than any before is asked again sooner.
    // Asking again is harmless: a partition's sums depend only on the pass and its rows.
    private TimeSpan PassTimeout => TimeSpan.FromMicroseconds(Math.Max(2e6, 20 * _slowestPassMicroseconds));

    // Runs on the job's own thread (never a grain turn), so it waits for the calls.
    private static T[] Fan<T>(IPartitionGrain[] grains, Func<IPartitionGrain, Task<T>> call, TimeSpan retryFor, TimeSpan timeout, ref long retries, CancellationToken cancellationToken)
    {
        var (results, asked) = FanAsync(grains, call, retryFor, timeout, cancellationToken).GetAwaiter().GetResult();
        retries += asked;
        return results;
    }

    /// <summary>
    /// Calls every partition at once and returns their answers in partition order, with how many
    /// calls were asked again: a call that failed transiently (<see cref="IsTransient"/>) or was
    /// cancelled by the runtime while the cluster replaced a silo is asked again, with back-off, for
    /// up to <paramref name="retryFor"/>; any other failure is a <see cref="PartitionFailedException"/>.
    /// </summary>
    internal static async Task<(T[] Results, long Retries)> FanAsync<T>(
        IPartitionGrain[] grains, Func<IPartitionGrain, Task<T>> call, TimeSpan retryFor, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var results = new T[grains.Length];
        var pending = Enumerable.Range(0, grains.Length).ToArray();
        var deadline = Stopwatch.StartNew();
        var backoff = TimeSpan.FromMilliseconds(100);
        var retries = 0L;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var calls = pending.Select(i => call(grains[i]).WaitAsync(timeout, cancellationToken)).ToArray();
            try
            {
                await Task.WhenAll(calls).ConfigureAwait(false);
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // Inspected call by call below.
            }

            cancellationToken.ThrowIfCancellationRequested();
            var failed = new List<int>();
            for (var c = 0; c < calls.Length; c++)
            {
                // A call the runtime cancelled (not us: checked above) has no exception of its own.
                var error = calls[c].IsCompletedSuccessfully ? null : calls[c].Exception?.InnerException ?? new OperationCanceledException("The runtime cancelled the call.");
                if (error is null)
                {
                    results[pending[c]] = calls[c].Result;
                }
                else if (IsTransient(error) && deadline.Elapsed < retryFor)
                {
                    failed.Add(pending[c]);
                }
                else
                {
                    throw new PartitionFailedException(pending[c], error);
                }
            }

            if (failed.Count == 0)
            {
                return (results, retries);
            }

            retries += failed.Count;
            pending = [.. failed];
            await Task.Delay(backoff, cancellationToken).ConfigureAwait(false);
            backoff = TimeSpan.FromTicks(Math.Min(backoff.Ticks * 2, TimeSpan.FromSeconds(2).Ticks));
        }
    }

    // A lost silo, a message refused or timed out while the cluster learns of it, a partition that
    // could not reach the database to load its rows: worth asking again.
    internal static bool IsTransient(Exception exception) =>
        exception is SiloUnavailableException or OrleansMessageRejectionException or TimeoutException or ConnectionFailedException
            or DbException { IsTransient: true }
            // The runtime gave up on a call while its directory or placement waited on a lost silo.
            or OperationCanceledException
        || (exception is OrleansException && exception.Message.Contains("unavailable", StringComparison.OrdinalIgnoreCase));
}
