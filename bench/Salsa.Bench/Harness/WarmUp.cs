using System.Diagnostics;

namespace Salsa.Bench.Harness;

/// <summary>
/// Passes run before the timed ones, on every side alike: for a least time and count, so the JIT
/// has compiled the pass's path (compute and messaging) at its last tier in every process. A fresh
/// silo's background compiler runs for seconds (some 0.7 s of CPU a second on this machine,
/// measured) and takes a core from the ranks; and a method is promoted only after 30 calls, which a
/// silo holding a third of a grid's partitions reaches passes later than one holding them all. A
/// few warm-up passes leave a silo's passes two to five times slower and count that as compute and
/// messaging.
/// </summary>
public sealed class WarmUp(int passes, TimeSpan least)
{
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private int _passes;

    /// <summary>The warm-up of passes that take milliseconds: 10 s and 60 passes (--quick: 3 s and 20).</summary>
    public static WarmUp ForShortPasses(bool quick) => quick ? new(20, TimeSpan.FromSeconds(3)) : new(60, TimeSpan.FromSeconds(10));

    /// <summary>What the warm-up asks, for a results page: "10 s and 60 passes".</summary>
    public string Describe() => $"{least.TotalSeconds:0.#} s and {passes} passes";

    /// <summary>Counts a pass just run; true once the warm-up is over (and from then on).</summary>
    public bool Over() => ++_passes > passes && _clock.Elapsed >= least;
}
