using System.Runtime.CompilerServices;


namespace Salsa.Ccr;

public sealed partial class Communicator
{

    // ---- collectives ---------------------------------------------------------------------------

    public void Barrier()
    {
        var generation = Enter(Signature(CollectiveKind.Barrier));
        Publish(generation);
        Wait(new AllRanksReached(_group.Ranks, generation));
        CheckAgreement(generation);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask BarrierAsync()
    {
        var generation = await EnterAsync(Signature(CollectiveKind.Barrier)).ConfigureAwait(true);
        Publish(generation);
        await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
        CheckAgreement(generation);
    }

    /// <summary>Every rank gets <paramref name="root"/>'s value.</summary>
    public T Broadcast<T>(T value, int root = 0)
    {
        CheckRank(root, nameof(root));
        var generation = Enter(Signature<T>(CollectiveKind.Broadcast, root));
        var slots = _group.Slots<T>();
        if (Rank == root)
        {
            slots[Rank, generation] = value;
        }

        Publish(generation);
        if (Rank == root)
        {
            return value;
        }

        Wait(new RankReached(_group.Ranks[root], generation));
        CheckAgreement(generation, root);
        return slots[root, generation];
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T> BroadcastAsync<T>(T value, int root = 0)
    {
        CheckRank(root, nameof(root));
        var generation = await EnterAsync(Signature<T>(CollectiveKind.Broadcast, root)).ConfigureAwait(true);
        var slots = _group.Slots<T>();
        if (Rank == root)
        {
            slots[Rank, generation] = value;
        }

        Publish(generation);
        if (Rank == root)
        {
            return value;
        }

        await WaitAsync(new RankReached(_group.Ranks[root], generation)).ConfigureAwait(true);
        CheckAgreement(generation, root);
        return slots[root, generation];
    }

    /// <summary>Element-wise reduction of every rank's <paramref name="send"/> into every rank's <paramref name="receive"/> (may be the same memory).</summary>
    public void Allreduce(ReadOnlySpan<double> send, Span<double> receive, ReduceOperation operation)
    {
        ArgumentNullException.ThrowIfNull(operation);
        CheckLengths(send.Length, receive.Length);
        var generation = Enter(Signature<double>(CollectiveKind.Allreduce));
        StageContribution(send, generation);
        Publish(generation);
        Wait(new AllRanksReached(_group.Ranks, generation));
        CheckAgreement(generation);
        Fold(receive, operation, generation);
    }

    /// <summary>In-place <see cref="Allreduce(ReadOnlySpan{double}, Span{double}, ReduceOperation)"/>.</summary>
    public void Allreduce(double[] values, ReduceOperation operation) => Allreduce(values, values, operation);

    public double Allreduce(double value, ReduceOperation operation)
    {
        Span<double> buffer = [value];
        Allreduce(buffer, buffer, operation);
        return buffer[0];
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask AllreduceAsync(ReadOnlyMemory<double> send, Memory<double> receive, ReduceOperation operation)
    {
        ArgumentNullException.ThrowIfNull(operation);
        CheckLengths(send.Length, receive.Length);
        var generation = await EnterAsync(Signature<double>(CollectiveKind.Allreduce)).ConfigureAwait(true);
        StageContribution(send.Span, generation);
        Publish(generation);
        await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
        CheckAgreement(generation);
        Fold(receive.Span, operation, generation);
    }

    /// <summary>Reduction into <paramref name="root"/>'s <paramref name="receive"/>; other ranks' <paramref name="receive"/> is untouched.</summary>
    public void Reduce(ReadOnlySpan<double> send, Span<double> receive, ReduceOperation operation, int root = 0)
    {
        ArgumentNullException.ThrowIfNull(operation);
        CheckRank(root, nameof(root));
        CheckLengths(send.Length, receive.Length);
        var generation = Enter(Signature<double>(CollectiveKind.Reduce, root));
        StageContribution(send, generation);
        Publish(generation);
        if (Rank == root)
        {
            Wait(new AllRanksReached(_group.Ranks, generation));
            CheckAgreement(generation);
            Fold(receive, operation, generation);
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask ReduceAsync(ReadOnlyMemory<double> send, Memory<double> receive, ReduceOperation operation, int root = 0)
    {
        ArgumentNullException.ThrowIfNull(operation);
        CheckRank(root, nameof(root));
        CheckLengths(send.Length, receive.Length);
        var generation = await EnterAsync(Signature<double>(CollectiveKind.Reduce, root)).ConfigureAwait(true);
        StageContribution(send.Span, generation);
        Publish(generation);
        if (Rank == root)
        {
            await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
            CheckAgreement(generation);
            Fold(receive.Span, operation, generation);
        }
    }

    /// <summary>Reduction of any type with a user combination, folded in rank order; every rank gets the result.</summary>
    public T Allreduce<T>(T value, Func<T, T, T> combine)
    {
        ArgumentNullException.ThrowIfNull(combine);
        var all = Allgather(value);
        var result = all[0];
        for (var r = 1; r < all.Length; r++)
        {
            result = combine(result, all[r]);
        }

        return result;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T> AllreduceAsync<T>(T value, Func<T, T, T> combine)
    {
        ArgumentNullException.ThrowIfNull(combine);
        var all = await AllgatherAsync(value).ConfigureAwait(true);
        var result = all[0];
        for (var r = 1; r < all.Length; r++)
        {
            result = combine(result, all[r]);
        }

        return result;
    }

    /// <summary><paramref name="root"/> gets every rank's value in rank order; other ranks get null.</summary>
    public T[]? Gather<T>(T value, int root = 0)
    {
        CheckRank(root, nameof(root));
        var generation = Enter(Signature<T>(CollectiveKind.Gather, root));
        var slots = _group.Slots<T>();
        slots[Rank, generation] = value;
        Publish(generation);
        if (Rank != root)
        {
            return null;
        }

        Wait(new AllRanksReached(_group.Ranks, generation));
        CheckAgreement(generation);
        return Collect(slots, generation);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T[]?> GatherAsync<T>(T value, int root = 0)
    {
        CheckRank(root, nameof(root));
        var generation = await EnterAsync(Signature<T>(CollectiveKind.Gather, root)).ConfigureAwait(true);
        var slots = _group.Slots<T>();
        slots[Rank, generation] = value;
        Publish(generation);
        if (Rank != root)
        {
            return null;
        }

        await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
        CheckAgreement(generation);
        return Collect(slots, generation);
    }

    /// <summary>Every rank gets every rank's value, in rank order.</summary>
    public T[] Allgather<T>(T value)
    {
        var generation = Enter(Signature<T>(CollectiveKind.Allgather));
        var slots = _group.Slots<T>();
        slots[Rank, generation] = value;
        Publish(generation);
        Wait(new AllRanksReached(_group.Ranks, generation));
        CheckAgreement(generation);
        return Collect(slots, generation);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T[]> AllgatherAsync<T>(T value)
    {
        var generation = await EnterAsync(Signature<T>(CollectiveKind.Allgather)).ConfigureAwait(true);
        var slots = _group.Slots<T>();
        slots[Rank, generation] = value;
        Publish(generation);
        await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
        CheckAgreement(generation);
        return Collect(slots, generation);
    }
}
