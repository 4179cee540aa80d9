using System.Diagnostics;

namespace Salsa.Grid.Partitions;

/// <summary>The elastic grid: partitions follow the cluster's silos between passes (docs/grid.md).</summary>
public sealed partial class GrainPartitions
{
    // The elastic grid: the cluster's active silos (null: the grid stays where it was placed), the
    // silos that said they are leaving, the move being prepared, and the moves made.
    private Func<IReadOnlyCollection<string>>? _members;
    private readonly HashSet<string> _leaving = new(StringComparer.Ordinal);
    private PendingMove? _pending;
    private long _lastMembershipCheck;
    private long _moved;
    private long _moves;

    /// <summary>
    /// Makes the grid elastic: between passes (<see cref="Rebalance"/>) the partitions follow
    /// <paramref name="members"/> (the cluster's active silos, by identity) — a silo that joined gets
    /// its share, a silo that said it is leaving hands its partitions over.
    /// </summary>
    public GrainPartitions Elastic(Func<IReadOnlyCollection<string>> members)
    {
        _members = members ?? throw new ArgumentNullException(nameof(members));
        return this;
    }

    /// <summary>Partitions moved on purpose so far (a join, a leave), and the moves that took them.</summary>
    public (long Partitions, long Moves) Moved => (Interlocked.Read(ref _moved), Interlocked.Read(ref _moves));

    /// <summary>Whether a move is prepared and waits for its rows to be loaded on the silos it goes to.</summary>
    public bool Moving => _pending is not null;

    /// <summary>
    /// Between two passes of an elastic grid, where nothing of a pass is in flight: compares where
    /// its partitions are with where placement puts them over the active silos that are not leaving
    /// (<see cref="RangePlacement"/>: contiguous equal runs, the fewest moved), at most twice a second. Partitions
    /// to move have their rows loaded on the silos they go to while passes go on
    /// (<see cref="ISiloPassGrain.PrefetchAsync"/>); before the first pass after that, they move
    /// (<see cref="IPartitionGrain.MoveAsync"/>) and that pass finds them there. The bits do not
    /// change: a partition's sums depend only on the pass and its rows, and the order of addition
    /// is the reduction tree's. A boundary of the algorithm (a temperature, a Lloyd iteration) is one
    /// such point; so is every pass within one.
    /// </summary>
    private void Rebalance(CancellationToken cancellationToken)
    {
        if (_members is not { } members)
        {
            return;
        }

        if (_pending is { } pending)
        {
            if (!pending.Loaded.IsCompleted)
            {
                return;
            }

            _pending = null;
            if (!pending.Loaded.IsCompletedSuccessfully)
            {
                return; // a target went away while loading: planned again before a later pass
            }

            var moves = pending.Partitions.Select(i => _grains[i].MoveAsync(pending.Targets[i]).WaitAsync(PassTimeout, cancellationToken)).ToArray();
            try
            {
                Task.WhenAll(moves).GetAwaiter().GetResult();
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // A partition not moved stays where it is; planned again before a later pass.
            }

            // The next pass asks the silos they went to (one that does not hold a partition yet
            // forwards it to its grain), not the silo they left, which may be gone by then.
            lock (_lock)
            {
                foreach (var (i, move) in pending.Partitions.Zip(moves))
                {
                    if (move.IsCompletedSuccessfully)
                    {
                        _homes[i] = pending.Targets[i];
                    }
                }
            }

            Interlocked.Add(ref _moved, moves.Count(m => m.IsCompletedSuccessfully));
            Interlocked.Increment(ref _moves);
            GridTelemetry.Moved.Add(moves.Count(m => m.IsCompletedSuccessfully));
            return;
        }

        // The membership at most twice a second: a short job's passes come every few hundred microseconds.
        if (Stopwatch.GetElapsedTime(Interlocked.Read(ref _lastMembershipCheck)) < TimeSpan.FromMilliseconds(500))
        {
            return;
        }

        Interlocked.Exchange(ref _lastMembershipCheck, Stopwatch.GetTimestamp());
        string[] homes;
        string[] active;
        lock (_lock)
        {
            homes = [.. _homes];
            active = [.. members().Where(m => !_leaving.Contains(m)).Order(StringComparer.Ordinal)];
        }

        if (active.Length == 0)
        {
            return;
        }

        var targets = RangePlacement.Targets(homes, active);
        var moving = Enumerable.Range(0, homes.Length).Where(i => homes[i] != targets[i]).ToArray();
        if (moving.Length == 0)
        {
            return;
        }

        // Sent from a clean context: the job's loop thread carries its coordinator grain's, and
        // calls it starts without waiting for them were held until the job ended (measured: the
        // rows of a join loaded 19 s late, the job over by then).
        Task loaded;
        using (ExecutionContext.SuppressFlow())
        {
            loaded = Task.Run(() => Task.WhenAll(moving.GroupBy(i => targets[i], StringComparer.Ordinal)
                .Select(g => _factory.GetGrain<ISiloPassGrain>(g.Key).PrefetchAsync(_datasetId, _grains.Length, [.. g]))));
        }

        _pending = new PendingMove(moving, targets, loaded);
    }

    private sealed record PendingMove(int[] Partitions, string[] Targets, Task Loaded);
}
