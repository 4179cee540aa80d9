using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Compute;

namespace Salsa.Grid.Partitions;

/// <summary>
/// The partitions a silo holds in memory, by grain key: each partition grain adds its rows when it
/// activates (after loading them) and removes them when it deactivates. The silo's pass grain
/// computes on them directly, so a pass costs one call per silo, not one per partition.
/// </summary>
public sealed class SiloPartitions
{
    private readonly ConcurrentDictionary<string, DensePartition> _held = new(StringComparer.Ordinal);

    // A partition's k-means seeding state, kept between seeding steps (each then costs one distance
    // per row) and shared by its grain and a coordinator computing it in place: one state per rows.
    private readonly ConditionalWeakTable<DensePartition, KMeansPartition> _kmeans = [];

    // Rows loaded ahead of a partition's move to this silo (a join, a silo leaving): its activation
    // here takes them instead of reading the store, so the move pauses passes for no load.
    // Rows a move never came for (its job ended first) are dropped after StagedFor.
    private readonly ConcurrentDictionary<string, (DensePartition Rows, long Since)> _staged = new(StringComparer.Ordinal);
    private static readonly TimeSpan StagedFor = TimeSpan.FromMinutes(5);
    private long _lastPass = Stopwatch.GetTimestamp();
    private long _passes;
    private long _passGap;
    private long _lastHandover;
    private volatile bool _leaving;

    // Completed (and replaced) when a partition leaves this silo or a pass arrives while it is
    // leaving: what its stop waits on between those events.
    private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public void Add(string key, DensePartition partition) => _held[key] = partition;

    /// <summary>How many partitions this silo holds.</summary>
    public int Count => _held.Count;

    /// <summary>
    /// Set when the silo is asked to leave (a stop): its answers say so, and every coordinator moves
    /// the partitions it holds to the others before their next pass.
    /// </summary>
    public bool Leaving
    {
        get => _leaving;
        set => _leaving = value;
    }

    /// <summary>How long since a pass last said a coordinator is moving partitions off this silo (its rows loading elsewhere); <see cref="TimeSpan.MaxValue"/> if none ever did.</summary>
    public TimeSpan SinceHandover => Interlocked.Read(ref _lastHandover) is var at && at == 0 ? TimeSpan.MaxValue : Stopwatch.GetElapsedTime(at);

    /// <summary>How long since a pass last ran on this silo's partitions.</summary>
    public TimeSpan SinceLastPass => Stopwatch.GetElapsedTime(Interlocked.Read(ref _lastPass));

    /// <summary>
    /// The time between passes arriving here as they have lately come: the longest gap, each
    /// shorter one after it taking a quarter off (zero before the second pass). A pass slowed by
    /// rows loading elsewhere is not taken for the end of the jobs using this silo.
    /// </summary>
    public TimeSpan PassGap => Stopwatch.GetElapsedTime(0, Interlocked.Read(ref _passGap));

    /// <summary>Counts a pass arriving at <paramref name="arrived"/> (a <see cref="Stopwatch"/> timestamp) in <see cref="SinceLastPass"/> and <see cref="PassGap"/>.</summary>
    public void NotePass(long arrived)
    {
        var previous = Interlocked.Exchange(ref _lastPass, arrived);
        if (Interlocked.Increment(ref _passes) == 1 || arrived <= previous)
        {
            return; // the first pass (before it, the silo's start) or passes of two jobs crossing
        }

        var gap = arrived - previous;
        var current = Interlocked.Read(ref _passGap);
        while (Interlocked.CompareExchange(ref _passGap, Math.Max(gap, current - (current / 4)), current) is var seen && seen != current)
        {
            current = seen;
        }
    }

    /// <summary>
    /// Completes at the next partition removed from this silo, or — while it is <see cref="Leaving"/>
    /// — the next pass to arrive. Take it before reading <see cref="Count"/> and
    /// <see cref="SinceLastPass"/>: a change after the read completes the task already taken.
    /// </summary>
    public Task Changed => Volatile.Read(ref _changed).Task;

    private void Signal() =>
        Interlocked.Exchange(ref _changed, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).TrySetResult();

    /// <summary>Rows loaded for <paramref name="key"/> before its partition moves here.</summary>
    public void Stage(string key, DensePartition partition)
    {
        foreach (var (stale, entry) in _staged)
        {
            if (Stopwatch.GetElapsedTime(entry.Since) > StagedFor)
            {
                _staged.TryRemove(stale, out _);
            }
        }

        _staged[key] = (partition, Stopwatch.GetTimestamp());
    }

