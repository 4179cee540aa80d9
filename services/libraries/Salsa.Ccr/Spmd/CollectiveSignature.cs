using System.Collections.Concurrent;

namespace Salsa.Ccr;

/// <summary>The collectives a rank can enter; with a root and a value type they form its signature.</summary>
internal enum CollectiveKind : byte
{
    Barrier = 1,
    Broadcast,
    Allreduce,
    Reduce,
    Gather,
    Allgather,
}

// Design: every rank writes the signature of the collective it enters (kind, root, value type) beside
// the generation it publishes, double-buffered by parity like the data. A rank that reads another's
// data for generation g first compares signatures: ranks that called different collectives, roots or
// types fail with one clear error instead of reading a stale or missing contribution. The wait that
// made the data readable made the signature readable, so the check costs a compare per rank read.
internal static class CollectiveSignature
{
    public static long Of(CollectiveKind kind, int root, int typeKey) =>
        (long)kind | ((long)(root + 1) << 8) | ((long)(typeKey + 1) << 32);

    public static string Describe(long signature)
    {
        if (signature == 0)
        {
            return "none";
        }

        var kind = (CollectiveKind)(signature & 0xFF);
        var root = (int)((signature >> 8) & 0xFFFFFF) - 1;
        var typeKey = (int)(signature >> 32) - 1;

        var type = typeKey >= 0 ? $"<{TypeKeys.NameOf(typeKey)}>" : "";
        return root >= 0 ? $"{kind}{type}(root {root})" : $"{kind}{type}";
    }

    /// <summary>The error every rank that notices the disagreement throws, worded from the shared state.</summary>
    public static InvalidOperationException Disagreement(RankState[] ranks, long generation)
    {
        var calls = ranks
            .Select((rank, index) => (Index: index, Call: Volatile.Read(ref rank.Published.Generation) >= generation
                ? Describe(rank.Published.Signature(generation))
                : "not there yet"))
            .GroupBy(r => r.Call, r => r.Index)
            .Select(g => $"{(g.Count() == 1 ? "rank" : "ranks")} {string.Join(", ", g)}: {g.Key}");
        return new InvalidOperationException(
            $"The ranks called different collectives as collective #{generation} ({string.Join("; ", calls)}). " +
            "Every rank must call the same collectives in the same order, with the same root and value type.");
    }
}

/// <summary>A small dense id per message type, for array-indexed per-type tables.</summary>
internal static class TypeKey<T>
{
    public static readonly int Id = TypeKeys.Next(typeof(T));
}

internal static class TypeKeys
{
    private static readonly ConcurrentDictionary<int, Type> s_types = new();
    private static int s_next = -1;

    public static int Next() => Interlocked.Increment(ref s_next);

    public static int Next(Type type)
    {
        var id = Next();
        s_types[id] = type;
        return id;
    }

    public static string NameOf(int id) => s_types.TryGetValue(id, out var type) ? type.Name : $"type {id}";
}
