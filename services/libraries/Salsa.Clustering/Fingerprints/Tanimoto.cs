using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Salsa.Clustering.Fingerprints;

/// <summary>
/// Tanimoto (Jaccard) similarity of bit fingerprints, |a∧b| / |a∨b|, and its distance 1 − similarity
/// (the Soergel distance, a metric). Two empty prints are identical: 0/0 is defined as similarity 1.
/// </summary>
/// <remarks>
/// Only |a∧b| is counted: |a∨b| = |a| + |b| − |a∧b|, and every caller already knows |a| and |b|.
/// .NET 10 exposes no AVX-512 VPOPCNTQ intrinsic (nor a vector PopCount), so the count uses the
/// nibble-table method (VPSHUFB + VPSADBW) on AVX-512BW, or AVX2, and POPCNT per word elsewhere.
/// On this project's Zen 5 machine, for 1,024-bit ECFP4 pairs called pair by pair, AVX-512BW took
/// 3.8 ns a pair against 5.1 ns for a fully unrolled POPCNT loop and 8.4 ns for a four-chain one; the
/// one-against-many <see cref="CommonBitsRun"/>, which keeps the query in registers, 2.4 ns.
/// Every distance anywhere in the library is <c>1.0 − (double)common / union</c>, computed by
/// <see cref="DistanceFromCounts"/>, so thresholds and ties compare the same bits everywhere.
/// </remarks>
public static class Tanimoto
{
    /// <summary>Set bits of each nibble value, repeated for every 128-bit lane (VPSHUFB looks up within lanes).</summary>
    private static ReadOnlySpan<byte> NibbleCounts =>
    [
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
    ];

    /// <summary>Similarity of two packed fingerprints of the same length.</summary>
    public static double Similarity(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        CheckLengths(a, b);
        return SimilarityFromCounts(CommonBits(a, b), PopCount(a), PopCount(b));
    }

    /// <summary>Soergel distance 1 − similarity of two packed fingerprints of the same length.</summary>
    public static double Distance(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        CheckLengths(a, b);
        return DistanceFromCounts(CommonBits(a, b), PopCount(a), PopCount(b));
    }

    /// <summary>Similarity of points <paramref name="i"/> and <paramref name="j"/> of a set.</summary>
    public static double Similarity(BinaryVectors points, int i, int j)
    {
        ArgumentNullException.ThrowIfNull(points);
        return SimilarityFromCounts(CommonBits(points.Fingerprint(i), points.Fingerprint(j)), points.PopCount(i), points.PopCount(j));
    }

    /// <summary>Distance of points <paramref name="i"/> and <paramref name="j"/> of a set.</summary>
    public static double Distance(BinaryVectors points, int i, int j)
    {
        ArgumentNullException.ThrowIfNull(points);
        return DistanceFromCounts(CommonBits(points.Fingerprint(i), points.Fingerprint(j)), points.PopCount(i), points.PopCount(j));
    }