    /// <summary>Whether rows for <paramref name="key"/> are staged or held here.</summary>
    public bool HasRows(string key) => _staged.ContainsKey(key) || _held.ContainsKey(key);

    /// <summary>The rows staged for <paramref name="key"/>, once (its activation here takes them).</summary>
    public DensePartition? TakeStaged(string key) => _staged.TryRemove(key, out var entry) ? entry.Rows : null;

    public void Remove(string key, DensePartition partition)
    {
        if (_held.TryRemove(new KeyValuePair<string, DensePartition>(key, partition)))
        {
            Signal();
        }
    }

    public bool TryGet(string key, out DensePartition partition) => _held.TryGetValue(key, out partition!);

    /// <summary>The k-means seeding state of <paramref name="partition"/>'s rows, made at first use.</summary>
    public KMeansPartition KMeansOf(DensePartition partition) => _kmeans.GetValue(partition, rows => new KMeansPartition(rows));

    /// <summary>
    /// The sums of those of <paramref name="partitions"/> this silo holds, computed in one turn on its
    /// cores, one after another as their grains would compute them (null for the others), each
    /// answered as from <paramref name="silo"/>.
    /// </summary>
    public async Task<PartitionSums?[]> RunHeldAsync(SiloCompute compute, string silo, PartitionPass pass, string[] partitions)
    {
        ArgumentNullException.ThrowIfNull(compute);
        var (held, work) = HeldPass(pass, partitions);
        return held is null ? new PartitionSums?[partitions.Length] : Answers((await compute.RunAsync(work).ConfigureAwait(false)).Result, silo);
    }

    /// <summary>
    /// <see cref="RunHeldAsync"/> from a caller that may block (a job's loop computing its own
    /// silo's partitions in place): the same sums, computed on the calling thread.
    /// </summary>
    public PartitionSums?[] RunHeld(SiloCompute compute, string silo, PartitionPass pass, string[] partitions, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(compute);
        var (held, work) = HeldPass(pass, partitions);
        return held is null ? new PartitionSums?[partitions.Length] : Answers(compute.Run(work, cancellationToken).Result, silo);
    }

    /// <summary>The partitions of <paramref name="partitions"/> held here (null when none is) and the work that computes their sums one after another.</summary>
    private (DensePartition?[]? Held, Func<ParallelismOptions, PartitionSums?[]> Work) HeldPass(PartitionPass pass, string[] partitions)
    {
        ArgumentNullException.ThrowIfNull(partitions);
        var local = new DensePartition?[partitions.Length];
        for (var i = 0; i < partitions.Length; i++)
        {
            local[i] = TryGet(partitions[i], out var partition) ? partition : null;
        }

        return (local.All(p => p is null) ? null : local, parallel =>
            PartitionPassWork.RunAll([.. local.Select(p => p is null ? null : (Func<double[]>)(() => p.Run(pass, parallel)))], silo: ""));
    }

    private static PartitionSums?[] Answers(PartitionSums?[] sums, string silo) =>
        [.. sums.Select(s => s is null ? null : s with { Silo = silo })];

    /// <summary>
    /// A k-means seeding step for those of <paramref name="partitions"/> this silo holds, computed in
    /// one turn on its cores on the state their grains keep; the others are marked not held.
    /// </summary>
    public async Task<SiloSeedAnswer<T>> SeedHeldAsync<T>(SiloCompute compute, string[] partitions, Func<KMeansPartition, T> step)
    {
        ArgumentNullException.ThrowIfNull(compute);
        ArgumentNullException.ThrowIfNull(partitions);
        ArgumentNullException.ThrowIfNull(step);
        var rows = new DensePartition?[partitions.Length];
        for (var i = 0; i < partitions.Length; i++)
        {
            rows[i] = TryGet(partitions[i], out var partition) ? partition : null;
        }

        if (rows.All(r => r is null))
        {
            return new SiloSeedAnswer<T>(new T[partitions.Length], new bool[partitions.Length]); // nothing here: no turn on the cores
        }

        var (values, _) = await compute.RunAsync(_ => rows.Select(r => r is null ? default! : step(KMeansOf(r))).ToArray()).ConfigureAwait(false);
        return new SiloSeedAnswer<T>(values, [.. rows.Select(r => r is not null)]);
    }

