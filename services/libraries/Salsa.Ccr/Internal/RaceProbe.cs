using System.Runtime.CompilerServices;

namespace Salsa.Ccr.Internal;

/// <summary>
/// Named points inside the runtime where another thread may interleave. Tests install a probe that
/// yields or spins there, so the interleavings that would break an invariant happen in thousands of
/// trials rather than once a week; unset (always, outside tests) a point costs one static read.
/// </summary>
internal static class RaceProbe
{
    /// <summary>Between Interleave's "may this child commit?" decision and its counting of the accepted handler.</summary>
    public const string InterleaveCommit = "interleave.commit";

    /// <summary>Called with the point's name; tests only.</summary>
    public static Action<string>? Probe { get; set; }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void At(string point) => Probe?.Invoke(point);
}
