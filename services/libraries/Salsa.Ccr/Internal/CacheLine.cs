using System.Runtime.InteropServices;

namespace Salsa.Ccr.Internal;

/// <summary>
/// Cache-line geometry. x64 parts fetch adjacent 64-byte lines in pairs (the spatial prefetcher),
/// so two values written by different cores must be 128 bytes apart to never share a fetch unit —
/// the same choice as the BCL's internal <c>PaddingHelpers.CACHE_LINE_SIZE</c>.
/// </summary>
internal static class CacheLine
{
    public const int Size = 128;

    /// <summary>Doubles per padded unit.</summary>
    public const int Doubles = Size / sizeof(double);
}

/// <summary>A <see cref="long"/> alone on its cache lines.</summary>
[StructLayout(LayoutKind.Explicit, Size = CacheLine.Size * 2)]
internal struct PaddedLong
{
    [FieldOffset(CacheLine.Size)]
    public long Value;
}

/// <summary>An <see cref="int"/> alone on its cache lines.</summary>
[StructLayout(LayoutKind.Explicit, Size = CacheLine.Size * 2)]
internal struct PaddedInt
{
    [FieldOffset(CacheLine.Size)]
    public int Value;
}
