using System.Diagnostics;

namespace Salsa.Chemistry;

/// <summary>
/// Where a call into RDKit is: the molecule it is on (<see cref="Callback"/>, called by the script
/// before each) and when it started it, read by the engine's watchdog against <see cref="Budget"/>.
/// </summary>
/// <remarks>Design: the script's thread writes the molecule and its start; the watchdog's timer thread reads them. Both are single words, written and read with Volatile.</remarks>
internal sealed class RdkitProgress
{
    private long _started;
    private int _current = -1;
    private int _timedOut;

    public RdkitProgress(TimeSpan budget)
    {
        Budget = budget;
        Callback = Start;
    }

    /// <summary>The longest one molecule may take.</summary>
    public TimeSpan Budget { get; }

    /// <summary>Called by the script with the index of the molecule it starts (a .NET delegate is a function there).</summary>
    public Action<int> Callback { get; }

    /// <summary>The molecule the call is on, or was on when it ended; -1 before the first.</summary>
    public int Current => Volatile.Read(ref _current);

    /// <summary>Whether the watchdog stopped the call because <see cref="Current"/> took longer than <see cref="Budget"/>.</summary>
    public bool TimedOut => Volatile.Read(ref _timedOut) != 0;

    /// <summary>How often the watchdog looks: a quarter of the budget, between 10 ms and a quarter of a second.</summary>
    public TimeSpan CheckPeriod => TimeSpan.FromTicks(Math.Clamp(Budget.Ticks / 4, TimeSpan.TicksPerMillisecond * 10, TimeSpan.TicksPerMillisecond * 250));

    /// <summary>Whether the current molecule has passed its budget (and, the first time, that it has).</summary>
    public bool Overdue()
    {
        if (Volatile.Read(ref _current) < 0 || Stopwatch.GetElapsedTime(Volatile.Read(ref _started)) <= Budget)
        {
            return false;
        }

        Volatile.Write(ref _timedOut, 1);
        return true;
    }

    private void Start(int molecule)
    {
        Volatile.Write(ref _started, Stopwatch.GetTimestamp());
        Volatile.Write(ref _current, molecule);
    }
}