    /// <summary>c / (|a| + |b| − c), with 0/0 = 1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static double SimilarityFromCounts(int common, int popCountA, int popCountB)
    {
        var union = popCountA + popCountB - common;
        return union == 0 ? 1.0 : (double)common / union;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static double DistanceFromCounts(int common, int popCountA, int popCountB) =>
        1.0 - SimilarityFromCounts(common, popCountA, popCountB);

    /// <summary>
    /// Tanimoto(a, b) ≤ min(|a|,|b|) / max(|a|,|b|): the best similarity two prints with these bit
    /// counts can have. Correctly rounded division and subtraction are monotone, so the distance bound
    /// computed here never exceeds a distance <see cref="DistanceFromCounts"/> computes for such a pair:
    /// a pair whose bound is above a threshold is above it exactly.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static double SimilarityBound(int popCountA, int popCountB)
    {
        var (low, high) = popCountA <= popCountB ? (popCountA, popCountB) : (popCountB, popCountA);
        return high == 0 ? 1.0 : (double)low / high;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static double DistanceBound(int popCountA, int popCountB) => 1.0 - SimilarityBound(popCountA, popCountB);

    /// <summary>Set bits of a packed fingerprint.</summary>
    public static int PopCount(ReadOnlySpan<ulong> a)
    {
        var count = 0;
        foreach (var word in a)
        {
            count += BitOperations.PopCount(word);
        }

        return count;
    }

    /// <summary>|a ∧ b|: the hot loop of every fingerprint algorithm. Lengths are the caller's to check.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int CommonBits(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        if (Avx512BW.IsSupported && a.Length >= 8)
        {
            return CommonBitsAvx512(a, b);
        }

        return Avx2.IsSupported && a.Length >= 4 ? CommonBitsAvx2(a, b) : CommonBitsScalar(a, b);
    }

    /// <summary>
    /// counts[r] = |query ∧ row r| for consecutive rows of <paramref name="rows"/>, each as long as the
    /// query: the one-against-many loop of the neighbour search and of brute-force search. For 1,024-bit
    /// prints on AVX-512BW the query stays in two registers for the whole run.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal static void CommonBitsRun(ReadOnlySpan<ulong> query, ReadOnlySpan<ulong> rows, Span<int> counts)
    {
        var words = query.Length;
        if (Avx512BW.IsSupported && words == 16)
        {
            CommonBitsRun1024(query, rows, counts);
            return;
        }

        for (var r = 0; r < counts.Length; r++)
        {
            counts[r] = CommonBits(query, rows.Slice(r * words, words));
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void CommonBitsRun1024(ReadOnlySpan<ulong> query, ReadOnlySpan<ulong> rows, Span<int> counts)
    {
        if (rows.Length < counts.Length * 16)
        {
            throw new ArgumentException("Fewer rows than counts.", nameof(rows));
        }

        ref var q = ref Unsafe.As<ulong, byte>(ref MemoryMarshal.GetReference(query));
        ref var row = ref Unsafe.As<ulong, byte>(ref MemoryMarshal.GetReference(rows));
        var q0 = Vector512.LoadUnsafe(ref q);
        var q1 = Vector512.LoadUnsafe(ref q, 64);
        var table = Vector512.Create(NibbleCounts);
        var low = Vector512.Create((byte)0x0F);
        for (var r = 0; r < counts.Length; r++)
        {
            var v0 = q0 & Vector512.LoadUnsafe(ref row, (nuint)r * 128);
            var v1 = q1 & Vector512.LoadUnsafe(ref row, (nuint)r * 128 + 64);
            var c = Avx512BW.Shuffle(table, v0 & low) + Avx512BW.Shuffle(table, Avx512BW.ShiftRightLogical(v0.AsUInt16(), 4).AsByte() & low)
                + Avx512BW.Shuffle(table, v1 & low) + Avx512BW.Shuffle(table, Avx512BW.ShiftRightLogical(v1.AsUInt16(), 4).AsByte() & low);
            counts[r] = (int)Vector512.Sum(Avx512BW.SumAbsoluteDifferences(c, Vector512<byte>.Zero).AsUInt64());
        }
    }

    /// <summary>The portable count: POPCNT per word, four independent chains so the adds do not wait on each other.</summary>
    internal static int CommonBitsScalar(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        ref var x = ref MemoryMarshal.GetReference(a);
        ref var y = ref MemoryMarshal.GetReference(b);
        var n = a.Length;
        int c0 = 0, c1 = 0, c2 = 0, c3 = 0, i = 0;
        for (; i + 4 <= n; i += 4)
        {
            c0 += BitOperations.PopCount(Unsafe.Add(ref x, i) & Unsafe.Add(ref y, i));
            c1 += BitOperations.PopCount(Unsafe.Add(ref x, i + 1) & Unsafe.Add(ref y, i + 1));
            c2 += BitOperations.PopCount(Unsafe.Add(ref x, i + 2) & Unsafe.Add(ref y, i + 2));
            c3 += BitOperations.PopCount(Unsafe.Add(ref x, i + 3) & Unsafe.Add(ref y, i + 3));
        }

        for (; i < n; i++)
        {
            c0 += BitOperations.PopCount(Unsafe.Add(ref x, i) & Unsafe.Add(ref y, i));
        }

        return c0 + c1 + c2 + c3;
    }

    /// <summary>
    /// 64 bytes at a time: each byte's bits counted by a 16-entry table lookup per nibble (VPSHUFB),
    /// byte counts summed by VPSADBW every 16 blocks (16 × 8 = 128 fits a byte).
    /// </summary>
    internal static int CommonBitsAvx512(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        ref var x = ref Unsafe.As<ulong, byte>(ref MemoryMarshal.GetReference(a));
        ref var y = ref Unsafe.As<ulong, byte>(ref MemoryMarshal.GetReference(b));
        var table = Vector512.Create(NibbleCounts);
        var low = Vector512.Create((byte)0x0F);
        var blocks = a.Length / 8;
        var total = Vector512<ulong>.Zero;
        var counts = Vector512<byte>.Zero;
        for (var block = 0; block < blocks; block++)
        {
            var v = Vector512.LoadUnsafe(ref x, (nuint)(block * 64)) & Vector512.LoadUnsafe(ref y, (nuint)(block * 64));
            counts += Avx512BW.Shuffle(table, v & low) + Avx512BW.Shuffle(table, Avx512BW.ShiftRightLogical(v.AsUInt16(), 4).AsByte() & low);
            if ((block & 15) == 15)
            {
                total += Avx512BW.SumAbsoluteDifferences(counts, Vector512<byte>.Zero).AsUInt64();
                counts = Vector512<byte>.Zero;
            }
        }

        total += Avx512BW.SumAbsoluteDifferences(counts, Vector512<byte>.Zero).AsUInt64();
        return (int)Vector512.Sum(total) + CommonBitsScalar(a[(blocks * 8)..], b[(blocks * 8)..]);
    }

    /// <summary>The same as <see cref="CommonBitsAvx512"/>, 32 bytes at a time.</summary>
    internal static int CommonBitsAvx2(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        ref var x = ref Unsafe.As<ulong, byte>(ref MemoryMarshal.GetReference(a));
        ref var y = ref Unsafe.As<ulong, byte>(ref MemoryMarshal.GetReference(b));
        var table = Vector256.Create(NibbleCounts);
        var low = Vector256.Create((byte)0x0F);
        var blocks = a.Length / 4;
        var total = Vector256<ulong>.Zero;
        var counts = Vector256<byte>.Zero;
        for (var block = 0; block < blocks; block++)
        {
            var v = Vector256.LoadUnsafe(ref x, (nuint)(block * 32)) & Vector256.LoadUnsafe(ref y, (nuint)(block * 32));
            counts += Avx2.Shuffle(table, v & low) + Avx2.Shuffle(table, Avx2.ShiftRightLogical(v.AsUInt16(), 4).AsByte() & low);
            if ((block & 15) == 15)
            {
                total += Avx2.SumAbsoluteDifferences(counts, Vector256<byte>.Zero).AsUInt64();
                counts = Vector256<byte>.Zero;
            }
        }

        total += Avx2.SumAbsoluteDifferences(counts, Vector256<byte>.Zero).AsUInt64();
        return (int)Vector256.Sum(total) + CommonBitsScalar(a[(blocks * 4)..], b[(blocks * 4)..]);
    }

    private static void CheckLengths(ReadOnlySpan<ulong> a, ReadOnlySpan<ulong> b)
    {
        if (a.Length != b.Length)
        {
            throw new ClusteringInputException($"Fingerprints of different lengths cannot be compared: {a.Length} and {b.Length} 64-bit words.");
        }
    }
}
