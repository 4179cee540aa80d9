using System.Runtime.CompilerServices;

namespace Salsa.Ccr.Internal;

/// <summary>
/// Named points inside the runtime that tests hook. At a point where another thread may interleave,
/// a probe that yields or spins makes the interleavings that would break an invariant happen in
/// thousands of trials rather than once a week; at a point the runtime reaches rarely, a probe tells
/// a test it got there, so the test waits for that event instead of for time to pass. Unset (always,
/// outside tests) a point costs one static read.
/// </summary>
internal static class RaceProbe
{
    /// <summary>Between Interleave's "may this child commit?" decision and its counting of the accepted handler.</summary>
    public const string InterleaveCommit = "interleave.commit";

    /// <summary>The deadlock watchdog found every rank stalled or returned while detection is off, and reported nothing.</summary>
    public const string DeadlockNotReported = "spmd.deadlock-not-reported";

    /// <summary>Called with the point's name; tests only.</summary>
    public static Action<string>? Probe { get; set; }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void At(string point) => Probe?.Invoke(point);
}