    /// <summary>
    /// <paramref name="plan"/>'s part of a pass, answered for its subtree of the fan-in tree: the
    /// silos below are called at once; this silo's partitions are computed here, those it no longer
    /// holds (moved since the caller last saw them: a lost silo, a deactivation) asked of their own
    /// grains; everything answered is added up in the reduction tree's order as far as it goes.
    /// A partition nobody answered for — its grain failed, or the silo below holding it did — is
    /// named missing, for the caller to ask again; the rest of the answer stands.
    /// </summary>
    public async Task<SiloTreeAnswer> RunTreeAsync(IGrainFactory grains, SiloCompute compute, string silo, PartitionPass pass, SiloPassPlan plan)
    {
        ArgumentNullException.ThrowIfNull(grains);
        ArgumentNullException.ThrowIfNull(plan);
        var arrived = Stopwatch.GetTimestamp();
        NotePass(arrived);
        if (plan.HandingOver)
        {
            Interlocked.Exchange(ref _lastHandover, arrived);
        }

        if (_leaving)
        {
            Signal();
        }

        var below = plan.Children.Select(c => grains.GetGrain<ISiloPassGrain>(c.Silo).RunAsync(pass, c).WaitAsync(c.Timeout)).ToArray();
        var keys = plan.Partitions.Select(plan.KeyOf).ToArray();
        var held = await RunHeldAsync(compute, silo, pass, keys).ConfigureAwait(false);
        var known = new Dictionary<ReductionTree.Node, double[]>();
        var missing = new List<int>();
        var turns = new List<SiloTurn>();
        var here = new List<int>();
        var leaving = _leaving ? new List<string> { silo } : [];
        var moved = new List<(int Partition, Task<PartitionSums> Call)>();
        for (var i = 0; i < held.Length; i++)
        {
            var partition = plan.Partitions[i];
            if (held[i] is { } sums)
            {
                known[new ReductionTree.Node(partition, partition + 1)] = sums.Sums;
                here.Add(i);
            }
            else
            {
                moved.Add((partition, grains.GetGrain<IPartitionGrain>(keys[i]).RunAsync(pass)));
            }
        }

        if (here.Count > 0)
        {
            turns.Add(new SiloTurn(silo, [.. here.Select(i => plan.Partitions[i])], here.Sum(i => held[i]!.ComputeMicroseconds), here.Sum(i => held[i]!.CpuMicroseconds)));
        }

        if (moved.Count > 0)
        {
            GridTelemetry.Forwarded.Add(moved.Count);
        }

        foreach (var (partition, call) in moved)
        {
            if (await Answered(call).ConfigureAwait(false) is { } sums)
            {
                known[new ReductionTree.Node(partition, partition + 1)] = sums.Sums;
                turns.Add(sums.AsTurn(partition));
            }
            else
            {
                missing.Add(partition);
            }
        }

        for (var c = 0; c < below.Length; c++)
        {
            if (await Answered(below[c]).ConfigureAwait(false) is { } answer)
            {
                foreach (var node in answer.Nodes)
                {
                    known[node.Node] = node.Sums;
                }

                missing.AddRange(answer.Missing);
                turns.AddRange(answer.Turns);
                leaving.AddRange(answer.Leaving);
            }
            else
            {
                missing.AddRange(plan.Children[c].AllPartitions);
            }
        }

        ReductionTree.Merge(plan.Count, known);
        var nodes = known.OrderBy(n => n.Key.Lo).Select(n => new ReducedSums(n.Key.Lo, n.Key.Hi, n.Value)).ToArray();
        return new SiloTreeAnswer(nodes, [.. missing.Order()], [.. turns], Stopwatch.GetElapsedTime(arrived).TotalMicroseconds, arrived, Stopwatch.GetTimestamp()) { Leaving = [.. leaving] };
    }

    // A call's answer, or null when it failed (the caller asks its partitions again).
    private static async Task<T?> Answered<T>(Task<T> call) where T : class
    {
        try
        {
            return await call.ConfigureAwait(false);
        }
        catch (Exception)
        {
            return null;
        }
    }
}

/// <summary>The silo a coordinator runs on, whose partitions it computes in place, without a grain call.</summary>
public sealed record LocalSilo(string Identity, SiloPartitions Held, SiloCompute Compute);
